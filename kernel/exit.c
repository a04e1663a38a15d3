// The process tree: a process's end seen by its parent (zombies until wait4 or waitid reaps
// them, with the status encodings of <sys/wait.h>), orphans handed to a reaper, getppid, and
// the children's resource usage (Linux: kernel/exit.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "mm.h"
#include "panic.h"
#include "ipc.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "tick.h"
#include <asm/uaccess.h>
#include "wait.h"
#include "uapi/wait.h"

DEFINE_SPINLOCK(tasklist_lock);
DECLARE_WAIT_QUEUE_HEAD(vfork_wq);

// Where p's orphans go: the nearest living ancestor that asked for them
// (PR_SET_CHILD_SUBREAPER), else the process the kernel started at the top of the tree.
// Under tasklist_lock.
static struct process *
find_reaper(struct process *p)
{
  struct process *a = p->parent;
  while(a->parent && !(a->child_subreaper && !a->dead))
    a = a->parent;
  return a;
}

// Under tasklist_lock: a child of parent died (or came to it dead), stopped or continued.
static void
child_died(struct process *parent)
{
  parent->child_events++;
  wake_up_all(&parent->child_wq);
}

// Linux's do_notify_parent_cldstop: si_status the stop signal, or SIGCONT.
void
notify_parent_cldstop(struct process *c, int code, int sig)
{
  spin_lock(&tasklist_lock);
  struct process *parent = c->parent;
  if(parent) {
    child_died(parent);
    if(!(sig_flags(parent, SIGCHLD) & SA_NOCLDSTOP))
      send_sigchld(parent, c->pid, code, sig);
  }
  spin_unlock(&tasklist_lock);
}

void
vfork_release(struct process *p)
{
  spin_lock(&tasklist_lock);
  struct vfork_done *done = p->vfork_done;
  p->vfork_done = NULL;
  if(done && READ_ONCE(done->live) != VFORK_LIVE)
    panic("vfork_release: %s[%d] holds a vfork flag its parent's frame no longer has",
          p->name, p->pid);
  if(done)
    WRITE_ONCE(done->done, true);
  spin_unlock(&tasklist_lock);
  if(done)
    wake_up_all(&vfork_wq);
}

// Every thread of p has decremented nr_live; the last one calls this before its
// kthread_exit. The address space and the files go now, not at the reaping: a zombie holds
// only its struct process and its dead threads' slots.
void
exit_notify(struct process *p)
{
  itimer_exit(p);   // no SIGALRM callback may touch p once its parent can free it
  exit_sem(p);      // SEM_UNDO's adjustments given back (ipc/sem.c)
  console_flush(p);
  files_put(p->files);   // closes every file the program left open
  p->files = NULL;
  struct mm *mm = p->mm;
  p->mm = NULL;
  mmput(mm);   // the process's own reference, from mm_create (or dup_mm)
  u64 ticks = 0;
  struct thread *t;
  spin_lock(&p->lock);
  list_for_each_entry(t, &p->threads, proc_node)
    ticks += READ_ONCE(t->user_ticks);
  p->ticks = ticks;
  spin_unlock(&p->lock);
  vfork_release(p);
  spin_lock(&tasklist_lock);
  int child_pgrps[8], npgrps = 0;   // the groups of p's children in its session
  if(p->parent) {   // the orphans' new parent; a kernel-started process keeps its own
    struct process *c, *n;
    struct process *reaper = find_reaper(p);
    bool zombie = false;
    list_for_each_entry_safe(c, n, &p->children, sibling) {
      int pg = READ_ONCE(c->pgid), k = 0;
      while(k < npgrps && child_pgrps[k] != pg)
        k++;
      if(k == npgrps && npgrps < 8 && c->sid == p->sid && !c->dead)
        child_pgrps[npgrps++] = pg;
      WRITE_ONCE(c->parent, reaper);
      list_del(&c->sibling);
      list_add_tail(&c->sibling, &reaper->children);
      zombie |= c->dead;
    }
    if(zombie)
      child_died(reaper);
  }
  WRITE_ONCE(p->dead, true);
  if(p->parent)
    child_died(p->parent);
  if(p->parent && p->exit_signal == SIGCHLD) {   // the parent's SIGCHLD, with this child's status
    int k = p->killed_by;
    send_sigchld(p->parent, p->pid, k ? (k & 0x80 ? CLD_DUMPED : CLD_KILLED) : CLD_EXITED,
                 k ? k & 0x7f : p->exit_status);
  }
  if(p->parent)
    kill_orphaned_pgrps(p, p->parent, child_pgrps, npgrps);
  spin_unlock(&tasklist_lock);
  wake_up_all(&p->exit_wq);   // process_wait of a kernel-started process
}

