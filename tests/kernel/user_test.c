// user-*: the test programs (tests/user/), files of the test archive (testprog.h), run as
// processes in ring 3, each checked by its exit status and by every page it used coming back
// when it ends; planted-user-leak keeps one page of a finished process, which the leak check
// must catch. A program missing from /test/bin fails its test, naming the path.
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "fs.h"
#include "mm.h"
#include "process.h"
#include "sched.h"
#include "selftest.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "testprog.h"
#include "tty.h"
#include "uapi/fcntl.h"
#include "vsprintf.h"
#include "watchdog.h"

extern bool process_planted_leak;
extern bool cow_planted_shared;
extern bool planted_no_user_preempt;
extern bool pipe_planted_torn;
extern bool planted_sigreturn_fpu;

// hello as ET_EXEC, as a static-PIE (ET_DYN, loaded at PIE_BASE, relocating itself) and
// dynamically linked (through the C library's loader, with its libc.so.6).
static bool
user_hello(void)
{
  const char *const argv[] = { TEST_BIN_DIR "hello", "one", "two words", NULL };
  const char *const pie[] = { TEST_BIN_DIR "hello-pie", "pie", NULL };
  const char *const dyn[] = { TEST_BIN_DIR "hello-dyn", "dyn", NULL };
  return testprog_run("hello", argv, 0) & testprog_run("hello-pie", pie, 0) &
         testprog_run("hello-dyn", dyn, 0);
}
SELFTEST_NOINJECT("user-hello", user_hello);

static bool
user_threads(void)
{
  const char *const argv[] = { TEST_BIN_DIR "threads", NULL };
  return testprog_run("threads", argv, 0);
}
SELFTEST_NOINJECT("user-threads", user_threads);

static bool
user_mem(void)
{
  const char *const argv[] = { TEST_BIN_DIR "mem", NULL };
  return testprog_run("mem", argv, 0);
}
SELFTEST_NOINJECT("user-mem", user_mem);

// 60,000 mappings that do not merge, then two threads unmapping and mapping among them
// (tests/user/manymaps.c): every mmap's first fit searches a tree of 60,000 VMAs.
static bool
user_manymaps(void)
{
  const char *const argv[] = { TEST_BIN_DIR "manymaps", NULL };
  return testprog_run("manymaps", argv, 0);
}
SELFTEST_NOINJECT("user-manymaps", user_manymaps);

// File mappings (tests/user/fmap.c): shared and private, coherence with read and write,
// copy-on-write, mremap, msync, mincore and their errnos; then a page past the end of a short
// file, and of a file truncated while mapped: SIGBUS, status 135.
static bool
user_fmap(void)
{
  const char *const argv[] = { TEST_BIN_DIR "fmap", NULL };
  const char *const bus[] = { TEST_BIN_DIR "fmap", "sigbus", NULL };
  const char *const trunc[] = { TEST_BIN_DIR "fmap", "truncate", NULL };
  return testprog_run("fmap", argv, 0) & testprog_run("fmap", bus, 135) &
         testprog_run("fmap", trunc, 135);
}
SELFTEST_NOINJECT("user-fmap", user_fmap);

// A MAP_SHARED file mapping's first write to a page updates the file's mtime and ctime
// (page_mkwrite, tests/user/mkwrite.c); a read fault, a MAP_PRIVATE write and a store to a
// page already writable do not; mprotect and fork keep the write-notification.
static bool
user_mkwrite(void)
{
  const char *const argv[] = { TEST_BIN_DIR "mkwrite", NULL };
  return testprog_run("mkwrite", argv, 0);
}
SELFTEST_NOINJECT("user-mkwrite", user_mkwrite);

// exit_group from main while a thread spins on every CPU, one waits on a futex for ever and
// one sleeps for an hour: status 3, at once.
static bool
user_exit_group(void)
{
  const char *const argv[] = { TEST_BIN_DIR "exitgroup", NULL };
  return testprog_run("exitgroup", argv, 3);
}
SELFTEST_NOINJECT("user-exit-group", user_exit_group);

static bool
user_clock(void)
{
  const char *const argv[] = { TEST_BIN_DIR "clock", NULL };
  return testprog_run("clock", argv, 0);
}
SELFTEST_NOINJECT("user-clock", user_clock);

// alarm, setitimer, getitimer (tests/user/itimer.c): with processes and threads that end while
// their timer fires, whose pages must all come back.
static bool
user_itimer(void)
{
  const char *const argv[] = { TEST_BIN_DIR "itimer", NULL };
  return testprog_run("itimer", argv, 0);
}
SELFTEST_NOINJECT("user-itimer", user_itimer);

