// itimer: alarm(2), setitimer(2) and getitimer(2) with ITIMER_REAL, checked against the host's
// results: pause ended by SIGALRM, alarm's old seconds, a periodic timer's signals (counted,
// never timed), no new period while its SIGALRM is pending, kept at execve, cleared in a fork
// child, processes exiting (alone, or with threads racing setitimer) while their timer fires.
// Exits 0 when all hold. The argument "execed" is the program execve'd by exec_checks.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "itimer"
#include "check.h"

static atomic_int alarms;

static void
on_alarm(int sig)
{
  (void)sig;
  atomic_fetch_add(&alarms, 1);
}

static void
handle(int sig, void (*fn)(int))
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = fn;
  sigaction(sig, &sa, NULL);
}

// The raw calls: glibc's wrappers check nothing away, but say so in case one would.
static long
setitimer_(int which, const struct itimerval *v, struct itimerval *old)
{
  return syscall(SYS_setitimer, which, v, old);
}

static long
getitimer_(int which, struct itimerval *v)
{
  return syscall(SYS_getitimer, which, v);
}

static struct itimerval
itv(long value_usec, long interval_usec)
{
  struct itimerval v = { { interval_usec / 1000000, interval_usec % 1000000 },
                         { value_usec / 1000000, value_usec % 1000000 } };
  return v;
}

static long
usec(struct timeval tv)
{
  return tv.tv_sec * 1000000 + tv.tv_usec;
}

// Sleeps a millisecond at a time until *count reaches n; false if 60000 sleeps (a minute at
// least) were not enough: a bound against a hang, not a time the test asserts.
static int
wait_count(atomic_int *count, int n)
{
  struct timespec ms = { 0, 1000000 };
  for(int i = 0; i < 60000 && atomic_load(count) < n; i++)
    nanosleep(&ms, NULL);
  return atomic_load(count) >= n;
}

static void
alarm_checks(void)
{
  handle(SIGALRM, on_alarm);
  check(alarm(0) == 0, "alarm(0) with none armed returns 0");
  check(alarm(100) == 0, "the first alarm returns 0");
  unsigned left = alarm(50);
  check(left >= 1 && left <= 100, "alarm returns the old alarm's seconds left");
  left = alarm(0);
  check(left >= 1 && left <= 50, "alarm(0) returns the seconds left and cancels");
  check(alarm(0) == 0, "a cancelled alarm leaves none");
  struct itimerval v;
  check(getitimer_(ITIMER_REAL, &v) == 0 && usec(v.it_value) == 0 && usec(v.it_interval) == 0,
        "getitimer after alarm(0) reads zero");

  // alarm's rounding: a timer of 0.4 s reads 1 (never 0 while armed), of 10.6 s reads 11.
  struct itimerval t = itv(400000, 0);
  setitimer_(ITIMER_REAL, &t, NULL);
  check(alarm(0) == 1, "alarm of a 0.4 s timer returns 1");
  t = itv(10600000, 0);
  setitimer_(ITIMER_REAL, &t, NULL);
  left = alarm(0);
  check(left == 11 || left == 10, "alarm of a 10.6 s timer returns 11 (10 on a slow machine)");

  // alarm(1) then pause: -1 with EINTR once the handler ran, exactly once.
  atomic_store(&alarms, 0);
  alarm(1);
  errno = 0;
  int r = pause();
  check(r == -1 && errno == EINTR, "pause ends with EINTR after SIGALRM's handler");
  check(atomic_load(&alarms) == 1, "SIGALRM's handler ran once");
  check(getitimer_(ITIMER_REAL, &v) == 0 && usec(v.it_value) == 0,
        "an expired one-shot timer reads zero");
}