static void
process_free_rcu(struct rcu_head *head)
{
  struct process *p = container_of(head, struct process, rcu);
  sighand_put(p->sighand);   // Linux's __cleanup_sighand, at release: a zombie keeps it
  proc_free_cmdline(p);
  kfree(p);
}

// p is a zombie unlinked from the tree: its threads are joined (each is past its last use
// of p once it is dead), then p goes after a grace period (getppid, below).
void
release_process(struct process *p)
{
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  bool listed = p->tasks.next;   // a process that failed to load was never listed
  if(listed)
    list_del(&p->tasks);
  spin_unlock_irqrestore(&process_list_lock, flags);
  if(listed)   // before reap_thread frees the pid, which a new process may then take
    proc_pid_remove(p->pid);
  while(!list_empty(&p->threads))
    reap_thread(p, list_first_entry(&p->threads, struct thread, proc_node));
  call_rcu(&p->rcu, process_free_rcu);
}

// A kernel-started process has ended: its descendants are all its children by now or will
// be as their parents end (they are reparented here); each is killed and reaped.
void
process_reap_all(struct process *p)
{
  for(;;) {
    spin_lock(&tasklist_lock);
    u64 events = p->child_events;
    struct process *c, *zombie = NULL;
    list_for_each_entry(c, &p->children, sibling) {
      if(c->dead) {
        zombie = c;
        break;
      }
    }
    if(zombie)
      list_del(&zombie->sibling);
    bool empty = list_empty(&p->children);
    if(!zombie)   // a child stays in the list until reaped here: no one else frees it
      list_for_each_entry(c, &p->children, sibling)
        process_kill(c, 9);
    spin_unlock(&tasklist_lock);
    if(zombie) {
      release_process(zombie);
      continue;
    }
    if(empty)
      return;
    wait_event(p->child_wq, READ_ONCE(p->child_events) != events);
  }
}

struct wait_result {
  int pid;
  int code;     // CLD_EXITED, CLD_KILLED, CLD_DUMPED, CLD_STOPPED or CLD_CONTINUED
  int status;   // the exit code or the signal (SIGCONT for CLD_CONTINUED)
  u64 ticks, min_flt;
};

// P_PGID's id is a group (wait4's 0, the caller's, is resolved by the caller).
static bool
wait_match(struct process *c, int which, int id)
{
  if(which == P_PID)
    return c->pid == id;
  return which != P_PGID || READ_ONCE(c->pgid) == id;
}

// Under tasklist_lock: a stop (WUNTRACED, WSTOPPED) or continue (WCONTINUED) of the live child
// c that wait has not reported yet, taken unless WNOWAIT (Linux's wait_task_stopped and
// wait_task_continued); true if r holds one.
static bool
wait_stop_event(struct process *c, int options, struct wait_result *r)
{
  bool got = false;
  u64 flags;
  spin_lock_irqsave(&c->siglock, flags);
  if((options & WUNTRACED) && c->stopped && c->stop_report) {
    r->code = CLD_STOPPED;
    r->status = c->stop_sig;
    c->stop_report = options & WNOWAIT;
    got = true;
  } else if((options & WCONTINUED) && c->cont_report) {
    r->code = CLD_CONTINUED;
    r->status = SIGCONT;
    c->cont_report = options & WNOWAIT;
    got = true;
  }
  spin_unlock_irqrestore(&c->siglock, flags);
  if(got) {
    r->pid = c->pid;
    r->ticks = r->min_flt = 0;
  }
  return got;
}

