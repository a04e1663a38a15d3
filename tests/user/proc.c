// proc: processes. fork and wait4/waitid with their status encodings, WNOHANG, WNOWAIT and
// ECHILD; copy-on-write (also while other threads of the parent write); fds shared with
// their offsets; file mappings shared or copied; shared anonymous memory shared; vfork; execve
// (the pid kept, O_CLOEXEC fds closed, /proc/self/exe, the other threads ended), #! scripts,
// and its errors E2BIG, ENOENT, EACCES, ENOEXEC; orphans re-parented;
// getrusage(RUSAGE_CHILDREN); with "storm N", N fork+exit+wait; with "cow" the copy-on-write
// checks alone. Linux is the oracle (tests/host/test_user_native.sh). Exits 0
// when all hold; names each check that does not.
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "proc"
#include "check.h"

static char dir[64];
static const char *self;

static void
sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

// Seconds on the monotonic clock. Waits for another process are bounded in time, not in
// sleeps: a 1 ms nanosleep lasts a tick or two (10-20 ms), and under fault injection the
// awaited event may never come (its fork or open failed), which must end in a failed check,
// not in a program that the kernel's test has to kill as hung.
static double
now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// Waits for pid; the status word, or -1.
static int
reap(pid_t pid)
{
  int st;
  pid_t r = waitpid(pid, &st, 0);
  return r == pid ? st : -1;
}

// The status of a child that ran fn.
static int
run_child(int (*fn)(void))
{
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0)
    _exit(fn());
  check(pid > 0, "fork");
  return reap(pid);
}

static int child_ppid_ok(void) { return getppid() > 1 ? 7 : 1; }
static int child_abort(void) { abort(); }

static void
test_wait(void)
{
  int st = run_child(child_ppid_ok);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exit status 7 through wait4");
  st = run_child(child_abort);
  check(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "abort: WIFSIGNALED, WTERMSIG 6");
  // WNOHANG while the child waits for a file; waitid with WNOWAIT, then the reaping one.
  char go[96];
  snprintf(go, sizeof(go), "%s/go", dir);
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    struct stat s;
    for(double end = now_s() + 10; now_s() < end && stat(go, &s) != 0;)
      sleep_ms(1);
    _exit(3);
  }
  check(pid > 0, "fork");
  if(pid < 0)
    return;
  int st2 = 0;
  check(waitpid(pid, &st2, WNOHANG) == 0, "WNOHANG while the child runs: 0");
  int fd = open(go, O_CREAT | O_WRONLY, 0644);
  check(fd >= 0, "create the go file");
  close(fd);
  siginfo_t si;
  memset(&si, 0xff, sizeof(si));
  check(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0, "waitid WNOWAIT");
  check(si.si_signo == SIGCHLD && si.si_code == CLD_EXITED && si.si_pid == pid &&
        si.si_status == 3, "waitid's siginfo: SIGCHLD, CLD_EXITED, pid, status 3");
  memset(&si, 0xff, sizeof(si));
  check(waitid(P_ALL, 0, &si, WEXITED) == 0 && si.si_pid == pid && si.si_status == 3,
        "waitid reaps it after WNOWAIT");
  unlink(go);
  errno = 0;
  check(waitpid(-1, NULL, 0) == -1 && errno == ECHILD, "no children: ECHILD");
  errno = 0;
  check(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "no children, WNOHANG: ECHILD");
  errno = 0;
  check(waitid(P_ALL, 0, &si, 0) == -1 && errno == EINVAL, "waitid without WEXITED: EINVAL");
  errno = 0;
  check(waitpid(-1, NULL, 0x100) == -1 && errno == EINVAL, "wait4 unknown option: EINVAL");
  // waitid WNOHANG with a running child: 0 and a zeroed si_pid.
  fflush(stdout);
  pid = fork();
  if(pid == 0) {
    sleep_ms(50);
    _exit(0);
  }
  memset(&si, 0xff, sizeof(si));
  check(waitid(P_PID, pid, &si, WEXITED | WNOHANG) == 0 && si.si_pid == 0 && si.si_signo == 0,
        "waitid WNOHANG: 0, si_pid 0");
  check(reap(pid) == 0, "the sleeper exits 0");
}

