// RCU for a non-preemptive kernel: a grace period ends once every busy CPU has passed a
// quiescent state (a context switch, cond_resched, or a tick outside a read-side section);
// idle CPUs are skipped by their dynticks counter, as Linux's dynticks-idle RCU does.
// Callbacks wait on per-CPU lists and run in batches on the CPU that queued them. A grace
// period nobody waits for ends at the grace-period thread's next tick-long poll, not at the
// last CPU's report: see report_qs.
#include "cpumask.h"
#include "mutex.h"
#include "panic.h"
#include "printk.h"
#include "rcupdate.h"
#include "sched.h"
#include "smp.h"
#include "tick.h"
#include "time.h"
#include "vsprintf.h"
#include "wait.h"
#include <asm/cpu.h>
#include <asm/traps.h>
#include <asm/irqflags.h>

struct cblist {
  struct rcu_head *head, **tail;
};

struct rcu_data {
  spinlock_t lock;          // the three lists; the grace-period thread reaches across CPUs
  struct cblist next;       // queued, waiting for a grace period to start
  struct cblist wait;       // waiting for grace period wait_gp to end
  u64 wait_gp;
  struct cblist done;       // grace period over: run on this CPU
  long dynticks;            // odd while busy, even while idle (the count of idle transitions)
  long dynticks_snap;       // its value when the current grace period started
  bool in_idle;
  u64 invoked, queued;
};

DEFINE_PER_CPU(struct rcu_data, rcu_data);
DEFINE_PER_CPU(int, rcu_nesting);

static struct cpumask qs_pending;   // CPUs that still owe the current grace period
static u64 gp_seq;                  // grace periods started
static u64 gp_completed;            // grace periods ended
static bool gp_thread_sleeping;
static int hurry;                   // synchronize_rcu and rcu_barrier callers waiting
static bool planted_early;
static struct thread *gp_thread;
static DECLARE_WAIT_QUEUE_HEAD(rcu_gp_wq);

static void cbl_init(struct cblist *l) { l->head = NULL; l->tail = &l->head; }

// Moves all of src to the end of dst.
static void
cbl_splice(struct cblist *dst, struct cblist *src)
{
  if(!src->head)
    return;
  *dst->tail = src->head;
  dst->tail = src->tail;
  cbl_init(src);
}

void
rcu_init_cpu(void)
{
  struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
  spin_lock_init(&rdp->lock);
  cbl_init(&rdp->next);
  cbl_init(&rdp->wait);
  cbl_init(&rdp->done);
  rdp->dynticks = 1;
  rdp->in_idle = false;
  this_cpu(rcu_nesting) = 0;
}

// call_rcu wakes the grace-period thread only when it says it sleeps, to keep the wait
// queue's lock off the fast path. The thread says so before every look at the callbacks
// (need_gp), not once before its wait: a waker that comes late, after the thread has already
// taken its callbacks, would otherwise clear the flag and wake it for nothing, and it would
// sleep on with the flag clear while new callbacks wait unseen (found by the hung-task check:
// a synchronize_rcu that never returned).
static void
wake_gp_thread(void)
{
  if(READ_ONCE(gp_thread_sleeping) &&
     __atomic_exchange_n(&gp_thread_sleeping, false, __ATOMIC_SEQ_CST))
    wake_up(&rcu_gp_wq);
}

void
call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *))
{
  if(READ_ONCE(planted_early)) {   // planted-rcu: no grace period at all
    func(head);
    return;
  }
  head->func = func;
  head->next = NULL;
  u64 flags = local_irq_save();
  struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
  spin_lock(&rdp->lock);
  *rdp->next.tail = head;
  rdp->next.tail = &head->next;
  rdp->queued++;
  spin_unlock(&rdp->lock);
  local_irq_restore(flags);
  smp_mb();   // the callback is visible before we read the flag
  wake_gp_thread();
}

// This CPU passed a quiescent state: every read-side section it was in has ended. The
// fence orders those sections' loads before the report that lets an updater free memory.
// The last report wakes the grace-period thread only when someone waits for the grace period
// (hurry); otherwise the thread finds it over at its next poll, a tick at most. Waking it on
// every last report cost an IPI to its CPU per grace period, and with callbacks always queued
// (a ramfs create+unlink loop with RCU-freed inodes) grace periods ran back to back, so nearly
// every path walk's cond_resched ended one (fs_mark's ref-walk, profiled). Linux too reports
// quiescent states from the tick and softirq, and lets call_rcu's callbacks wait for the
// grace-period kthread's own pace (jiffies_till_first_fqs; the lazy call_rcu of Linux 6.2,
// call_rcu_hurry for the callers that wait).
static void
report_qs(void)
{
  int me = smp_processor_id();
  if(!cpumask_test_cpu(me, &qs_pending))
    return;
  smp_mb();
  cpumask_clear_cpu_atomic(me, &qs_pending);
  if(cpumask_weight(&qs_pending) == 0 && READ_ONCE(hurry))
    wake_up(&rcu_gp_wq);
}

