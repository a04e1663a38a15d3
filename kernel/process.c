// Processes and their threads: spawning a program from an ELF image in memory, clone for
// threads (CLONE_VM | CLONE_THREAD, as pthread_create passes), exit and exit_group, and the
// wait that reaps them. A user thread is a kernel thread whose stack top holds its ring-3
// frame (user_regs); it enters ring 3 through ret_to_user and comes back on every syscall,
// interrupt and exception.
#include <asm/cpu.h>
#include "cpumask.h"
#include "errno.h"
#include "fs.h"
#include "fdtable.h"
#include <asm/fpu.h>
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "uapi/sched.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include "vm.h"
#include "vsprintf.h"

// clone(2) flags (include/uapi/linux/sched.h).

bool process_planted_leak;

LIST_HEAD(process_list);
spinlock_t process_list_lock = SPINLOCK_INIT(process_list_lock);

struct process *
find_process(int pid)
{
  struct process *p;
  list_for_each_entry(p, &process_list, tasks)
    if(p->pid == pid)
      return p;
  return NULL;
}

struct thread *
find_thread_in(struct process *p, int tid)
{
  struct thread *t;
  list_for_each_entry(t, &p->threads, proc_node)
    if(t->tid == tid && !t->sig->exited)
      return t;
  return NULL;
}   // planted-user-leak: the first thread's FPU page is kept

// A new thread's first code: adopt the process's address space (one mm reference per thread),
// then ring 3 through its frame, unless the process is already ending.
static int
user_thread_fn(void *arg)
{
  struct thread *t = current;
  struct process *p = t->proc;
  use_mm(p->mm);
  if(p->set_child_tid && t->tid == p->pid) {   // fork's CLONE_CHILD_SETTID, in the child's mm
    put_user((u32)t->tid, p->set_child_tid);
    p->set_child_tid = NULL;
  }
  struct trapframe *tf = user_regs(t);
  exit_to_user_mode(tf);
  ret_to_user(tf);
}

// The least loaded online CPU the mask allows; -1 if it allows none.
int
affinity_cpu(const struct cpumask *allowed)
{
  int cpu, best = -1;
  for_each_online_cpu(cpu)
    if(cpumask_test_cpu(cpu, allowed) && (best < 0 || nr_running(cpu) < nr_running(best)))
      best = cpu;
  return best;
}

// A thread of p, prepared but not started, on the least loaded CPU it may use: the caller
// fills in its frame and FPU area.
struct thread *
new_user_thread(struct process *p, const struct cpumask *allowed, struct thread *parent)
{
  int cpu = affinity_cpu(allowed);
  void *fpu = cpu >= 0 ? (void *)__get_free_page(GFP_KERNEL) : NULL;
  if(!fpu)
    return NULL;
  struct sigthread *sig = sigthread_alloc(parent ? parent->sig : NULL);
  struct thread *t = sig ? kthread_prepare(user_thread_fn, NULL, cpu, p->name) : NULL;
  if(!t) {
    kfree(sig);
    free_page((unsigned long)fpu);
    return NULL;
  }
  t->proc = p;
  t->fpu = fpu;
  t->sig = sig;
  t->affinity = *allowed;
  t->mempolicy = parent ? parent->mempolicy : (struct mempolicy){ 0 };
  spin_lock(&p->lock);
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  list_add_tail(&t->proc_node, &p->threads);
  spin_unlock_irqrestore(&p->siglock, flags);
  p->nr_live++;
  p->nr_started++;
  spin_unlock(&p->lock);
  return t;
}

// Takes a dead thread off its process's list (the signal code walks it under siglock),
// then joins it and frees its signal state.
void
reap_thread(struct process *p, struct thread *t)
{
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  list_del(&t->proc_node);
  spin_unlock_irqrestore(&p->siglock, flags);
  struct sigthread *sig = t->sig;
  kthread_join(t);
  kfree(sig);
}

// Under p->lock: sends every other thread of p on its way out: a sleeper is woken (futex,
// sleep and wait loops check thread_must_exit), a thread in ring 3 on another CPU is
// interrupted and leaves on its way back (exit_to_user_mode).
static void
kick_threads(struct process *p)
{
  struct thread *t;
  list_for_each_entry(t, &p->threads, proc_node) {
    if(t == current || READ_ONCE(t->state) == T_DEAD)
      continue;
    if(!wake_up_thread(t) && t->cpu != smp_processor_id())
      smp_send_reschedule(t->cpu);
  }
}

// Marks p as ending with status (the first reason wins) and sends its threads out.
static void
process_end(struct process *p, int status)
{
  spin_lock(&p->lock);
  if(!p->exiting) {
    p->exit_status = status;
    WRITE_ONCE(p->exiting, true);
  }
  kick_threads(p);
  spin_unlock(&p->lock);
}