#define NPAGES 64

static int
cow_child_check(unsigned char *buf, unsigned char want, unsigned char put)
{
  for(int i = 0; i < NPAGES * 4096; i += 512)
    if(buf[i] != want)
      return 1;
  memset(buf, put, NPAGES * 4096);
  for(int i = 0; i < NPAGES * 4096; i += 512)
    if(buf[i] != put)
      return 2;
  return 0;
}

static void
test_cow(void)
{
  unsigned char *buf = mmap(NULL, NPAGES * 4096, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(buf != MAP_FAILED, "mmap");
  memset(buf, 0x11, NPAGES * 4096);
  // A read-only page made writable again after the fork must still be copied.
  unsigned char *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ro[0] = 5;
  mprotect(ro, 4096, PROT_READ);
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    sleep_ms(20);   // the parent writes meanwhile: this side must not see it
    int r = cow_child_check(buf, 0x11, 0x22);
    mprotect(ro, 4096, PROT_READ | PROT_WRITE);
    ro[0] = 6;
    _exit(r ? r : ro[0] == 6 ? 0 : 3);
  }
  memset(buf, 0x33, NPAGES / 2 * 4096);   // half now, half after the child's end
  int st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child sees the fork-time bytes, writes its own");
  int ok = 1;
  for(int i = 0; i < NPAGES * 4096; i += 512)
    ok &= buf[i] == (i < NPAGES / 2 * 4096 ? 0x33 : 0x11);
  check(ok, "parent keeps its own bytes");
  memset(buf, 0x44, NPAGES * 4096);   // now the only mapping: reused, not copied
  check(buf[0] == 0x44 && buf[NPAGES * 4096 - 1] == 0x44, "parent writes after the child");
  check(ro[0] == 5, "read-only page kept in the parent");
  // A grandchild of a child of a child: three generations sharing pages.
  memset(buf, 0x55, NPAGES * 4096);
  fflush(stdout);
  pid = fork();
  if(pid == 0) {
    pid_t g = fork();
    if(g == 0)
      _exit(cow_child_check(buf, 0x55, 0x66));
    int r = cow_child_check(buf, 0x55, 0x77);
    int gs = reap(g);
    _exit(r ? r : (WIFEXITED(gs) && WEXITSTATUS(gs) == 0 && buf[0] == 0x77) ? 0 : 9);
  }
  st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "two generations of copy-on-write");
  check(buf[0] == 0x55 && buf[NPAGES * 4096 - 1] == 0x55, "the parent's bytes after both");
  munmap(buf, NPAGES * 4096);
  munmap(ro, 4096);
}

// Threads of the parent keep writing while it forks: once fork returns in the child, the
// child's view must never change (a stale writable TLB entry on another CPU would write
// through to the page the child shares).
#define WRITERS 3
static volatile unsigned long *counters;
static volatile int stop;

static void *
writer(void *arg)
{
  volatile unsigned long *c = counters + (long)arg * 512;   // a page each
  while(!stop)
    (*c)++;
  return NULL;
}