// Called by schedule() before it takes the run-queue lock. Sleeping inside a read-side
// section would break RCU in a non-preemptive kernel: that is a bug, caught here.
void
rcu_note_context_switch(void)
{
  if(this_cpu(rcu_nesting) != 0)
    panic("schedule() inside an RCU read-side section (nesting %d)", this_cpu(rcu_nesting));
  report_qs();
}

void
rcu_note_qs(void)
{
  if(this_cpu(rcu_nesting) == 0)
    report_qs();
}

// From the tick, on a busy CPU. The interrupted code is outside every read-side
// section exactly when the nesting count is zero (threads cannot switch inside one).
void
rcu_tick(void)
{
  rcu_note_qs();
  rcu_do_batch();
}

void
rcu_idle_enter(void)
{
  struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
  if(rdp->in_idle)
    return;
  rdp->in_idle = true;
  __atomic_fetch_add(&rdp->dynticks, 1, __ATOMIC_SEQ_CST);   // now even: idle
  report_qs();
}

void
rcu_idle_exit(void)
{
  struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
  if(!rdp->in_idle)
    return;
  rdp->in_idle = false;
  __atomic_fetch_add(&rdp->dynticks, 1, __ATOMIC_SEQ_CST);   // now odd: busy
}

bool
rcu_has_done(void)
{
  return READ_ONCE(this_cpu_ptr(&rcu_data)->done.head) != NULL;
}

void
rcu_do_batch(void)
{
  struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
  if(!READ_ONCE(rdp->done.head))
    return;
  struct cblist batch;
  cbl_init(&batch);
  u64 flags = local_irq_save();
  spin_lock(&rdp->lock);
  cbl_splice(&batch, &rdp->done);
  spin_unlock(&rdp->lock);
  for(struct rcu_head *h = batch.head, *next; h; h = next) {
    next = h->next;
    h->func(h);
    rdp->invoked++;
  }
  local_irq_restore(flags);
}

static bool
callbacks_waiting(void)
{
  int cpu;
  for_each_online_cpu(cpu)
    if(READ_ONCE(per_cpu(rcu_data, cpu).next.head))
      return true;
  return false;
}

// One grace period, from start to the hand-over of its callbacks.
static void
run_grace_period(void)
{
  u64 gp = gp_seq + 1;
  int cpu, me = smp_processor_id();

  for_each_online_cpu(cpu) {   // callbacks queued so far wait for this grace period
    struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
    u64 flags;
    spin_lock_irqsave(&rdp->lock, flags);
    if(rdp->next.head) {
      cbl_splice(&rdp->wait, &rdp->next);
      rdp->wait_gp = gp;
    }
    spin_unlock_irqrestore(&rdp->lock, flags);
  }

  // Every busy CPU owes a quiescent state; idle ones (even dynticks) are already in one.
  // This CPU is running this thread, outside any read-side section.
  WRITE_ONCE(gp_seq, gp);
  smp_mb();
  for_each_online_cpu(cpu) {
    struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
    rdp->dynticks_snap = READ_ONCE(rdp->dynticks);
    if(cpu != me && (rdp->dynticks_snap & 1))
      cpumask_set_cpu_atomic(cpu, &qs_pending);
  }

  while(cpumask_weight(&qs_pending) != 0) {
    wait_event_timeout(rcu_gp_wq, cpumask_weight(&qs_pending) == 0, TICK_NS);
    // A CPU that went idle since the start, or is idle now, has passed a quiescent state.
    for_each_cpu(cpu, &qs_pending) {
      struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
      long now = READ_ONCE(rdp->dynticks);
      if(!(now & 1) || now != rdp->dynticks_snap)
        cpumask_clear_cpu_atomic(cpu, &qs_pending);
    }
  }
  smp_mb();
  WRITE_ONCE(gp_completed, gp);

  for_each_online_cpu(cpu) {   // hand finished callbacks to their CPUs
    struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
    u64 flags;
    spin_lock_irqsave(&rdp->lock, flags);
    if(rdp->wait.head && rdp->wait_gp <= gp)
      cbl_splice(&rdp->done, &rdp->wait);
    bool has_done = rdp->done.head != NULL;
    spin_unlock_irqrestore(&rdp->lock, flags);
    if(has_done && cpu != me)
      resched_cpu(cpu);   // an idle CPU runs them before it halts again
  }
  rcu_do_batch();
}

// The wait condition of the grace-period thread. The store comes first and is a full
// barrier: a call_rcu whose callback this look misses sees the flag set and wakes us (its
// queueing, fence, flag load against our store, fence, list loads).
static bool
need_gp(void)
{
  smp_store_mb(gp_thread_sleeping, true);
  return callbacks_waiting();
}

static int
rcu_gp_thread(void *arg)
{
  for(;;) {
    wait_event_idle(rcu_gp_wq, need_gp());
    WRITE_ONCE(gp_thread_sleeping, false);
    run_grace_period();
    // A tick between grace periods unless someone waits (report_qs): callbacks queued
    // meanwhile share the next one, and there are at most HZ a second. A waiter's wake_up
    // ends the pause (synchronize_rcu, rcu_barrier).
    if(!READ_ONCE(hurry))
      wait_event_timeout(rcu_gp_wq, READ_ONCE(hurry), TICK_NS);
    cond_resched();   // back-to-back grace periods must not keep this CPU from others
  }
  return 0;
}