// execve's point of no return (Linux's de_thread): every other thread leaves as at
// exit_group, without ending the process; false if the process is ending, or another
// thread is in execve, which wins.
bool
de_thread(struct process *p)
{
  struct thread *me = current;
  spin_lock(&p->lock);
  if(p->exiting || (p->exec_thread && p->exec_thread != me)) {
    spin_unlock(&p->lock);
    return false;
  }
  WRITE_ONCE(p->exec_thread, me);
  kick_threads(p);
  spin_unlock(&p->lock);
  wait_event(p->exit_wq, READ_ONCE(p->nr_live) == 1 || READ_ONCE(p->exiting));
  spin_lock(&p->lock);
  bool ok = !p->exiting;
  WRITE_ONCE(p->exec_thread, NULL);
  spin_unlock(&p->lock);
  reap_dead_threads(p);
  return ok;
}

void
process_kill(struct process *p, int sig)
{
  spin_lock(&p->lock);
  if(!p->exiting)
    p->killed_by = sig;
  spin_unlock(&p->lock);
  process_end(p, 128 + (sig & 0x7f));
}

void
process_exit_group(int status)
{
  process_end(current->proc, status & 0xff);
  user_thread_exit(status);
}

// exit(2) of one thread. CLONE_CHILD_CLEARTID: zero the word and wake one waiter, which is
// how pthread_join learns of the exit (a shared futex wait on the tid word: set_tid_address(2)). The last thread
// out sets the status (if no exit_group did) and wakes process_wait.
void
user_thread_exit(int code)
{
  struct thread *t = current;
  struct process *p = t->proc;
  if(t->clear_child_tid) {
    u32 *ctid = t->clear_child_tid;
    t->clear_child_tid = NULL;
    if(put_user(0u, ctid) == 0)
      futex_wake(ctid, true, 1, ~0u);   // shared, as Linux's mm_release
  }
  signal_thread_exit(t);
  u64 flags = local_irq_save();   // schedule() must not save into a freed area
  void *fpu = t->fpu;
  t->fpu = NULL;
  local_irq_restore(flags);
  if(!(READ_ONCE(process_planted_leak) && t->tid == p->pid))
    free_page((unsigned long)fpu);
  unuse_mm(t->mm);   // the kernel's tables; the process's own reference goes in exit_notify
  spin_lock(&p->lock);
  bool last = --p->nr_live == 0;
  if(last && !p->exiting)
    p->exit_status = code & 0xff;
  bool exec = p->exec_thread != NULL;
  spin_unlock(&p->lock);
  if(last)
    exit_notify(p);
  else if(exec)   // de_thread waits for the last of the others
    wake_up_all(&p->exit_wq);
  kthread_exit(code);
}

void
process_init(struct process *p)
{
  spin_lock_init(&p->lock);
  spin_lock_init(&p->siglock);
  INIT_LIST_HEAD(&p->threads);
  INIT_LIST_HEAD(&p->children);
  INIT_LIST_HEAD(&p->sibling);
  init_waitqueue_head(&p->exit_wq);
  init_waitqueue_head(&p->child_wq);
  p->umask = 022;
  rlimit_init(p);
  itimer_init(p);
}

struct process *
process_spawn(const char *path, const char *const argv[], const char *const envp[], int *err)
{
  struct file *f;
  if((*err = open_exec(path, 0, &f)))
    return NULL;
  struct process *p = kzalloc(sizeof(*p), GFP_KERNEL);
  if(!p) {
    vfs_close(f);
    *err = -ENOMEM;
    return NULL;
  }
  process_init(p);
  // /proc/self/exe is absolute (glibc asserts it: dl-origin.c), relative to / here: the
  // working directory of every process.
  snprintf(p->path, sizeof(p->path), "%s%s", path[0] == '/' ? "" : "/", path);
  const char *base = path;
  for(const char *c = path; *c; c++)
    if(*c == '/')
      base = c + 1;
  strlcpy(p->name, base, sizeof(p->name));
  p->init = true;
  p->mm = mm_create();
  p->files = files_alloc();
  p->sighand = sighand_alloc();
  bool made = p->mm && p->files && p->sighand;
  struct thread *t = made ? new_user_thread(p, &cpu_online_mask, NULL) : NULL;
  if(!t) {
    if(p->mm)
      mmput(p->mm);
    files_put(p->files);
    sighand_put(p->sighand);
    kfree(p);
    vfs_close(f);
    *err = -ENOMEM;
    return NULL;
  }
  p->mm->user = true;
  p->pid = t->tid;
  signal_init_process(p);
  fpu_init_state(t->fpu);
  // The loader writes the new address space through uaccess, from this thread.
  use_mm(p->mm);
  *err = load_elf(p, f, argv, envp, user_regs(t));
  if(!*err)
    proc_set_cmdline(p, argv);
  unuse_mm(p->mm);
  vfs_close(f);   // the mappings hold their own references
  if(*err) {
    p->exiting = true;   // the thread leaves before its first user instruction
    kthread_start(t);
    process_wait(p);
    return NULL;
  }
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  list_add_tail(&p->tasks, &process_list);
  spin_unlock_irqrestore(&process_list_lock, flags);
  proc_pid_add(p->pid);
  kthread_start(t);
  return p;
}

