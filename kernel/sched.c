// Kernel threads on per-CPU run queues: creation, switching, sleeping, waking, joining.
// Non-preemptive: the tick only sets need_resched; threads stay on the CPU they were created on.
// A woken thread runs next; the thread it cut short resumes after it (see struct rq).
#include <asm/cpu.h>
#include "cpumask.h"
#include "fault_inject.h"
#include <asm/irq.h>
#include <asm/irqflags.h>
#include <asm/paging.h>
#include "panic.h"
#include "preempt.h"
#include "printk.h"
#include "process.h"
#include <asm/processor.h>
#include "rcupdate.h"
#include "sched.h"
#include "seqlock.h"
#include "smp.h"
#include "spinlock.h"
#include <asm/stacktrace.h>
#include <stdarg.h>
#include "string.h"
#include "syscalls.h"
#include "tick.h"
#include "time.h"
#include "timer.h"
#include <asm/timer.h>
#include <asm/traps.h>
#include "vm.h"
#include "vsprintf.h"
#include "wait.h"
#include "watchdog.h"

// Two lists, both under lock. A thread woken (or new, or migrated here) goes on woken and
// runs before anything on queue, so a wake-up is answered at the running thread's next
// cond_resched. The thread it cuts short goes back at the head of queue, not the tail: its
// turn ends only at the tick or when it blocks or yields, as a preempted SCHED_FIFO thread
// keeps the head of its list (sched(7)). Sent to the tail, a thread that wakes another on
// every call (close feeding call_rcu, a pipe's writer) lost its turn each time while a
// spinner beside it kept whole ticks: at 1 vCPU tests/user/dirs.c's openers ran one call
// in 5 ms beside its chdir loop (10.6 s; 0.5 s with the turn kept).
struct rq {
  spinlock_t lock;
  struct list_head woken;     // woken since they last ran, first in first out
  struct list_head queue;     // their turn over (tail) or cut short by a wake-up (head)
  struct thread *idle;
  struct thread *prev;        // the thread being switched away from
  int nr_running;             // threads on this CPU, idle excepted
  bool need_resched;
  bool slice_over;            // the tick ended the running thread's turn
  u64 switches;
};

bool planted_sched_wake_tail;   // planted-sched-wake-tail: a woken thread's waker loses its turn

DEFINE_PER_CPU(struct rq, runqueue);
DEFINE_PER_CPU(int, preempt_count);
struct thread threads[MAX_THREADS];
static DEFINE_SPINLOCK(threads_lock);
static DECLARE_WAIT_QUEUE_HEAD(exit_wq);   // kthread_join waits here
static int next_tid;

void switch_to(struct thread *prev, struct thread *next);
void thread_start(void);

static struct rq *this_rq(void) { return this_cpu_ptr(&runqueue); }
static struct rq *cpu_rq(int cpu) { return per_cpu_ptr(&runqueue, cpu); }

struct thread *
get_current(void)
{
  return this_cpu_info()->curr;
}

int
nr_running(int cpu)
{
  return READ_ONCE(cpu_rq(cpu)->nr_running);
}

static void
resched_interrupt(struct trapframe *tf)
{
  arch_irq_eoi();   // the idle loop or cond_resched finds the work
}

// Wakes a CPU that may be halted in its idle loop. The idle loop publishes c->idle
// before it looks at its queue, and we enqueue before looking at c->idle; the full
// fences make one of the two see the other (store-buffer ordering, SDM vol. 3A, 9.2.3.4).
// This one pairs with sched_idle_loop's.
void
resched_cpu(int cpu)
{
  smp_mb();
  if(cpu != smp_processor_id() && READ_ONCE(per_cpu_ptr(&cpu_info, cpu)->idle))
    smp_send_reschedule(cpu);
}

// Called with rq->lock held.
static void
enqueue(struct rq *rq, struct thread *t)
{
  t->state = T_RUNNABLE;
  list_add_tail(&t->run_list, &rq->woken);
  rq->need_resched = true;
}

