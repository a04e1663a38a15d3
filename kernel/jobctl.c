// Job control: the stop signals' group stop and SIGCONT (Linux's do_signal_stop and
// prepare_signal, kernel/signal.c) and orphaned process groups (POSIX.1's "orphaned process
// group"; Linux's will_become_orphaned_pgrp and kill_orphaned_pgrp, kernel/exit.c).
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "spinlock.h"

// Caller holds p->siglock: the signals of mask leave every pending set of p.
static void
flush_pending(struct process *p, u64 mask)
{
  WRITE_ONCE(p->shared_pending.signal, p->shared_pending.signal & ~mask);
  struct thread *t;
  list_for_each_entry(t, &p->threads, proc_node)
    WRITE_ONCE(t->sig->pending.signal, t->sig->pending.signal & ~mask);
}

// Before the ignore test: SIGCONT resumes even when it is ignored or blocked (signal(7)).
void
jobctl_prepare_signal(struct process *p, int sig)
{
  if(sigmask(sig) & SIG_STOP_MASK) {
    flush_pending(p, sigmask(SIGCONT));
    return;
  }
  if(sig != SIGCONT)
    return;
  flush_pending(p, SIG_STOP_MASK);
  struct thread *t;
  list_for_each_entry(t, &p->threads, proc_node)
    t->sig->stop_dequeued = false;   // a stop signal taken but not acted on yet is cancelled
  if(!p->stopping)
    return;
  // A stop that was complete is told to wait (WCONTINUED) and to the parent (by the first
  // thread to run again: the parent's siglock cannot be taken under this one); a stop still
  // in progress just ends, as Linux reports only what the parent could have seen.
  if(p->stopped) {
    p->stop_report = false;
    p->cont_report = true;
    p->cont_notify = true;
  }
  WRITE_ONCE(p->stopping, false);
  p->stopped = false;
  p->group_stop_count = 0;
  list_for_each_entry(t, &p->threads, proc_node) {
    WRITE_ONCE(t->sig->stop_pending, false);
    if(!t->sig->exited)
      signal_wake_up(t);
  }
}

bool
jobctl_park_pending(struct thread *t)
{
  return READ_ONCE(t->sig->stop_pending);
}

static bool
fatal_pending(struct thread *t)
{
  u64 pending = READ_ONCE(t->sig->pending.signal) | READ_ONCE(t->proc->shared_pending.signal);
  return pending & sigmask(SIGKILL);
}

// Caller holds p->siglock: t leaves the count of threads a stop waits for; true when it
// was the last, and the stop is now complete.
static bool
stop_count_down(struct process *p, struct thread *t)
{
  WRITE_ONCE(t->sig->stop_pending, false);
  if(--p->group_stop_count > 0)
    return false;
  p->stopped = true;
  p->stop_report = true;
  return true;
}

bool
jobctl_do_stop(int sig)
{
  struct thread *t = current;
  struct process *p = t->proc;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  bool dequeued = t->sig->stop_dequeued;
  t->sig->stop_dequeued = false;
  if(sig && dequeued && !p->stopping) {
    // Every live thread must park (Linux's JOBCTL_STOP_PENDING): each is woken or
    // interrupted, and parks at its next signal check; a sleeping system call ends with
    // -ERESTARTSYS and is restarted after SIGCONT.
    WRITE_ONCE(p->stopping, true);
    p->stopped = false;
    p->stop_sig = sig;
    p->group_stop_count = 0;
    struct thread *x;
    list_for_each_entry(x, &p->threads, proc_node) {
      if(x->sig->exited)
        continue;
      WRITE_ONCE(x->sig->stop_pending, true);
      p->group_stop_count++;
      if(x != t)
        signal_wake_up(x);
    }
  }
  if(!t->sig->stop_pending) {
    spin_unlock_irqrestore(&p->siglock, flags);
    return false;
  }
  bool complete = stop_count_down(p, t);
  int stop_sig = p->stop_sig;
  spin_unlock_irqrestore(&p->siglock, flags);
  if(complete)
    notify_parent_cldstop(p, CLD_STOPPED, stop_sig);
  // Parked: no CPU until SIGCONT ends the stop, SIGKILL comes, or the process ends; a new
  // stop after a SIGCONT counts this thread again, so it goes back through get_signal.
  const char *was = t->wait_on;
  t->wait_on = "stopped";
  t->idle_wait = true;   // stopped for ever is a user's choice
  for(;;) {
    set_current_state(T_SLEEPING);
    if(!READ_ONCE(p->stopping) || READ_ONCE(t->sig->stop_pending) || fatal_pending(t) ||
       thread_must_exit(t, p))
      break;
    schedule();
  }
  set_current_state(T_RUNNING);
  t->wait_on = was;
  t->idle_wait = false;
  return true;
}

