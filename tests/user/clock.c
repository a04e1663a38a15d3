// clock: time and the futex calls' errors and timeouts, against Linux's results: clocks move
// forward, sleeps last at least what was asked, FUTEX_WAIT says EAGAIN on a changed value,
// EINVAL on a misaligned word, ETIMEDOUT after a relative or an absolute timeout (CLOCK_REALTIME
// or MONOTONIC), a timed condvar wait times out; getrusage counts the minor faults of touched
// pages; uname says Linux; getrandom fills its buffer; prctl names the thread; CLOCK_REALTIME
// is wall time (not before the day this test was compiled) and only it can be set. Exits 0
// when all hold. Resource limits: RLIMIT_NOFILE set and enforced (EMFILE from open, dup and
// pipe, EBADF from dup2 past it, EINVAL from F_DUPFD and soft > hard), inherited at fork and
// kept at execve; arch_prctl's GS base set, read back, used and kept over a sleep.
#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "clock"
#include "check.h"

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

#define LIMIT 16

// RLIMIT_NOFILE at LIMIT: fds fill up to LIMIT - 1 and no further.
static void
nofile_checks(void)
{
  struct rlimit old, r;
  check(getrlimit(RLIMIT_NOFILE, &old) == 0 && old.rlim_cur <= old.rlim_max, "getrlimit(NOFILE)");
  errno = 0;
  r = (struct rlimit){ 20, 10 };
  check(setrlimit(RLIMIT_NOFILE, &r) == -1 && errno == EINVAL, "setrlimit soft > hard: EINVAL");
  errno = 0;
  check(setrlimit(RLIM_NLIMITS + 5, &old) == -1 && errno == EINVAL, "setrlimit bad resource");
  r = (struct rlimit){ LIMIT, old.rlim_max };
  check(setrlimit(RLIMIT_NOFILE, &r) == 0, "setrlimit(NOFILE, 16)");
  check(getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur == LIMIT && r.rlim_max == old.rlim_max,
        "getrlimit reads 16 back");
  int fds[LIMIT], n = 0, fd, highest = -1;
  while(n < LIMIT && (fd = open("/", O_RDONLY)) >= 0) {
    fds[n++] = fd;
    highest = fd > highest ? fd : highest;
  }
  check(n > 0 && n < LIMIT && highest == LIMIT - 1, "open fills the fds below the limit");
  errno = 0;
  check(open("/", O_RDONLY) == -1 && errno == EMFILE, "open at the limit: EMFILE");
  errno = 0;
  check(dup(0) == -1 && errno == EMFILE, "dup at the limit: EMFILE");
  int p[2];
  errno = 0;
  check(pipe(p) == -1 && errno == EMFILE, "pipe at the limit: EMFILE");
  close(fds[--n]);
  errno = 0;
  check(pipe(p) == -1 && errno == EMFILE, "pipe with one fd free: EMFILE");
  fd = open("/", O_RDONLY);
  check(fd == LIMIT - 1, "the failed pipe left its one free fd free");
  close(fd);
  errno = 0;
  check(dup2(0, LIMIT) == -1 && errno == EBADF, "dup2 to the limit: EBADF");
  check(dup2(0, LIMIT - 1) == LIMIT - 1, "dup2 below the limit");
  close(LIMIT - 1);
  errno = 0;
  check(fcntl(0, F_DUPFD, LIMIT) == -1 && errno == EINVAL, "F_DUPFD at the limit: EINVAL");
  errno = 0;
  check(fcntl(-1, F_DUPFD, LIMIT) == -1 && errno == EBADF, "F_DUPFD of a bad fd: EBADF first");

  // fork inherits the limit; a child lowers its hard limit and may raise it again only as root.
  pid_t c = fork();
  if(c == 0) {
    struct rlimit k;
    if(getrlimit(RLIMIT_NOFILE, &k) != 0 || k.rlim_cur != LIMIT)
      _exit(1);
    k.rlim_max = LIMIT;
    if(setrlimit(RLIMIT_NOFILE, &k) != 0)
      _exit(2);
    k.rlim_max = LIMIT + 1;
    int rc = setrlimit(RLIMIT_NOFILE, &k);
    _exit(rc == 0 ? (geteuid() == 0 ? 0 : 3) : (errno == EPERM && geteuid() != 0 ? 0 : 4));
  }
  int status = -1;
  check(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "fork inherits RLIMIT_NOFILE; raising a hard limit needs root");
  // execve keeps it: the program again, asked only to report its limit; where the program is
  // no file (a self-test runs it from the kernel image), the shell's `ulimit -n` says it.
  c = fork();
  if(c == 0) {
    for(int i = 0; i < n; i++)
      close(fds[i]);
    char *const argv[] = { "clock", "nofile", NULL };
    execv("/proc/self/exe", argv);
    char *const sh[] = { "sh", "-c", "[ \"$(ulimit -n)\" = 16 ]", NULL };
    execv("/bin/sh", sh);
    printf("clock: execve: errno %d\n", errno);
    _exit(9);
  }
  check(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "execve keeps RLIMIT_NOFILE");
  if(!WIFEXITED(status) || WEXITSTATUS(status))
    printf("clock: the execve'd child's status was %#x\n", status);
  while(n > 0)
    close(fds[--n]);
  check(setrlimit(RLIMIT_NOFILE, &old) == 0, "setrlimit back to the old soft limit");
  struct rlimit st;
  check(syscall(SYS_prlimit64, getpid(), RLIMIT_STACK, NULL, &st) == 0 && st.rlim_cur >= 1 << 20,
        "prlimit64 of the caller's own pid");
}

// The GS base: glibc leaves it alone on x86-64, so a program may use it (Linux's
// arch_prctl(2)); it must survive the thread's being switched out.
static void
gs_checks(void)
{
  static unsigned long word = 0x1234abcd;
  unsigned long base = 1, v = 0;
  check(syscall(SYS_arch_prctl, ARCH_GET_FS, &base) == 0 && base != 0, "ARCH_GET_FS");
  check(syscall(SYS_arch_prctl, ARCH_SET_GS, &word) == 0, "ARCH_SET_GS");
  check(syscall(SYS_arch_prctl, ARCH_GET_GS, &base) == 0 && base == (unsigned long)&word,
        "ARCH_GET_GS reads it back");
  __asm__ volatile("movq %%gs:0, %0" : "=r"(v));
  check(v == 0x1234abcd, "%gs:0 reads through the GS base");
  struct timespec ts = { 0, 20 * 1000 * 1000 };
  nanosleep(&ts, NULL);
  for(int i = 0; i < 10; i++)
    sched_yield();
  __asm__ volatile("movq %%gs:0, %0" : "=r"(v));
  check(v == 0x1234abcd, "the GS base after a sleep");
  errno = 0;
  check(syscall(SYS_arch_prctl, ARCH_SET_GS, 0xffff888000000000UL) == -1 && errno == EPERM,
        "ARCH_SET_GS to a kernel address: EPERM");
  check(syscall(SYS_arch_prctl, ARCH_SET_GS, 0UL) == 0, "ARCH_SET_GS back to 0");
}

int
main(int argc, char **argv)
{
  if(argc > 1 && strcmp(argv[1], "nofile") == 0) {   // execve'd by nofile_checks
    struct rlimit r;
    return getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur == LIMIT ? 0 : 1;
  }
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
  nofile_checks();
  gs_checks();
  printf("clock: %s\n", fails ? "some checks failed" : "all checks passed");
  return fails != 0;
}