// A process the kernel started (no parent): its exit_notify has freed its memory and files
// by the time its last thread is joined; what it forked and left behind is killed and
// reaped here, as Linux does when a pid namespace's init ends (zap_pid_ns_processes).
int
process_wait(struct process *p)
{
  wait_event_idle(p->exit_wq, READ_ONCE(p->dead));
  process_reap_all(p);
  int status = p->exit_status;
  release_process(p);
  return status;
}

// Frees the slots of p's threads that have exited (joined in the kernel's sense: their stacks
// are free once they are off their CPUs), so a program that creates and joins threads in a
// loop never runs out of the MAX_THREADS slots. Not the caller, which is alive.
void
reap_dead_threads(struct process *p)
{
  LIST_HEAD(dead);
  struct thread *t, *n;
  u64 flags;
  spin_lock(&p->lock);
  spin_lock_irqsave(&p->siglock, flags);
  list_for_each_entry_safe(t, n, &p->threads, proc_node) {
    if(smp_load_acquire(&t->state) == T_DEAD) {
      list_del(&t->proc_node);
      list_add(&t->proc_node, &dead);
    }
  }
  spin_unlock_irqrestore(&p->siglock, flags);
  spin_unlock(&p->lock);
  list_for_each_entry_safe(t, n, &dead, proc_node) {
    list_del(&t->proc_node);
    struct sigthread *sig = t->sig;
    kthread_join(t);
    kfree(sig);
  }
}

// A thread with the flags pthread_create passes; without CLONE_THREAD, a new process
// (kernel/fork.c).
long
sys_clone(u64 flags, u64 newsp, u64 ptid, u64 ctid, u64 tls)
{
  if(!(flags & CLONE_THREAD))
    return do_fork(flags, newsp, ptid, ctid, tls);
  // clone(2), as Linux's copy_process: CLONE_THREAD without CLONE_SIGHAND, or CLONE_SIGHAND
  // without CLONE_VM, is EINVAL; the flags this code does not know stay ENOSYS.
  const u64 need = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND;
  const u64 known = need | CLONE_FS | CLONE_FILES | CLONE_SYSVSEM | CLONE_SETTLS |
                    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED |
                    CLONE_CHILD_SETTID;
  if((flags & need) != need)
    return -EINVAL;
  if(flags & ~(known | 0xff))
    return -ENOSYS;
  if((flags & CLONE_SETTLS) && tls >= USER_END)
    return -EPERM;
  // The child's first IRET would fault in ring 0 on a non-canonical stack pointer (Linux lets
  // the thread die of it in ring 3; refusing it here keeps that fault out of the kernel).
  if(newsp >= USER_END)
    return -EINVAL;
  struct thread *parent = current;
  struct process *p = parent->proc;
  reap_dead_threads(p);
  struct thread *t = new_user_thread(p, &parent->affinity, parent);   // inherited, as in Linux
  if(!t)
    return -EAGAIN;   // out of thread slots or memory: pthread_create says EAGAIN
  struct trapframe *tf = user_regs(t);
  *tf = *user_regs(parent);
  tf->rax = 0;
  if(newsp)
    tf->rsp = newsp;
  // The child starts with the parent's FPU registers (Linux copies the FPU state at clone:
  // threads inherit MXCSR and FCW); they are live in this CPU, so save them first.
  u64 irq = local_irq_save();
  fpu_save(parent->fpu);
  local_irq_restore(irq);
  memcpy(t->fpu, parent->fpu, fpu_size);
  t->fsbase = flags & CLONE_SETTLS ? tls : parent->fsbase;
  t->gsbase = parent->gsbase;
  if(flags & CLONE_CHILD_CLEARTID)
    t->clear_child_tid = (u32 *)ctid;
  int tid = t->tid;
  // Before the child can run, as Linux's kernel_clone does: pthread_join may read it at once.
  if(flags & CLONE_PARENT_SETTID)
    put_user((u32)tid, (u32 *)ptid);
  if(flags & CLONE_CHILD_SETTID)
    put_user((u32)tid, (u32 *)ctid);
  kthread_start(t);
  return tid;
}
