// Signals: the pending sets of processes and threads, sending them (kill, tgkill, SIGCHLD, the
// console's Ctrl-C, faults), and what the next return to ring 3 does with them: a handler, or
// the default action (Linux's kernel/signal.c: complete_signal, dequeue_signal, get_signal).
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "signal.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include <asm/cpu.h>

#define SIG_DEFAULT_IGNORE (sigmask(SIGCHLD) | sigmask(SIGCONT) | sigmask(SIGURG) | sigmask(SIGWINCH))
// The default action that dumps core (signal(7)); no core file is written, but the wait
// status says so as Linux's does (WCOREDUMP).
#define SIG_DEFAULT_CORE                                                                      \
  (sigmask(SIGQUIT) | sigmask(SIGILL) | sigmask(SIGTRAP) | sigmask(SIGABRT) | sigmask(SIGBUS) | \
   sigmask(SIGFPE) | sigmask(SIGSEGV) | sigmask(SIGXCPU) | sigmask(SIGXFSZ) | sigmask(SIGSYS))
// Taken before the others, as Linux's dequeue_synchronous: the fault of the instruction that
// just ran, ahead of anything sent meanwhile.
#define SIG_SYNCHRONOUS                                                                       \
  (sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) | sigmask(SIGFPE) | \
   sigmask(SIGSYS))

struct sigthread *
sigthread_alloc(const struct sigthread *parent)
{
  struct sigthread *s = kzalloc(sizeof(*s), GFP_KERNEL);
  // A thread inherits the mask; its alternate stack is its own (clone(2): a CLONE_VM child
  // starts without one).
  if(s && parent)
    s->blocked = parent->blocked;
  return s;
}

void
signal_init_process(struct process *p)
{
  // Until fork, every process is started by the kernel in the kernel's session 0, leader
  // of its own group (setsid would then fail with EPERM, as for any group leader).
  p->pgid = p->pid;
  p->sid = 0;
}

void
signal_fork(struct process *child, const struct process *parent, struct thread *ct,
            const struct thread *pt)
{
  child->pgid = READ_ONCE(parent->pgid);
  child->sid = parent->sid;
  ct->sig->blocked = pt->sig->blocked;
  ct->sig->ss_sp = pt->sig->ss_sp;
  ct->sig->ss_size = pt->sig->ss_size;
  ct->sig->ss_flags = pt->sig->ss_flags;
}

void
signal_exec(struct process *p, struct thread *t)
{
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  struct sighand_struct *sh = p->sighand;   // p's own by now (unshare_sighand)
  spin_lock(&sh->lock);
  for(int i = 0; i < NSIG; i++) {
    struct k_sigaction *a = &sh->action[i];
    if(a->handler != SIG_IGN)
      WRITE_ONCE(a->handler, SIG_DFL);
    WRITE_ONCE(a->flags, 0);
    a->restorer = a->mask = 0;
  }
  spin_unlock(&sh->lock);
  spin_unlock_irqrestore(&p->siglock, flags);
  t->sig->ss_sp = t->sig->ss_size = 0;
  t->sig->ss_flags = 0;
}

void
signal_thread_exit(struct thread *t)
{
  jobctl_thread_exit(t);
  u64 flags;
  spin_lock_irqsave(&t->proc->siglock, flags);
  t->sig->exited = true;
  spin_unlock_irqrestore(&t->proc->siglock, flags);
}

bool
signal_pending(struct thread *t)
{
  struct process *p = t->proc;
  struct sigthread *s = t->sig;
  if(!p || !s)
    return false;
  if(thread_must_exit(t, p))   // the process is ending, or another thread is in execve
    return true;
  if(READ_ONCE(s->stop_pending))   // a group stop waits for this thread to park
    return true;
  u64 pending = READ_ONCE(s->pending.signal) | READ_ONCE(p->shared_pending.signal);
  return pending & ~READ_ONCE(s->blocked);
}

// A process the kernel started (init=, a self-test's program) has no parent to see it stop
// or to continue it: as Linux's init (SIGNAL_UNKILLABLE), a stop signal's default action
// does nothing to it.
static bool
stop_ignored(const struct process *p)
{
  return !READ_ONCE(p->parent);
}