// The file system calls and their errnos, in a directory of its own under /tmp; exit closes
// the file it leaves open.
static bool
user_files(void)
{
  const char *const argv[] = { TEST_BIN_DIR "files", NULL };
  return testprog_run("files", argv, 0);
}
SELFTEST_NOINJECT("user-files", user_files);

// rename and renameat2, file times and utimensat, sendfile, in a directory of their own.
static bool
user_names(void)
{
  const char *const argv[] = { TEST_BIN_DIR "names", NULL };
  return testprog_run("names", argv, 0);
}
SELFTEST_NOINJECT("user-names", user_names);

// Extended attributes, statfs and fadvise64 as Linux's ramfs answers them (tests/user/xattr.c).
static bool
user_xattr(void)
{
  const char *const argv[] = { TEST_BIN_DIR "xattr", NULL };
  return testprog_run("xattr", argv, 0);
}
SELFTEST_NOINJECT("user-xattr", user_xattr);

// fcntl's record locks as Linux's: F_GETLK from another process, EAGAIN, a sleeper woken and
// one interrupted, EDEADLK, split and joined ranges, POSIX and OFD closes (tests/user/locks.c).
static bool
user_locks(void)
{
  const char *const argv[] = { TEST_BIN_DIR "locks", NULL };
  return testprog_run("locks", argv, 0);
}
SELFTEST_NOINJECT("user-locks", user_locks);

// Futexes between processes (shared memory across fork, one file mapped at two addresses),
// private ones not, and glibc's process-shared mutex, condition variable and semaphore
// (tests/user/pshared.c).
static bool
user_pshared(void)
{
  const char *const argv[] = { TEST_BIN_DIR "pshared", NULL };
  return testprog_run("pshared", argv, 0);
}
SELFTEST_NOINJECT("user-pshared", user_pshared);

// The vsyscall page's three calls, emulated, and its SIGSEGVs (tests/user/vsyscall.c).
static bool
user_vsyscall(void)
{
  const char *const argv[] = { TEST_BIN_DIR "vsyscall", NULL };
  return testprog_run("vsyscall", argv, 0);
}
SELFTEST_NOINJECT("user-vsyscall", user_vsyscall);

// epoll on pipes as Linux's: level, edge, one-shot, a sleeper woken by another thread, EINTR,
// epoll_pwait's mask, closes, and the errnos (tests/user/epoll.c).
static bool
user_epoll(void)
{
  const char *const argv[] = { TEST_BIN_DIR "epoll", NULL };
  return testprog_run("epoll", argv, 0);
}
SELFTEST_NOINJECT("user-epoll", user_epoll);

// System V shared memory and semaphores between processes (tests/user/sysvipc.c).
static bool
user_sysvipc(void)
{
  const char *const argv[] = { TEST_BIN_DIR "sysvipc", NULL };
  return testprog_run("sysvipc", argv, 0);
}
SELFTEST_NOINJECT("user-sysvipc", user_sysvipc);

// AF_UNIX sockets (tests/user/unix.c): pairs, names, connect and accept, SCM_RIGHTS, poll,
// epoll, EPIPE and SIGPIPE, races of send and close.
static bool
user_unix(void)
{
  const char *const argv[] = { TEST_BIN_DIR "unix", NULL };
  return testprog_run("unix", argv, 0);
}
SELFTEST_NOINJECT("user-unix", user_unix);

// The working directory and dirfds as directories: 1000 levels deep, "..", fchdir, renamed
// and removed directories, O_CREAT through dangling links, threads racing chdir.
static bool
user_dirs(void)
{
  const char *const argv[] = { TEST_BIN_DIR "dirs", NULL };
  return testprog_run("dirs", argv, 0);
}
SELFTEST_NOINJECT("user-dirs", user_dirs);

// The termios calls with nothing typed (outside init='s session a read is end of file, which
// is what a VMIN 0 read of an idle terminal returns too); tools/ttydrive.py types into it.
static bool
user_termios(void)
{
  const char *const argv[] = { TEST_BIN_DIR "termios", NULL };
  tty_reset();   // whatever user-hostile's random ioctls set
  return testprog_run("termios", argv, 0);
}
SELFTEST_NOINJECT("user-termios", user_termios);