static bool
rq_waiting(struct rq *rq)
{
  return !list_empty(&rq->woken) || !list_empty(&rq->queue);
}

// Runs on the CPU after every switch, on the new thread's stack: the switched-from
// thread's stack is free from here on, and the run-queue lock is released.
static void
finish_switch(struct rq *rq)
{
  struct thread *prev = rq->prev;
  int to = -1;
  if(prev) {
    to = prev->migrate_to;   // read before on_cpu drops: the thread is ours until then
    prev->migrate_to = -1;
    smp_store_release(&prev->on_cpu, false);
  }
  spin_unlock(&rq->lock);
  if(to >= 0) {   // sched_migrate: queue it on its new CPU now that its stack is free
    struct rq *target = cpu_rq(to);
    spin_lock(&target->lock);
    prev->cpu = to;
    target->nr_running++;
    enqueue(target, prev);
    spin_unlock(&target->lock);
    resched_cpu(to);
  }
}

// Moves the running thread to cpu: it leaves this CPU's queue, switches away, and the CPU
// that switched it out queues it on cpu's (finish_switch), so no two CPUs ever run it.
void
sched_migrate(int cpu)
{
  struct thread *t = current;
  if(cpu == t->cpu || !cpumask_test_cpu(cpu, &cpu_online_mask))
    return;
  u64 flags = local_irq_save();
  struct rq *rq = this_rq();
  spin_lock(&rq->lock);
  rq->nr_running--;
  t->migrate_to = cpu;
  spin_unlock(&rq->lock);
  schedule();
  local_irq_restore(flags);
}

void
schedule(void)
{
  might_sleep();   // a LOCKDEP report with the held locks, before the panics below
  if(this_cpu(preempt_count) != 0)
    panic("scheduling while atomic: preempt_count %d in %s", this_cpu(preempt_count),
          current->name);
  rcu_note_context_switch();   // a context switch is a quiescent state
  touch_softlockup_watchdog();
  u64 flags = local_irq_save();
  struct rq *rq = this_rq();
  struct thread *prev = current;
  spin_lock(&rq->lock);
  if(prev->state == T_RUNNING && !prev->idle && prev->migrate_to < 0) {
    prev->state = T_RUNNABLE;
    // need_resched without slice_over: a wake-up cut this turn short (struct rq). A yield
    // or a schedule() of its own, with need_resched clear, lets every other thread go first.
    if(rq->need_resched && !rq->slice_over && !READ_ONCE(planted_sched_wake_tail))
      list_add(&prev->run_list, &rq->queue);
    else
      list_add_tail(&prev->run_list, &rq->queue);
  }
  struct thread *next = rq->idle;
  struct list_head *from = !list_empty(&rq->woken) ? &rq->woken : &rq->queue;
  if(!list_empty(from)) {
    next = list_first_entry(from, struct thread, run_list);
    list_del_init(&next->run_list);
  }
  rq->need_resched = false;
  rq->slice_over = false;
  next->state = T_RUNNING;
  if(next == prev) {
    spin_unlock(&rq->lock);
    local_irq_restore(flags);
    return;
  }
  rq->switches++;
  next->switches++;
  next->on_cpu = true;
  rq->prev = prev;
  if(lock_stat_enabled())
    lock_hand_over(&rq->lock.dep_map, next);   // finish_switch releases it on next's behalf
  lockdep_hand_over(&rq->lock.dep_map, next);   // and for lockdep, always
  this_cpu_info()->curr = next;
  switch_mm(prev, next);
  switch_user_state(prev, next);   // kernel stack for ring 3's entries, FPU, FS base
  switch_to(prev, next);
  finish_switch(this_rq());   // back on prev, switched in by some later schedule()
  local_irq_restore(flags);
}

// The first code a new thread runs, from thread_start (switch.S).
void
thread_entry(struct thread *t)
{
  finish_switch(this_rq());
  local_irq_enable();
  kthread_exit(t->fn(t->arg));
}