// Caller holds p->siglock: one read of the handler, which another sharer of p->sighand may
// change at any moment (include/sighand.h); a signal let through that has just become
// ignored is dropped when it is dequeued (get_signal).
static bool
handler_ignores(const struct process *p, int sig)
{
  u64 h = READ_ONCE(p->sighand->action[sig - 1].handler);
  if(h == SIG_IGN)
    return true;
  return h == SIG_DFL && ((sigmask(sig) & SIG_DEFAULT_IGNORE) ||
                          ((sigmask(sig) & SIG_STOP_MASK) && stop_ignored(p)));
}

bool
sigchld_autoreap(struct process *parent)
{
  return sig_handler(parent, SIGCHLD) == SIG_IGN || (sig_flags(parent, SIGCHLD) & SA_NOCLDWAIT);
}

// Makes t look at its signals: a sleeper is woken (its wait loop tests signal_pending), a
// thread in ring 3 on another CPU is interrupted and takes them on its way back
// (exit_to_user_mode). The sender's store of the pending bit (under siglock, a locked
// instruction) is ordered before wake_up_thread's read of t->state; it pairs with
// set_current_state's smp_store_mb before the sleeper's signal_pending.
void
signal_wake_up(struct thread *t)
{
  if(!wake_up_thread(t) && t != current && t->cpu != smp_processor_id())
    smp_send_reschedule(t->cpu);
}

static bool
wants_signal(struct thread *t, int sig)
{
  return !t->sig->exited && !(t->sig->blocked & sigmask(sig));
}

// Caller holds p->siglock. Who takes a process-directed signal (Linux's complete_signal): the
// sender itself if it is a thread of p that does not block it, else the first such thread;
// SIGKILL wakes them all, as each must leave.
static void
complete_signal(struct process *p, struct thread *target, int sig)
{
  if(target) {
    signal_wake_up(target);
    return;
  }
  struct thread *t;
  if(sig == SIGKILL) {
    list_for_each_entry(t, &p->threads, proc_node)
      if(!t->sig->exited)
        signal_wake_up(t);
    return;
  }
  if(current->proc == p && wants_signal(current, sig))
    return;
  list_for_each_entry(t, &p->threads, proc_node) {
    if(wants_signal(t, sig)) {
      signal_wake_up(t);
      return;
    }
  }
}

// Caller holds p->siglock.
int
send_sig_info_locked(struct process *p, struct thread *t, const struct ksiginfo *info)
{
  int sig = info->signo;
  if(sig < 0 || sig > NSIG)
    return -EINVAL;
  if(t && (t->proc != p || t->sig->exited))
    return -ESRCH;
  if(sig == 0 || READ_ONCE(p->exiting))
    return 0;
  jobctl_prepare_signal(p, sig);
  // An ignored signal is dropped at once, unless its target blocks it: the disposition may
  // change before it is unblocked, or rt_sigtimedwait takes it (Linux's sig_ignored). A
  // process's mask is its first thread's here.
  if(list_empty(&p->threads))
    return 0;
  struct thread *mask_of = t ? t : list_first_entry(&p->threads, struct thread, proc_node);
  bool blocked = (mask_of->sig->blocked | mask_of->sig->real_blocked) & sigmask(sig);
  if(sig != SIGKILL && handler_ignores(p, sig) && !blocked)
    return 0;
  struct sigpending *q = t ? &t->sig->pending : &p->shared_pending;
  if(!(q->signal & sigmask(sig))) {   // a standard signal already pending is merged
    q->info[sig - 1] = *info;
    WRITE_ONCE(q->signal, q->signal | sigmask(sig));
  }
  complete_signal(p, t, sig);
  return 0;
}

int
send_sig_info(struct process *p, struct thread *t, const struct ksiginfo *info)
{
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  int err = send_sig_info_locked(p, t, info);
  spin_unlock_irqrestore(&p->siglock, flags);
  return err;
}

static int
current_tgid(void)
{
  return current->proc ? current->proc->pid : 0;
}

int
send_signal_process(struct process *p, int sig)
{
  struct ksiginfo info = { .signo = sig, .code = SI_USER, .pid = current_tgid() };
  return send_sig_info(p, NULL, &info);
}

int
send_signal_thread(struct thread *t, int sig)
{
  struct ksiginfo info = { .signo = sig, .code = SI_TKILL, .pid = current_tgid() };
  return t->proc ? send_sig_info(t->proc, t, &info) : -ESRCH;
}