// Linux's do_wait: a dead child that matches is reaped (WEXITED; unless WNOWAIT), a stop or
// continue reported (WUNTRACED, WCONTINUED); 0 with WNOHANG when nothing is there yet;
// -ECHILD when no child matches; -EINTR when this process is ending.
static long
do_wait(int which, int id, int options, struct wait_result *r)
{
  struct process *p = current->proc;
  memset(r, 0, sizeof(*r));
  for(;;) {
    spin_lock(&tasklist_lock);
    u64 events = p->child_events;
    bool any = false, event = false;
    struct process *c, *zombie = NULL;
    list_for_each_entry(c, &p->children, sibling) {
      if(!wait_match(c, which, id))
        continue;
      any = true;
      if(c->dead) {
        if(!(options & WEXITED))
          continue;
        zombie = c;
        break;
      }
      if((options & (WUNTRACED | WCONTINUED)) && wait_stop_event(c, options, r)) {
        event = true;
        break;
      }
    }
    if(zombie) {
      r->pid = zombie->pid;
      int k = zombie->killed_by;   // the signal, | 0x80 when its default action dumps core
      r->code = k ? (k & 0x80 ? CLD_DUMPED : CLD_KILLED) : CLD_EXITED;
      r->status = k ? k & 0x7f : zombie->exit_status;
      r->ticks = zombie->ticks + zombie->cticks;
      r->min_flt = zombie->min_flt + zombie->cmin_flt;
      if(!(options & WNOWAIT)) {
        list_del(&zombie->sibling);
        p->cticks += r->ticks;   // RUSAGE_CHILDREN: the reaped child and what it reaped
        p->cmin_flt += r->min_flt;
      }
    }
    spin_unlock(&tasklist_lock);
    if(event)
      return r->pid;
    if(zombie) {
      if(!(options & WNOWAIT))
        release_process(zombie);
      return r->pid;
    }
    if(!any)
      return -ECHILD;
    if(options & WNOHANG)
      return 0;
    struct thread *t = current;
    wait_event_idle(p->child_wq, READ_ONCE(p->child_events) != events ||
                    thread_must_exit(t, p) || signal_pending(t));
    if(thread_must_exit(t, p))
      return -EINTR;
    if(signal_pending(t))
      return -ERESTARTSYS;   // a handler runs, then wait4 again (SA_RESTART) or EINTR
  }
}

// struct rusage: ru_utime from the ticks, ru_minflt; the rest zero.
static long
put_rusage(u64 uru, u64 ticks, u64 min_flt)
{
  s64 r[18];
  memset(r, 0, sizeof(r));
  u64 ns = ticks * TICK_NS;
  r[0] = ns / 1000000000UL;
  r[1] = (ns % 1000000000UL) / 1000;
  r[8] = min_flt;
  return copy_to_user((void *)uru, r, sizeof(r)) ? -EFAULT : 0;
}

void
children_rusage(u64 *ticks, u64 *min_flt)
{
  struct process *p = current->proc;
  spin_lock(&tasklist_lock);
  *ticks = p->cticks;
  *min_flt = p->cmin_flt;
  spin_unlock(&tasklist_lock);
}

