// Signals as Linux delivers them: numbers and flags of the user ABI, the pending sets and masks
// of processes and threads, and sending (kernel/signal.c); the x86-64 frame is arch/x86_64/signal.c.
#pragma once
#include "types.h"

struct process;
struct thread;
struct trapframe;

#include "uapi/signal.h"

#define sigmask(sig) (1UL << ((sig) - 1))

// What a blocking system call returns when a signal interrupts it; exit_to_user_mode turns it
// into -EINTR or a restart, so user space never sees these (include/linux/errno.h).
#define ERESTARTSYS            512   // restart if the handler has SA_RESTART, else -EINTR
#define ERESTARTNOINTR         513   // always restart
#define ERESTARTNOHAND         514   // restart if no handler runs, else -EINTR
#define ERESTART_RESTARTBLOCK  516   // as NOHAND, but restart through restart_syscall

// A pending signal's information, what the handler's siginfo_t is built from.
// Every sender is uid 0 here, so si_uid is always 0.
struct ksiginfo {
  int signo;
  int code;      // SI_USER, SI_TKILL, SI_KERNEL, SEGV_MAPERR, CLD_EXITED, ...
  int pid;       // the sender (SI_USER, SI_TKILL, SI_QUEUE), or the child (SIGCHLD)
  int status;    // SIGCHLD: the exit code, or the signal that ended the child
  u64 addr;      // faults: si_addr; SI_QUEUE: si_value
};

// A set of pending signals and, per signal, the information of its first instance: a standard
// signal sent while already pending is merged, as in Linux; real-time signals are not queued
// more than once each here (Linux queues them; say so where it matters).
struct sigpending {
  u64 signal;
  struct ksiginfo info[NSIG];
};

// restart_syscall(2): how a call interrupted with -ERESTART_RESTARTBLOCK goes on when no
// handler ran (nanosleep's and a timed futex wait's remaining time; Linux's restart_block).
struct restart_block {
  long (*fn)(struct restart_block *);
  u64 arg[5];
};

// A user thread's own signal state, allocated with it (t->sig). The thread alone writes
// blocked, under its process's siglock; senders read it under the same lock.
struct sigthread {
  u64 blocked;                 // rt_sigprocmask
  u64 saved_blocked;           // rt_sigsuspend: the mask to restore after the handler
  u64 real_blocked;            // rt_sigtimedwait: the mask before it unblocked its set, still
                               // blocked for the ignore test (Linux's real_blocked)
  bool restore_blocked;
  bool exited;                 // past user_thread_exit: no longer a target
  struct sigpending pending;   // thread-directed: tgkill, faults; under siglock
  u64 ss_sp, ss_size;          // sigaltstack: the thread's own
  u32 ss_flags;                // SS_DISABLE, SS_AUTODISARM
  u64 fault_error, fault_trapno, fault_cr2;   // the last fault, for the frame's sigcontext
  bool stop_pending;           // a group stop waits for this thread to park; under siglock
  bool stop_dequeued;          // took a stop signal that a SIGCONT since has not cancelled
                               // (Linux's JOBCTL_STOP_DEQUEUED); under siglock
  struct restart_block restart;
};

struct k_sigaction {
  u64 handler;   // SIG_DFL, SIG_IGN or the user's function
  u64 flags;     // SA_*
  u64 restorer;  // SA_RESTORER: glibc's __restore_rt, which calls rt_sigreturn
  u64 mask;      // blocked while the handler runs (plus the signal, unless SA_NODEFER)
};

// Sending. Each may be called with interrupts off or from an interrupt handler (the console's
// Ctrl-C); each returns 0 or -errno (-EINVAL for a bad number; sig 0 only checks the target).
// A signal ignored by its disposition is dropped at once, as Linux's sig_ignored().
int send_signal_process(struct process *p, int sig);   // kill(2): SI_USER from current
int send_signal_thread(struct thread *t, int sig);     // tgkill(2): SI_TKILL, to that thread
int send_sig_info(struct process *p, struct thread *t, const struct ksiginfo *info);   // t or p
int kill_pgrp(int pgrp, int sig);                      // every process of the group; -ESRCH if none
// SIGCHLD to parent about the child pid: code CLD_EXITED (status = exit code), CLD_KILLED or
// CLD_DUMPED (status = signal). Ignored by default; the caller reaps as Linux does when the
// parent's SIGCHLD is SIG_IGN or has SA_NOCLDWAIT (sigchld_autoreap).
void send_sigchld(struct process *parent, int pid, int code, int status);
bool sigchld_autoreap(struct process *parent);

// A signal that this thread will act on is pending (or its process is ending): a sleeping
// system call stops and returns -EINTR, or -ERESTARTSYS to be restarted under SA_RESTART.
// Sending wakes a thread sleeping with T_SLEEPING; its wait loop must test this.
bool signal_pending(struct thread *t);

// A fault in ring 3 (from user_fault): sig with si_code and si_addr for current, unblocked and
// not ignorable, so the program's handler runs or the default action ends the process.
void force_sig_fault(int sig, int code, u64 addr, int trapno);

// From exit_to_user_mode with interrupts on: delivers one pending signal (a handler's frame
// on the user stack, or the default action) and turns -ERESTART* results into -EINTR or a
// restart. tf is the thread's user frame; syscall says it came from a system call.
void do_signal(struct trapframe *tf);
// exit_to_user_mode's test, interrupts off: a signal to act on, or a system call's -ERESTART*
// result to turn into -EINTR or a restart.
bool signal_work(struct thread *t, const struct trapframe *tf);