static void
test_cow_threads(void)
{
  counters = mmap(NULL, WRITERS * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(counters != MAP_FAILED, "mmap counters");
  if(counters == MAP_FAILED)
    return;
  // Every writer must be running before the forks; one that could not be created (ENOMEM
  // under fault injection) is a failed check, and the test goes on without waiting for it.
  pthread_t t[WRITERS];
  int started = 0;
  for(long i = 0; i < WRITERS; i++)
    started += pthread_create(&t[started], NULL, writer, (void *)(long)started) == 0;
  check(started == WRITERS, "create the writer threads");
  for(double end = now_s() + 10; now_s() < end;) {
    int running = 0;
    for(int i = 0; i < started; i++)
      running += counters[512 * i] != 0;
    if(running == started)
      break;
    sched_yield();
  }
  int bad = 0;
  for(int round = 0; round < 20; round++) {
    fflush(stdout);
    pid_t pid = fork();
    if(pid == 0) {
      unsigned long snap[WRITERS];
      for(int i = 0; i < WRITERS; i++)
        snap[i] = counters[512 * i];
      sleep_ms(5);
      for(int i = 0; i < WRITERS; i++)
        if(counters[512 * i] != snap[i])
          _exit(1);
      _exit(0);
    }
    int st = reap(pid);
    bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  check(bad == 0, "the child's copy stays still while the parent's threads write");
  // Each writer's next store faults once (its page was shared) and goes on; how soon it runs
  // again is up to the scheduler, so this waits for it.
  int moved = 0;
  for(int i = 0; i < started; i++) {
    unsigned long before = counters[512 * i];
    for(double end = now_s() + 10; now_s() < end && counters[512 * i] == before;)
      sleep_ms(1);
    moved += counters[512 * i] != before;
  }
  check(moved == started, "the parent's threads still write to their pages");
  stop = 1;
  for(int i = 0; i < started; i++)
    pthread_join(t[i], NULL);
  munmap((void *)counters, WRITERS * 4096);
}

static void
test_files(void)
{
  char path[96];
  snprintf(path, sizeof(path), "%s/shared", dir);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  check(fd >= 0, "open the shared file");
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0)
    _exit(write(fd, "abc", 3) == 3 ? 0 : 1);
  check(reap(pid) == 0, "the child writes through the inherited fd");
  check(write(fd, "def", 3) == 3, "the parent writes after it");
  check(lseek(fd, 0, SEEK_CUR) == 6, "the offset is shared: 6");
  char got[8] = { 0 };
  check(pread(fd, got, 7, 0) == 6 && memcmp(got, "abcdef", 6) == 0, "the file holds abcdef");
  // A close in the child leaves the parent's fd open.
  pid = fork();
  if(pid == 0)
    _exit(close(fd) == 0 ? 0 : 1);
  check(reap(pid) == 0, "the child closes its copy");
  check(fcntl(fd, F_GETFD) == 0, "the parent's fd is still open");
  close(fd);
  unlink(path);
}

// File mappings across fork: a MAP_SHARED one stays shared (the child's store is the
// parent's and the file's), a MAP_PRIVATE one is copied on write (the file keeps its bytes).
static void
test_fmap(void)
{
  char path[96];
  snprintf(path, sizeof(path), "%s/mapped", dir);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  check(fd >= 0 && ftruncate(fd, 8192) == 0, "a two-page file");
  char *sh = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *pr = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  check(sh != MAP_FAILED && pr != MAP_FAILED, "map it shared and private");
  sh[0] = 'a';        // the file's page, now present in both mappings
  check(pr[0] == 'a', "the private mapping reads the file");
  pr[4096] = 'p';     // a private copy of the second page before the fork
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    sh[1] = 'b';
    pr[0] = 'x';      // copies the file's page into the child
    pr[4096] = 'y';   // copies the parent's private copy
    _exit(sh[0] == 'a' && pr[0] == 'x' && pr[1] == 'b' && pr[4096] == 'y' ? 0 : 1);
  }
  int st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child reads both mappings");
  check(sh[1] == 'b', "MAP_SHARED: the child's store is seen by the parent");
  check(pr[0] == 'a' && pr[4096] == 'p', "MAP_PRIVATE: the child's stores are its own");
  char b[2];
  check(pread(fd, b, 2, 0) == 2 && b[0] == 'a' && b[1] == 'b', "the file has the shared store");
  check(pread(fd, b, 1, 4096) == 1 && b[0] == 0, "and none of the private ones");
  munmap(sh, 8192);
  munmap(pr, 8192);
  close(fd);
  unlink(path);
}

