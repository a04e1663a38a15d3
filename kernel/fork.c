// fork, vfork, and clone without CLONE_THREAD: a new process with a copy-on-write copy of
// the caller's address space (mm/cow.c) or, with CLONE_VM, the same one; the fd table copied
// or shared; one thread continuing from the caller's registers with 0 in rax (Linux:
// kernel/fork.c, copy_process).
#include <asm/cpu.h>
#include "errno.h"
#include "fs.h"
#include "fdtable.h"
#include <asm/fpu.h>
#include "mm.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "uapi/sched.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include "vm.h"
#include "wait.h"

// The flags a process (not a thread) may be made with here; namespaces, pidfds and the
// rest are EINVAL.
#define FORK_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_PTRACE | \
                    CLONE_VFORK | CLONE_PARENT | CLONE_SYSVSEM | CLONE_SETTLS |         \
                    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED |       \
                    CLONE_UNTRACED | CLONE_CHILD_SETTID)

// What the child takes from the parent besides the mm, the files and the signal state
// (signal_fork): names and the heap's bounds.
static void
copy_process_state(struct process *c, struct process *p)
{
  memcpy(c->name, p->name, sizeof(c->name));
  spin_lock(&p->lock);   // another thread's execve may be setting it
  memcpy(c->path, p->path, sizeof(c->path));
  spin_unlock(&p->lock);
  proc_copy_cmdline(c, p);
  c->brk_start = p->brk_start;
  c->brk = p->brk;
  c->umask = READ_ONCE(p->umask);
  rlimit_fork(c, p);
}

static void
free_unstarted(struct process *c)
{
  if(c->mm)
    mmput(c->mm);
  files_put(c->files);
  sighand_put(c->sighand);
  proc_free_cmdline(c);
  kfree(c);
}