// Claims a free slot. need_stack: a new thread gets the slot's stack (allocated on
// first use); a CPU adopting the context it already runs on does not.
static struct thread *
alloc_thread(const char *name, bool need_stack)
{
  struct thread *t = NULL;
  u64 flags;
  spin_lock_irqsave(&threads_lock, flags);
  for(int i = 0; i < MAX_THREADS; i++) {
    if(threads[i].state == T_FREE) {
      t = &threads[i];
      t->sleep_since = 0;      // not asleep in the hung-task check's sense
      t->idle_wait = false;
      t->state = T_NEW;        // claimed; not runnable until set up and started
#ifdef CONFIG_DEBUG
      t->sys_hist_next = 0;    // no calls of the slot's last thread in its history
#endif
      t->tid = next_tid++;
      break;
    }
  }
  spin_unlock_irqrestore(&threads_lock, flags);
  if(!t) {
    pr_err("sched: all %d thread slots in use\n", MAX_THREADS);
    return NULL;
  }
  strlcpy(t->name, name, sizeof(t->name));
  INIT_LIST_HEAD(&t->run_list);
  t->wake_at = 0;
  t->wait_on = NULL;
  t->exit_code = 0;
  t->mm = NULL;
  t->active_mm = NULL;
  t->lazy_tlb = 0;         // a slot's last thread may have died inside a lazy TLB section
  t->switches = 0;
  t->faults_injected = 0;
  t->proc = NULL;
  t->fpu = NULL;
  t->fsbase = 0;
  t->gsbase = 0;
  t->clear_child_tid = NULL;
  t->user_ticks = 0;
  t->migrate_to = -1;
  t->idle = false;
  t->on_cpu = false;
  // A slot keeps its stack for reuse: threads come and go with every benchmark point.
  if(need_stack && !t->stack_top)
    t->stack_top = stack_alloc(KSTACK_SIZE);
  return t;
}

// The stack a new thread is switched to: switch_to pops six registers (r12 carries the
// thread) and returns into thread_start. The top holds room for a user thread's trap frame,
// where ring 3's entries land (user_regs()).
static void
prepare_stack(struct thread *t)
{
  u64 *sp = (u64 *)(t->stack_top - sizeof(struct trapframe));
  *--sp = (u64)thread_start;
  *--sp = 0;          // rbp
  *--sp = 0;          // rbx
  *--sp = (u64)t;     // r12
  *--sp = 0;          // r13
  *--sp = 0;          // r14
  *--sp = 0;          // r15
  t->rsp = (u64)sp;
}

static int
least_loaded_cpu(void)
{
  int cpu, best = smp_processor_id();
  for_each_online_cpu(cpu)
    if(nr_running(cpu) < nr_running(best))
      best = cpu;
  return best;
}

struct thread *
kthread_create(int (*fn)(void *), void *arg, int cpu, const char *fmt, ...)
{
  if(cpu >= nr_cpu_ids || (cpu >= 0 && !cpumask_test_cpu(cpu, &cpu_online_mask))) {
    pr_err("kthread_create: CPU %d is not online\n", cpu);
    return NULL;
  }
  char name[THREAD_NAME];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof(name), fmt, ap);
  va_end(ap);
  struct thread *t = kthread_prepare(fn, arg, cpu, name);
  if(t)
    kthread_start(t);
  return t;
}

struct thread *
kthread_prepare(int (*fn)(void *), void *arg, int cpu, const char *name)
{
  // Linux's kthread_create allocates from the slab (kthread_create_info, and dup_task_struct's
  // task_struct, kernel/fork.c), so failslab can make it fail and every caller must cope with
  // NULL. Here the slots are a static table and stacks are kept for good: the injection is
  // drawn here instead, for kernel and user threads alike, as failslab would draw it for the
  // task_struct (kthread-nomem).
  if(should_fail_slab())
    return NULL;
  struct thread *t = alloc_thread(name, true);
  if(!t)
    return NULL;
  t->fn = fn;
  t->arg = arg;
  t->bound = cpu >= 0;
  t->cpu = cpu >= 0 ? cpu : least_loaded_cpu();
  prepare_stack(t);
  return t;
}