// Pipes between threads: round trips, capacity, EOF and EPIPE, sleepers woken, PIPE_BUF
// atomicity with eight writers; then a write with no reader and SIGPIPE's default action
// ends the process as SIGPIPE does (141). Every pipe's pages come back.
static bool
user_pipe(void)
{
  const char *const argv[] = { TEST_BIN_DIR "pipe", NULL };
  const char *const sigpipe[] = { TEST_BIN_DIR "pipe", "sigpipe", NULL };
  return testprog_run("pipe", argv, 0) & testprog_run("pipe", sigpipe, 141);
}
SELFTEST_NOINJECT("user-pipe", user_pipe);

// Pipes between processes (tests/user/pipeproc.c): a child's output to end of file, round
// trips, a two-child pipeline joined by dup2, poll woken by another process, a child killed
// by SIGPIPE as wait reports it.
static bool
user_pipeproc(void)
{
  const char *const argv[] = { TEST_BIN_DIR "pipeproc", NULL };
  return testprog_run("pipeproc", argv, 0);
}
SELFTEST_NOINJECT("user-pipeproc", user_pipeproc);

// /proc/<pid>/stat and /proc/<pid>/fd/ (tests/user/procpid.c): a child's stat live, as a
// zombie and gone once reaped; the fd directory lists exactly the open fds.
static bool
user_procpid(void)
{
  const char *const argv[] = { TEST_BIN_DIR "procpid", NULL };
  return testprog_run("procpid", argv, 0);
}
SELFTEST_NOINJECT("user-procpid", user_procpid);

// The planted bug: pipe writes go in halves with a chance for another writer between them,
// so PIPE_BUF writes interleave: user-pipe's atomicity check must fail.
static bool
planted_pipe_torn(void)
{
  const char *const argv[] = { TEST_BIN_DIR "pipe", NULL };
  WRITE_ONCE(pipe_planted_torn, true);
  bool ok = testprog_run("pipe", argv, 0);
  WRITE_ONCE(pipe_planted_torn, false);
  return ok;
}
SELFTEST("planted-pipe-torn", planted_pipe_torn);

// poll, ppoll, select and pselect6 on pipes, /dev/null, a directory and the console, with
// their timeouts and errors; the process ends with threads blocked in read, write, poll and
// select.
static bool
user_poll(void)
{
  const char *const argv[] = { TEST_BIN_DIR "poll", NULL };
  return testprog_run("poll", argv, 0);
}
SELFTEST_NOINJECT("user-poll", user_poll);

// The fd table past 64 slots: dup2, F_DUPFD, select and poll at fds 100 to 4095, EMFILE at
// RLIMIT_NOFILE, fork and execve with high fds, threads growing the table while others read.
static bool
user_fdtable(void)
{
  const char *const argv[] = { TEST_BIN_DIR "fdtable", NULL };
  return testprog_run("fdtable", argv, 0);
}
SELFTEST_NOINJECT("user-fdtable", user_fdtable);

// Each way of dying: the status a shell would show (128 + SIGSEGV, SIGILL, SIGFPE, SIGABRT,
// SIGTERM), and the kernel carries on.
static bool
user_segfault(void)
{
  static const struct {
    const char *how;
    int status;
  } cases[] = {
    { "null", 139 }, { "kernel", 139 }, { "nx", 139 }, { "ro", 139 }, { "ud2", 132 },
    { "div0", 136 }, { "abort", 134 }, { "term", 143 }, { "sysret", 139 },
  };
  bool ok = true;
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *const argv[] = { TEST_BIN_DIR "fault", cases[i].how, NULL };
    ok &= testprog_run("fault", argv, cases[i].status);
  }
  return ok;
}
SELFTEST_NOINJECT("user-segfault", user_segfault);

static bool
user_fpu(void)
{
  const char *const argv[] = { TEST_BIN_DIR "fpu", NULL };
  return testprog_run("fpu", argv, 0);
}
SELFTEST_NOINJECT("user-fpu", user_fpu);

