// jobctl: job control. SIGSTOP and SIGTSTP stop every thread of a child (their progress
// stops) and SIGCONT resumes it; wait4's WUNTRACED and WCONTINUED statuses, waitid's
// WSTOPPED, WCONTINUED and WNOWAIT, SIGCHLD's CLD_STOPPED and CLD_CONTINUED (none with
// SA_NOCLDSTOP); wait by process group (0 and -pgrp); SIGCONT discarding a pending stop signal
// and the reverse; SIGKILL of a stopped child; SIGTSTP discarded in an orphaned group, SIGSTOP
// not; SIGHUP and SIGCONT to a group orphaned with a stopped member. Linux is the oracle
// (tests/host/test_user_native.sh). Exits 0 when all hold; names each check that does not.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define PROG "jobctl"
#include "check.h"

static int progress[2];   // the spinning child's threads write 'a' and 'b' here (non-blocking)

static void
sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

// The progress bytes written so far (a, b: how many of each), the pipe drained.
static void
drain(int *a, int *b)
{
  char buf[256];
  ssize_t n;
  *a = *b = 0;
  while((n = read(progress[0], buf, sizeof(buf))) > 0)
    for(ssize_t i = 0; i < n; i++)
      *(buf[i] == 'a' ? a : b) += 1;
}

// Waits until thread c ('a' or 'b') shows progress after the pipe is drained: a bound
// against a hang, not a time asserted.
static int
advances(char c)
{
  int a, b;
  drain(&a, &b);
  for(int k = 0; k < 3000; k++) {
    struct pollfd pfd = { progress[0], POLLIN, 0 };
    poll(&pfd, 1, 10);
    drain(&a, &b);
    if(c == 'a' ? a : b)
      return 1;
  }
  return 0;
}

static void
spin(char c)
{
  for(unsigned long i = 0;; i++)
    if((i & 0xffff) == 0 && write(progress[1], &c, 1) < 0 && errno != EAGAIN)
      _exit(3);
}

static void *
spin_thread(void *arg)
{
  spin('b');
  return arg;
}

// A child in a group of its own (not orphaned: the parent is in another group of the
// session), spinning in threads threads.
static pid_t
spinner(int threads)
{
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    setpgid(0, 0);
    pthread_t t;
    if(threads > 1 && pthread_create(&t, NULL, spin_thread, NULL))
      _exit(2);
    spin('a');
  }
  setpgid(pid, pid);
  check(pid > 0, "fork");
  check(advances('a'), "the child runs");
  return pid;
}

static void
test_stop_continue(void)
{
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);   // SIGCHLD stays pending for sigtimedwait
  pid_t pid = spinner(2);
  check(advances('b'), "the child's second thread runs");
  int st;
  check(kill(pid, SIGSTOP) == 0, "kill SIGSTOP");
  check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
        "SIGSTOP: WIFSTOPPED, WSTOPSIG 19");
  check(st == (SIGSTOP << 8 | 0x7f), "stopped status word 0x137f");
  siginfo_t si;
  struct timespec zero = { 0, 0 }, wait = { 30, 0 };
  check(sigtimedwait(&chld, &si, &wait) == SIGCHLD && si.si_code == CLD_STOPPED &&
        si.si_pid == pid && si.si_status == SIGSTOP, "SIGCHLD with CLD_STOPPED, si_status 19");
  // Stopped means every thread: neither counter moves (the stop was complete when wait said so).
  int a, b;
  drain(&a, &b);
  sleep_ms(100);
  drain(&a, &b);
  check(a == 0 && b == 0, "a stopped process's threads do not run");
  check(waitpid(pid, &st, WUNTRACED | WNOHANG) == 0, "a stop is reported once");
  check(kill(pid, SIGCONT) == 0, "kill SIGCONT");
  check(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st) && st == 0xffff,
        "SIGCONT: WIFCONTINUED, status 0xffff");
  check(sigtimedwait(&chld, &si, &wait) == SIGCHLD && si.si_code == CLD_CONTINUED &&
        si.si_pid == pid && si.si_status == SIGCONT, "SIGCHLD with CLD_CONTINUED, si_status 18");
  check(advances('a') && advances('b'), "both threads run again after SIGCONT");
  // SIGTSTP stops as SIGSTOP does; waitid sees it with WNOWAIT, then takes it.
  check(kill(pid, SIGTSTP) == 0, "kill SIGTSTP");
  memset(&si, 0, sizeof(si));
  check(waitid(P_PID, pid, &si, WSTOPPED | WNOWAIT) == 0 && si.si_code == CLD_STOPPED &&
        si.si_status == SIGTSTP && si.si_pid == pid, "waitid WSTOPPED|WNOWAIT: CLD_STOPPED 20");
  memset(&si, 0, sizeof(si));
  check(waitid(P_PID, pid, &si, WSTOPPED) == 0 && si.si_code == CLD_STOPPED &&
        si.si_status == SIGTSTP, "waitid WSTOPPED after WNOWAIT: still there");
  memset(&si, 0, sizeof(si));
  check(waitid(P_PID, pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == 0,
        "waitid WSTOPPED|WNOHANG: taken");
  check(waitpid(pid, &st, WNOHANG) == 0, "a stopped child is not exited");
  kill(pid, SIGCONT);
  memset(&si, 0, sizeof(si));
  check(waitid(P_PID, pid, &si, WCONTINUED) == 0 && si.si_code == CLD_CONTINUED &&
        si.si_status == SIGCONT, "waitid WCONTINUED: CLD_CONTINUED 18");
  // SIGKILL ends a stopped process.
  kill(pid, SIGSTOP);
  check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "stopped again");
  check(kill(pid, SIGKILL) == 0, "kill SIGKILL");
  check(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
        "SIGKILL ends a stopped child");
  while(sigtimedwait(&chld, &si, &zero) == SIGCHLD)
    ;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static void on_chld(int sig) { (void)sig; }

