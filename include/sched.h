// Kernel threads and the scheduler: per-CPU run queues, non-preemptive, one idle thread per CPU.
// The tick only marks need_resched; a thread gives up its CPU when it blocks, yields, exits or
// calls cond_resched(). RCU relies on this rule (kernel/rcu.c): see cond_resched below.
#pragma once
#include "cpumask.h"
#include "list.h"
#include "lockdep.h"
#include "lockdep_types.h"
#include "types.h"

#define MAX_THREADS 1024
#define SYSCALL_HISTORY 8   // calls a thread remembers in the debug image (sys_hist)
#define THREAD_NAME 24

enum thread_state {
  T_FREE,       // slot unused
  T_RUNNING,    // on a CPU now
  T_RUNNABLE,   // on a run queue
  T_SLEEPING,   // waiting: off every run queue until woken
  T_DEAD,       // exited; join reaps it
  T_NEW,        // prepared, not started: no wake-up makes it runnable, only kthread_start
                // (Linux's TASK_NEW and wake_up_new_task): a thread already on its process's
                // list can be kicked by exit_group before its creator starts it
};

struct wait_queue_head;
struct mm;
struct process;
struct sigthread;

struct thread {
  u64 rsp;                    // saved stack pointer; switch.S relies on this being first
  int tid;
  char name[THREAD_NAME];
  int state;                  // enum thread_state
  int cpu;                    // the CPU whose run queue it belongs to
  int bound;                  // bound to cpu (true), or placed there at creation (false)
  bool on_cpu;                // running now (between switch in and switch out)
  int migrate_to;             // sched_migrate's target CPU while it switches away, else -1
  bool idle;                  // the per-CPU idle thread
  u64 stack_top;
  struct list_head run_list;  // run queue linkage
  u64 wake_at;                // schedule_timeout's deadline (ktime ns), 0 if none
  const char *wait_on;        // what it waits for, for gdb's kthreads
  u64 sleep_since;            // when it last went to sleep (ktime ns): the hung-task check
  bool idle_wait;             // sleeping until there is work, maybe for ever (wait_event_idle)
  int (*fn)(void *);
  void *arg;
  int exit_code;
  struct thread *joiner;      // thread waiting in kthread_join
#ifdef CONFIG_LOCKDEP
  struct lockdep_task dep;    // locks held, for the lock-order checker (kernel/locking/lockdep.c)
#endif
  struct mm *mm;              // address space adopted with use_mm (NULL: kernel only)
  struct mm *active_mm;       // page tables loaded (lazy TLB keeps the last one)
  int lazy_tlb;               // depth of its lazy TLB sections (arch/x86_64/tlb.c); its own
  u64 switches;               // times switched in
#ifdef CONFIG_LOCK_STAT
  // Locks taken while lock statistics were on, innermost last (kernel/locking/lock_stat.c);
  // only this thread, and interrupt handlers on its CPU with interrupts off, touch them.
  struct held_lock held_locks[MAX_LOCK_DEPTH];
  int lockdep_depth;
  u32 held_epoch;             // lock_stat_epoch when they were pushed; an older one is stale
#endif
  // User mode (kernel/process.c); all NULL or 0 in a kernel thread. Only the thread itself
  // writes them, except proc_node (under proc->lock) and what clone sets before the start.
  struct process *proc;       // the process whose thread this is
  struct list_head proc_node; // in proc->threads
  void *fpu;                  // its FPU registers while switched out (a page; schedule())
  u64 fsbase;                 // FS base (arch_prctl, clone's tls), loaded when switched in
  u64 gsbase;                 // the user's GS base (arch_prctl ARCH_SET_GS), likewise
  u32 *clear_child_tid;       // zeroed and woken at exit (CLONE_CHILD_CLEARTID)
  struct sigthread *sig;      // masks, pending signals, sigaltstack (kernel/signal.c)
  u64 user_ticks;             // ticks that found it in ring 3
  struct cpumask affinity;    // sched_setaffinity: where it may run (user threads only)
  struct mempolicy {          // set_mempolicy (mm/mempolicy.c): its own, copied to a thread
    int mode;                 // it makes, as Linux's task->mempolicy; MPOL_DEFAULT at spawn
    u64 user_nodes;           // MPOL_F_STATIC_NODES or _RELATIVE_NODES: the mask as given
  } mempolicy;
  // Allocations that fault injection failed while it ran (mm/fault_inject.c): whether a
  // failure it met was injected. Written by its own CPU only.
  u64 faults_injected;
#ifdef CONFIG_DEBUG
  // Its last SYSCALL_HISTORY system calls, number and arguments, oldest overwritten: what a
  // panic report prints for every user thread, so that a fuzzer's crash can be replayed
  // (kernel/syscall.c). Written by the thread itself only.
  struct { u64 nr, arg[6]; } sys_hist[SYSCALL_HISTORY];
  u32 sys_hist_next;
#endif
};

// The current thread: struct cpu's `current` on this CPU.
struct thread *get_current(void);
#define current get_current()

void sched_init(void);                   // the boot CPU: adopt the boot thread, make idle
void sched_init_ap(void);                // an AP: its boot context becomes its idle thread
void thread_entry(struct thread *t);     // a new thread's first C code, from thread_start (switch.S)
struct thread *kthread_create(int (*fn)(void *), void *arg, int cpu, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));   // cpu < 0: least-loaded online CPU
// kthread_create in two steps, for a creator that fills in the thread (its user-mode frame
// at the top of its stack, its process) before it can run.
struct thread *kthread_prepare(int (*fn)(void *), void *arg, int cpu, const char *name);
void kthread_start(struct thread *t);
int kthread_join(struct thread *t);      // waits for t to exit; returns its exit code
void kthread_exit(int code) __attribute__((noreturn));
void schedule(void);                     // give up the CPU (state set by the caller)
void yield(void);
void sched_migrate(int cpu);             // the current thread moves to cpu's run queue
void msleep(u64 ms);
void schedule_timeout(u64 ns);           // sleep until woken or ns pass (state: T_SLEEPING)
bool wake_up_thread(struct thread *t);   // T_SLEEPING -> runnable; false if it was not asleep
void resched_cpu(int cpu);               // wake cpu from idle to look at its run queue
void set_current_state(int state);

// cond_resched: the only place a long-running thread lets others run. Call it in every loop
// that can run for more than a tick. It is also an RCU quiescent state.
void cond_resched(void);
bool need_resched(void);

void sched_tick(void);                   // from the timer interrupt: slices and timeouts
void sched_idle_loop(void) __attribute__((noreturn));
int nr_running(int cpu);
void sched_show_task(struct thread *t);   // state, wait and backtrace of one thread
void show_state(void);                   // every thread: for dumps of a hung kernel
extern struct thread threads[MAX_THREADS];