void
jobctl_notify_continued(void)
{
  struct process *p = current->proc;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  bool notify = p->cont_notify;
  p->cont_notify = false;
  spin_unlock_irqrestore(&p->siglock, flags);
  if(notify)
    notify_parent_cldstop(p, CLD_CONTINUED, SIGCONT);
}

// From signal_thread_exit: a thread that leaves during a stop no longer holds it up; if it
// was the last one waited for and others remain, the stop is complete.
void
jobctl_thread_exit(struct thread *t)
{
  struct process *p = t->proc;
  bool complete = false;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  if(t->sig->stop_pending) {
    bool others = false;
    struct thread *x;
    list_for_each_entry(x, &p->threads, proc_node)
      others |= x != t && !x->sig->exited;
    complete = stop_count_down(p, t) && others;
  }
  int stop_sig = p->stop_sig;
  spin_unlock_irqrestore(&p->siglock, flags);
  if(complete && !READ_ONCE(p->exiting))
    notify_parent_cldstop(p, CLD_STOPPED, stop_sig);
}

// Whether a member's parent keeps the group attached to its session: a parent in another
// group of the same session. A process the kernel started has no parent, as Linux's init
// does not count. A parent pointer is read under process_list_lock: a parent leaves the list
// (release_process) only after its children went to the reaper.
bool
pgrp_orphaned(int pgrp, const struct process *ignore)
{
  bool orphaned = true;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *q;
  list_for_each_entry(q, &process_list, tasks) {
    if(q == ignore || READ_ONCE(q->pgid) != pgrp || READ_ONCE(q->dead))
      continue;
    struct process *par = READ_ONCE(q->parent);
    if(par && par != ignore && READ_ONCE(par->pgid) != pgrp && par->sid == q->sid) {
      orphaned = false;
      break;
    }
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return orphaned;
}

// Whether a live process of pgrp other than ignore is stopped (Linux's has_stopped_jobs).
static bool
pgrp_has_stopped(int pgrp, const struct process *ignore)
{
  bool stopped = false;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *q;
  list_for_each_entry(q, &process_list, tasks)
    if(q != ignore && READ_ONCE(q->pgid) == pgrp && !READ_ONCE(q->dead) && READ_ONCE(q->stopped))
      stopped = true;
  spin_unlock_irqrestore(&process_list_lock, flags);
  return stopped;
}

// POSIX.1 _exit: "If the exit of the process causes a process group to become orphaned, and
// if any member of the newly-orphaned process group is stopped, then a SIGHUP signal followed
// by a SIGCONT signal shall be sent to each process in the newly-orphaned process group."
// The groups that can become orphaned are p's own (its parent kept it attached) and those of
// p's children in its session (p kept them attached), as Linux's exit_notify and
// reparent_leader check; their children are the reaper's by now, and p is dead.
static void
kill_if_orphaned(int pgrp, const struct process *p)
{
  if(pgrp_has_stopped(pgrp, p) && pgrp_orphaned(pgrp, p)) {
    kill_pgrp(pgrp, SIGHUP);
    kill_pgrp(pgrp, SIGCONT);
  }
}

void
kill_orphaned_pgrps(struct process *p, struct process *parent, const int *child_pgrps, int n)
{
  int pgrp = READ_ONCE(p->pgid);
  if(parent && READ_ONCE(parent->pgid) != pgrp && parent->sid == p->sid)
    kill_if_orphaned(pgrp, p);
  for(int i = 0; i < n; i++)
    if(child_pgrps[i] != pgrp)
      kill_if_orphaned(child_pgrps[i], p);
}