// Shared anonymous memory across fork (MAP_SHARED|MAP_ANONYMOUS, and MAP_SHARED of /dev/zero):
// one memory in both processes, for pages touched before the fork and for pages that either
// side touches first after it. The child counts in a page the parent wrote before the fork,
// makes a page of its own first, and waits for one the parent touches first after the fork.
static void
test_shared_anon(void)
{
  const long pg = 4096;
  volatile unsigned long *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int zfd = open("/dev/zero", O_RDWR);
  volatile char *z = zfd >= 0 ? mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, zfd, 0)
                              : MAP_FAILED;
  check(p != MAP_FAILED && z != MAP_FAILED, "map shared anonymous memory and /dev/zero");
  if(p == MAP_FAILED || z == MAP_FAILED)
    return;
  p[0] = 1000;   // present before the fork
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    for(int i = 0; i < 100; i++)
      __atomic_add_fetch(&p[0], 1, __ATOMIC_RELAXED);
    p[pg / 8] = 0xc0ffee;   // the child touches this page first
    z[0] = 'z';
    for(double end = now_s() + 10; p[2 * pg / 8] != 0xbeef && now_s() < end;)
      sleep_ms(1);   // the parent touches this page first
    _exit(p[2 * pg / 8] == 0xbeef ? 0 : 3);
  }
  check(pid > 0, "fork");
  p[2 * pg / 8] = 0xbeef;
  int st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "MAP_SHARED|MAP_ANONYMOUS: the child sees a page the parent touched first after fork");
  check(p[0] == 1100, "MAP_SHARED|MAP_ANONYMOUS: the child's 100 increments are the parent's");
  check(p[pg / 8] == 0xc0ffee,
        "MAP_SHARED|MAP_ANONYMOUS: the parent sees a page the child touched first after fork");
  check(z[0] == 'z', "MAP_SHARED of /dev/zero: the child's store is the parent's");
  // A private anonymous mapping next to it stays private.
  volatile int *q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(q != MAP_FAILED, "map private anonymous memory");
  if(q != MAP_FAILED) {
    q[0] = 1;
    fflush(stdout);
    pid = fork();
    if(pid == 0) {
      q[0] = 2;
      p[1] = 7;
      _exit(0);
    }
    check(reap(pid) == 0 && q[0] == 1 && p[1] == 7,
          "MAP_PRIVATE stays private beside MAP_SHARED anonymous memory");
    munmap((void *)q, pg);
  }
  munmap((void *)p, 3 * pg);
  munmap((void *)z, pg);
  close(zfd);
}

static int vfork_mark;

static void
test_vfork(void)
{
  vfork_mark = 0;
  pid_t pid = vfork();
  if(pid == 0) {
    vfork_mark = 1;   // the same memory: the parent sees it once it goes on
    _exit(5);
  }
  check(vfork_mark == 1, "vfork: the parent waited and shares the child's memory");
  int st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 5, "vfork child's status 5");
  // vfork + execve: the parent goes on once the child has its own program.
  char pidarg[16], ppid[16];
  snprintf(ppid, sizeof(ppid), "%d", getpid());
  pid = vfork();
  if(pid == 0) {
    snprintf(pidarg, sizeof(pidarg), "%d", getpid());
    char *argv[] = { "proc", "execd", pidarg, ppid, "-1", "-1", NULL };
    execve(self, argv, (char *[]){ "A=1", NULL });
    _exit(127);
  }
  st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 42, "vfork + execve: the program's status 42");
}

static void *
sleeper(void *arg)
{
  for(;;)
    sleep_ms(1000);
  return NULL;
}

static void *
spinner(void *arg)
{
  for(;;)
    __asm__ volatile("" ::: "memory");
  return NULL;
}

