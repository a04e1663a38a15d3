// rcutorture (after Linux's): readers on every CPU check that the element a writer keeps
// replacing never outlives a grace period under them; planted-rcu proves the check.
#include "cpumask.h"
#include "list.h"
#include "printk.h"
#include "rcupdate.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "torture.h"
#include "vsprintf.h"

#define DURATION_MS 3000
#define PLANTED_MS 2000
#define PIPE_LEN 10             // grace periods a retired element waits before it is reused
#define NELEM (10 * PIPE_LEN)   // the pool, as Linux's rcu_tortures[]
#define NFAKE 2                 // fake writers
#define MAGIC 0x52435554u       // an element in use
#define POISON 0xdeadbeefu      // an element on the free pool
#define WRITER_CPU 0            // its reader keeps to short sections: see read_delay
// Every LONG_READ_EVERY_MS or so a reader stays in its section for LONG_READ_US up to twice
// that; one such section in LONG_TICKS_ONE_IN spans ticks (TICKS_READ_US up to twice that).
#define LONG_READ_EVERY_MS 40
#define LONG_READ_US 500
#define LONG_TICKS_ONE_IN 25
#define TICKS_READ_US 15000

struct torture_elem {
  struct rcu_head rh;
  struct list_head list;   // on the free pool, or on the writer's retired list
  int pipe_count;          // grace periods since it was retired
  u32 gen;                 // times it has been handed out
  u32 magic;               // MAGIC, or POISON once freed
};

struct reader {
  struct thread *thread;
  u64 pipe[PIPE_LEN + 1];   // reads by the age of the element at the end of the section
  u64 reads;
  u64 poisoned;             // reads that found a freed element
  bool long_reads;          // not on WRITER_CPU
  u64 next_long;            // ktime of its next long section
} __aligned(64);

struct fake_writer {
  struct thread *thread;
  struct rcu_head rh;
  bool cb_done;
  u64 barrier_errors;       // rcu_barrier returned before our earlier callback ran
} __aligned(64);

static struct torture_elem elems[NELEM];
static struct torture_elem *torture_current;
static LIST_HEAD(free_pool);
static int nfree;
static DEFINE_SPINLOCK(pool_lock);   // callbacks free elements from interrupts: irqsave
static LIST_HEAD(retired);           // the writer's: retired, aged by its synchronize_rcu
static struct reader readers[NR_CPUS];
static struct fake_writer fakes[NFAKE];
static struct thread *writer_thread;
static u64 writes, alloc_fails;
static u64 end_ns;   // every thread stops by itself then, as in locktorture.c

static struct torture_elem *
elem_alloc(void)
{
  struct torture_elem *p = NULL;
  u64 flags;
  spin_lock_irqsave(&pool_lock, flags);
  if(!list_empty(&free_pool)) {
    p = list_first_entry(&free_pool, struct torture_elem, list);
    list_del(&p->list);
    nfree--;
  }
  spin_unlock_irqrestore(&pool_lock, flags);
  return p;
}

static void
elem_free(struct torture_elem *p)
{
  u64 flags;
  WRITE_ONCE(p->magic, POISON);   // a reader that still holds it will see this
  spin_lock_irqsave(&pool_lock, flags);
  list_add_tail(&p->list, &free_pool);
  nfree++;
  spin_unlock_irqrestore(&pool_lock, flags);
}

// One more grace period has passed since p was retired; true once it has seen PIPE_LEN.
static bool
aged(struct torture_elem *p)
{
  WRITE_ONCE(p->pipe_count, p->pipe_count + 1);
  return p->pipe_count >= PIPE_LEN;
}

// Asynchronous retirement: each callback is a grace period, and queues the next one.
static void
age_cb(struct rcu_head *rh)
{
  struct torture_elem *p = container_of(rh, struct torture_elem, rh);
  if(aged(p))
    elem_free(p);
  else
    call_rcu(rh, age_cb);
}

// Synchronous retirement: after a synchronize_rcu every retired element is a grace period older.
static void
age_retired(void)
{
  struct torture_elem *p, *n;
  list_for_each_entry_safe(p, n, &retired, list) {
    if(aged(p)) {
      list_del(&p->list);
      elem_free(p);
    }
  }
}

