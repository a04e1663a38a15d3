// The signal system calls: rt_sigaction, rt_sigprocmask, rt_sigpending, rt_sigsuspend,
// rt_sigtimedwait, sigaltstack, kill, tkill, tgkill, restart_syscall, and process groups and
// sessions (setpgid, getpgid, getpgrp, setsid, getsid), with Linux's errors (kernel/signal.c,
// kernel/sys.c).
#include "errno.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "signal.h"
#include "string.h"
#include "syscalls.h"
#include "time.h"
#include <asm/traps.h>
#include <asm/uaccess.h>

long
sys_rt_sigaction(u64 sig, u64 act, u64 oact, u64 size)
{
  struct process *p = current->proc;
  if(size != 8)
    return -EINVAL;
  if(sig < 1 || sig > NSIG || ((sig == SIGKILL || sig == SIGSTOP) && act))
    return -EINVAL;
  // The kernel's struct sigaction on x86-64 is handler, flags, restorer, mask: k_sigaction.
  struct k_sigaction new, old;
  if(act && copy_from_user(&new, (void *)act, sizeof(new)))
    return -EFAULT;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  struct sighand_struct *sh = p->sighand;   // the table every CLONE_SIGHAND sharer sees
  spin_lock(&sh->lock);
  old = sh->action[sig - 1];
  if(act) {
    new.mask &= ~SIG_KERNEL_ONLY;
    struct k_sigaction *a = &sh->action[sig - 1];
    WRITE_ONCE(a->handler, new.handler);   // read alone by senders (handler_ignores)
    WRITE_ONCE(a->flags, new.flags);
    a->restorer = new.restorer;
    a->mask = new.mask;
  }
  spin_unlock(&sh->lock);
  if(act) {
    // A pending signal whose disposition becomes "ignore" is discarded (POSIX; Linux's
    // do_sigaction flushes it from every queue of the process). Only this process's: the
    // other sharers' queues are theirs, and as in Linux a signal pending there is dropped
    // when it is dequeued (get_signal).
    bool ignored = new.handler == SIG_IGN ||
                   (new.handler == SIG_DFL && (sig == SIGCHLD || sig == SIGCONT ||
                                               sig == SIGURG || sig == SIGWINCH));
    if(ignored) {
      p->shared_pending.signal &= ~sigmask(sig);
      struct thread *t;
      list_for_each_entry(t, &p->threads, proc_node)
        t->sig->pending.signal &= ~sigmask(sig);
    }
  }
  spin_unlock_irqrestore(&p->siglock, flags);
  if(oact && copy_to_user((void *)oact, &old, sizeof(old)))
    return -EFAULT;
  return 0;
}

// Per thread, as in Linux: each thread has its own mask.
long
sys_rt_sigprocmask(u64 how, u64 set, u64 oset, u64 size)
{
  struct sigthread *s = current->sig;
  if(size != 8)
    return -EINVAL;
  u64 old = s->blocked, new;
  if(set) {
    if(copy_from_user(&new, (void *)set, 8))
      return -EFAULT;
    switch(how) {
    case SIG_BLOCK: new = old | new; break;
    case SIG_UNBLOCK: new = old & ~new; break;
    case SIG_SETMASK: break;
    default: return -EINVAL;
    }
    set_current_blocked(new);
  }
  if(oset && copy_to_user((void *)oset, &old, 8))
    return -EFAULT;
  return 0;
}

// The signals pending for this thread (its own and its process's) that it blocks.
long
sys_rt_sigpending(u64 uset, u64 size)
{
  struct thread *t = current;
  if(size > 8)
    return -EINVAL;
  u64 flags;
  spin_lock_irqsave(&t->proc->siglock, flags);
  u64 set = (t->sig->pending.signal | t->proc->shared_pending.signal) & t->sig->blocked;
  spin_unlock_irqrestore(&t->proc->siglock, flags);
  return copy_to_user((void *)uset, &set, size) ? -EFAULT : 0;
}