long
do_fork(u64 flags, u64 newsp, u64 ptid, u64 ctid, u64 tls)
{
  if((flags & ~(u64)(FORK_FLAGS | 0xff)) || (flags & 0xff) > NSIG)
    return -EINVAL;
  if((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))   // as Linux's copy_process
    return -EINVAL;
  if((flags & CLONE_SETTLS) && tls >= USER_END)
    return -EPERM;
  if(newsp >= USER_END)
    return -EINVAL;
  struct thread *parent = current;
  struct process *p = parent->proc;
  struct process *c = kzalloc(sizeof(*c), GFP_KERNEL);
  if(!c)
    return -ENOMEM;
  process_init(c);
  copy_process_state(c, p);
  c->exit_signal = flags & 0xff;
  if(flags & CLONE_VM) {
    mmget(p->mm);
    c->mm = p->mm;
  } else {
    c->mm = dup_mm(p->mm);
  }
  if(flags & CLONE_FILES) {
    files_get(p->files);
    c->files = p->files;
  } else {
    c->files = files_dup(p->files);
  }
  // CLONE_SIGHAND: the one table, so a sigaction in either is the other's (clone(2)).
  int err = c->mm && c->files ? copy_sighand(flags, c, p) : -ENOMEM;
  struct thread *t = !err ? new_user_thread(c, &parent->affinity, parent) : NULL;
  if(!t) {
    free_unstarted(c);
    return -ENOMEM;   // Linux's fork(2) answers EAGAIN for the process limit, ENOMEM here
  }
  c->pid = t->tid;
  u64 irqflags;
  spin_lock_irqsave(&p->siglock, irqflags);   // the group and session
  signal_fork(c, p, t, parent);
  spin_unlock_irqrestore(&p->siglock, irqflags);
  struct trapframe *tf = user_regs(t);
  *tf = *user_regs(parent);
  tf->rax = 0;
  if(newsp)
    tf->rsp = newsp;
  u64 irq = local_irq_save();   // the parent's FPU registers are live in this CPU
  fpu_save(parent->fpu);
  local_irq_restore(irq);
  memcpy(t->fpu, parent->fpu, fpu_size);
  t->fsbase = flags & CLONE_SETTLS ? tls : parent->fsbase;
  t->gsbase = parent->gsbase;
  if(flags & CLONE_CHILD_CLEARTID)
    t->clear_child_tid = (u32 *)ctid;
  if(flags & CLONE_CHILD_SETTID)
    c->set_child_tid = (u32 *)ctid;   // in the child's own mm: user_thread_fn writes it
  if(flags & CLONE_PARENT_SETTID)
    put_user((u32)c->pid, (u32 *)ptid);
  struct vfork_done vfork_done = { false, VFORK_LIVE };
  spin_lock(&tasklist_lock);
  // CLONE_PARENT: a sibling of the caller; a kernel-started caller stays the parent.
  c->parent = (flags & CLONE_PARENT) && p->parent ? p->parent : p;
  list_add_tail(&c->sibling, &c->parent->children);
  if(thread_must_exit(parent, p))   // Linux's copy_process: fatal signal pending, -EINTR
    c->exiting = true;                // the child leaves before its first instruction
  bool dying = c->exiting;
  // The flag lives on this stack: only a parent that will wait for it may lend it, else the
  // child's exit would write into a frame this call has left (vfork_release).
  if((flags & CLONE_VFORK) && !dying)
    c->vfork_done = &vfork_done;
  spin_unlock(&tasklist_lock);
  spin_lock_irqsave(&process_list_lock, irqflags);   // kill and tgkill can find it now
  list_add_tail(&c->tasks, &process_list);
  spin_unlock_irqrestore(&process_list_lock, irqflags);
  int pid = c->pid;
  proc_pid_add(pid);   // before fork returns: the parent may open /proc/<pid>/stat at once
  kthread_start(t);
  if(dying)
    return -EINTR;
  if(flags & CLONE_VFORK) {
    // The parent sleeps until the child has execve'd or exited (Linux's
    // wait_for_vfork_done); it stays killable, and then takes its flag back.
    wait_event_idle(vfork_wq, READ_ONCE(vfork_done.done) || thread_must_exit(parent, p));
    spin_lock(&tasklist_lock);
    if(!vfork_done.done)   // the child is alive (it releases before it dies): still ours
      c->vfork_done = NULL;
    WRITE_ONCE(vfork_done.live, 0);   // the frame is going: a pointer left to it is stale
    spin_unlock(&tasklist_lock);
  }
  return pid;
}

long
sys_fork(void)
{
  return do_fork(SIGCHLD, 0, 0, 0, 0);
}

long
sys_vfork(void)
{
  return do_fork(CLONE_VFORK | CLONE_VM | SIGCHLD, 0, 0, 0, 0);
}

// clone3(2): struct clone_args (flags, pidfd, child_tid, parent_tid, exit_signal, stack,
// stack_size, tls, set_tid, set_tid_size, cgroup), at least its first 64 bytes; the stack
// is given as base and size. What clone cannot express here (pidfds, set_tid, cgroups) is
// EINVAL.
long
sys_clone3(u64 uargs, u64 size)
{
  u64 a[11];
  if(size < 64 || size > 4096)
    return -EINVAL;
  memset(a, 0, sizeof(a));
  if(copy_from_user(a, (void *)uargs, MIN(size, sizeof(a))))
    return -EFAULT;
  if((a[0] & 0xff) || (a[0] & CLONE_PIDFD) || a[4] > NSIG || a[8] || a[9] || a[10])
    return -EINVAL;
  if((a[5] == 0) != (a[6] == 0))   // a stack needs its size
    return -EINVAL;
  u64 sp = a[5] ? a[5] + a[6] : 0;
  return sys_clone(a[0] | a[4], sp, a[3], a[2], a[7]);
}

long
sys_set_tid_address(u64 tidptr)
{
  current->clear_child_tid = (u32 *)tidptr;
  return current->tid;
}
