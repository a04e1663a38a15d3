// signals: handlers as Linux runs them, checked against the host kernel's results: siginfo of
// kill, tgkill and faults; masks, pending sets, SA_NODEFER, SA_RESETHAND, nesting; EINTR and
// SA_RESTART on futex and nanosleep; sigsuspend, sigtimedwait, sigaltstack; a SIGSEGV handler
// that siglongjmps; FPU and SSE state kept across handlers (also under signals from other
// CPUs); tgkill to another thread; process groups. Exits 0 when all hold. With an argument it
// dies instead, as the caller expects: abort (a SIGABRT handler that returns: 134), resethand
// (the second SIGUSR1 takes the default action: 138), sigkill (with threads asleep in a futex
// and in nanosleep: 137), badframe (rt_sigreturn without a frame:
// 139), badstack (no stack for the handler's frame: 139).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "signals"
#include "check.h"

static pid_t
gettid_(void)
{
  return (pid_t)syscall(SYS_gettid);
}

static int
tgkill_(pid_t tgid, pid_t tid, int sig)
{
  return (int)syscall(SYS_tgkill, tgid, tid, sig);
}

static void
on(int sig, void (*fn)(int, siginfo_t *, void *), int flags, const sigset_t *mask)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | flags;
  if(mask)
    sa.sa_mask = *mask;
  else
    sigemptyset(&sa.sa_mask);
  if(sigaction(sig, &sa, NULL))
    check(0, "sigaction");
}

static void
unblock_all(void)
{
  sigset_t s;
  sigemptyset(&s);
  sigprocmask(SIG_SETMASK, &s, NULL);
}

// --- siginfo of kill and tgkill, SA_SIGINFO and the mask inside the handler
static volatile int got_sig, got_code, got_pid, got_tid, got_count;
static volatile int inside_blocked_self, inside_blocked_extra, uc_blocks_sig;

static void
record(int sig, siginfo_t *si, void *uc)
{
  got_sig = sig;
  got_code = si->si_code;
  got_pid = si->si_pid;
  got_tid = gettid_();
  got_count++;
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  inside_blocked_self = sigismember(&cur, sig);
  inside_blocked_extra = sigismember(&cur, SIGWINCH);
  ucontext_t *u = uc;
  uc_blocks_sig = sigismember(&u->uc_sigmask, sig);   // the mask rt_sigreturn restores
}

static void
test_siginfo(void)
{
  sigset_t extra;
  sigemptyset(&extra);
  sigaddset(&extra, SIGWINCH);
  on(SIGUSR1, record, 0, &extra);
  got_count = 0;
  check(kill(getpid(), SIGUSR1) == 0, "kill self");
  check(got_count == 1 && got_sig == SIGUSR1, "handler ran once for kill");
  check(got_code == SI_USER && got_pid == getpid(), "kill: SI_USER and si_pid");
  check(inside_blocked_self && inside_blocked_extra, "signal and sa_mask blocked in handler");
  check(!uc_blocks_sig, "uc_sigmask is the mask before the handler");
  sigset_t after;
  sigprocmask(SIG_BLOCK, NULL, &after);
  check(!sigismember(&after, SIGUSR1) && !sigismember(&after, SIGWINCH), "mask restored");
  check(tgkill_(getpid(), gettid_(), SIGUSR1) == 0 && got_count == 2, "tgkill self");
  check(got_code == SI_TKILL && got_pid == getpid(), "tgkill: SI_TKILL");
  check(raise(SIGUSR1) == 0 && got_count == 3, "raise");
  on(SIGUSR1, record, SA_NODEFER, NULL);
  check(kill(getpid(), SIGUSR1) == 0 && got_count == 4 && !inside_blocked_self,
        "SA_NODEFER leaves the signal unblocked");
  check(kill(getpid(), 65) == -1 && errno == EINVAL, "kill with signal 65: EINVAL");
  check(kill(getpid(), 0) == 0, "kill signal 0");
  check(tgkill_(getpid(), 0x7ffffff0, SIGUSR1) == -1 && errno == ESRCH, "tgkill no thread: ESRCH");
  check(tgkill_(0, gettid_(), SIGUSR1) == -1 && errno == EINVAL, "tgkill tgid 0: EINVAL");
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_IGN;
  check(sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL, "sigaction SIGKILL: EINVAL");
  check(sigaction(0, &sa, NULL) == -1 && errno == EINVAL, "sigaction 0: EINVAL");
  // Ignored, and ignored by default: nothing happens.
  check(sigaction(SIGUSR2, &sa, NULL) == 0 && kill(getpid(), SIGUSR2) == 0, "SIG_IGN");
  check(kill(getpid(), SIGWINCH) == 0 && kill(getpid(), SIGCHLD) == 0, "default ignore");
}