// Sleeps with T_SLEEPING until a signal this thread acts on is pending, or deadline (ktime
// ns, 0: none) passes; true if a signal ended it.
static bool
sleep_for_signal(const char *what, u64 deadline)
{
  struct thread *t = current;
  bool got = false;
  t->wait_on = what;
  t->idle_wait = true;   // a user wait may last for ever by design
  for(;;) {
    set_current_state(T_SLEEPING);
    if(signal_pending(t)) {
      got = true;
      break;
    }
    if(!deadline) {
      schedule();
      continue;
    }
    u64 now = ktime_ns();
    if(now >= deadline)
      break;
    schedule_timeout(deadline - now);
  }
  set_current_state(T_RUNNING);
  t->wait_on = NULL;
  t->idle_wait = false;
  return got;
}

// Waits with mask for a handler to run; the old mask comes back with the handler's return
// (the frame saves it) or at once if none runs (restore_saved_sigmask). Always -EINTR.
long
sys_rt_sigsuspend(u64 umask, u64 size)
{
  struct sigthread *s = current->sig;
  if(size != 8)
    return -EINVAL;
  u64 mask;
  if(copy_from_user(&mask, (void *)umask, 8))
    return -EFAULT;
  s->saved_blocked = s->blocked;
  s->restore_blocked = true;
  set_current_blocked(mask);
  sleep_for_signal("sigsuspend", 0);
  return -ERESTARTNOHAND;
}

// pause(2): sleeps until a signal this thread acts on comes; -EINTR once its handler ran
// (ERESTARTNOHAND: a signal that only stops and continues the process resumes the pause).
long
sys_pause(void)
{
  sleep_for_signal("pause", 0);
  return -ERESTARTNOHAND;
}