// kernel/signal.c, for the process code: a new thread's state (blocked inherited from parent,
// NULL for the first thread), freed after the thread is joined.
struct sigthread *sigthread_alloc(const struct sigthread *parent);
void signal_thread_exit(struct thread *t);   // user_thread_exit: no longer a target
// fork (clone without CLONE_THREAD): the child's process gets the parent's group and
// session; its thread ct the mask and alternate stack of the forking thread pt; nothing
// pending (fork(2)). The handlers are copy_sighand's (include/sighand.h).
void signal_fork(struct process *child, const struct process *parent, struct thread *ct,
                 const struct thread *pt);
// execve: handlers back to SIG_DFL (SIG_IGN stays), no alternate stack; the mask and the
// pending signals stay (execve(2); Linux's flush_signal_handlers).
void signal_exec(struct process *p, struct thread *t);
void signal_init_process(struct process *p);
// The process's default action takes it: 128 + sig, and the wait status (killed_by) says
// whether it dumped core.
void sig_default_kill(int sig) __attribute__((noreturn));

// The siginfo_t of the user ABI (include/uapi/asm-generic/siginfo.h on x86-64): 128 bytes.
struct user_siginfo {
  int si_signo, si_errno, si_code, __pad0;
  union {
    u64 si_addr;             // SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP
    struct {
      int si_pid;            // kill, tkill, sigqueue, SIGCHLD
      u32 si_uid;
      union {
        int si_status;       // SIGCHLD
        u64 si_value;        // sigqueue
      };
    };
    u8 __pad1[112];
  };
};
_Static_assert(sizeof(struct user_siginfo) == 128, "siginfo_t is 128 bytes");

// stack_t: sigaltstack's argument and a frame's uc_stack.
struct user_stack {
  u64 ss_sp;
  int ss_flags;
  int __pad;
  u64 ss_size;
};

// Job control (kernel/jobctl.c; Linux's group stop in kernel/signal.c and orphaned process
// groups in kernel/exit.c). The stop signals' default action stops every thread of the
// process; SIGCONT resumes it.
#define SIG_STOP_MASK (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))
// Under p->siglock, at sending (Linux's prepare_signal): SIGCONT discards pending stop signals
// and ends a stop; a stop signal discards a pending SIGCONT.
void jobctl_prepare_signal(struct process *p, int sig);
// From get_signal, siglock not held: a stop signal's default action took current's process
// (start), or a stop in force waits for current (park); true if current parked and resumed.
bool jobctl_do_stop(int sig);
bool jobctl_park_pending(struct thread *t);   // a group stop waits for t; under siglock
void jobctl_notify_continued(void);           // tells the parent of a SIGCONT, once
void jobctl_thread_exit(struct thread *t);    // an exiting thread no longer holds a stop up
// Orphaned process groups (POSIX; Linux's will_become_orphaned_pgrp): no member's parent is
// in another group of the same session. ignore is a process taken as gone (NULL: none).
bool pgrp_orphaned(int pgrp, const struct process *ignore);
// From exit_notify under tasklist_lock, p dead and its children already handed on: a group
// that p's exit orphans and that has a stopped member gets SIGHUP then SIGCONT. parent is
// p's; child_pgrps the groups of its children in its session.
void kill_orphaned_pgrps(struct process *p, struct process *parent, const int *child_pgrps,
                         int n);

// kernel/itimer.c: ITIMER_REAL's next period starts when its SIGALRM is dequeued (Linux's
// dequeue_signal), so a process that blocks or ignores it is not sent one per period; under
// siglock. itimer_exit: the last thread has gone, the timer is cancelled before p is freed.
void itimer_real_rearm(struct process *p);
void itimer_init(struct process *p);
void itimer_exit(struct process *p);

// Between kernel/signal.c, its system calls (kernel/sys_signal.c) and the frame code.
#define SIG_KERNEL_ONLY (sigmask(SIGKILL) | sigmask(SIGSTOP))
int kill_pgrp_info(int pgrp, const struct ksiginfo *info);
int send_sig_info_locked(struct process *p, struct thread *t, const struct ksiginfo *info);
bool sig_handler_installed(struct thread *t, int sig);   // a handler that would run now
void signal_wake_up(struct thread *t);   // under siglock: t looks at its signals
void force_sigsegv(int sig);
int dequeue_signal(struct thread *t, u64 allowed, struct ksiginfo *info);   // under siglock
int get_signal(struct k_sigaction *ka, struct ksiginfo *info);
void signal_delivered(int sig, const struct k_sigaction *ka);
void set_current_blocked(u64 blocked);
void restore_saved_sigmask(void);
// A call's own mask for its wait (ppoll, pselect6, epoll_pwait; kernel/sys_signal.c): set from
// user memory (NULL: none; size must be 8), and back at the end unless a signal interrupted
// the wait (then after its handler, from the signal frame: Linux's set_user_sigmask and
// restore_saved_sigmask_unless).
long set_user_sigmask(u64 umask, u64 size);
void restore_sigmask_unless(bool interrupted);
void fill_siginfo(struct user_siginfo *u, const struct ksiginfo *k);