// wait4(2): pid > 0 that child, -1 any, 0 the caller's process group, < -1 group -pid. The
// status word of <sys/wait.h>: the exit code in bits 8-15 (WIFEXITED), the signal in bits
// 0-6 with bit 7 for a core dump (WIFSIGNALED), 0x7f with the stop signal in bits 8-15
// (WIFSTOPPED), or 0xffff (WIFCONTINUED).
long
sys_wait4(u64 upid, u64 ustatus, u64 options, u64 ru)
{
  if(options & ~(u64)(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
    return -EINVAL;
  int pid = (int)upid;
  if(upid == 0x80000000UL)   // Linux: -INT_MIN has no process group
    return -ESRCH;
  struct wait_result r;
  int which = pid > 0 ? P_PID : pid == -1 ? P_ALL : P_PGID;
  int id = pid == 0 ? READ_ONCE(current->proc->pgid) : pid < -1 ? -pid : pid;
  long ret = do_wait(which, id, (int)options | WEXITED, &r);
  if(ret <= 0)
    return ret;
  int status = r.code == CLD_EXITED    ? (r.status & 0xff) << 8 :
               r.code == CLD_STOPPED   ? (r.status & 0xff) << 8 | 0x7f :
               r.code == CLD_CONTINUED ? 0xffff :
                                         r.status | (r.code == CLD_DUMPED ? 0x80 : 0);
  if(ustatus && put_user(status, (int *)ustatus))
    return -EFAULT;
  if(ru && put_rusage(ru, r.ticks, r.min_flt))
    return -EFAULT;
  return ret;
}

// waitid(2): the result in a siginfo_t (si_signo, si_errno, si_code, then si_pid, si_uid,
// si_status at offsets 16, 20, 24, and si_utime, si_stime), all zero when WNOHANG found
// nothing, as Linux writes it.
long
sys_waitid(u64 which, u64 id, u64 infop, u64 options, u64 ru)
{
  if(options & ~(u64)(WNOHANG | WUNTRACED | WEXITED | WCONTINUED | WNOWAIT | __WNOTHREAD |
                      __WALL | __WCLONE))
    return -EINVAL;
  if(!(options & (WEXITED | WUNTRACED | WCONTINUED)))
    return -EINVAL;
  if(which > P_PGID || (which == P_PID && (int)id <= 0) || (which == P_PGID && (int)id < 0))
    return -EINVAL;
  struct wait_result r;
  // P_PGID with id 0: the caller's group (Linux 5.4).
  if(which == P_PGID && id == 0)
    id = READ_ONCE(current->proc->pgid);
  long ret = do_wait((int)which, (int)id, (int)options, &r);
  if(ret < 0)
    return ret;
  if(ret == 0)
    memset(&r, 0, sizeof(r));
  if(infop) {
    u8 si[128];
    memset(si, 0, sizeof(si));
    *(int *)(si + 0) = ret ? SIGCHLD : 0;
    *(int *)(si + 8) = r.code;
    *(int *)(si + 16) = r.pid;
    *(int *)(si + 24) = r.status;
    *(s64 *)(si + 32) = r.ticks;   // si_utime, in clock ticks
    if(copy_to_user((void *)infop, si, sizeof(si)))
      return -EFAULT;
  }
  if(ru && put_rusage(ru, ret ? r.ticks : 0, ret ? r.min_flt : 0))
    return -EFAULT;
  return 0;
}

long
sys_getppid(void)
{
  // Under RCU, not tasklist_lock: the parent may be reparented away and released meanwhile,
  // but its memory stays a grace period (release_process) and pid never changes; the old or
  // the new parent's pid is an answer getppid could have given either way (Linux reads
  // current->real_parent the same way).
  rcu_read_lock();
  struct process *parent = rcu_dereference(current->proc->parent);
  int ppid = parent ? parent->pid : 0;   // a kernel-started process: as Linux's init
  rcu_read_unlock();
  return ppid;
}

// prctl(2)'s PR_SET_CHILD_SUBREAPER (set) and PR_GET_CHILD_SUBREAPER, from sys_prctl.
long
prctl_child_subreaper(bool set, u64 arg2)
{
  struct process *p = current->proc;
  if(!set)
    return put_user((int)READ_ONCE(p->child_subreaper), (int *)arg2);
  spin_lock(&tasklist_lock);
  p->child_subreaper = arg2 != 0;
  spin_unlock(&tasklist_lock);
  return 0;
}

long
sys_exit(u64 code)
{
  user_thread_exit((int)code);
}

long
sys_exit_group(u64 code)
{
  process_exit_group((int)code);
}