// What sched_show_task and kthread_start call each state.
static const char *const state_names[] = { "free", "running", "runnable", "sleeping", "dead",
                                           "new" };

void
kthread_start(struct thread *t)
{
  struct rq *rq = cpu_rq(t->cpu);
  u64 flags;
  spin_lock_irqsave(&rq->lock, flags);
  if(t->state != T_NEW)   // started twice, or woken before its start: the queue would break
    panic("kthread_start: %s (tid %d) is %s, not new", t->name, t->tid,
          t->state <= T_NEW ? state_names[t->state] : "?");
  rq->nr_running++;
  enqueue(rq, t);
  spin_unlock_irqrestore(&rq->lock, flags);
  resched_cpu(t->cpu);
}

void
kthread_exit(int code)
{
  struct thread *t = current;
  t->exit_code = code;
  local_irq_disable();
  struct rq *rq = this_rq();
  spin_lock(&rq->lock);
  rq->nr_running--;
  t->state = T_DEAD;
  spin_unlock(&rq->lock);
  wake_up_all(&exit_wq);
  schedule();
  panic("kthread_exit: a dead thread was scheduled");
}

int
kthread_join(struct thread *t)
{
  // As long as t runs, which may be long: if t hangs, the check reports t itself.
  wait_event_idle(exit_wq, READ_ONCE(t->state) == T_DEAD);
  // Its CPU may still be switching away on its stack: wait for the switch to finish.
  while(smp_load_acquire(&t->on_cpu))
    cpu_relax();
  int code = t->exit_code;
  smp_store_release(&t->state, T_FREE);
  return code;
}

// One line per thread, and where each one that is off its CPU stopped: its saved rbp and
// return address sit on its stack above the registers switch.S pushed (Linux's sysrq-t).
// For dumps of a hung kernel: reads the table without its lock.

void
sched_show_task(struct thread *t)
{
  int state = READ_ONCE(t->state);
  const char *on = READ_ONCE(t->wait_on);

  printk(KERN_EMERG "  %-24s tid %-4d cpu %-3d %-8s%s%s%s%s%s\n", t->name, t->tid, t->cpu,
         state >= 0 && state <= T_NEW ? state_names[state] : "?", on ? " on " : "",
         on ? on : "", t->wake_at ? " (with a timeout)" : "",
         READ_ONCE(t->on_cpu) ? " [on cpu]" : "", list_empty(&t->run_list) ? "" : " [queued]");
  if(state == T_RUNNING || state == T_DEAD || READ_ONCE(t->on_cpu) ||
     !kernel_addr_mapped(t->rsp) || !kernel_addr_mapped(t->rsp + 55))
    return;
  u64 *saved = (u64 *)t->rsp;   // r15 r14 r13 r12 rbx rbp, then the return address
  show_backtrace(saved[5], saved[6], 0);
}

void
show_state(void)
{
  printk(KERN_EMERG "threads:\n");
  for(int i = 0; i < MAX_THREADS; i++)
    if(READ_ONCE(threads[i].state) != T_FREE && !threads[i].idle)
      sched_show_task(&threads[i]);
  rcu_show_state();   // a sleeper may be waiting for a grace period
}

// Full barrier: the state is visible before the caller tests its wait condition, so a
// waker that changes the condition afterwards sees the thread asleep (Linux's
// set_current_state).
void
set_current_state(int state)
{
  if(state == T_SLEEPING)   // stamped first: whoever sees the state sees this sleep's time
    current->sleep_since = ktime_ns();
  smp_store_mb(current->state, state);
}