static long
get_user_timeout(u64 uts, u64 *ns)
{
  s64 ts[2];
  if(copy_from_user(ts, (void *)uts, sizeof(ts)))
    return -EFAULT;
  if(ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
    return -EINVAL;
  *ns = (u64)ts[0] * 1000000000 + ts[1];
  return 0;
}

// Takes a signal of the set, waiting at most the timeout for one: the set is unblocked
// meanwhile so that sending wakes this thread. EAGAIN when the time is up; EINTR when another
// signal came (its handler runs on the way out).
long
sys_rt_sigtimedwait(u64 uset, u64 uinfo, u64 uts, u64 size)
{
  struct thread *t = current;
  struct sigthread *s = t->sig;
  if(size != 8)
    return -EINVAL;
  u64 set, ns = 0;
  if(copy_from_user(&set, (void *)uset, 8))
    return -EFAULT;
  set &= ~SIG_KERNEL_ONLY;
  if(uts) {
    long err = get_user_timeout(uts, &ns);
    if(err)
      return err;
  }
  struct ksiginfo info;
  u64 flags;
  spin_lock_irqsave(&t->proc->siglock, flags);
  int sig = dequeue_signal(t, set, &info);
  if(!sig && !(uts && ns == 0)) {
    u64 saved = s->blocked;
    s->real_blocked = saved;   // a default-ignored signal of the set must still be queued
    WRITE_ONCE(s->blocked, saved & ~set);
    spin_unlock_irqrestore(&t->proc->siglock, flags);
    sleep_for_signal("sigtimedwait", uts ? ktime_ns() + ns : 0);
    spin_lock_irqsave(&t->proc->siglock, flags);
    WRITE_ONCE(s->blocked, saved);
    s->real_blocked = 0;
    sig = dequeue_signal(t, set, &info);
    if(!sig) {
      spin_unlock_irqrestore(&t->proc->siglock, flags);
      return signal_pending(t) ? -EINTR : -EAGAIN;
    }
  }
  spin_unlock_irqrestore(&t->proc->siglock, flags);
  if(!sig)
    return -EAGAIN;
  if(uinfo) {
    struct user_siginfo u;
    fill_siginfo(&u, &info);
    if(copy_to_user((void *)uinfo, &u, sizeof(u)))
      return -EFAULT;
  }
  return sig;
}

static bool
on_sig_stack(struct sigthread *s, u64 sp)
{
  return sp > s->ss_sp && sp - s->ss_sp <= s->ss_size;
}

// Linux's do_sigaltstack: EPERM while running on it, EINVAL for unknown flags, ENOMEM below
// MINSIGSTKSZ; SS_ONSTACK as a request means 0.
long
sys_sigaltstack(u64 uss, u64 uoss)
{
  struct sigthread *s = current->sig;
  u64 sp = user_regs(current)->rsp;
  struct user_stack old = { s->ss_sp, 0, 0, s->ss_size };
  old.ss_flags = on_sig_stack(s, sp) ? SS_ONSTACK : s->ss_size ? 0 : SS_DISABLE;
  old.ss_flags |= s->ss_flags & SS_AUTODISARM;
  if(uss) {
    struct user_stack ss;
    if(copy_from_user(&ss, (void *)uss, sizeof(ss)))
      return -EFAULT;
    if(on_sig_stack(s, sp))
      return -EPERM;
    u32 mode = (u32)ss.ss_flags & ~SS_AUTODISARM;
    if(mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
      return -EINVAL;
    if(mode == SS_DISABLE) {
      s->ss_sp = s->ss_size = 0;
      s->ss_flags = 0;
    } else {
      if(ss.ss_size < MINSIGSTKSZ)
        return -ENOMEM;
      s->ss_sp = ss.ss_sp;
      s->ss_size = ss.ss_size;
      s->ss_flags = (u32)ss.ss_flags & SS_AUTODISARM;
    }
  }
  if(uoss && copy_to_user((void *)uoss, &old, sizeof(old)))
    return -EFAULT;
  return 0;
}

long
sys_kill(u64 upid, u64 usig)
{
  int pid = (int)upid, sig = (int)usig;
  struct process *self = current->proc;
  if(sig < 0 || sig > NSIG)
    return -EINVAL;
  struct ksiginfo info = { .signo = sig, .code = SI_USER, .pid = self->pid };
  if(pid == 0)
    return kill_pgrp_info(READ_ONCE(self->pgid), &info);
  if(pid < -1 && pid != (int)0x80000000)
    return kill_pgrp_info(-pid, &info);
  int found = 0, err = -ESRCH;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  if(pid > 0) {
    struct process *p = find_process(pid);
    if(p)
      err = send_sig_info(p, NULL, &info);
  } else if(pid == -1) {
    // Every process but the caller and the roots the kernel started, as Linux spares the
    // caller and init (kill(2); kernel/signal.c, __kill_pgrp_info's caller kill_something_info).
    struct process *p;
    list_for_each_entry(p, &process_list, tasks) {
      if(p == self || p->init)
        continue;
      int e = send_sig_info(p, NULL, &info);
      if(!found++ || e)
        err = e;
    }
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return err;
}

// A thread by its tid, in process tgid (tgid < 0: any process).
static long
send_to_thread(int tgid, int tid, int sig)
{
  if(tid <= 0 || sig < 0 || sig > NSIG)
    return -EINVAL;
  struct ksiginfo info = { .signo = sig, .code = SI_TKILL, .pid = current->proc->pid };
  long err = -ESRCH;
  u64 flags, f2;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p;
  list_for_each_entry(p, &process_list, tasks) {
    if(tgid > 0 && p->pid != tgid)
      continue;
    spin_lock_irqsave(&p->siglock, f2);
    struct thread *t = find_thread_in(p, tid);
    if(t)
      err = send_sig_info_locked(p, t, &info);
    spin_unlock_irqrestore(&p->siglock, f2);
    if(t)
      break;
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return err;
}

long
sys_tgkill(u64 tgid, u64 tid, u64 sig)
{
  if((int)tgid <= 0)
    return -EINVAL;
  return send_to_thread((int)tgid, (int)tid, (int)sig);
}

long
sys_tkill(u64 tid, u64 sig)
{
  return send_to_thread(-1, (int)tid, (int)sig);
}

// How a call that returned -ERESTART_RESTARTBLOCK goes on when no handler ran.
long
sys_restart_syscall(void)
{
  struct restart_block *r = &current->sig->restart;
  long (*fn)(struct restart_block *) = r->fn;
  r->fn = NULL;
  return fn ? fn(r) : -EINTR;
}

// pid 0 means the caller. Only the caller itself can be moved until fork gives it children
// (setpgid(2): the caller or one of its children, else ESRCH). A session leader cannot
// move; a group other than its own must exist in its session.
long
sys_setpgid(u64 upid, u64 upgid)
{
  struct process *self = current->proc;
  int pid = (int)upid ? (int)upid : self->pid;
  int pgid = (int)upgid;
  if(pgid < 0)
    return -EINVAL;
  if(pgid == 0)
    pgid = pid;
  long err = 0;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p = find_process(pid);
  // The caller or one of its children (setpgid(2)): a shell sets each pipeline child's group
  // from both sides, so the group exists whichever runs first. A child's parent pointer only
  // changes when its parent ends, which the caller, running here, has not.
  if(!p || (p != self && READ_ONCE(p->parent) != self)) {
    err = -ESRCH;
  } else if(p->sid == p->pid || p->sid != self->sid) {
    err = -EPERM;
  } else if(pgid != p->pid) {
    struct process *q;
    err = -EPERM;
    list_for_each_entry(q, &process_list, tasks)
      if(q->pgid == pgid && q->sid == p->sid)
        err = 0;
  }
  if(!err)
    WRITE_ONCE(p->pgid, pgid);
  spin_unlock_irqrestore(&process_list_lock, flags);
  return err;
}

// getpgid or getsid of pid (0: the caller).
static long
get_ids(int pid, bool session)
{
  struct process *self = current->proc;
  if(pid == 0)
    return session ? self->sid : READ_ONCE(self->pgid);
  if(pid < 0)
    return -ESRCH;
  long ret = -ESRCH;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p = find_process(pid);
  if(p)
    ret = session ? p->sid : p->pgid;
  spin_unlock_irqrestore(&process_list_lock, flags);
  return ret;
}

long sys_getpgid(u64 pid) { return get_ids((int)pid, false); }
long sys_getpgrp(void) { return get_ids(0, false); }
long sys_getsid(u64 pid) { return get_ids((int)pid, true); }

// A new session and group, both the caller's pid; EPERM if a group of that id exists (the
// caller leads one), as Linux's ksys_setsid.
long
sys_setsid(void)
{
  struct process *self = current->proc;
  long ret = self->pid;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *q;
  list_for_each_entry(q, &process_list, tasks)
    if(q->pgid == self->pid)
      ret = -EPERM;
  if(ret > 0) {
    WRITE_ONCE(self->pgid, self->pid);
    self->sid = self->pid;
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return ret;
}

// ppoll's, pselect6's and epoll_pwait's mask, for the wait only (sigsetsize must be 8, the
// kernel's sigset_t): the old one is saved as rt_sigsuspend saves it (Linux's set_user_sigmask).
long
set_user_sigmask(u64 umask, u64 size)
{
  u64 mask;
  if(!umask)
    return 0;
  if(size != sizeof(mask))
    return -EINVAL;
  if(copy_from_user(&mask, (void *)umask, sizeof(mask)))
    return -EFAULT;
  struct sigthread *s = current->sig;
  s->saved_blocked = s->blocked;
  s->restore_blocked = true;
  set_current_blocked(mask);
  return 0;
}

// The old mask back at once, unless a signal interrupted the wait: then it comes back after
// the handler, which runs with the call's mask (the frame saves the old one; Linux's
// restore_saved_sigmask_unless).
void
restore_sigmask_unless(bool interrupted)
{
  if(!interrupted)
    restore_saved_sigmask();
}