// --- blocked signals stay pending, come on unblock; ignoring discards a pending one
static void
test_mask(void)
{
  on(SIGUSR1, record, 0, NULL);
  got_count = 0;
  sigset_t b, pend;
  sigemptyset(&b);
  sigaddset(&b, SIGUSR1);
  sigprocmask(SIG_BLOCK, &b, NULL);
  kill(getpid(), SIGUSR1);
  kill(getpid(), SIGUSR1);   // merged with the first
  check(got_count == 0, "blocked signal not delivered");
  check(sigpending(&pend) == 0 && sigismember(&pend, SIGUSR1), "sigpending shows it");
  sigprocmask(SIG_UNBLOCK, &b, NULL);
  check(got_count == 1, "delivered once on unblock");
  check(sigpending(&pend) == 0 && !sigismember(&pend, SIGUSR1), "no longer pending");
  // SIGKILL and SIGSTOP cannot be blocked.
  sigset_t all, cur;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  sigprocmask(SIG_SETMASK, NULL, &cur);
  check(!sigismember(&cur, SIGKILL) && !sigismember(&cur, SIGSTOP), "SIGKILL unblockable");
  unblock_all();
  check(syscall(SYS_rt_sigprocmask, 7, &b, NULL, 8) == -1 && errno == EINVAL, "bad how: EINVAL");
  check(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &b, NULL, 4) == -1 && errno == EINVAL,
        "sigsetsize 4: EINVAL");
  // A pending signal set to SIG_IGN is discarded.
  sigprocmask(SIG_BLOCK, &b, NULL);
  kill(getpid(), SIGUSR1);
  signal(SIGUSR1, SIG_IGN);
  check(sigpending(&pend) == 0 && !sigismember(&pend, SIGUSR1), "SIG_IGN discards pending");
  unblock_all();
}

// --- nesting: a handler interrupted by another signal it does not block
static volatile int depth, max_depth, order[4], norder;

static void
nest_inner(int sig, siginfo_t *si, void *uc)
{
  order[norder++] = sig;
  if(++depth > max_depth)
    max_depth = depth;
  depth--;
}

static void
nest_outer(int sig, siginfo_t *si, void *uc)
{
  order[norder++] = sig;
  depth++;
  raise(SIGUSR2);   // runs now, inside this handler
  order[norder++] = -sig;
  depth--;
}

static void
test_nested(void)
{
  on(SIGUSR1, nest_outer, 0, NULL);
  on(SIGUSR2, nest_inner, 0, NULL);
  norder = depth = max_depth = 0;
  raise(SIGUSR1);
  check(norder == 3 && order[0] == SIGUSR1 && order[1] == SIGUSR2 && order[2] == -SIGUSR1,
        "nested handler runs inside the outer one");
  check(max_depth == 2, "nesting depth 2");
  // Both pending at once: the lower number first, each in turn.
  sigset_t b;
  sigemptyset(&b);
  sigaddset(&b, SIGUSR1);
  sigaddset(&b, SIGUSR2);
  on(SIGUSR1, record, 0, NULL);
  got_count = 0;
  norder = 0;
  sigprocmask(SIG_BLOCK, &b, NULL);
  raise(SIGUSR2);
  raise(SIGUSR1);
  sigprocmask(SIG_UNBLOCK, &b, NULL);
  check(got_count == 1 && norder == 1 && order[0] == SIGUSR2, "both delivered on unblock");
}

// --- SA_RESETHAND
static void
test_resethand(void)
{
  on(SIGUSR1, record, SA_RESETHAND, NULL);
  got_count = 0;
  raise(SIGUSR1);
  struct sigaction old;
  sigaction(SIGUSR1, NULL, &old);
  check(got_count == 1 && old.sa_handler == SIG_DFL, "SA_RESETHAND resets to SIG_DFL");
}

// --- interrupted sleeps: futex and nanosleep, with and without SA_RESTART
static _Atomic int poke_stop;
static pthread_t poke_target;