bool
wake_up_thread(struct thread *t)
{
  struct rq *rq = cpu_rq(t->cpu);
  bool woke = false;
  u64 flags;
  spin_lock_irqsave(&rq->lock, flags);
  if(t->state == T_SLEEPING) {
    if(t->on_cpu && t == per_cpu_ptr(&cpu_info, t->cpu)->curr)
      t->state = T_RUNNING;   // not switched out yet: it just keeps running
    else
      enqueue(rq, t);
    woke = true;
  }
  spin_unlock_irqrestore(&rq->lock, flags);
  if(woke)
    resched_cpu(t->cpu);
  return woke;
}

// A sleep with a deadline is a timer on the sleeper's stack whose callback wakes it (Linux's
// schedule_timeout and process_timeout, kernel/time/timer.c).
struct process_timer {
  struct timer_list timer;
  struct thread *thread;
};

static void
process_timeout(struct timer_list *timer)
{
  struct process_timer *pt = from_timer(pt, timer, timer);
  wake_up_thread(pt->thread);
}

void
schedule_timeout(u64 ns)
{
  struct thread *t = current;
  if(t->state != T_SLEEPING) {   // woken already: no sleep to time
    schedule();
    return;
  }
  struct process_timer pt = { .thread = t };
  timer_setup(&pt.timer, process_timeout);
  u64 now = ktime_ns();
  u64 deadline = ns < ~0UL / 2 ? now + ns : now + ~0UL / 2;   // far enough, and no wrap
  WRITE_ONCE(t->wake_at, deadline);   // for the hung-task check and sched_show_task
  mod_timer(&pt.timer, deadline);
  schedule();
  // Woken by the timer or by someone else: either way the timer leaves the stack now, and
  // a callback still running on another CPU (the sleeper migrated) is waited for.
  del_timer_sync(&pt.timer);
  WRITE_ONCE(t->wake_at, 0);
}

void
msleep(u64 ms)
{
  set_current_state(T_SLEEPING);
  current->wait_on = "msleep";
  schedule_timeout(ms * 1000000);
  current->wait_on = NULL;
}

void
yield(void)
{
  schedule();
}

bool
need_resched(void)
{
  return READ_ONCE(this_rq()->need_resched);
}

void
cond_resched(void)
{
  // It may sleep, so it must not be reached holding a spinlock, even when it would not
  // switch this time (Linux's might_sleep): the bug shows on every call, not once in a while.
  might_sleep();
  if(this_cpu(preempt_count) != 0)
    panic("cond_resched while atomic: preempt_count %d in %s", this_cpu(preempt_count),
          current->name);
  touch_softlockup_watchdog();
  rcu_note_qs();
  if(need_resched())
    schedule();
}

// From the timer interrupt, after the expired timers woke their sleepers (run_timers).
// need_resched only asks the running thread to step aside at its next cond_resched; nothing
// is preempted.
void
sched_tick(void)
{
  struct rq *rq = this_rq();
  spin_lock(&rq->lock);
  if(rq_waiting(rq)) {   // a time slice is one tick when others wait
    rq->need_resched = true;
    rq->slice_over = true;
  }
  spin_unlock(&rq->lock);
}

// A CPU's idle clock (include/tick.h). Only the CPU itself writes it, with interrupts off (the
// idle loop, irq_enter); another reads it under seq, which is odd while a write is on: the
// writers' seq updates pair with idle_time_ns's read_seqcount_begin and _retry.
struct idle_clock {
  seqcount_t seq;
  bool on;          // halted, or about to: since is the start
  u64 since;        // ktime_ns
  u64 total_ns;     // halted time before since
};
static DEFINE_PER_CPU(struct idle_clock, idle_clock);

// An NMI wakes the CPU from hlt without an interrupt, and the loop halts again: the clock
// started before that NMI goes on.
static void
idle_clock_start(u64 now)
{
  struct idle_clock *c = this_cpu_ptr(&idle_clock);
  if(c->on)
    return;
  write_seqcount_begin(&c->seq);
  c->since = now;
  c->on = true;
  write_seqcount_end(&c->seq);
}

