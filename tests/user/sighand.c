// sighand: clone(CLONE_SIGHAND) shares the signal handlers between processes, checked against
// the host kernel: a sharer's sigaction is seen by the others and runs there; SIG_IGN set by one
// discards the signal for the others; execve gives the execing sharer its own table and leaves
// the others' alone; vfork does not share; clone's EINVAL combinations; and a race of sharers
// changing a handler while signals fly and sharers exit. Exits 0 when all hold. With the
// argument "exec-child" it is the program a sharer execs (its exit status is its verdict).
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "sighand"
#include "check.h"

#define STACK_SIZE (64 << 10)
#define SHARE (CLONE_VM | CLONE_SIGHAND)

// The children below share this program's memory (CLONE_VM) and its thread pointer, so they
// keep to system calls and atomics: no stdio, no errno they rely on.
static _Atomic int step;                 // the share test's handshake
static _Atomic int runs_a, runs_b;       // handler_a and handler_b ran (in any sharer)
static _Atomic pid_t ran_in;             // the pid handler_a last ran in
static struct sigaction seen;            // what the share test's child read back
static _Atomic int child_verdict;        // a child's own checks: 0 when they held

static void
handler_a(int sig)
{
  (void)sig;
  atomic_fetch_add(&runs_a, 1);
  atomic_store(&ran_in, (pid_t)syscall(SYS_getpid));
}

static void
handler_b(int sig)
{
  (void)sig;
  atomic_fetch_add(&runs_b, 1);
}

static void
set(int sig, void (*fn)(int), int flags, int masked)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if(masked)
    sigaddset(&sa.sa_mask, masked);
  if(sigaction(sig, &sa, NULL))
    atomic_store(&child_verdict, 1);
}

static void *
new_stack(void)
{
  char *s = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(s == MAP_FAILED) {
    printf("%s: FAILED mmap of a stack\n", PROG);
    exit(1);
  }
  return s + STACK_SIZE;
}

// A bound, not a time: a child that died or a signal that went astray ends the wait with a
// failed check instead of a hang.
#define SPINS 5000000

static int
wait_for(_Atomic int *v, int want)
{
  for(long i = 0; atomic_load(v) < want; i++) {
    if(i == SPINS)
      return 0;
    sched_yield();
  }
  return 1;
}

static void
wait_step(int want)
{
  wait_for(&step, want);
}