static void
exec_child(int keep, int closed, int threads)
{
  pthread_t t;
  for(int i = 0; i < threads; i++)
    pthread_create(&t, NULL, i % 2 ? spinner : sleeper, NULL);
  char pidarg[16], ppid[16], k[16], c[16];
  snprintf(pidarg, sizeof(pidarg), "%d", getpid());
  snprintf(ppid, sizeof(ppid), "%d", getppid());
  snprintf(k, sizeof(k), "%d", keep);
  snprintf(c, sizeof(c), "%d", closed);
  char *argv[] = { "proc", "execd", pidarg, ppid, k, c, NULL };
  execve("/proc/self/exe", argv, (char *[]){ "A=1", NULL });
  _exit(127);
}

// The program after execve: same pid and parent, the kept fd open, the O_CLOEXEC one closed,
// /proc/self/exe names this program, the environment is the new one.
static int
execd(char **argv)
{
  int r = 42;
  if(atoi(argv[2]) != getpid() || atoi(argv[3]) != getppid())
    r = 1;
  int keep = atoi(argv[4]), closed = atoi(argv[5]);
  if(keep >= 0 && fcntl(keep, F_GETFD) != 0)
    r = 2;
  if(closed >= 0 && (fcntl(closed, F_GETFD) != -1 || errno != EBADF))
    r = 3;
  char exe[256];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if(n < 5 || memcmp(exe + n - 5, "/proc", 5) != 0)
    r = 4;
  if(!getenv("A") || getenv("HOME"))
    r = 5;
  return r;
}

static void
test_exec(void)
{
  char path[96];
  snprintf(path, sizeof(path), "%s/f", dir);
  int keep = open(path, O_CREAT | O_RDWR, 0644);
  int closed = open(path, O_RDONLY | O_CLOEXEC);
  check(keep >= 0 && closed >= 0, "open two fds");
  for(int threads = 0; threads <= 4; threads += 4) {
    fflush(stdout);
    pid_t pid = fork();
    if(pid == 0)
      exec_child(keep, closed, threads);
    int st = reap(pid);
    if(!(WIFEXITED(st) && WEXITSTATUS(st) == 42))
      printf("proc: execve with %d more threads: status word %#x\n", threads, st);
    check(WIFEXITED(st) && WEXITSTATUS(st) == 42,
          threads ? "execve from a process with 4 more threads: status 42"
                  : "execve: status 42 from the new program");
  }
  close(keep);
  close(closed);
  // The errors, in a child each so a wrong success cannot take this program over.
  struct {
    const char *what, *path;
    int err;
  } cases[] = {
    { "ENOENT", "/nonexistent/prog", ENOENT },
    { "EACCES (a directory)", "/tmp", EACCES },
    { "EACCES (no execute bit)", path, EACCES },
    { "ENOEXEC (not an ELF file)", NULL, ENOEXEC },
  };
  char junk[96];
  snprintf(junk, sizeof(junk), "%s/junk", dir);
  int fd = open(junk, O_CREAT | O_WRONLY, 0755);
  check(fd >= 0 && write(fd, "just some text\n", 15) == 15, "write the junk program");
  close(fd);
  cases[3].path = junk;
  for(int i = 0; i < 4; i++) {
    char *argv[] = { "x", NULL };
    errno = 0;
    int r = execve(cases[i].path, argv, (char *[]){ NULL });
    check(r == -1 && errno == cases[i].err, cases[i].what);
  }
  // E2BIG: one argument over 128 KiB, and 3 MiB of them in all.
  size_t big = 200 * 1024;
  char *s = malloc(big);
  memset(s, 'a', big - 1);
  s[big - 1] = 0;
  char *argv1[] = { "x", s, NULL };
  errno = 0;
  check(execve(self, argv1, (char *[]){ NULL }) == -1 && errno == E2BIG, "E2BIG: one 200 KiB argument");
  s[100 * 1024] = 0;
  char **many = calloc(40, sizeof(char *));
  for(int i = 0; i < 31; i++)
    many[i] = s;
  errno = 0;
  check(execve(self, many, (char *[]){ NULL }) == -1 && errno == E2BIG, "E2BIG: 3 MiB of arguments");
  // 1 MiB in all is fine: the program runs and sees them.
  for(int i = 10; i < 31; i++)
    many[i] = NULL;
  many[0] = "proc";
  many[1] = "count";
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    execve(self, many, (char *[]){ NULL });
    _exit(127);
  }
  int st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 10, "1 MiB of arguments: argc 10 in the new program");
  free(many);
  free(s);
  // A #! script: its interpreter runs with the argument, the script's path and its args.
  char script[96];
  snprintf(script, sizeof(script), "%s/script", dir);
  fd = open(script, O_CREAT | O_WRONLY, 0755);
  check(fd >= 0 && dprintf(fd, "#!%s count\n", self) > 0, "write the script");
  close(fd);
  fflush(stdout);
  pid = fork();
  if(pid == 0) {
    char *argv[] = { "script", "a", "b", NULL };
    execve(script, argv, (char *[]){ NULL });
    _exit(127);
  }
  st = reap(pid);
  check(WIFEXITED(st) && WEXITSTATUS(st) == 5, "#! script: the interpreter's argc 5");
  unlink(script);
  // An ET_DYN whose one segment lies above PIE_BASE: the load bias wraps, and entry 0 would
  // start in the kernel half. Refused (ENOEXEC here), or killed by SIGSEGV past exec's point of
  // no return (Linux's BAD_ADDR check): it must never start, and the kernel never fault.
  char dyn[96];
  snprintf(dyn, sizeof(dyn), "%s/wrapdyn", dir);
  Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
                                 EV_CURRENT },
                    .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                    .e_entry = 0, .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
                    .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
  Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
                    .p_vaddr = 0x600000000000UL, .p_filesz = 4096, .p_memsz = 4096,
                    .p_align = 4096 };
  static char image[4096];
  memcpy(image, &eh, sizeof(eh));
  memcpy(image + sizeof(eh), &ph, sizeof(ph));
  fd = open(dyn, O_CREAT | O_WRONLY | O_TRUNC, 0755);
  check(fd >= 0 && write(fd, image, sizeof(image)) == sizeof(image), "write the wrapping ET_DYN");
  close(fd);
  fflush(stdout);
  pid = fork();
  if(pid == 0) {
    execve(dyn, (char *[]){ "x", NULL }, (char *[]){ NULL });
    _exit(errno == ENOEXEC ? 40 : 41);
  }
  st = reap(pid);
  check((WIFEXITED(st) && WEXITSTATUS(st) == 40) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV),
        "an ET_DYN whose entry wraps into the kernel half never starts");
  unlink(dyn);
  unlink(path);
  unlink(junk);
}

