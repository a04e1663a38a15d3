// sysvipc: System V shared memory and semaphores against Linux's answers: keys, sizes and
// ids; a segment shared across fork and attached twice; read-only attachments; shmdt; a
// removed segment kept by its attachments; semop all or nothing, sleepers woken by another
// process (GETNCNT, GETZCNT), timeouts, EINTR, EIDRM, SEM_UNDO at exit; and the errnos.
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "sysvipc"
#include "check.h"

union semun {
  int val;
  struct semid_ds *buf;
  unsigned short *array;
};

static int
status_of(pid_t c)
{
  int st = -1;
  if(c <= 0 || waitpid(c, &st, 0) != c)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static void
shared_memory(void)
{
  key_t key = 0x5157 + getpid();
  FAILS(shmget(IPC_PRIVATE, 0, 0600), EINVAL);
  FAILS(shmget(key, 4096, 0600), ENOENT);
  int id = shmget(key, 10000, IPC_CREAT | 0600);
  check(id >= 0, "shmget a key, 10000 bytes");
  FAILS(shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
  FAILS(shmget(key, 20000, 0600), EINVAL);
  check(shmget(key, 4096, 0600) == id, "the key again: the same id");
  char *a = shmat(id, NULL, 0);
  check(a != (void *)-1, "shmat where the kernel chooses");
  strcpy(a, "parent");
  struct shmid_ds ds;
  check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_segsz == 10000 && ds.shm_nattch == 1 &&
        ds.shm_cpid == getpid() && (ds.shm_perm.mode & 0777) == 0600 &&
        ds.shm_perm.__key == key, "IPC_STAT: size, one attachment, creator, mode, key");
  // A child inherits the attachment, attaches again elsewhere, and writes through both.
  pid_t c = fork();
  if(c == 0) {
    char *b = shmat(id, NULL, 0);
    struct shmid_ds cds;
    int ok = b != (void *)-1 && b != a && strcmp(b, "parent") == 0 &&
             shmctl(id, IPC_STAT, &cds) == 0 && cds.shm_nattch == 3;
    strcpy(b + 100, "child, second attachment");
    strcpy(a + 200, "child, inherited");
    _exit(ok && shmdt(b) == 0 ? 0 : 1);
  }
  check(status_of(c) == 0, "the child sees the parent's bytes, three attachments");
  check(strcmp(a + 100, "child, second attachment") == 0 && strcmp(a + 200, "child, inherited") == 0,
        "the parent sees the child's, through either attachment");
  // A read-only attachment: a store is SIGSEGV.
  c = fork();
  if(c == 0) {
    char *r = shmat(id, NULL, SHM_RDONLY);
    if(r == (void *)-1 || r[0] != 'p')
      _exit(2);
    r[0] = 'x';
    _exit(0);
  }
  check(status_of(c) == 1000 + SIGSEGV, "SHM_RDONLY: a store is SIGSEGV");
  FAILS(shmat(id, (void *)((unsigned long)a + 1), 0), EINVAL);
  FAILS(shmat(id, a, 0), EINVAL);   // mapped already: SHM_REMAP would be needed
  FAILS(shmat(id + 1000000, NULL, 0), EINVAL);
  FAILS(shmdt(a + 1), EINVAL);
  FAILS(shmdt((char *)&ds), EINVAL);
  char *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  FAILS(shmdt(anon), EINVAL);   // shared anonymous memory is no attachment
  munmap(anon, 4096);
  FAILS(shmctl(id, 99, &ds), EINVAL);
  FAILS(shmctl(id, IPC_STAT, (struct shmid_ds *)8), EFAULT);
  // Removed while attached: the id goes, the memory stays with the attachment.
  check(shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID while attached");
  check(shmget(key, 4096, 0600) == -1 && errno == ENOENT, "the key is free again");
  check(strcmp(a, "parent") == 0, "the attachment still holds the bytes");
  check(shmdt(a) == 0, "shmdt");
  FAILS(shmdt(a), EINVAL);
  FAILS(shmctl(id, IPC_STAT, &ds), EINVAL);
}

static pid_t
sem_child(int id, int num, int op, int flg)
{
  pid_t c = fork();
  if(c == 0) {
    struct sembuf b = { (unsigned short)num, (short)op, (short)flg };
    if(semop(id, &b, 1) == 0)
      _exit(0);
    _exit(errno == EIDRM ? 3 : errno == EINTR ? 4 : 2);
  }
  return c;
}

// Waits up to 10 s for cmd (GETNCNT, GETZCNT) on num to say n sleepers.
static int
sleepers(int id, int num, int cmd, int n)
{
  for(int i = 0; i < 2000; i++) {
    if(semctl(id, num, cmd) == n)
      return 1;
    usleep(5000);
  }
  return 0;
}

static void
on_alarm(int sig)
{
  (void)sig;
}

static void
semaphores(void)
{
  FAILS(semget(IPC_PRIVATE, 0, 0600), EINVAL);
  FAILS(semget(IPC_PRIVATE, 40000, 0600), EINVAL);
  int id = semget(IPC_PRIVATE, 3, 0600);
  check(id >= 0, "semget 3");
  struct semid_ds ds;
  check(semctl(id, 0, IPC_STAT, (union semun){ .buf = &ds }) == 0 && ds.sem_nsems == 3,
        "IPC_STAT: three");
  check(semctl(id, 0, GETVAL) == 0, "a new semaphore is 0");
  check(semctl(id, 0, SETVAL, (union semun){ .val = 5 }) == 0 && semctl(id, 0, GETVAL) == 5,
        "SETVAL 5");
  FAILS(semctl(id, 0, SETVAL, (union semun){ .val = -1 }), ERANGE);
  FAILS(semctl(id, 0, SETVAL, (union semun){ .val = 40000 }), ERANGE);
  FAILS(semctl(id, 3, GETVAL), EINVAL);
  FAILS(semctl(id, 0, 99), EINVAL);
  FAILS(semctl(id + 1000000, 0, GETVAL), EINVAL);
  unsigned short all[3] = { 5, 1, 1 }, got[3];
  check(semctl(id, 0, SETALL, (union semun){ .array = all }) == 0 &&
        semctl(id, 0, GETALL, (union semun){ .array = got }) == 0 && got[0] == 5 &&
        got[1] == 1 && got[2] == 1, "SETALL and GETALL");
  // All or nothing: the second operation cannot go, so the first is not made either.
  struct sembuf two[2] = { { 0, -2, IPC_NOWAIT }, { 1, -5, IPC_NOWAIT } };
  FAILS(semop(id, two, 2), EAGAIN);
  check(semctl(id, 0, GETVAL) == 5, "all or nothing: sem 0 untouched");
  two[1].sem_op = -1;
  check(semop(id, two, 2) == 0 && semctl(id, 0, GETVAL) == 3 && semctl(id, 1, GETVAL) == 0 &&
        semctl(id, 0, GETPID) == getpid(), "both at once; GETPID");
  struct sembuf bad = { 3, 1, 0 };
  FAILS(semop(id, &bad, 1), EFBIG);
  FAILS(semop(id, two, 0), EINVAL);
  static struct sembuf many[501];
  FAILS(semop(id, many, 501), E2BIG);
  FAILS(semop(id, (struct sembuf *)8, 1), EFAULT);
  struct timespec ts = { 0, 50000000 };
  struct sembuf dec = { 1, -1, 0 };
  FAILS(semtimedop(id, &dec, 1, &ts), EAGAIN);
  // A sleeper for an increase, woken by this process's semop.
  pid_t c = sem_child(id, 1, -1, 0);
  check(sleepers(id, 1, GETNCNT, 1), "GETNCNT: the child sleeps on sem 1");
  struct sembuf inc = { 1, 1, 0 };
  check(semop(id, &inc, 1) == 0 && status_of(c) == 0, "an increase wakes it");
  // A sleeper for zero, woken by SETVAL 0.
  c = sem_child(id, 2, 0, 0);
  check(sleepers(id, 2, GETZCNT, 1), "GETZCNT: the child waits for sem 2 to be 0");
  check(semctl(id, 2, SETVAL, (union semun){ .val = 0 }) == 0 && status_of(c) == 0,
        "SETVAL 0 wakes it");
  // A signal ends a sleep with EINTR, SA_RESTART or not (signal(7)).
  c = fork();
  if(c == 0) {
    struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { .it_value = { 0, 50000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    struct sembuf b = { 1, -1, 0 };
    _exit(semop(id, &b, 1) == -1 && errno == EINTR ? 0 : 1);
  }
  check(status_of(c) == 0, "SIGALRM with SA_RESTART: EINTR");
  // SEM_UNDO: the child's +3 is taken back when it exits.
  int before = semctl(id, 0, GETVAL);
  c = sem_child(id, 0, 3, SEM_UNDO);
  check(status_of(c) == 0 && semctl(id, 0, GETVAL) == before, "SEM_UNDO: undone at exit");
  c = sem_child(id, 0, -1, SEM_UNDO);
  check(status_of(c) == 0 && semctl(id, 0, GETVAL) == before, "SEM_UNDO of a decrease too");
  // The waker completes the sleeper's operation: removed at once after the release, the set
  // is gone, but the sleeper's semop was done (dbench's barrier).
  int b = semget(IPC_PRIVATE, 1, 0600);
  c = sem_child(b, 0, -1, 0);
  struct sembuf rel = { 0, 1, 0 };
  check(sleepers(b, 0, GETNCNT, 1) && semop(b, &rel, 1) == 0 && semctl(b, 0, IPC_RMID) == 0 &&
        status_of(c) == 0, "released, then removed at once: the sleeper's semop went");
  // Removed under a sleeper: EIDRM.
  c = sem_child(id, 1, -1, 0);
  check(sleepers(id, 1, GETNCNT, 1), "a sleeper on sem 1 again");
  check(semctl(id, 0, IPC_RMID) == 0 && status_of(c) == 3, "IPC_RMID: the sleeper gets EIDRM");
  FAILS(semctl(id, 0, GETVAL), EINVAL);
  FAILS(semop(id, &inc, 1), EINVAL);
  // A key: found again, EEXIST under IPC_EXCL, EINVAL when asked for more semaphores.
  key_t key = 0x5e30 + getpid();
  int k = semget(key, 2, IPC_CREAT | 0600);
  check(k >= 0 && semget(key, 2, 0) == k && semget(key, 0, 0) == k, "a key's set found again");
  FAILS(semget(key, 2, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
  FAILS(semget(key, 3, 0), EINVAL);
  check(semctl(k, 0, IPC_RMID) == 0, "remove it");
}

int
main(void)
{
  alarm(60);   // a lost wake-up ends the test rather than hanging it (fork's children have none)
  shared_memory();
  semaphores();
  printf("sysvipc: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 50;
}