// Sends SIGUSR1 to poke_target every millisecond until poke_stop: whether the target is
// already asleep or not, one of them interrupts the sleep.
static void *
poker(void *arg)
{
  struct timespec ms = { 0, 1000000 };
  while(!atomic_load(&poke_stop)) {
    pthread_kill(poke_target, SIGUSR1);
    nanosleep(&ms, NULL);
  }
  return NULL;
}

static uint32_t fword;
static _Atomic int handled;

static void
count_handler(int sig, siginfo_t *si, void *uc)
{
  atomic_fetch_add(&handled, 1);
}

static void *
waker(void *arg)
{
  struct timespec ms = { 0, 1000000 };
  while(atomic_load(&handled) < 3) {
    pthread_kill(poke_target, SIGUSR1);
    nanosleep(&ms, NULL);
  }
  __atomic_store_n(&fword, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  return NULL;
}

static void
test_eintr(void)
{
  pthread_t th;
  poke_target = pthread_self();
  // Without SA_RESTART: the futex wait says EINTR.
  on(SIGUSR1, count_handler, 0, NULL);
  fword = 0;
  atomic_store(&poke_stop, 0);
  pthread_create(&th, NULL, poker, NULL);
  long r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  int e = errno;
  atomic_store(&poke_stop, 1);
  pthread_join(th, NULL);
  errno = e;
  check(r == -1 && e == EINTR, "futex wait without SA_RESTART: EINTR");
  // With a timeout as well.
  atomic_store(&poke_stop, 0);
  pthread_create(&th, NULL, poker, NULL);
  struct timespec long_ts = { 100, 0 };
  r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, &long_ts, NULL, 0);
  e = errno;
  atomic_store(&poke_stop, 1);
  pthread_join(th, NULL);
  errno = e;
  check(r == -1 && e == EINTR, "timed futex wait: EINTR");
  // nanosleep: EINTR whatever SA_RESTART says, with the time left.
  on(SIGUSR1, count_handler, SA_RESTART, NULL);
  atomic_store(&poke_stop, 0);
  pthread_create(&th, NULL, poker, NULL);
  struct timespec rem = { 0, 0 };
  r = nanosleep(&long_ts, &rem);
  e = errno;
  atomic_store(&poke_stop, 1);
  pthread_join(th, NULL);
  errno = e;
  check(r == -1 && e == EINTR, "nanosleep with SA_RESTART: EINTR");
  check(rem.tv_sec > 0 && rem.tv_sec <= 100, "nanosleep: the time left");
  // With SA_RESTART the futex wait goes on through the signals until it is woken.
  atomic_store(&handled, 0);
  fword = 0;
  pthread_create(&th, NULL, waker, NULL);
  r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  e = errno;
  pthread_join(th, NULL);
  errno = e;
  check(r == 0 || (r == -1 && e == EAGAIN), "futex wait with SA_RESTART restarted");
  check(atomic_load(&handled) >= 3, "handler ran during the restarted wait");
}

// --- sigsuspend and sigtimedwait
static void *
send_later(void *arg)
{
  struct timespec ms = { 0, 5000000 };
  nanosleep(&ms, NULL);
  kill(getpid(), (int)(intptr_t)arg);
  return NULL;
}

static atomic_int paused;   // pause has returned: stop sending

static void *
send_until_paused(void *arg)
{
  struct timespec ms = { 0, 5000000 };
  while(!atomic_load(&paused)) {
    nanosleep(&ms, NULL);
    kill(getpid(), SIGUSR1);
  }
  return NULL;
}