// SA_NOCLDSTOP: no SIGCHLD for a stop or a continue; wait still reports them.
static void
test_nocldstop(void)
{
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_chld;
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, &old);
  sigset_t chld, oldmask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &oldmask);
  pid_t pid = spinner(1);
  int st;
  kill(pid, SIGSTOP);
  check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "SA_NOCLDSTOP: wait sees a stop");
  kill(pid, SIGCONT);
  check(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st),
        "SA_NOCLDSTOP: wait sees a continue");
  sigset_t pending;
  sigpending(&pending);
  check(!sigismember(&pending, SIGCHLD), "SA_NOCLDSTOP: no SIGCHLD for stop or continue");
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  siginfo_t si;
  struct timespec zero = { 0, 0 };
  while(sigtimedwait(&chld, &si, &zero) == SIGCHLD)
    ;
  sigprocmask(SIG_SETMASK, &oldmask, NULL);
  sigaction(SIGCHLD, &old, NULL);
}

// A child that blocks block and block2 (0: none), says so on ready, and after go exits with
// its pending set's SIGTSTP and SIGCONT bits (1 and 2).
static pid_t
pending_child(int block, int block2, int ready[2], int go[2])
{
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, block);
    if(block2)
      sigaddset(&set, block2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    setpgid(0, 0);
    char c = 0;
    if(write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
      _exit(100);
    sigpending(&set);
    _exit((sigismember(&set, SIGTSTP) ? 1 : 0) | (sigismember(&set, SIGCONT) ? 2 : 0));
  }
  setpgid(pid, pid);
  char c;
  check(read(ready[0], &c, 1) == 1, "the child is ready");
  return pid;
}

static void
test_discard(void)
{
  int ready[2], go[2], st;
  check(pipe(ready) == 0 && pipe(go) == 0, "pipe");
  // SIGTSTP blocked and pending, then SIGCONT: the stop signal is discarded.
  pid_t pid = pending_child(SIGTSTP, 0, ready, go);
  kill(pid, SIGTSTP);
  kill(pid, SIGCONT);
  check(write(go[1], "g", 1) == 1, "go");
  check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "SIGCONT discards a pending SIGTSTP");
  // SIGCONT blocked and pending, then SIGTSTP (blocked too): SIGCONT is discarded.
  pid = pending_child(SIGCONT, SIGTSTP, ready, go);
  kill(pid, SIGCONT);
  kill(pid, SIGTSTP);
  check(write(go[1], "g", 1) == 1, "go");
  check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 1,
        "a stop signal discards a pending SIGCONT");
  close(ready[0]);
  close(ready[1]);
  close(go[0]);
  close(go[1]);
}