// On the last CPU, as Linux's unbound grace-period kthread finds an idle one: CPU 0 runs
// init and every benchmark's first worker, which would otherwise pay for each grace period.
void
rcu_init(void)
{
  gp_thread = kthread_create(rcu_gp_thread, NULL, num_online_cpus() - 1, "rcu_gp");
  if(!gp_thread)
    panic("rcu: cannot start the grace-period thread");
}

int
rcu_gp_cpu(void)
{
  return gp_thread->cpu;
}

struct rcu_sync {
  struct rcu_head head;
  struct completion done;
};

static void
sync_done(struct rcu_head *h)
{
  complete(&container_of(h, struct rcu_sync, head)->done);
}

// A caller that waits hurries the grace periods (report_qs): the flag is up before the
// callback is queued, and call_rcu's full fence orders the two against report_qs's smp_mb
// and flag load. A report that still misses the flag only leaves the end to the next poll.
void
synchronize_rcu(void)
{
  struct rcu_sync s;
  init_completion(&s.done);
  __atomic_add_fetch(&hurry, 1, __ATOMIC_RELAXED);
  call_rcu(&s.head, sync_done);
  wake_up(&rcu_gp_wq);   // the thread may be pausing between grace periods
  wait_for_completion(&s.done);
  __atomic_sub_fetch(&hurry, 1, __ATOMIC_RELAXED);
}

// rcu_barrier: a callback queued behind everything on every CPU; each CPU runs its
// callbacks in order, so when all of these have run, everything queued before has too.
static DEFINE_MUTEX(barrier_mutex);
static struct rcu_head barrier_head[NR_CPUS];
static int barrier_left;
static struct completion barrier_done;

static void
barrier_callback(struct rcu_head *h)
{
  if(__atomic_sub_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL) == 0)
    complete(&barrier_done);
}

void
rcu_barrier(void)
{
  int cpu;
  mutex_lock(&barrier_mutex);
  __atomic_add_fetch(&hurry, 1, __ATOMIC_RELAXED);   // as synchronize_rcu; smp_mb below
  init_completion(&barrier_done);
  barrier_left = 1;
  for_each_online_cpu(cpu) {
    struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
    struct rcu_head *h = &barrier_head[cpu];
    h->func = barrier_callback;
    h->next = NULL;
    __atomic_add_fetch(&barrier_left, 1, __ATOMIC_RELAXED);
    u64 flags;
    spin_lock_irqsave(&rdp->lock, flags);
    *rdp->next.tail = h;
    rdp->next.tail = &h->next;
    spin_unlock_irqrestore(&rdp->lock, flags);
  }
  smp_mb();
  wake_up(&rcu_gp_wq);   // asleep on need_gp or pausing between grace periods: either way
  if(__atomic_sub_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL) == 0)
    complete(&barrier_done);
  wait_for_completion(&barrier_done);
  __atomic_sub_fetch(&hurry, 1, __ATOMIC_RELAXED);
  mutex_unlock(&barrier_mutex);
}

// For dumps of a hung kernel: the grace periods, and per CPU what waits and what blocks them.
void
rcu_show_state(void)
{
  char pending[128];
  int cpu, len = 0;
  pending[0] = 0;
  for_each_cpu(cpu, &qs_pending)
    len += scnprintf(pending + len, sizeof(pending) - len, " %d", cpu);
  printk(KERN_EMERG "rcu: gp_seq %lu gp_completed %lu; gp_thread_sleeping %d, %s on rcu_gp_wq; "
         "CPUs owing a quiescent state:%s\n", READ_ONCE(gp_seq), READ_ONCE(gp_completed),
         READ_ONCE(gp_thread_sleeping), list_empty(&rcu_gp_wq.head) ? "nobody" : "a waiter",
         len ? pending : " none");
  for_each_online_cpu(cpu) {
    struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
    if(!READ_ONCE(rdp->next.head) && !READ_ONCE(rdp->wait.head) && !READ_ONCE(rdp->done.head))
      continue;
    printk(KERN_EMERG "rcu: cpu %d: callbacks next %s, wait %s (gp %lu), done %s; dynticks %ld\n",
           cpu, rdp->next.head ? "yes" : "no", rdp->wait.head ? "yes" : "no", rdp->wait_gp,
           rdp->done.head ? "yes" : "no", READ_ONCE(rdp->dynticks));
  }
}

void
rcu_get_stats(struct rcu_stats *s)
{
  int cpu;
  s->gp_completed = READ_ONCE(gp_completed);
  s->cbs_invoked = s->cbs_queued = 0;
  for_each_online_cpu(cpu) {
    s->cbs_invoked += READ_ONCE(per_cpu(rcu_data, cpu).invoked);
    s->cbs_queued += READ_ONCE(per_cpu(rcu_data, cpu).queued);
  }
}

void
rcu_plant_early_gp(bool on)
{
  WRITE_ONCE(planted_early, on);
}
