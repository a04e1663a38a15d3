// races: a process's end racing the making of threads and processes, each round in a child of
// its own: pthread_create against exit_group, a process group killed while one of it forks,
// and vfork from a process being killed. The program must see each child end as it should.
// "races killall": a child's kill(-1, SIGKILL) ends every process but itself and the root the
// kernel started (this program), as Linux spares init; not run on the host, where it would
// reach every process of the user.
#define PROG "races"
#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 60

// Counts shared across fork (MAP_SHARED): the work the rounds did, so a verdict means something.
struct counts {
  long threads;    // threads a creator started before its process ended
  long forks;      // processes the forking loops made
  long vforks;     // vforks that returned in the parent
};
static struct counts *n;

static void
pause_us(long us)
{
  struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
  nanosleep(&ts, NULL);
}

static void *
nothing(void *arg)
{
  return NULL;
}

// Makes threads as fast as it can until the process ends under it.
static void *
creator(void *arg)
{
  for(;;) {
    pthread_t t;
    if(pthread_create(&t, NULL, nothing, NULL) == 0) {
      pthread_detach(t);
      __atomic_fetch_add(&n->threads, 1, __ATOMIC_RELAXED);
    }
  }
  return NULL;
}

// vforks as fast as it can: each child leaves at once, releasing this thread.
static void *
vforker(void *arg)
{
  for(;;) {
    pid_t pid = vfork();
    if(pid == 0)
      _exit(0);
    if(pid > 0) {
      __atomic_fetch_add(&n->vforks, 1, __ATOMIC_RELAXED);
      waitpid(pid, NULL, 0);
    }
  }
  return NULL;
}

// A child that starts a thread running fn and ends the whole process (exit_group) after
// delay_us, whatever that thread is doing.
static void
end_under(void *(*fn)(void *), long delay_us, int code)
{
  pthread_t t;
  if(pthread_create(&t, NULL, fn, NULL))
    _exit(100);
  pause_us(delay_us);
  _exit(code);
}

// A process group whose leader kills the whole group (itself included) while another member
// forks in a loop.
static void
kill_forking_group(long delay_us)
{
  setpgid(0, 0);
  if(fork() == 0) {
    for(;;) {
      pid_t pid = fork();
      if(pid == 0)
        _exit(0);
      if(pid > 0) {
        __atomic_fetch_add(&n->forks, 1, __ATOMIC_RELAXED);
        waitpid(pid, NULL, 0);
      }
    }
  }
  pause_us(delay_us);
  kill(0, SIGKILL);
  _exit(101);   // not reached: the signal ends this process too
}

// Runs one round in a child and checks how it ended: exit code code, or killed by sig.
static void
round_of(int kind, long delay_us, int code, int sig, const char *what)
{
  pid_t pid = fork();
  if(pid == 0) {
    if(kind == 0)
      end_under(creator, delay_us, code);
    else if(kind == 1)
      kill_forking_group(delay_us);
    else
      end_under(vforker, delay_us, code);
  }
  int status = 0;
  check(pid > 0 && waitpid(pid, &status, 0) == pid, what);
  if(sig)
    check(WIFSIGNALED(status) && WTERMSIG(status) == sig, what);
  else
    check(WIFEXITED(status) && WEXITSTATUS(status) == code, what);
  // What the killed groups leave behind comes here (subreaper) and is reaped.
  while(waitpid(-1, NULL, WNOHANG) > 0)
    ;
}

// A child kills every process it may (kill(-1, SIGKILL)) while a grandchild sleeps: the
// grandchild dies, the caller and this program, the kernel-started root, live on.
static int
killall(void)
{
  pid_t child = fork();
  if(child == 0) {
    pid_t sleeper = fork();
    if(sleeper == 0) {
      pause_us(10 * 1000 * 1000);
      _exit(3);
    }
    pause_us(100 * 1000);
    int r = kill(-1, SIGKILL);
    int st = 0;
    waitpid(sleeper, &st, 0);
    if(!(r == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
      fprintf(stderr, "races: kill(-1) said %d, the sleeper's status %#x\n", r, st);
    _exit(r == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1);
  }
  int st = 0;
  check(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "kill(-1, SIGKILL) ends the grandchild, spares its caller");
  if(!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
    printf("races: the caller of kill(-1) ended with status %#x\n", st);
  printf("races: killall: this program lives on, %d checks, %d failed\n", checks, fails);
  return fails != 0;
}

int
main(int argc, char **argv)
{
  if(argc > 1 && !strcmp(argv[1], "killall"))
    return killall();
  n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if(n == MAP_FAILED)
    return 2;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  srand(7);
  for(int r = 0; r < ROUNDS; r++) {
    long delay = 200 + rand() % 3000;   // anywhere in the loops' first milliseconds
    round_of(0, delay, 7, 0, "pthread_create against exit_group: status 7");
    round_of(1, delay, 0, SIGKILL, "kill(0, SIGKILL) of a forking group: killed");
    round_of(2, delay, 9, 0, "vfork against exit_group: status 9");
  }
  // Whatever a killed group's forker left is ours now; none may stay behind.
  while(waitpid(-1, NULL, 0) > 0)
    ;
  // Enough work for the rounds to have raced: threads, forks and vforks made in most rounds.
  check(n->threads >= ROUNDS, "threads were made while processes ended");
  check(n->forks >= ROUNDS / 2, "forks were made while their group was killed");
  check(n->vforks >= ROUNDS, "vforks were made while processes ended");
  printf("races: %d rounds, %ld threads, %ld forks, %ld vforks, %d checks, %d failed\n", ROUNDS,
         n->threads, n->forks, n->vforks, checks, fails);
  return fails != 0;
}