// Children that exit when the pipe's write end closes.
static pid_t
waiter(int pgrp, int fd[2])
{
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    close(fd[1]);
    char c;
    while(read(fd[0], &c, 1) > 0)
      ;
    _exit(7);
  }
  if(pgrp >= 0)
    check(setpgid(pid, pgrp ? pgrp : pid) == 0, "setpgid of a child");
  return pid;
}

static void
test_wait_pgrp(void)
{
  int fd[2], st;
  check(pipe(fd) == 0, "pipe");
  pid_t a1 = waiter(0, fd);   // leads group a1
  pid_t a2 = waiter(a1, fd);
  pid_t b = waiter(0, fd);    // group b
  pid_t own = waiter(-1, fd);   // stays in the caller's group
  close(fd[0]);
  close(fd[1]);
  pid_t got1 = waitpid(-a1, &st, 0);
  pid_t got2 = waitpid(-a1, &st, 0);
  check((got1 == a1 && got2 == a2) || (got1 == a2 && got2 == a1), "waitpid(-pgrp): its two");
  check(WIFEXITED(st) && WEXITSTATUS(st) == 7, "waitpid(-pgrp): status");
  errno = 0;
  check(waitpid(-a1, &st, WNOHANG) == -1 && errno == ECHILD, "waitpid(-pgrp) emptied: ECHILD");
  check(waitpid(0, &st, 0) == own, "waitpid(0): the child in the caller's group");
  errno = 0;
  check(waitpid(0, &st, WNOHANG) == -1 && errno == ECHILD, "waitpid(0) emptied: ECHILD");
  siginfo_t si;
  memset(&si, 0, sizeof(si));
  check(waitid(P_PGID, b, &si, WEXITED) == 0 && si.si_pid == b && si.si_code == CLD_EXITED,
        "waitid(P_PGID)");
}

// Waits for pid with a bound against a hang; the status, or -1 after killing it.
static int
reap_bounded(pid_t pid)
{
  int st;
  for(int k = 0; k < 3000; k++) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if(r == pid || (pid == -1 && r > 0))
      return st;
    sleep_ms(10);
  }
  if(pid > 0)
    kill(pid, SIGKILL);
  return -1;
}

// A new session's group has no parent in its session: it is orphaned. SIGTSTP (default
// action) is discarded there; SIGSTOP still stops.
static void
test_orphaned(void)
{
  fflush(stdout);
  pid_t pid = fork();
  if(pid == 0) {
    if(setsid() < 0)
      _exit(100);
    raise(SIGTSTP);
    raise(SIGTTIN);
    raise(SIGTTOU);
    raise(SIGSTOP);
    _exit(5);
  }
  int st = -1;
  check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
        "orphaned group: SIGTSTP, SIGTTIN and SIGTTOU discarded, SIGSTOP stops");
  kill(pid, SIGCONT);
  st = reap_bounded(pid);
  check(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 5, "orphaned group: goes on after SIGCONT");

  // A group orphaned by its parent's exit while a member is stopped: SIGHUP and SIGCONT.
  // Its leader's parent leads a session of its own; the orphan comes here (subreaper), in
  // another session.
  check(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "PR_SET_CHILD_SUBREAPER");
  fflush(stdout);
  pid = fork();
  if(pid == 0) {
    if(setsid() < 0)
      _exit(100);
    pid_t g = fork();
    if(g == 0) {
      setpgid(0, 0);
      raise(SIGSTOP);
      _exit(6);   // not reached: SIGHUP ends it once continued
    }
    setpgid(g, g);
    int gst;
    _exit(waitpid(g, &gst, WUNTRACED) == g && WIFSTOPPED(gst) ? 0 : 101);
  }
  st = reap_bounded(pid);
  check(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the grandchild stopped");
  st = reap_bounded(-1);
  check(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGHUP,
        "newly orphaned group with a stopped member: SIGHUP and SIGCONT");
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int
main(void)
{
  if(pipe2(progress, O_NONBLOCK) != 0)
    return 1;
  test_stop_continue();
  test_nocldstop();
  test_discard();
  test_wait_pgrp();
  test_orphaned();
  printf("jobctl: %d checks, %d failed\n", checks, fails);
  return fails != 0;
}