static int
reap(pid_t pid)
{
  int status;
  pid_t got = waitpid(pid, &status, 0);
  if(got < 0 || (pid > 0 && got != pid))
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *
handler_name(void (*h)(int))
{
  return h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN" : h == handler_a ? "handler_a" :
         h == handler_b ? "handler_b" : "other";
}

static void (*handler_of(int sig))(int)
{
  struct sigaction old;
  if(sigaction(sig, NULL, &old))
    return (void (*)(int))-1;
  return old.sa_handler;
}

// The child installs handler_a; then reads back what the parent installed after it.
static int
share_child(void *arg)
{
  (void)arg;
  set(SIGUSR1, handler_a, SA_RESTART, SIGUSR2);
  atomic_store(&step, 1);
  wait_step(2);
  sigaction(SIGUSR1, NULL, &seen);
  atomic_store(&step, 3);
  wait_step(4);
  return 0;
}

static void
test_share(void)
{
  set(SIGUSR1, SIG_DFL, 0, 0);
  atomic_store(&step, 0);
  pid_t pid = clone(share_child, new_stack(), SHARE | SIGCHLD, NULL);
  check(pid > 0, "clone(CLONE_VM | CLONE_SIGHAND)");
  if(pid <= 0)
    return;
  check(wait_for(&step, 1), "the child installed its handler");
  struct sigaction old;
  check(sigaction(SIGUSR1, NULL, &old) == 0, "sigaction reads back");
  check(old.sa_handler == handler_a, "the child's handler is the parent's");
  check(old.sa_flags & SA_RESTART, "with the child's flags");
  check(sigismember(&old.sa_mask, SIGUSR2) == 1, "and the child's mask");
  printf("%s: after the child's sigaction the parent has %s\n", PROG, handler_name(old.sa_handler));
  int before = runs_a;
  kill(getpid(), SIGUSR1);
  check(runs_a == before + 1 && ran_in == getpid(), "the child's handler runs in the parent");
  set(SIGUSR1, handler_b, 0, 0);
  atomic_store(&step, 2);
  wait_step(3);
  check(seen.sa_handler == handler_b, "the parent's later handler is the child's");
  // The child, still sharing, gets a signal: the parent's handler_b runs there.
  before = runs_b;
  kill(pid, SIGUSR1);
  check(wait_for(&runs_b, before + 1), "the parent's handler runs in the child");
  // SIG_IGN set here discards SIGUSR1 for the child: it would die of SIG_DFL's action.
  set(SIGUSR1, SIG_IGN, 0, 0);
  kill(pid, SIGUSR1);
  atomic_store(&step, 4);
  check(reap(pid) == 0, "the sharer ignored what this process set to SIG_IGN, and exited 0");
  check(handler_of(SIGUSR1) == SIG_IGN, "the handler outlives the sharer's exit");
  set(SIGUSR1, SIG_DFL, 0, 0);
}

// A sharer that blocks SIGUSR2 and has one pending when its other sharer sets SIG_IGN: Linux
// discards it then only from the setter's own queues (kernel/signal.c, do_sigaction), so it is
// still pending here; unblocked, it is dropped as ignored.
static int
pending_child(void *arg)
{
  (void)arg;
  sigset_t s, p;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  sigprocmask(SIG_BLOCK, &s, NULL);
  atomic_store(&step, 1);
  wait_step(2);   // the parent sent SIGUSR2 and then set SIG_IGN
  sigpending(&p);
  int still = sigismember(&p, SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &s, NULL);
  sigpending(&p);
  return still == 1 && sigismember(&p, SIGUSR2) == 0 ? 0 : 7;
}

static void
test_pending(void)
{
  set(SIGUSR2, SIG_DFL, 0, 0);
  atomic_store(&step, 0);
  pid_t pid = clone(pending_child, new_stack(), SHARE | SIGCHLD, NULL);
  check(pid > 0, "clone for the pending test");
  if(pid <= 0)
    return;
  wait_step(1);
  kill(pid, SIGUSR2);
  set(SIGUSR2, SIG_IGN, 0, 0);
  atomic_store(&step, 2);
  check(reap(pid) == 0, "a pending signal another sharer ignores: kept, then dropped");
  set(SIGUSR2, SIG_DFL, 0, 0);
}

// Runs the "exec-child" program: its handlers are a fresh copy of the sharers' own.
static int
exec_child(void *arg)
{
  char *const argv[] = { (char *)arg, "exec-child", NULL };
  char *const envp[] = { NULL };
  syscall(SYS_execve, "/proc/self/exe", argv, envp);
  return 99;
}

static void
test_exec(const char *self)
{
  set(SIGUSR2, handler_b, 0, SIGHUP);
  set(SIGPIPE, SIG_IGN, 0, 0);
  set(SIGHUP, SIG_DFL, 0, 0);
  pid_t pid = clone(exec_child, new_stack(), SHARE | SIGCHLD, (void *)self);
  check(pid > 0, "clone for the exec test");
  if(pid <= 0)
    return;
  int st = reap(pid);
  check(st == 0, "after execve the child's handlers are reset, its own and not shared");
  if(st)
    printf("%s: exec-child exited %d\n", PROG, st);
  struct sigaction old;
  sigaction(SIGUSR2, NULL, &old);
  check(old.sa_handler == handler_b && sigismember(&old.sa_mask, SIGHUP) == 1,
        "the child's execve leaves the parent's handler alone");
  printf("%s: after the sharer's execve the parent's SIGUSR2 is %s\n", PROG,
         handler_name(old.sa_handler));
  check(handler_of(SIGHUP) == SIG_DFL, "what the exec'd program set is its own");
  check(handler_of(SIGPIPE) == SIG_IGN, "SIG_IGN kept");
  set(SIGUSR2, SIG_DFL, 0, 0);
  set(SIGPIPE, SIG_DFL, 0, 0);
}

// The exec'd sharer: handlers back to SIG_DFL, SIG_IGN kept (execve(2)); then it sets its
// own, which the old sharers must not see.
static int
exec_child_main(void)
{
  int bad = 0;
  if(handler_of(SIGUSR2) != SIG_DFL)
    bad |= 1;
  if(handler_of(SIGPIPE) != SIG_IGN)
    bad |= 2;
  set(SIGHUP, SIG_IGN, 0, 0);
  set(SIGUSR2, handler_a, 0, 0);
  return bad | child_verdict;
}

// vfork (CLONE_VM | CLONE_VFORK) copies the handlers: the child's sigaction stays its own.
static void
test_vfork(void)
{
  set(SIGUSR1, handler_a, 0, 0);
  pid_t pid = vfork();
  if(pid == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler_b;
    syscall(SYS_rt_sigaction, SIGUSR1, &sa, NULL, 8);
    _exit(0);
  }
  check(pid > 0 && reap(pid) == 0, "vfork");
  check(handler_of(SIGUSR1) == handler_a, "a vfork child's sigaction is not the parent's");
  set(SIGUSR1, SIG_DFL, 0, 0);
}

static int
nothing(void *arg)
{
  (void)arg;
  return 0;
}

// clone(2): CLONE_SIGHAND needs CLONE_VM, CLONE_THREAD needs CLONE_SIGHAND (Linux's
// copy_process). A wrongly made child only returns.
static void
test_einval(void)
{
  FAILS(clone(nothing, new_stack(), CLONE_SIGHAND | SIGCHLD, NULL), EINVAL);
  FAILS(clone(nothing, new_stack(), CLONE_THREAD | CLONE_VM, NULL), EINVAL);
  FAILS(clone(nothing, new_stack(), CLONE_THREAD | CLONE_SIGHAND, NULL), EINVAL);
}

// The race: NRACE sharers and this process switch SIGUSR1 between two handlers, each with its
// own mask, while they signal each other and themselves, and exit at different times. Each
// handler checks that it runs under its own mask: a torn read of the action (one handler with
// the other's mask) shows there.
#define NRACE 4
#define ROUNDS 6000
static pid_t racers[NRACE + 1];
static _Atomic int torn, race_runs, race_calls, race_done;

static int
blocked_has(int sig)
{
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  return sigismember(&cur, sig);
}

static void
race_x(int sig)
{
  (void)sig;
  if(blocked_has(SIGUSR2) != 1 || blocked_has(SIGHUP) != 0)
    atomic_fetch_add(&torn, 1);
  atomic_fetch_add(&race_runs, 1);
}

static void
race_y(int sig)
{
  (void)sig;
  if(blocked_has(SIGHUP) != 1 || blocked_has(SIGUSR2) != 0)
    atomic_fetch_add(&torn, 1);
  atomic_fetch_add(&race_runs, 1);
}

static void
race_loop(int me, int rounds)
{
  pid_t self = (pid_t)syscall(SYS_getpid);
  for(int i = 0; i < rounds; i++) {
    if(i % 3 == 2)
      set(SIGUSR1, SIG_IGN, 0, 0);
    else
      set(SIGUSR1, i % 3 ? race_y : race_x, SA_RESTART, i % 3 ? SIGHUP : SIGUSR2);
    atomic_fetch_add(&race_calls, 1);
    if(i % 4 == 0) {
      pid_t peer = atomic_load((_Atomic pid_t *)&racers[(me + 1) % (NRACE + 1)]);
      if(peer > 0)
        kill(peer, SIGUSR1);
    }
    if(i % 8 == 1)
      kill(self, SIGUSR1);
  }
}

static int
race_child(void *arg)
{
  int me = (int)(intptr_t)arg;
  // Ends at different times: the last sharers race the others' exits.
  race_loop(me, ROUNDS / 2 + me * ROUNDS / NRACE);
  atomic_store((_Atomic pid_t *)&racers[me], 0);   // a dead peer's pid is not signalled
  atomic_fetch_add(&race_done, 1);
  return 0;
}

static void
test_race(void)
{
  set(SIGUSR1, race_x, SA_RESTART, SIGUSR2);
  racers[0] = getpid();
  for(int i = 1; i <= NRACE; i++) {
    pid_t pid = clone(race_child, new_stack(), SHARE | SIGCHLD, (void *)(intptr_t)i);
    check(pid > 0, "clone a racer");
    atomic_store((_Atomic pid_t *)&racers[i], pid);
  }
  race_loop(0, ROUNDS);
  racers[0] = 0;
  int bad = 0;
  for(int i = 1; i <= NRACE; i++)
    bad |= reap(-1) != 0;
  check(!bad, "every racer exited 0");
  check(torn == 0, "no handler ran with the other's mask");
  struct sigaction old;
  sigaction(SIGUSR1, NULL, &old);
  int ok = old.sa_handler == SIG_IGN ||
           (old.sa_handler == race_x && sigismember(&old.sa_mask, SIGUSR2) == 1 &&
            sigismember(&old.sa_mask, SIGHUP) == 0) ||
           (old.sa_handler == race_y && sigismember(&old.sa_mask, SIGHUP) == 1 &&
            sigismember(&old.sa_mask, SIGUSR2) == 0);
  check(ok, "the table ends whole: one writer's handler and mask");
  // Enough happened for the verdict to mean something: every call made, handlers ran.
  int calls = race_calls, runs = race_runs;
  int want = ROUNDS;
  for(int i = 1; i <= NRACE; i++)
    want += ROUNDS / 2 + i * ROUNDS / NRACE;
  check(calls == want && race_done == NRACE, "every racer's sigaction calls made");
  check(runs >= 200, "handlers ran during the race");
  printf("%s: race: %d sigaction calls, %d handler runs, %d torn\n", PROG, calls, runs, torn);
  set(SIGUSR1, SIG_DFL, 0, 0);
}

int
main(int argc, char **argv)
{
  if(argc > 1 && strcmp(argv[1], "exec-child") == 0)
    return exec_child_main();
  setvbuf(stdout, NULL, _IONBF, 0);
  test_einval();
  test_share();
  test_pending();
  test_exec(argv[0]);
  test_vfork();
  test_race();
  check(child_verdict == 0, "the children's sigaction calls succeeded");
  printf("%s: %d checks, %d failed\n", PROG, checks, fails);
  return fails ? 1 : 0;
}
