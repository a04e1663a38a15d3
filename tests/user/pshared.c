// pshared: futexes between processes, against Linux's: a shared wait in memory shared across
// fork, or in one file mapped by two processes at different addresses, is woken by the other
// process; a private one is not; then the C library's process-shared mutex, condition variable
// and semaphore between a parent and its child. A lost wake-up fails by alarm, not by hanging.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "pshared"
#include "check.h"

static long
futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
  return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

// Wakes one waiter on w with op, trying for up to 10 s, until one was there to wake: 1, else 0.
// The child may not be asleep yet at the first try.
static long
wake_one(uint32_t *w, int op)
{
  for(int i = 0; i < 2000; i++) {
    long n = futex(w, op, 1, NULL);
    if(n != 0)
      return n;
    usleep(5000);
  }
  return 0;
}

// The child waits on word (shared or private op), exits 0 when woken, 2 on its timeout.
static pid_t
waiter(uint32_t *word, int op, const struct timespec *ts)
{
  pid_t c = fork();
  if(c == 0) {
    long r = futex(word, op, 0, ts);
    _exit(r == 0 ? 0 : errno == ETIMEDOUT ? 2 : 3);
  }
  return c;
}

static int
status_of(pid_t c)
{
  int st = -1;
  return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
raw_futexes(void)
{
  uint32_t *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  check(shm != MAP_FAILED, "MAP_SHARED|MAP_ANONYMOUS page");
  // A shared wait in memory shared across fork: the parent's wake reaches it.
  pid_t c = waiter(&shm[1], FUTEX_WAIT, NULL);
  check(wake_one(&shm[1], FUTEX_WAKE) == 1, "a shared wake reaches the child's shared wait");
  check(status_of(c) == 0, "the child was woken");
  // Private: keyed by address space, so the parent's private wake finds nobody; the child
  // times out.
  struct timespec ts = { 0, 300000000 };
  c = waiter(&shm[2], FUTEX_WAIT_PRIVATE, &ts);
  usleep(50000);
  check(futex(&shm[2], FUTEX_WAKE_PRIVATE, 1, NULL) == 0 &&
        futex(&shm[2], FUTEX_WAKE, 1, NULL) == 0, "no wake reaches another process's private wait");
  check(status_of(c) == 2, "the child's private wait timed out");
  // Private memory is copied at fork: a shared wait there is the child's own.
  static uint32_t priv;
  c = waiter(&priv, FUTEX_WAIT, &ts);
  usleep(50000);
  check(futex(&priv, FUTEX_WAKE, 1, NULL) == 0, "private memory: the child's wait is its own");
  check(status_of(c) == 2, "the child's wait in private memory timed out");

  // One file, mapped by two processes at different addresses (the child maps it again, with
  // the parent's mapping in the way): the key is the file and the offset.
  int fd = open("pshared.map", O_CREAT | O_RDWR | O_TRUNC, 0600);
  check(fd >= 0 && ftruncate(fd, 8192) == 0, "a file of two pages");
  uint32_t *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  check(m != MAP_FAILED, "map it shared");
  c = fork();
  if(c == 0) {
    uint32_t *m2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
    if(m2 == MAP_FAILED || m2 == m + 1024)
      _exit(4);
    _exit(futex(&m2[7], FUTEX_WAIT, 0, NULL) == 0 ? 0 : 3);
  }
  check(wake_one(&m[1024 + 7], FUTEX_WAKE) == 1, "a wake at the same offset of the file reaches it");
  check(status_of(c) == 0, "the child, at its own address, was woken");
  // The errnos: no mapping for a shared futex, an unaligned one.
  munmap(m, 8192);
  close(fd);
  unlink("pshared.map");
  uint32_t *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(gone, 4096);
  FAILS(futex(gone, FUTEX_WAKE, 1, NULL), EFAULT);
  FAILS(futex(gone, FUTEX_WAIT, 0, NULL), EFAULT);
  FAILS(futex((uint32_t *)((char *)shm + 1), FUTEX_WAKE, 1, NULL), EINVAL);
  check(futex(gone, FUTEX_WAKE_PRIVATE, 1, NULL) == 0, "a private wake needs no mapping");
  munmap(shm, 4096);
}

// What the C library builds on them: a process-shared mutex two processes take 20000 times
// in all, a condition variable and a semaphore across fork.
struct shared {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  sem_t sem;
  long count;
  int ready;
};

static void
library(void)
{
  struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
  check(s != MAP_FAILED, "shared page");
  pthread_mutexattr_t ma;
  pthread_condattr_t ca;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
  pthread_condattr_init(&ca);
  pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
  check(pthread_mutex_init(&s->mu, &ma) == 0 && pthread_cond_init(&s->cv, &ca) == 0 &&
        sem_init(&s->sem, 1, 0) == 0, "process-shared mutex, condition variable, semaphore");
  pid_t c = fork();
  if(c == 0) {
    for(int i = 0; i < 10000; i++) {
      pthread_mutex_lock(&s->mu);
      s->count++;
      pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    s->ready = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    usleep(100000);   // the parent asleep in sem_wait by now, most often
    sem_post(&s->sem);
    _exit(0);
  }
  for(int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&s->mu);
    s->count++;
    pthread_mutex_unlock(&s->mu);
  }
  pthread_mutex_lock(&s->mu);
  while(!s->ready)
    pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  check(s->ready == 1, "the child's signal woke the parent's condition wait");
  check(sem_wait(&s->sem) == 0, "the child's sem_post woke the parent's sem_wait");
  check(status_of(c) == 0, "the child ended");
  check(s->count == 20000, "20000 increments under the shared mutex, none lost");
  munmap(s, sizeof(*s));
}

static void
on_alarm(int sig)
{
  (void)sig;
  static const char msg[] = "pshared: FAILED a wake-up was lost: 60 s alarm\n";
  if(write(1, msg, sizeof(msg) - 1) < 0)
    _exit(1);
  _exit(1);
}

int
main(int argc, char **argv)
{
  const char *at = argc > 1 ? argv[1] : "/tmp";
  if(argc < 2 && mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("pshared: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  check(chdir(at) == 0, "chdir to the directory");
  signal(SIGALRM, on_alarm);
  alarm(60);
  raw_futexes();
  library();
  printf("pshared: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 20;
}