// Every process of group pgrp; -ESRCH if there is none.
int
kill_pgrp_info(int pgrp, const struct ksiginfo *info)
{
  int found = 0, err = 0;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p;
  list_for_each_entry(p, &process_list, tasks) {
    if(READ_ONCE(p->pgid) == pgrp) {
      found++;
      int e = send_sig_info(p, NULL, info);
      if(e)
        err = e;
    }
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return found ? err : -ESRCH;
}

// From the kernel (the console's Ctrl-C): SI_KERNEL, as Linux's kill_pgrp with priv set.
int
kill_pgrp(int pgrp, int sig)
{
  struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };
  return kill_pgrp_info(pgrp, &info);
}

void
send_sigchld(struct process *parent, int pid, int code, int status)
{
  struct ksiginfo info = { .signo = SIGCHLD, .code = code, .pid = pid, .status = status };
  send_sig_info(parent, NULL, &info);
}

bool
sig_handler_installed(struct thread *t, int sig)
{
  u64 h = sig_handler(t->proc, sig);
  return h != SIG_DFL && h != SIG_IGN && !(READ_ONCE(t->sig->blocked) & sigmask(sig));
}

// A signal the current thread cannot refuse: unblocked, and back to its default action if it
// was ignored or blocked (Linux's force_sig_info_to_task), then pending on this thread.
static void
force_sig_info(const struct ksiginfo *info)
{
  struct thread *t = current;
  struct process *p = t->proc;
  int sig = info->signo;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  struct sighand_struct *sh = p->sighand;
  spin_lock(&sh->lock);
  struct k_sigaction *a = &sh->action[sig - 1];
  // Linux's force_sig_info_to_task too changes the table every sharer sees.
  if(a->handler == SIG_IGN || (t->sig->blocked & sigmask(sig))) {
    WRITE_ONCE(a->handler, SIG_DFL);
    WRITE_ONCE(t->sig->blocked, t->sig->blocked & ~sigmask(sig));
  }
  spin_unlock(&sh->lock);
  struct sigpending *q = &t->sig->pending;
  if(!(q->signal & sigmask(sig))) {
    q->info[sig - 1] = *info;
    WRITE_ONCE(q->signal, q->signal | sigmask(sig));
  }
  spin_unlock_irqrestore(&p->siglock, flags);
}

void
force_sig_fault(int sig, int code, u64 addr, int trapno)
{
  current->sig->fault_trapno = trapno;
  struct ksiginfo info = { .signo = sig, .code = code, .addr = addr };
  force_sig_info(&info);
}

// A handler's frame could not be written: SIGSEGV, to its default action if sig was SIGSEGV
// itself (Linux's force_sigsegv), so a broken stack ends the process rather than looping.
void
force_sigsegv(int sig)
{
  struct process *p = current->proc;
  if(sig == SIGSEGV) {
    u64 flags;
    spin_lock_irqsave(&p->siglock, flags);
    spin_lock(&p->sighand->lock);
    WRITE_ONCE(p->sighand->action[SIGSEGV - 1].handler, SIG_DFL);
    spin_unlock(&p->sighand->lock);
    spin_unlock_irqrestore(&p->siglock, flags);
  }
  struct ksiginfo info = { .signo = SIGSEGV, .code = SI_KERNEL };
  force_sig_info(&info);
}

// Caller holds p->siglock. The next signal of allowed to take: this thread's own first, then
// the process's; synchronous faults before the rest, then the lowest number.
int
dequeue_signal(struct thread *t, u64 allowed, struct ksiginfo *info)
{
  struct sigpending *q = &t->sig->pending;
  u64 m = q->signal & allowed;
  if(!m) {
    q = &t->proc->shared_pending;
    m = q->signal & allowed;
  }
  if(!m)
    return 0;
  u64 sync = m & SIG_SYNCHRONOUS;
  int sig = __builtin_ctzl(sync ? sync : m) + 1;
  WRITE_ONCE(q->signal, q->signal & ~sigmask(sig));
  *info = q->info[sig - 1];
  if(sig == SIGALRM)   // a periodic ITIMER_REAL goes on once its signal is taken
    itimer_real_rearm(t->proc);
  return sig;
}

void
sig_default_kill(int sig)
{
  struct process *p = current->proc;
  process_kill(p, sig | (sigmask(sig) & SIG_DEFAULT_CORE ? 0x80 : 0));
  local_irq_enable();
  user_thread_exit(0);
}