static void
test_suspend_wait(void)
{
  on(SIGUSR1, record, 0, NULL);
  got_count = 0;
  sigset_t b, empty, cur;
  sigemptyset(&b);
  sigemptyset(&empty);
  sigaddset(&b, SIGUSR1);
  sigprocmask(SIG_BLOCK, &b, NULL);
  pthread_t th;
  // The helper inherits the mask, so only the suspended thread can take the signal.
  pthread_create(&th, NULL, send_later, (void *)(intptr_t)SIGUSR1);
  int r = sigsuspend(&empty);
  check(r == -1 && errno == EINTR && got_count == 1, "sigsuspend: handler, then EINTR");
  check(uc_blocks_sig, "sigsuspend: the frame holds the mask from before it");
  pthread_join(th, NULL);
  sigprocmask(SIG_BLOCK, NULL, &cur);
  check(sigismember(&cur, SIGUSR1), "sigsuspend restores the mask");
  // pause: the same, with the mask as it is (SIGUSR1 unblocked in this thread only; the
  // sender keeps sending until pause has returned, so a signal before the pause is no hang).
  got_count = 0;
  atomic_store(&paused, 0);
  pthread_create(&th, NULL, send_until_paused, NULL);
  pthread_sigmask(SIG_UNBLOCK, &b, NULL);
  r = pause();
  int e = errno;
  atomic_store(&paused, 1);
  pthread_join(th, NULL);
  sigprocmask(SIG_BLOCK, &b, NULL);
  struct timespec none = { 0, 0 };
  sigtimedwait(&b, NULL, &none);   // a last one the sender sent after the pause
  check(r == -1 && e == EINTR && got_count >= 1, "pause: handler, then EINTR");
  // sigtimedwait: a blocked signal taken without its handler.
  sigset_t w;
  sigemptyset(&w);
  sigaddset(&w, SIGUSR2);
  sigprocmask(SIG_BLOCK, &w, NULL);
  raise(SIGUSR2);
  siginfo_t si;
  struct timespec zero = { 0, 0 }, short_ts = { 0, 10000000 };
  // glibc's sigtimedwait folds raise's SI_TKILL into SI_USER (sigtimedwait.c).
  check(sigtimedwait(&w, &si, &zero) == SIGUSR2 && si.si_signo == SIGUSR2 &&
        si.si_code == SI_USER && si.si_pid == getpid(), "sigtimedwait takes a pending signal");
  check(sigtimedwait(&w, &si, &zero) == -1 && errno == EAGAIN, "sigtimedwait: EAGAIN at once");
  check(sigtimedwait(&w, &si, &short_ts) == -1 && errno == EAGAIN,
        "sigtimedwait: EAGAIN after the timeout");
  pthread_create(&th, NULL, send_later, (void *)(intptr_t)SIGUSR2);
  check(sigwaitinfo(&w, &si) == SIGUSR2 && si.si_code == SI_USER, "sigwaitinfo waits for one");
  pthread_join(th, NULL);
  unblock_all();
}

// --- faults: SIGSEGV with si_addr and si_code, a handler that siglongjmps
static sigjmp_buf jb;
static volatile uintptr_t low16 = 16, low8 = 8;   // unmapped addresses, hidden from the compiler
static volatile void *fault_addr;
static volatile int fault_code, fault_sig;

static void
fault_handler(int sig, siginfo_t *si, void *uc)
{
  fault_sig = sig;
  fault_addr = si->si_addr;
  fault_code = si->si_code;
  siglongjmp(jb, 1);
}

static void
test_faults(void)
{
  on(SIGSEGV, fault_handler, 0, NULL);
  on(SIGILL, fault_handler, 0, NULL);
  on(SIGFPE, fault_handler, 0, NULL);
  if(!sigsetjmp(jb, 1)) {
    *(volatile int *)low16 = 1;
    check(0, "write to address 16 returned");
  }
  check(fault_sig == SIGSEGV && fault_addr == (void *)16 && fault_code == SEGV_MAPERR,
        "SIGSEGV: si_addr and SEGV_MAPERR");
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  check(!sigismember(&cur, SIGSEGV), "siglongjmp restored the mask");
  char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(!sigsetjmp(jb, 1)) {
    ro[100] = 1;
    check(0, "write to a read-only page returned");
  }
  check(fault_sig == SIGSEGV && fault_addr == ro + 100 && fault_code == SEGV_ACCERR,
        "SIGSEGV: SEGV_ACCERR");
  munmap(ro, 4096);
  static void *volatile ud;
  if(!sigsetjmp(jb, 1)) {
    void *at;
    __asm__ volatile("lea 0f(%%rip), %0\n mov %0, %1\n0: ud2" : "=&r"(at), "=m"(ud));
    check(0, "ud2 returned");
  }
  check(fault_sig == SIGILL && fault_code == ILL_ILLOPN && fault_addr == ud,
        "SIGILL: ILL_ILLOPN at the instruction");
  volatile int zero = 0, one = 1;
  if(!sigsetjmp(jb, 1)) {
    volatile int x = one / zero;   // 1 / zero would be a comparison, not a division
    (void)x;
    check(0, "division by zero returned");
  }
  check(fault_sig == SIGFPE && fault_code == FPE_INTDIV, "SIGFPE: FPE_INTDIV");
  // Many times: every frame is unwound by siglongjmp, nothing leaks on the stack.
  volatile int n = 0;
  for(volatile int i = 0; i < 1000; i++)
    if(sigsetjmp(jb, 1))
      n++;
    else
      *(volatile int *)low8 = 1;
  check(n == 1000, "1000 SIGSEGVs handled");
  signal(SIGSEGV, SIG_DFL);
  signal(SIGILL, SIG_DFL);
  signal(SIGFPE, SIG_DFL);
}