// Two spinners per CPU plus one, for 3 s with the soft-lockup threshold at 1 s: time in
// ring 3 is progress, not a lockup. This thread's own 0.5 s sleep ends before any spinner has
// finished, so the tick did preempt them: placed on the least loaded CPUs, one shares this
// thread's, and without preemption this thread would run only once that one had finished.
static bool
spin_test(void)
{
  int spinners = 2 * cpumask_weight(&cpu_online_mask) + 1;
  char count[8];
  snprintf(count, sizeof(count), "%d", spinners);
  const char *const argv[] = { TEST_BIN_DIR "spin", "3", count, NULL };
  struct testprog prog;
  if(!testprog_load(&prog, "spin", NULL))
    return false;
  long before = testprog_used_pages();
  int saved = softlockup_secs;
  WRITE_ONCE(softlockup_secs, 1);
  struct process *p = testprog_spawn(&prog, argv);
  if(!p) {
    WRITE_ONCE(softlockup_secs, saved);
    return false;
  }
  msleep(500);
  spin_lock(&p->lock);   // no spinner has finished yet, and they have begun
  bool ran_meanwhile = p->nr_live == p->nr_started && p->nr_started > 1;
  spin_unlock(&p->lock);
  int status = process_wait(p);
  WRITE_ONCE(softlockup_secs, saved);
  long leaked = testprog_used_pages() - before;
  selftest_extra("status=%d slept-while-spinning=%d leaked-pages=%ld", status, ran_meanwhile,
                 leaked);
  return status == 0 && ran_meanwhile && leaked == 0;
}

static bool
user_spin(void)
{
  return spin_test();
}
SELFTEST_NOINJECT("user-spin", user_spin);

// Garbage, kernel addresses and huge lengths to every system call: answered, the program
// lives, the kernel goes on, nothing leaks.
static bool
user_hostile(void)
{
  const char *const argv[] = { TEST_BIN_DIR "hostile", NULL };
  return testprog_run("hostile", argv, 0);
}
SELFTEST_NOINJECT("user-hostile", user_hostile);

// A process's end racing the making of its threads and processes (pthread_create, a forking
// process group, vfork against exit_group and SIGKILL), and a child's kill(-1, SIGKILL), which
// must spare this kernel-started program: the kernel survives every round, nothing leaks.
static bool
user_races(void)
{
  const char *const argv[] = { TEST_BIN_DIR "races", NULL };
  const char *const killall[] = { TEST_BIN_DIR "races", "killall", NULL };
  return testprog_run("races", argv, 0) & testprog_run("races", killall, 0);
}
SELFTEST_NOINJECT("user-races", user_races);

// Page faults racing mmap, munmap, MADV_DONTNEED and mprotect of the same region, and faults
// on other VMAs beside them (per-VMA locks, mm/vma_lock.c): nothing stale is ever read.
static bool
user_vmrace(void)
{
  const char *const argv[] = { TEST_BIN_DIR "vmrace", NULL };
  return testprog_run("vmrace", argv, 0);
}
SELFTEST_NOINJECT("user-vmrace", user_vmrace);

// clone(CLONE_VM | CLONE_SIGHAND) shares the handlers between processes (kernel/sighand.c):
// seen and run by every sharer, unshared by execve, dropped by exit, raced by sharers.
static bool
user_sighand(void)
{
  const char *const argv[] = { TEST_BIN_DIR "sighand", NULL };
  return testprog_run("sighand", argv, 0);
}
SELFTEST_NOINJECT("user-sighand", user_sighand);

// Memory until there is none: the process is killed as Linux's OOM killer kills (137), the
// kernel goes on, and every page comes back.
static bool
user_oom(void)
{
  const char *const argv[] = { TEST_BIN_DIR "oom", NULL };
  return testprog_run("oom", argv, 137);
}
SELFTEST_NOINJECT("user-oom", user_oom);

struct first_entry {
  char name[64];
  u32 mode;
  bool found;
};

static bool
take_first(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  struct first_entry *e = arg;
  len = len < sizeof(e->name) - 1 ? len : sizeof(e->name) - 1;
  memcpy(e->name, name, len);
  e->name[len] = 0;
  e->mode = mode;
  e->found = true;
  return false;   // one at a time: the caller removes it, then reads again
}

// Removes the directory at path and everything under it; false if something stayed. A program
// killed under injection (an OOM kill) leaves its scratch directory (proc's /tmp/proc-<pid>),
// which the leak check would count as the kernel's inodes and dentries.
static bool
remove_tree(const char *path, int depth)
{
  for(int n = 0; n < 10000; n++) {
    struct file *f;
    if(vfs_open(path, 0, 0, &f) < 0)
      return false;
    struct first_entry e = { .found = false };
    vfs_readdir(f, take_first, &e);
    vfs_close(f);
    if(!e.found)
      return vfs_rmdir(path) == 0;
    char child[160];
    snprintf(child, sizeof(child), "%s/%s", path, e.name);
    bool gone = S_ISDIR(e.mode) ? depth < 8 && remove_tree(child, depth + 1)
                                : vfs_unlink(child) == 0;
    if(!gone)
      return false;
  }
  return false;
}

