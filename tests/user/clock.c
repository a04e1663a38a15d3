// clock: time and the futex calls' errors and timeouts, against Linux's results: clocks move
// forward, sleeps last at least what was asked, FUTEX_WAIT says EAGAIN on a changed value,
// EINVAL on a misaligned word, ETIMEDOUT after a relative or an absolute timeout (CLOCK_REALTIME
// or MONOTONIC), a timed condvar wait times out; getrusage counts the minor faults of touched
// pages; uname says Linux; getrandom fills its buffer; prctl names the thread; CLOCK_REALTIME
// is wall time (not before the day this test was compiled) and only it can be set. Exits 0
// when all hold.
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static int fails;

static void
check(int ok, const char *what)
{
  if(!ok) {
    printf("clock: FAILED %s (errno %d)\n", what, errno);
    fails++;
  }
}

static double
now(clockid_t c)
{
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// The day this file was compiled, from __DATE__ ("Dec  2 2026"), as Unix seconds: a wall
// clock that is right cannot be earlier.
static time_t
compiled(void)
{
  static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const char *d = __DATE__;
  struct tm t = { 0 };
  t.tm_mon = (int)((strstr(months, (char[]){ d[0], d[1], d[2], 0 }) - months) / 3);
  t.tm_mday = atoi(d + 4);
  t.tm_year = atoi(d + 7) - 1900;
  return timegm(&t);
}

static long
futex(uint32_t *u, int op, uint32_t val, const struct timespec *ts, uint32_t val3)
{
  return syscall(SYS_futex, u, op, val, ts, NULL, val3);
}

int
main(void)
{
  double m0 = now(CLOCK_MONOTONIC), r0 = now(CLOCK_REALTIME);
  check(r0 > 1577836800, "CLOCK_REALTIME after 2020-01-01");
  check(r0 >= compiled(), "CLOCK_REALTIME not before the day the test was compiled");
  struct timespec ts = { 0, 20 * 1000 * 1000 };
  check(nanosleep(&ts, NULL) == 0, "nanosleep");
  check(now(CLOCK_MONOTONIC) - m0 >= 0.02, "nanosleep lasted 20 ms");
  check(now(CLOCK_BOOTTIME) > 0, "CLOCK_BOOTTIME");
  struct timespec res;
  check(clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0,
        "clock_getres");
  check(clock_gettime(12345, &ts) == -1 && errno == EINVAL, "bad clock EINVAL");
  struct timeval tv;
  check(gettimeofday(&tv, NULL) == 0 && tv.tv_sec >= (time_t)r0, "gettimeofday");
  check(time(NULL) >= (time_t)r0, "time");
  ts.tv_nsec = 1000000000;
  check(nanosleep(&ts, NULL) == -1 && errno == EINVAL, "nanosleep tv_nsec 1e9 EINVAL");

  static uint32_t word = 1;
  check(futex(&word, FUTEX_WAIT_PRIVATE, 2, NULL, 0) == -1 && errno == EAGAIN, "FUTEX_WAIT EAGAIN");
  check(futex((uint32_t *)((char *)&word + 1), FUTEX_WAIT, 1, NULL, 0) == -1 && errno == EINVAL,
        "FUTEX_WAIT misaligned EINVAL");
  struct timespec rel = { 0, 30 * 1000 * 1000 };
  double t0 = now(CLOCK_MONOTONIC);
  check(futex(&word, FUTEX_WAIT_PRIVATE, 1, &rel, 0) == -1 && errno == ETIMEDOUT,
        "FUTEX_WAIT relative ETIMEDOUT");
  check(now(CLOCK_MONOTONIC) - t0 >= 0.03, "FUTEX_WAIT waited 30 ms");
  struct timespec abs;
  clock_gettime(CLOCK_MONOTONIC, &abs);
  abs.tv_nsec += 30 * 1000 * 1000;
  if(abs.tv_nsec >= 1000000000)
    abs.tv_sec++, abs.tv_nsec -= 1000000000;
  check(futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 1, &abs, ~0u) == -1 && errno == ETIMEDOUT,
        "FUTEX_WAIT_BITSET monotonic ETIMEDOUT");
  check(futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 1, &abs, 0) == -1 && errno == EINVAL,
        "FUTEX_WAIT_BITSET bitset 0 EINVAL");
  check(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, 0) == 0, "FUTEX_WAKE nobody");

  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  clock_gettime(CLOCK_REALTIME, &abs);
  abs.tv_nsec += 30 * 1000 * 1000;
  if(abs.tv_nsec >= 1000000000)
    abs.tv_sec++, abs.tv_nsec -= 1000000000;
  pthread_mutex_lock(&m);
  check(pthread_cond_timedwait(&c, &m, &abs) == ETIMEDOUT, "cond_timedwait ETIMEDOUT (realtime)");
  pthread_mutex_unlock(&m);

  struct rusage r0u, r1u;
  getrusage(RUSAGE_SELF, &r0u);
  char *p = malloc(64 << 20);
  for(int i = 0; i < (64 << 20); i += 4096)
    p[i] = 1;
  getrusage(RUSAGE_SELF, &r1u);
  check(r1u.ru_minflt - r0u.ru_minflt >= 16384, "ru_minflt counts 16384 touched pages");
  free(p);

  struct utsname u;
  check(uname(&u) == 0 && strcmp(u.sysname, "Linux") == 0 && strcmp(u.machine, "x86_64") == 0,
        "uname");
  unsigned char buf[64] = { 0 }, zero[64] = { 0 };
  check(getrandom(buf, sizeof(buf), 0) == 64 && memcmp(buf, zero, 64) != 0, "getrandom");
  check(getpid() > 0 && syscall(SYS_gettid) == getpid(), "gettid of the main thread is the pid");
  char name[16];
  check(prctl(PR_SET_NAME, "a-name-longer-than-15") == 0 && prctl(PR_GET_NAME, name) == 0 &&
        strcmp(name, "a-name-longer-t") == 0, "prctl keeps 15 bytes of the thread's name");
  errno = 0;
  check(prctl(-1) == -1 && errno == EINVAL, "prctl of an unknown option: EINVAL");
  errno = 0;
  check(prctl(PR_GET_NAME, (char *)1) == -1 && errno == EFAULT, "prctl PR_GET_NAME to a bad pointer");
  // Setting: MONOTONIC never (EINVAL before any permission check), a bad timespec EINVAL;
  // REALTIME to now is allowed to root (the kernel's processes) and EPERM to anyone else.
  struct timespec set;
  clock_gettime(CLOCK_REALTIME, &set);
  errno = 0;
  check(clock_settime(CLOCK_MONOTONIC, &set) == -1 && errno == EINVAL,
        "clock_settime(CLOCK_MONOTONIC) EINVAL");
  set.tv_nsec = 1000000000;
  errno = 0;
  check(clock_settime(CLOCK_REALTIME, &set) == -1 && errno == EINVAL,
        "clock_settime tv_nsec 1e9 EINVAL");
  // Root on a Linux host is not asked: it would move the host's clock (by the call's latency).
  struct utsname self;
  uname(&self);
  if(geteuid() != 0 || strstr(self.release, "-kmm")) {
    clock_gettime(CLOCK_REALTIME, &set);
    errno = 0;
    int rc = clock_settime(CLOCK_REALTIME, &set);
    check(rc == 0 ? geteuid() == 0 : errno == EPERM && geteuid() != 0,
          "clock_settime(CLOCK_REALTIME) as root, EPERM otherwise");
    check(now(CLOCK_REALTIME) >= set.tv_sec, "CLOCK_REALTIME after setting it to now");
  }
  printf("clock: %s\n", fails ? "some checks failed" : "all checks passed");
  return fails != 0;
}