// --- FPU state: the handler starts clean and what it changes is gone after it returns
static volatile uint32_t handler_mxcsr;
static volatile uint16_t handler_fcw;

static void
fpu_clobber(int sig, siginfo_t *si, void *uc)
{
  uint32_t m;
  uint16_t cw;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  handler_mxcsr = m;
  handler_fcw = cw;
  m = 0x3f80;    // round down
  cw = 0x7f;     // single precision
  __asm__ volatile("ldmxcsr %0" ::"m"(m));
  __asm__ volatile("fldcw %0" ::"m"(cw));
  __asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n pcmpeqd %%xmm7, %%xmm7\n"
                   "pcmpeqd %%xmm8, %%xmm8\n pcmpeqd %%xmm15, %%xmm15" ::: "xmm0", "xmm7", "xmm8",
                   "xmm15");
  ucontext_t *u = uc;
  check(u->uc_mcontext.fpregs != NULL && u->uc_mcontext.fpregs->mxcsr == 0x7f80,
        "the frame holds the interrupted MXCSR");
}

static void
test_fpu(void)
{
  on(SIGUSR1, fpu_clobber, 0, NULL);
  uint8_t in[4][16], out[4][16];
  for(int i = 0; i < 64; i++)
    ((uint8_t *)in)[i] = (uint8_t)(i * 7 + 1);
  uint32_t mx = 0x7f80, mx_after;   // round toward zero
  uint16_t cw = 0x37f, cw_after;
  long tid = gettid_(), pid = getpid();
  __asm__ volatile("ldmxcsr %[mx]\n"
                   "movdqu 0(%[in]), %%xmm0\n movdqu 16(%[in]), %%xmm7\n"
                   "movdqu 32(%[in]), %%xmm8\n movdqu 48(%[in]), %%xmm15\n"
                   "mov $234, %%eax\n mov %[pid], %%rdi\n mov %[tid], %%rsi\n mov $10, %%edx\n"
                   "syscall\n"   // tgkill(pid, tid, SIGUSR1): the handler runs on its return
                   "movdqu %%xmm0, 0(%[out])\n movdqu %%xmm7, 16(%[out])\n"
                   "movdqu %%xmm8, 32(%[out])\n movdqu %%xmm15, 48(%[out])\n"
                   "stmxcsr %[mxa]\n fnstcw %[cwa]"
                   : [mxa] "=m"(mx_after), [cwa] "=m"(cw_after)
                   : [mx] "m"(mx), [in] "r"(in), [out] "r"(out), [pid] "r"(pid), [tid] "r"(tid)
                   : "rax", "rdi", "rsi", "rdx", "rcx", "r11", "xmm0", "xmm7", "xmm8", "xmm15",
                     "memory");
  (void)cw;
  check(handler_mxcsr == 0x1f80 && handler_fcw == 0x37f, "handler starts with the initial FPU state");
  check(memcmp(in, out, sizeof(in)) == 0, "xmm registers kept across the handler");
  check(mx_after == 0x7f80 && cw_after == 0x37f, "MXCSR and FCW kept across the handler");
  uint32_t def = 0x1f80;
  __asm__ volatile("ldmxcsr %0" ::"m"(def));
}

// --- signals from other CPUs while threads compute: every result exact
#define NWORK 8
static _Atomic int work_done, work_handled[NWORK];
static pthread_t workers[NWORK];
static double results[NWORK];