// Waits for p's end, at most secs: a program still running then is killed and reported (a
// program under injection gets errors, and a lost wake-up or an error path that keeps a pipe
// end open would leave it blocked for ever; process_wait alone would wait with it).
static int
wait_bounded(struct process *p, int secs, bool *hung)
{
  for(int ms = 0; !READ_ONCE(p->dead) && ms < secs * 1000; ms += 100)
    msleep(100);
  if(!READ_ONCE(p->dead)) {
    *hung = true;
    process_kill(p, SIGKILL);
  }
  return process_wait(p);
}

// Under the boot's fault injection (failslab=, failpage=; without them it only runs the
// programs): whatever an allocation failure does to a program (ENOMEM to it, an OOM kill, a
// failed spawn), the kernel goes on and every page comes back. Without injection each must
// pass, started by a relative path (readlink of /proc/self/exe must still be absolute).
// First every program is spawned under injection (the spawn's own error paths: at 20 per
// mille loading a program fails nearly always); then proc (fork, copy-on-write, vfork,
// execve, wait), pipeproc (pipes between processes) and a 300-fork storm are spawned with
// injection paused and run under it, so their fork, execve, mmap, pipe and page faults meet
// the failures. A program that fails is no failure here; one that hangs, or a page kept, is.
static bool
user_inject(void)
{
  static const char *const progs[] = { "hello", "threads", "mem", "clock" };
  // By absolute paths: proc execs itself by readlink of /proc/self/exe, and "proc" from the
  // root directory is /proc.
  static const struct {
    const char *bin;
    const char *argv[4];
  } under[] = {
    { "proc", { TEST_BIN_DIR "proc", NULL } },
    { "pipeproc", { TEST_BIN_DIR "pipeproc", NULL } },
    { "proc", { TEST_BIN_DIR "proc", "storm", "300", NULL } },
  };
  long before = testprog_used_pages();
  int ran = 0, spawn_failed = 0, failed = 0;
  bool bad = false;   // a program hung, or left its scratch directory
  for(size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
    const char *const argv[] = { progs[i], NULL };
    struct testprog prog;
    int err;
    if(!testprog_load(&prog, progs[i], &err)) {
      if(err == -ENOENT)
        return false;   // missing (the SELFTEST line names it): no injection excuses that
      spawn_failed++;
      continue;
    }
    struct process *p = process_spawn(prog.path, argv, testprog_env, &err);
    if(!p) {
      spawn_failed++;
      continue;
    }
    int status = wait_bounded(p, 120, &bad);
    selftest_extra("%s=%d", progs[i], status);
    failed += status != 0;
    ran++;
  }
  for(size_t i = 0; i < sizeof(under) / sizeof(under[0]); i++) {
    struct testprog prog;
    struct fault_rates rates;
    fault_inject_pause(&rates);
    int err;
    struct process *p = NULL;
    if(testprog_load(&prog, under[i].bin, NULL)) {
      p = process_spawn(prog.path, under[i].argv, testprog_env, &err);
      if(!p)
        selftest_extra("spawn=%d", err);
    }
    fault_inject_restore(&rates);
    if(!p)
      return false;   // injection paused: the read and the spawn must work
    bool stuck = false;
    char scratch[32];
    snprintf(scratch, sizeof(scratch), "/tmp/proc-%d", p->pid);
    int status = wait_bounded(p, 120, &stuck);
    selftest_extra("%s=%d", under[i].argv[1] ? under[i].argv[1] : under[i].bin, status);
    if(stuck)
      selftest_extra("hung=%s", under[i].bin);
    bad |= stuck;
    struct kstat st;
    fault_inject_pause(&rates);
    if(vfs_stat(scratch, 0, &st) == 0 && !remove_tree(scratch, 0)) {
      selftest_extra("left=%s", scratch);
      bad = true;
    }
    fault_inject_restore(&rates);
    failed += status != 0;
    ran++;
  }
  long leaked = testprog_used_pages() - before;
  selftest_extra("spawn-failed=%d failed=%d leaked-pages=%ld", spawn_failed, failed, leaked);
  if(leaked || bad)
    return false;
  // Without injection every program must simply work (they are started by relative paths).
  return fault_inject_active() || (spawn_failed == 0 && failed == 0);
}
SELFTEST("user-inject", user_inject);