void
idle_clock_stop(void)
{
  struct idle_clock *c = this_cpu_ptr(&idle_clock);
  if(!c->on)
    return;
  u64 now = ktime_ns();
  write_seqcount_begin(&c->seq);
  c->total_ns += now > c->since ? now - c->since : 0;
  c->on = false;
  write_seqcount_end(&c->seq);
}

u64
idle_time_ns(int cpu, u64 now)
{
  const struct idle_clock *c = per_cpu_ptr(&idle_clock, cpu);
  u64 t;
  u32 seq;
  do {
    seq = read_seqcount_begin(&c->seq);
    t = READ_ONCE(c->total_ns);
    if(READ_ONCE(c->on) && now > READ_ONCE(c->since))
      t += now - READ_ONCE(c->since);
  } while(read_seqcount_retry(&c->seq, seq));
  return t;
}

// The idle thread: run whatever is queued, else halt with the tick stopped (or armed
// only for its first timer: a sleeper's deadline, an itimer), never spin.
void
sched_idle_loop(void)
{
  struct cpu *c = this_cpu_info();
  struct rq *rq = this_rq();
  for(;;) {
    local_irq_disable();
    rcu_do_batch();                        // callbacks whose grace period has ended
    WRITE_ONCE(c->idle, 1);
    smp_mb();   // pairs with resched_cpu's
    if(rq_waiting(rq) || rcu_has_done()) {
      c->idle = 0;
      idle_clock_stop();
      local_irq_enable();
      schedule();
      continue;
    }
    rcu_idle_enter();                      // an idle CPU holds no grace period back
    u64 when = timer_next_expiry(), now = ktime_ns();
    // One reading of the clock: with two, a deadline that passed between them made the
    // difference wrap, and the LAPIC timer's count saturated at 2^32 ticks, 68 s (a sleeper
    // woke 68 s late: madvise's slot warmers stalled three full boots by that much).
    if(when)
      arch_timer_set_oneshot(when > now ? when - now : 1);
    else
      arch_timer_stop();
    idle_clock_start(now);
    arch_safe_halt();                      // irq_enter ends idle for the handler
  }
}

static int
idle_thread(void *arg)
{
  sched_idle_loop();
}

static void
rq_init(struct rq *rq)
{
  spin_lock_init(&rq->lock);
  INIT_LIST_HEAD(&rq->woken);
  INIT_LIST_HEAD(&rq->queue);
  init_timers_cpu();
}

// The boot CPU: the code running now becomes the thread "init", and CPU 0 gets an idle
// thread of its own to switch to when init sleeps.
void
sched_init(void)
{
  set_irq_handler(VEC_RESCHED, resched_interrupt);
  struct rq *rq = this_rq();
  rq_init(rq);
  rcu_init_cpu();
  struct thread *init = alloc_thread("init", false);
  init->stack_top = this_cpu_info()->stack_top;
  init->cpu = 0;
  init->bound = true;
  init->state = T_RUNNING;
  init->on_cpu = true;
  this_cpu_info()->curr = init;
  rq->nr_running = 1;

  struct thread *idle = alloc_thread("idle/0", true);
  idle->fn = idle_thread;
  idle->cpu = 0;
  idle->bound = true;
  idle->idle = true;
  idle->state = T_RUNNABLE;
  prepare_stack(idle);
  rq->idle = idle;
}

// An AP: the context it booted on becomes its idle thread.
void
sched_init_ap(void)
{
  struct cpu *c = this_cpu_info();
  struct rq *rq = this_rq();
  rq_init(rq);
  rcu_init_cpu();
  char name[THREAD_NAME];
  snprintf(name, sizeof(name), "idle/%d", c->id);
  struct thread *idle = alloc_thread(name, false);
  idle->stack_top = c->stack_top;
  idle->cpu = c->id;
  idle->bound = true;
  idle->idle = true;
  idle->state = T_RUNNING;
  idle->on_cpu = true;
  c->curr = idle;
  rq->idle = idle;
}

long
sys_sched_yield(void)
{
  yield();
  return 0;
}