// An orphan goes to the subreaper above it (this process); getppid says so at once.
static void
test_orphan(void)
{
  check(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "PR_SET_CHILD_SUBREAPER");
  pid_t me = getpid();
  char gfile[96];
  snprintf(gfile, sizeof(gfile), "%s/grandchild", dir);
  fflush(stdout);
  pid_t a = fork();
  if(a == 0) {
    pid_t b = fork();
    if(b == 0) {
      for(double end = now_s() + 10; now_s() < end && getppid() != me;)
        sleep_ms(1);
      _exit(getppid() == me ? 0 : 1);
    }
    int fd = open(gfile, O_CREAT | O_WRONLY, 0644);
    dprintf(fd, "%d\n", b);
    close(fd);
    _exit(0);
  }
  check(reap(a) == 0, "the middle process exits 0");
  FILE *f = fopen(gfile, "r");
  int b = -1;
  if(f) {
    if(fscanf(f, "%d", &b) != 1)
      b = -1;
    fclose(f);
  }
  int st = b > 0 ? reap(b) : -1;
  check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the orphan was re-parented here and reaped by us");
  unlink(gfile);
}

static void
test_rusage(void)
{
  struct rusage before, after;
  memset(&before, 0, sizeof(before));
  memset(&after, 0, sizeof(after));
  // RUSAGE_CHILDREN is -1 as an int: a kernel that read all of rdi saw 0xffffffff, refused
  // it with EINVAL, and the checks below compared whatever the stack held.
  check(getrusage(RUSAGE_CHILDREN, &before) == 0, "getrusage(RUSAGE_CHILDREN)");
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    char *p = mmap(NULL, 200 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for(int i = 0; i < 200; i++)
      p[i * 4096] = 1;
    _exit(0);
  }
  check(reap(pid) == 0, "the faulting child");
  check(getrusage(RUSAGE_CHILDREN, &after) == 0, "getrusage(RUSAGE_CHILDREN) after the reap");
  check(after.ru_minflt - before.ru_minflt >= 200, "RUSAGE_CHILDREN counts its 200 faults");
  errno = 0;
  check(getrusage(7, &after) == -1 && errno == EINVAL, "getrusage(7): EINVAL");
}