// Processes (tests/user/proc.c): fork with copy-on-write, wait4 and waitid, vfork, execve
// and its errors, orphans, RUSAGE_CHILDREN; every page back once the tree has ended.
static bool
user_proc(void)
{
  const char *const argv[] = { TEST_BIN_DIR "proc", NULL };
  return testprog_run("proc", argv, 0);
}
SELFTEST_NOINJECT("user-proc", user_proc);

// 4,000 fork + exit + wait, four times the MAX_THREADS slots (each slot, pid and page reused
// over and over): the free pages come back to the baseline (run's check). It was 10,000, 8-10 s
// of each self-test boot for the same reuse, two and a half times more of it.
static bool
user_fork_storm(void)
{
  const char *const argv[] = { TEST_BIN_DIR "proc", "storm", "4000", NULL };
  return testprog_run("proc", argv, 0);
}
SELFTEST_NOINJECT("user-fork-storm", user_fork_storm);

// Job control (tests/user/jobctl.c): stop and continue of every thread, the wait statuses
// and SIGCHLD codes, wait by process group, SIGCONT and stop signals discarding each other,
// SIGKILL of a stopped child, orphaned process groups.
static bool
user_jobctl(void)
{
  const char *const argv[] = { TEST_BIN_DIR "jobctl", NULL };
  return testprog_run("jobctl", argv, 0);
}
SELFTEST_NOINJECT("user-jobctl", user_jobctl);

// The planted bug: fork shares the pages writable instead of copy-on-write; the copy-on-write
// checks of proc must see one side's writes on the other.
static bool
planted_cow_shared(void)
{
  const char *const argv[] = { TEST_BIN_DIR "proc", "cow", NULL };
  WRITE_ONCE(cow_planted_shared, true);
  bool ok = testprog_run("proc", argv, 0);
  WRITE_ONCE(cow_planted_shared, false);
  return ok;
}
SELFTEST("planted-cow-shared", planted_cow_shared);

// The planted bug: ring 3 is never preempted, so a spinner keeps this thread's CPU and its
// sleep outlives the spinners: user-spin's check must fail.
static bool
planted_user_no_preempt(void)
{
  WRITE_ONCE(planted_no_user_preempt, true);
  bool ok = spin_test();
  WRITE_ONCE(planted_no_user_preempt, false);
  return ok;
}
SELFTEST("planted-user-no-preempt", planted_user_no_preempt);

// The planted bug: a finished process keeps its first thread's FPU page. The test's own page
// count (leaked-pages=1, result=fail) and the run's LEAK-CHECK must both see it.
static bool
planted_user_leak(void)
{
  const char *const argv[] = { TEST_BIN_DIR "hello", NULL };
  process_planted_leak = true;
  bool ok = testprog_run("hello", argv, 0);
  process_planted_leak = false;
  return ok;
}
SELFTEST("planted-user-leak", planted_user_leak);

// Signal handlers: siginfo, masks, nesting, EINTR and SA_RESTART, sigsuspend, sigtimedwait,
// sigaltstack, SIGSEGV with siglongjmp, FPU state across handlers and under signals from
// other CPUs, tgkill to another thread, process groups (tests/user/signals.c); then the ways
// a signal ends a process: a SIGABRT handler that returns (134), SA_RESETHAND's second
// signal (138), SIGKILL with threads asleep (137), rt_sigreturn without a frame and a handler
// without a stack (139).
static bool
user_signals(void)
{
  static const struct {
    const char *how;
    int status;
  } cases[] = {
    { "abort", 134 }, { "resethand", 138 }, { "sigkill", 137 }, { "badframe", 139 },
    { "badstack", 139 },
  };
  const char *const argv[] = { TEST_BIN_DIR "signals", NULL };
  bool ok = testprog_run("signals", argv, 0);
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *const a[] = { TEST_BIN_DIR "signals", cases[i].how, NULL };
    ok &= testprog_run("signals", a, cases[i].status);
  }
  return ok;
}
SELFTEST_NOINJECT("user-signals", user_signals);

// The planted bug: rt_sigreturn leaves the handler's FPU registers in place, so user-signals'
// checks of xmm, MXCSR and FCW after a handler, and its exact sums, must fail.
static bool
planted_signal_fpu(void)
{
  const char *const argv[] = { TEST_BIN_DIR "signals", NULL };
  WRITE_ONCE(planted_sigreturn_fpu, true);
  bool ok = testprog_run("signals", argv, 0);
  WRITE_ONCE(planted_sigreturn_fpu, false);
  return ok;
}
SELFTEST_NOINJECT("planted-signal-fpu", planted_signal_fpu);