static void
errno_checks(void)
{
  struct itimerval v = itv(0, 0), bad;
  FAILS(getitimer_(3, &v), EINVAL);
  FAILS(getitimer_(-1, &v), EINVAL);
  FAILS(setitimer_(3, &v, NULL), EINVAL);
  FAILS(getitimer_(ITIMER_REAL, (void *)1), EFAULT);
  FAILS(setitimer_(ITIMER_REAL, (void *)1, NULL), EFAULT);
  bad = itv(0, 0);
  bad.it_value.tv_usec = 1000000;
  FAILS(setitimer_(ITIMER_REAL, &bad, NULL), EINVAL);
  bad = itv(0, 0);
  bad.it_value.tv_sec = -1;
  FAILS(setitimer_(ITIMER_REAL, &bad, NULL), EINVAL);
  bad = itv(1000000, 0);
  bad.it_interval.tv_usec = -1;
  FAILS(setitimer_(ITIMER_REAL, &bad, NULL), EINVAL);

  // A bad ovalue is EFAULT, the new setting in force all the same; a NULL value disarms.
  v = itv(100000000, 0);
  FAILS(setitimer_(ITIMER_REAL, &v, (void *)1), EFAULT);
  struct itimerval old;
  check(getitimer_(ITIMER_REAL, &old) == 0 && usec(old.it_value) > 0 &&
        usec(old.it_value) <= 100000000, "setitimer with a bad ovalue set the timer");
  check(setitimer_(ITIMER_REAL, NULL, &old) == 0 && usec(old.it_value) > 0,
        "setitimer with a NULL value returns the old one");
  check(getitimer_(ITIMER_REAL, &old) == 0 && usec(old.it_value) == 0,
        "setitimer with a NULL value disarms");

  // A value of 0 disarms, and the interval goes with it (Linux's it_real_incr = 0).
  v = itv(0, 20000);
  check(setitimer_(ITIMER_REAL, &v, NULL) == 0 && getitimer_(ITIMER_REAL, &old) == 0 &&
        usec(old.it_value) == 0 && usec(old.it_interval) == 0,
        "a zero value disarms, interval and all");
  // A value with no interval: what is left never exceeds it; the interval reads back exact.
  v = itv(5000000, 0);
  setitimer_(ITIMER_REAL, &v, NULL);
  check(getitimer_(ITIMER_REAL, &old) == 0 && usec(old.it_value) > 0 &&
        usec(old.it_value) <= 5000000 && usec(old.it_interval) == 0,
        "a 5 s timer reads at most 5 s and no interval");
  v = itv(7000000, 1234567);
  check(setitimer_(ITIMER_REAL, &v, &old) == 0 && usec(old.it_value) > 0 &&
        usec(old.it_value) <= 5000000, "setitimer's ovalue is the old timer");
  check(getitimer_(ITIMER_REAL, &old) == 0 && usec(old.it_interval) == 1234567,
        "the interval reads back to the microsecond");
  setitimer_(ITIMER_REAL, NULL, NULL);
}

// A periodic 10 ms timer with a handler: at least 20 signals come, and every read of the
// timer meanwhile is armed for no more than the interval.
static void
periodic_checks(void)
{
  handle(SIGALRM, on_alarm);
  atomic_store(&alarms, 0);
  struct itimerval v = itv(10000, 10000), r;
  setitimer_(ITIMER_REAL, &v, NULL);
  int reads = 0, over = 0, wrong_interval = 0;
  struct timespec ms = { 0, 1000000 };
  for(int i = 0; i < 60000 && atomic_load(&alarms) < 20; i++) {
    nanosleep(&ms, NULL);
    getitimer_(ITIMER_REAL, &r);
    reads++;
    over += usec(r.it_value) > 10000;
    wrong_interval += usec(r.it_interval) != 10000;
  }
  setitimer_(ITIMER_REAL, NULL, NULL);
  check(atomic_load(&alarms) >= 20, "a 10 ms periodic timer sent 20 signals");
  check(reads >= 20 && over == 0, "a periodic timer never reads more than its interval");
  check(wrong_interval == 0, "a periodic timer's interval reads back");
}

// Linux starts the next period when SIGALRM is dequeued: while it is pending (blocked), the
// timer reads zero and sends no more; once sigtimedwait takes it, the next period runs.
static void
blocked_checks(void)
{
  sigset_t alrm, old;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  sigprocmask(SIG_BLOCK, &alrm, &old);
  struct itimerval v = itv(10000, 1000000), r;
  setitimer_(ITIMER_REAL, &v, NULL);
  struct timespec ms = { 0, 1000000 };
  sigset_t pend;
  int i;
  for(i = 0; i < 60000; i++) {
    sigpending(&pend);
    if(sigismember(&pend, SIGALRM))
      break;
    nanosleep(&ms, NULL);
  }
  check(i < 60000, "a blocked SIGALRM comes pending");
  check(getitimer_(ITIMER_REAL, &r) == 0 && usec(r.it_value) == 0 &&
        usec(r.it_interval) == 1000000,
        "while its SIGALRM is pending a periodic timer is not re-armed");
  struct timespec zero = { 0, 0 };
  check(sigtimedwait(&alrm, NULL, &zero) == SIGALRM, "sigtimedwait takes the SIGALRM");
  check(getitimer_(ITIMER_REAL, &r) == 0 && usec(r.it_value) > 0 &&
        usec(r.it_value) <= 1000000, "taking the SIGALRM starts the next period");
  setitimer_(ITIMER_REAL, NULL, NULL);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

// execve keeps the timer (execve(2): "POSIX timers ... are preserved"; alarm(2)); a fork
// child starts with none (fork(2)).
static void
exec_fork_checks(void)
{
  handle(SIGALRM, on_alarm);
  pid_t pid = fork();
  if(pid == 0) {
    alarm(100);
    char *argv[] = { "itimer", "execed", NULL };
    execv("/proc/self/exe", argv);
    _exit(2);
  }
  int status;
  check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "execve keeps the alarm");

  alarm(100);
  pid = fork();
  if(pid == 0) {
    struct itimerval r;
    int ok = alarm(0) == 0 && getitimer_(ITIMER_REAL, &r) == 0 && usec(r.it_value) == 0;
    _exit(ok ? 0 : 1);
  }
  check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "a fork child has no alarm");
  unsigned left = alarm(0);
  check(left >= 1 && left <= 100, "the parent keeps its alarm across fork");
}