static void
work_handler(int sig, siginfo_t *si, void *uc)
{
  for(int i = 0; i < NWORK; i++)
    if(pthread_equal(pthread_self(), workers[i]))
      atomic_fetch_add(&work_handled[i], 1);
  volatile double junk = 3.14159;   // uses the FPU registers the worker uses
  for(int i = 0; i < 50; i++)
    junk = junk * 1.0001 + 0.5;
}

static void *
worker(void *arg)
{
  int me = (int)(intptr_t)arg;
  double last = -1;
  for(int round = 0; round < 400; round++) {
    double s = 0;
    for(int i = 1; i <= 5000; i++)
      s += 1.0 / i;
    if(last >= 0 && s != last) {
      results[me] = -1;
      break;
    }
    last = s;
    results[me] = s;
  }
  atomic_fetch_add(&work_done, 1);
  return NULL;
}

static void
test_async(void)
{
  on(SIGUSR1, work_handler, SA_RESTART, NULL);
  atomic_store(&work_done, 0);
  for(int i = 0; i < NWORK; i++) {
    atomic_store(&work_handled[i], 0);
    pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i);
  }
  int sent = 0;
  while(atomic_load(&work_done) < NWORK) {
    for(int i = 0; i < NWORK; i++)
      if(pthread_kill(workers[i], SIGUSR1) == 0)
        sent++;
    sched_yield();
  }
  int total = 0;
  for(int i = 0; i < NWORK; i++) {
    pthread_join(workers[i], NULL);
    total += atomic_load(&work_handled[i]);
    check(results[i] > 9.0 && results[i] < 9.2, "a result exact under signals");
  }
  check(sent > 0 && total > 0 && total <= sent, "signals handled by the workers");
}

// --- tgkill to another thread; a process-directed signal goes to a thread not blocking it
static _Atomic int other_ready, other_go;
static volatile pid_t other_tid;

static void *
other_thread(void *arg)
{
  other_tid = gettid_();
  sigset_t b;
  sigemptyset(&b);
  sigaddset(&b, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &b, NULL);   // SIGUSR2 must go to main
  atomic_store(&other_ready, 1);
  while(!atomic_load(&other_go))
    sched_yield();
  return NULL;
}

static void
test_threads(void)
{
  on(SIGUSR1, record, 0, NULL);
  on(SIGUSR2, record, 0, NULL);
  atomic_store(&other_ready, 0);
  atomic_store(&other_go, 0);
  pthread_t th;
  pthread_create(&th, NULL, other_thread, NULL);
  while(!atomic_load(&other_ready))
    sched_yield();
  got_count = 0;
  check(tgkill_(getpid(), other_tid, SIGUSR1) == 0, "tgkill another thread");
  while(got_count == 0)
    sched_yield();
  check(got_tid == other_tid && got_code == SI_TKILL, "the handler ran in that thread");
  got_count = 0;
  // Main blocks SIGUSR2 until the kill, the other thread always: when unblocked, main takes it.
  sigset_t b;
  sigemptyset(&b);
  sigaddset(&b, SIGUSR2);
  sigprocmask(SIG_BLOCK, &b, NULL);
  kill(getpid(), SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &b, NULL);
  check(got_count == 1 && got_tid == gettid_(), "process signal to the thread not blocking it");
  atomic_store(&other_go, 1);
  pthread_join(th, NULL);
}

// --- sigaltstack
static char *alt;
static volatile int alt_on, alt_flags, alt_eperm;

static void
alt_handler(int sig, siginfo_t *si, void *uc)
{
  char here;
  alt_on = &here > alt && &here < alt + 65536;
  stack_t cur, other = { .ss_sp = alt, .ss_size = 65536 };
  sigaltstack(NULL, &cur);
  alt_flags = cur.ss_flags;
  alt_eperm = sigaltstack(&other, NULL) == -1 && errno == EPERM;
}