// Publishes a fresh element and retires the old one, half the time through call_rcu and
// half through synchronize_rcu, as Linux's writer mixes its grace-period primitives.
static int
writer(void *arg __unused)
{
  struct torture_rand r;
  torture_seed(&r, ktime_ns());
  while(ktime_ns() < end_ns) {
    struct torture_elem *p = elem_alloc();
    if(!p) {   // all in the pipe: wait for grace periods to free some
      alloc_fails++;
      msleep(1);
      continue;
    }
    p->pipe_count = 0;
    p->gen++;
    p->magic = MAGIC;
    struct torture_elem *old = rcu_dereference_protected(torture_current);
    rcu_assign_pointer(torture_current, p);
    writes++;
    if(old && torture_random(&r) % 2) {
      call_rcu(&old->rh, age_cb);
    } else if(old) {
      list_add_tail(&old->list, &retired);
      synchronize_rcu();
      age_retired();
    }
    cond_resched();
  }
  while(!list_empty(&retired)) {
    synchronize_rcu();
    age_retired();
  }
  return 0;
}

// Mostly a few pauses, sometimes microseconds, and now and then milliseconds, so that the
// writer can replace and retire the element under the reader. Busy-waiting only: sleeping
// inside a read-side section is a bug (rcu.c panics). Non-preemptive, a long section stops
// everything else on its CPU; so the reader beside the writer keeps to short ones, or a
// planted early grace period could not age anything meanwhile.
static void
read_delay(struct reader *rd, struct torture_rand *r)
{
  u64 now = ktime_ns();
  if(rd->long_reads && now >= rd->next_long) {
    u64 us = torture_one_in(r, LONG_TICKS_ONE_IN) ? TICKS_READ_US : LONG_READ_US;
    udelay(us + torture_random(r) % us);
    rd->next_long = now + (LONG_READ_EVERY_MS / 2 + torture_random(r) % LONG_READ_EVERY_MS)
                    * 1000000UL;
  } else if(torture_one_in(r, 32)) {
    udelay(torture_random(r) % 20);
  } else {
    torture_spin(torture_random(r) % 32);
  }
}

// Linux's rcu_torture_one_read: the age seen at the end of a section must be 0 or 1. An
// element that was freed (poisoned) or even handed out again (new gen) under us counts as
// having gone all the way down the pipe.
static int
reader(void *arg)
{
  struct reader *rd = arg;
  struct torture_rand r;
  torture_seed(&r, ktime_ns() ^ (u64)(rd - readers));
  while(ktime_ns() < end_ns) {
    rcu_read_lock();
    struct torture_elem *p = rcu_dereference(torture_current);
    if(p) {
      u32 gen = READ_ONCE(p->gen);
      bool bad = READ_ONCE(p->magic) != MAGIC;
      read_delay(rd, &r);
      int pipe = MIN(READ_ONCE(p->pipe_count), PIPE_LEN);
      bad |= READ_ONCE(p->magic) != MAGIC;
      if(READ_ONCE(p->gen) != gen)
        pipe = PIPE_LEN;
      rd->poisoned += bad;
      rd->pipe[pipe]++;
      rd->reads++;
    }
    rcu_read_unlock();
    cond_resched();
  }
  return 0;
}

static void
fake_cb(struct rcu_head *rh)
{
  WRITE_ONCE(container_of(rh, struct fake_writer, rh)->cb_done, true);
}

// Grace periods nobody needs, to load the grace-period machinery; the rcu_barrier half also
// checks that the barrier waited for a callback queued before it (Linux's rtbe).
static int
fake_writer(void *arg)
{
  struct fake_writer *f = arg;
  struct torture_rand r;
  torture_seed(&r, ktime_ns() ^ (u64)(f - fakes));
  while(ktime_ns() < end_ns) {
    if(torture_random(&r) % 2) {
      synchronize_rcu();
    } else {
      f->cb_done = false;
      call_rcu(&f->rh, fake_cb);
      rcu_barrier();
      if(!READ_ONCE(f->cb_done)) {
        f->barrier_errors++;
        while(!READ_ONCE(f->cb_done))   // rh is still queued: it must run before reuse
          msleep(1);
      }
    }
    if(torture_one_in(&r, 4))
      msleep(1 + torture_random(&r) % 5);
  }
  return 0;
}

static void
pool_init(void)
{
  INIT_LIST_HEAD(&free_pool);
  nfree = 0;
  for(int i = 0; i < NELEM; i++)
    elem_free(&elems[i]);
  torture_current = NULL;
}

static bool
start_threads(u64 ms)
{
  int cpu;
  bool ok = true;
  writes = alloc_fails = 0;
  end_ns = ktime_ns() + ms * 1000000UL;
  for(int i = 0; i < NR_CPUS; i++)
    readers[i] = (struct reader){ 0 };
  for_each_online_cpu(cpu) {
    readers[cpu].long_reads = cpu != WRITER_CPU;
    readers[cpu].next_long = ktime_ns();
    readers[cpu].thread = kthread_create(reader, &readers[cpu], cpu, "rcu_reader/%d", cpu);
    ok &= readers[cpu].thread != NULL;
  }
  for(int i = 0; i < NFAKE; i++) {
    fakes[i] = (struct fake_writer){ 0 };
    fakes[i].thread = kthread_create(fake_writer, &fakes[i], -1, "rcu_fakewriter/%d", i);
    ok &= fakes[i].thread != NULL;
  }
  writer_thread = kthread_create(writer, NULL, WRITER_CPU, "rcu_writer");
  ok &= writer_thread != NULL;
  return ok;
}