// Processes that end with their timer armed and firing: one that exits in the middle of a
// 1 ms periodic timer's signals, one killed by SIGALRM's default action. The kernel must not
// run a callback for a process it freed (a use-after-free the guest's checks would catch).
#define EXITS 100
static void
exit_checks(void)
{
  int ok = 0, killed = 0;
  for(int i = 0; i < EXITS; i++) {
    pid_t pid = fork();
    if(pid == 0) {
      if(i % 2) {
        handle(SIGALRM, SIG_DFL);
        struct itimerval v = itv(1000, 0);
        setitimer_(ITIMER_REAL, &v, NULL);
        for(;;)
          ;   // SIGALRM's default action ends it
      }
      atomic_store(&alarms, 0);
      handle(SIGALRM, on_alarm);
      struct itimerval v = itv(1000, 1000);
      setitimer_(ITIMER_REAL, &v, NULL);
      _exit(wait_count(&alarms, 3) ? 0 : 1);   // and it fires again as the process ends
    }
    int status;
    if(waitpid(pid, &status, 0) != pid)
      continue;
    ok += i % 2 == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    killed += i % 2 && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
  }
  check(ok == EXITS / 2, "processes exit with a periodic timer firing");
  check(killed == EXITS / 2, "SIGALRM's default action ends a process");
}

// Threads race setitimer and getitimer on their process's one timer, each with its own
// interval, while the signals come; then the process ends with them all still running.
#define RACERS 4
static atomic_int stop;

static void *
racer(void *arg)
{
  long id = (long)arg, bad = 0;
  for(long n = 0; !atomic_load(&stop); n++) {
    // The first expiry 1 us away: a racer's re-arm must not postpone the signal forever (a
    // 1-4 ms first expiry re-armed every few microseconds by four threads never came, and the
    // test waited for the other vCPUs' time slices); the interval is the racer's own.
    struct itimerval v = itv(1, 1000 * (id + 1)), r;
    if(n % 3 == 0)
      setitimer_(ITIMER_REAL, &v, NULL);
    getitimer_(ITIMER_REAL, &r);
    long i = usec(r.it_interval);
    bad += usec(r.it_value) > 1000 * RACERS || (i && (i % 1000 || i > 1000 * RACERS));
    if(n % 64 == 0)
      sched_yield();
  }
  return (void *)bad;
}

static int
race_child(int exit_racing)
{
  atomic_store(&alarms, 0);
  handle(SIGALRM, on_alarm);
  pthread_t t[RACERS];
  for(long i = 0; i < RACERS; i++)
    pthread_create(&t[i], NULL, racer, (void *)i);
  int enough = wait_count(&alarms, 20);
  if(exit_racing)
    _exit(enough ? 0 : 1);   // exit_group with every racer still in its loop
  atomic_store(&stop, 1);
  long bad = 0;
  for(int i = 0; i < RACERS; i++) {
    void *b;
    pthread_join(t[i], &b);
    bad += (long)b;
  }
  return enough && bad == 0 ? 0 : 2 + (bad != 0);
}

static void
race_checks(void)
{
  int status, ok = 0;
  for(int i = 0; i < 10; i++) {
    pid_t pid = fork();
    if(pid == 0)
      _exit(race_child(i % 2));
    if(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      ok++;
    else
      printf("itimer: race child %d: status %#x\n", i, status);
  }
  check(ok == 10, "threads racing setitimer: signals come, reads stay within the intervals");
}

int
main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IONBF, 0);
  if(argc > 1 && strcmp(argv[1], "execed") == 0) {
    unsigned left = alarm(0);   // set before the execve that started this image
    return left >= 1 && left <= 100 ? 0 : 1;
  }
  alarm_checks();
  errno_checks();
  periodic_checks();
  blocked_checks();
  exec_fork_checks();
  exit_checks();
  race_checks();
  if(fails)
    printf("itimer: %d of %d checks failed\n", fails, checks);
  else
    printf("itimer: all %d checks passed\n", checks);
  return fails ? 1 : 0;
}