// n fork + exit + wait, the children touching a page each; then clone3 as fork does.
static void
storm(int n)
{
  static char page[4096];
  int bad = 0;
  for(int i = 0; i < n; i++) {
    pid_t pid = fork();
    if(pid == 0) {
      page[i % 4096] = 1;   // a copy-on-write fault
      _exit(page[0] + (i & 0x7f));
    }
    int st;
    int want = (i & 0x7f) + (i % 4096 == 0);
    if(pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != want)
      bad++;
  }
  check(bad == 0, "every fork, exit and wait of the storm");
  printf("proc: %d fork+exit+wait, %d failed\n", n, bad);
}

static void
test_clone3(void)
{
  struct {
    unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
  } args;
  memset(&args, 0, sizeof(args));
  args.exit_signal = SIGCHLD;
  fflush(stdout);
  long pid = syscall(SYS_clone3, &args, sizeof(args));
  if(pid == 0)
    _exit(11);
  check(pid > 0, "clone3 as fork");
  int st = pid > 0 ? reap(pid) : -1;
  check(WIFEXITED(st) && WEXITSTATUS(st) == 11, "clone3 child's status 11");
  errno = 0;
  check(syscall(SYS_clone3, &args, 8) == -1 && errno == EINVAL, "clone3 with a short struct: EINVAL");
}

int
main(int argc, char **argv)
{
  if(argc > 1 && strcmp(argv[1], "execd") == 0)
    return execd(argv);
  if(argc > 1 && strcmp(argv[1], "count") == 0)
    return argc;
  self = argv[0];
  static char exe[256];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if(n > 0)
    self = exe;
  snprintf(dir, sizeof(dir), "/tmp/proc-%d", getpid());
  check(mkdir(dir, 0700) == 0, "mkdir");
  if(argc > 2 && strcmp(argv[1], "storm") == 0) {
    storm(atoi(argv[2]));
  } else if(argc > 1 && strcmp(argv[1], "cow") == 0) {
    test_cow();
    test_cow_threads();
  } else if(argc > 1) {   // the named parts, in order: a failing part run alone
    static const struct {
      const char *name;
      void (*fn)(void);
    } parts[] = {
      { "wait", test_wait }, { "cow1", test_cow }, { "cowthreads", test_cow_threads },
      { "files", test_files }, { "fmap", test_fmap }, { "shanon", test_shared_anon },
      { "vfork", test_vfork }, { "exec", test_exec },
      { "orphan", test_orphan }, { "rusage", test_rusage }, { "clone3", test_clone3 },
    };
    for(int i = 1; i < argc; i++)
      for(size_t j = 0; j < sizeof(parts) / sizeof(parts[0]); j++)
        if(strcmp(argv[i], parts[j].name) == 0)
          parts[j].fn();
  } else {
    test_wait();
    test_cow();
    test_cow_threads();
    test_files();
    test_fmap();
    test_shared_anon();
    test_vfork();
    test_exec();
    test_orphan();
    test_rusage();
    test_clone3();
    storm(200);
  }
  rmdir(dir);
  printf("proc: %s\n", fails ? "FAILED" : "ok");
  return fails ? 1 : 0;
}