static void
join_threads(void)
{
  int cpu;
  for_each_online_cpu(cpu)
    if(readers[cpu].thread)
      kthread_join(readers[cpu].thread);
  for(int i = 0; i < NFAKE; i++)
    if(fakes[i].thread)
      kthread_join(fakes[i].thread);
  if(writer_thread)
    kthread_join(writer_thread);
}

// Every element back on the pool: no reader is left, so the current one goes straight back,
// and each rcu_barrier moves every callback chain one step (a chain re-queues behind the
// barrier), so PIPE_LEN of them empty the pipe. False if an element went missing.
static bool
drain(void)
{
  if(torture_current)
    elem_free(torture_current);
  torture_current = NULL;
  for(int i = 0; i < PIPE_LEN; i++) {
    rcu_barrier();
    if(READ_ONCE(nfree) == NELEM)
      return true;
  }
  return false;
}

// Runs the torture for ms and prints Linux's "Reader Pipe:" histogram and the rates.
// planted: grace periods end without waiting for readers while the threads run.
static bool
rcu_torture(const char *name, u64 ms, bool planted)
{
  struct rcu_stats s0, s1;
  pool_init();
  rcu_plant_early_gp(planted);
  rcu_get_stats(&s0);
  u64 t0 = ktime_ns();
  bool started = start_threads(ms);
  join_threads();
  u64 ns = ktime_ns() - t0;
  rcu_plant_early_gp(false);
  bool drained = drain();
  rcu_get_stats(&s1);

  u64 pipe[PIPE_LEN + 1] = { 0 }, reads = 0, poisoned = 0, too_old = 0, barrier_errors = 0;
  int cpu;
  for_each_online_cpu(cpu) {
    for(int i = 0; i <= PIPE_LEN; i++)
      pipe[i] += readers[cpu].pipe[i];
    reads += readers[cpu].reads;
    poisoned += readers[cpu].poisoned;
  }
  for(int i = 2; i <= PIPE_LEN; i++)
    too_old += pipe[i];
  for(int i = 0; i < NFAKE; i++)
    barrier_errors += fakes[i].barrier_errors;

  char hist[16 * (PIPE_LEN + 1)];
  int len = 0;
  for(int i = 0; i <= PIPE_LEN; i++)
    len += scnprintf(hist + len, sizeof(hist) - len, " %lu", pipe[i]);
  u64 gps = s1.gp_completed - s0.gp_completed, cbs = s1.cbs_invoked - s0.cbs_invoked;
  u64 gps_per_sec = gps * 1000000000UL / ns, cbs_per_sec = cbs * 1000000000UL / ns;
  printk("%s: Reader Pipe:%s%s\n", name, hist, too_old ? " !!!" : "");
  printk("%s: reads=%lu poisoned=%lu writes=%lu alloc_fails=%lu barrier_errors=%lu\n", name,
         reads, poisoned, writes, alloc_fails, barrier_errors);
  printk("%s: gps=%lu (%lu/s) cbs=%lu (%lu/s) in %lu ms\n", name, gps, gps_per_sec, cbs,
         cbs_per_sec, ns / 1000000);
  selftest_extra("gps=%lu gps_per_sec=%lu cbs_per_sec=%lu reads=%lu too_old=%lu poisoned=%lu",
                 gps, gps_per_sec, cbs_per_sec, reads, too_old, poisoned);

  bool ok = started && drained && too_old == 0 && poisoned == 0 && barrier_errors == 0;
  if(!started)
    pr_err("%s: could not start every thread\n", name);
  if(!drained)
    pr_err("%s: %d of %d elements never came back to the pool\n", name, NELEM - nfree, NELEM);
  printk("%s: --- End of test: %s\n", name, ok ? "SUCCESS" : "FAILURE");
  return ok;
}

static bool
rcutorture_test(void)
{
  return rcu_torture("rcutorture", DURATION_MS, false);
}
SELFTEST("rcutorture", rcutorture_test);

// Needs two CPUs or more: on one, nothing but the tick runs during a read-side section, and
// no grace period, early or not, can end without the grace-period thread.
static bool
planted_rcu_test(void)
{
  return rcu_torture("planted-rcu", PLANTED_MS, true);
}
SELFTEST("planted-rcu", planted_rcu_test);