static void
test_altstack(void)
{
  alt = malloc(65536);
  stack_t ss = { .ss_sp = alt, .ss_size = 65536, .ss_flags = 0 }, old;
  check(sigaltstack(NULL, &old) == 0 && old.ss_flags == SS_DISABLE, "no alternate stack at first");
  stack_t small = { .ss_sp = alt, .ss_size = 1024 };
  check(sigaltstack(&small, NULL) == -1 && errno == ENOMEM, "tiny alternate stack: ENOMEM");
  stack_t bad = { .ss_sp = alt, .ss_size = 65536, .ss_flags = 0x10 };
  check(sigaltstack(&bad, NULL) == -1 && errno == EINVAL, "bad flags: EINVAL");
  check(sigaltstack(&ss, NULL) == 0, "sigaltstack");
  on(SIGUSR1, alt_handler, SA_ONSTACK, NULL);
  raise(SIGUSR1);
  check(alt_on, "handler ran on the alternate stack");
  check(alt_flags == SS_ONSTACK && alt_eperm, "SS_ONSTACK, and EPERM to change it there");
  on(SIGUSR1, alt_handler, 0, NULL);
  raise(SIGUSR1);
  check(!alt_on, "without SA_ONSTACK: the normal stack");
  stack_t dis = { .ss_flags = SS_DISABLE };
  check(sigaltstack(&dis, &old) == 0 && old.ss_sp == alt && old.ss_size == 65536, "disable");
  free(alt);
}

// --- process groups
static void
test_pgrp(void)
{
  check(getpgrp() == getpgid(0) && getpgid(getpid()) == getpgrp(), "getpgrp is getpgid(0)");
  check(setpgid(0, 0) == 0 && getpgrp() == getpid(), "setpgid(0, 0) leads a group");
  check(setsid() == -1 && errno == EPERM, "setsid as a group leader: EPERM");
  check(getsid(0) >= 0 && getsid(getpid()) == getsid(0), "getsid");
  check(getpgid(0x7ffffff0) == -1 && errno == ESRCH, "getpgid of no process: ESRCH");
  check(setpgid(0, -1) == -1 && errno == EINVAL, "setpgid negative: EINVAL");
  check(kill(-0x7ffffff0, 0) == -1 && errno == ESRCH, "kill of no group: ESRCH");
  on(SIGUSR1, record, 0, NULL);
  got_count = 0;
  check(kill(0, SIGUSR1) == 0 && got_count == 1, "kill(0) reaches the caller's group");
  check(kill(-getpgrp(), SIGUSR1) == 0 && got_count == 2, "kill(-pgrp)");
  check(got_code == SI_USER && got_pid == getpid(), "kill(-pgrp): SI_USER");
}

// --- the ways to die
static void
returning_handler(int sig)
{
}

static void *
sleep_forever(void *arg)
{
  if(arg) {
    struct timespec hour = { 3600, 0 };
    nanosleep(&hour, NULL);
  } else {
    static uint32_t never;
    syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  }
  return NULL;
}

static void
die(const char *how)
{
  if(!strcmp(how, "abort")) {
    signal(SIGABRT, returning_handler);
    abort();   // the handler returns: glibc resets SIGABRT and raises it again
  } else if(!strcmp(how, "resethand")) {
    on(SIGUSR1, record, SA_RESETHAND, NULL);
    raise(SIGUSR1);
    raise(SIGUSR1);
  } else if(!strcmp(how, "sigkill")) {
    // SIGKILL takes every thread, the sleeping ones too (and cannot be caught).
    pthread_t a, b;
    pthread_create(&a, NULL, sleep_forever, NULL);
    pthread_create(&b, NULL, sleep_forever, (void *)1);
    struct timespec ms = { 0, 10000000 };
    nanosleep(&ms, NULL);
    kill(getpid(), SIGKILL);
  } else if(!strcmp(how, "badframe")) {
    __asm__ volatile("mov $16, %%rsp\n mov $15, %%eax\n syscall" ::: "memory");
  } else if(!strcmp(how, "badstack")) {
    on(SIGUSR1, record, 0, NULL);
    long tid = gettid_(), pid = getpid();
    __asm__ volatile("mov $4096, %%rsp\n mov $234, %%eax\n mov %0, %%rdi\n mov %1, %%rsi\n"
                     "mov $10, %%edx\n syscall" ::"r"(pid), "r"(tid)
                     : "rax", "rdi", "rsi", "rdx", "rcx", "r11", "memory");
  }
  exit(99);
}

int
main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IONBF, 0);
  if(argc > 1)
    die(argv[1]);
  test_siginfo();
  test_mask();
  test_nested();
  test_resethand();
  test_eintr();
  test_suspend_wait();
  test_faults();
  test_fpu();
  test_async();
  test_threads();
  test_altstack();
  test_pgrp();
  if(fails)
    printf("signals: %d checks failed\n", fails);
  else
    printf("signals: all checks passed\n");
  return fails ? 1 : 0;
}