// The next signal with a handler to run, its action copied to *ka (SA_RESETHAND takes effect
// here, as Linux's get_signal); 0 when none is left. Ignored signals are dropped on the way
// and a default action that ends the process does so here.
int
get_signal(struct k_sigaction *ka, struct ksiginfo *info)
{
  struct thread *t = current;
  struct process *p = t->proc;
  for(;;) {
    if(READ_ONCE(p->exiting))
      return 0;   // exit_to_user_mode ends the thread
    if(READ_ONCE(p->cont_notify))
      jobctl_notify_continued();
    if(jobctl_park_pending(t)) {   // another thread's stop signal stops this one too
      jobctl_do_stop(0);
      continue;
    }
    u64 flags;
    spin_lock_irqsave(&p->siglock, flags);
    int sig = dequeue_signal(t, ~t->sig->blocked, info);
    if(!sig) {
      spin_unlock_irqrestore(&p->siglock, flags);
      return 0;
    }
    // The whole entry at once: another sharer may be changing it (include/sighand.h).
    struct sighand_struct *sh = p->sighand;
    spin_lock(&sh->lock);
    struct k_sigaction *a = &sh->action[sig - 1];
    if(sig != SIGKILL && a->handler == SIG_IGN) {
      spin_unlock(&sh->lock);
      spin_unlock_irqrestore(&p->siglock, flags);
      continue;
    }
    if(sig != SIGKILL && a->handler != SIG_DFL) {
      *ka = *a;
      if(a->flags & SA_RESETHAND)
        WRITE_ONCE(a->handler, SIG_DFL);
      spin_unlock(&sh->lock);
      spin_unlock_irqrestore(&p->siglock, flags);
      return sig;
    }
    spin_unlock(&sh->lock);
    if(sigmask(sig) & SIG_STOP_MASK)
      t->sig->stop_dequeued = true;   // a SIGCONT from here on cancels it
    spin_unlock_irqrestore(&p->siglock, flags);
    if(sigmask(sig) & SIG_DEFAULT_IGNORE)
      continue;
    if(sigmask(sig) & SIG_STOP_MASK) {
      // POSIX: SIGTSTP, SIGTTIN and SIGTTOU do not stop a member of an orphaned process
      // group (no one in its session could continue it); SIGSTOP does (Linux's get_signal).
      if(stop_ignored(p) || (sig != SIGSTOP && pgrp_orphaned(READ_ONCE(p->pgid), NULL)))
        continue;
      jobctl_do_stop(sig);
      continue;
    }
    sig_default_kill(sig);
  }
}

// After a handler's frame is written: its mask (and the signal, unless SA_NODEFER) blocked
// until rt_sigreturn restores the frame's; sigsuspend's temporary mask is done with.
void
signal_delivered(int sig, const struct k_sigaction *ka)
{
  struct thread *t = current;
  u64 flags;
  spin_lock_irqsave(&t->proc->siglock, flags);
  u64 blocked = t->sig->blocked | ka->mask;
  if(!(ka->flags & SA_NODEFER))
    blocked |= sigmask(sig);
  WRITE_ONCE(t->sig->blocked, blocked & ~SIG_KERNEL_ONLY);
  t->sig->restore_blocked = false;
  spin_unlock_irqrestore(&t->proc->siglock, flags);
}

void
set_current_blocked(u64 blocked)
{
  struct thread *t = current;
  u64 flags;
  spin_lock_irqsave(&t->proc->siglock, flags);
  WRITE_ONCE(t->sig->blocked, blocked & ~SIG_KERNEL_ONLY);
  spin_unlock_irqrestore(&t->proc->siglock, flags);
}

// No handler ran after rt_sigsuspend: its temporary mask gives way to the saved one.
void
restore_saved_sigmask(void)
{
  struct sigthread *s = current->sig;
  if(s->restore_blocked) {
    s->restore_blocked = false;
    set_current_blocked(s->saved_blocked);
  }
}

// The siginfo_t a handler or rt_sigtimedwait sees (include/uapi/asm-generic/siginfo.h).
void
fill_siginfo(struct user_siginfo *u, const struct ksiginfo *k)
{
  memset(u, 0, sizeof(*u));
  u->si_signo = k->signo;
  u->si_code = k->code;
  bool fault = sigmask(k->signo) & SIG_SYNCHRONOUS;
  if(fault && k->code > 0) {
    u->si_addr = k->addr;
    return;
  }
  u->si_pid = k->pid;
  u->si_uid = 0;
  if(k->signo == SIGCHLD)
    u->si_status = k->status;
  else if(k->code == SI_QUEUE)
    u->si_value = k->addr;
}
