// rcutorture (after Linux's): readers on every CPU but the grace-period thread's check that the
// element a writer keeps replacing never outlives a grace period under them; planted-rcu proves
// the check, planted-torture-idle the work floors.
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

#define DURATION_MS 5000        // the default; torture.secs= sets it
#define PLANTED_MS 2000
// Work floors (torture.h), met with margin at 64 vCPUs on a loaded 2-core host, where every
// grace period waits for the host to run each busy vCPU once: at least so many grace periods
// a second, and reads a second for each reader.
#define GPS_PER_SEC 2
#define READS_PER_READER_SEC 100
#define PIPE_LEN 10             // grace periods a retired element waits before it is reused
#define NELEM (10 * PIPE_LEN)   // the pool, as Linux's rcu_tortures[]
#define NFAKE 2                 // fake writers
#define MAGIC 0x52435554u       // an element in use
#define POISON 0xdeadbeefu      // an element on the free pool
// Every LONG_READ_EVERY_MS or so one of the readers (each reader that often times the number
// of readers, as Linux's rcu_read_delay scales its odds by nrealreaders: a grace period waits
// for the longest section on any CPU, so more readers must not mean more long sections) stays
// in its section for LONG_READ_US up to twice that; one such section in LONG_TICKS_ONE_IN
// spans ticks (TICKS_READ_US up to twice that).
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
  bool long_reads;          // not on the writer's CPU
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
static int nreaders;
static bool idle;            // planted-torture-idle: every thread sleeps through the run
static struct torture_gate gate;   // every thread stops by itself at its end, as in locktorture.c

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
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    if(idle) {
      msleep(10);
      continue;
    }
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
                    * 1000000UL * nreaders;
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
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    if(idle) {
      msleep(10);
      continue;
    }
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
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    if(idle) {
      msleep(10);
      continue;
    }
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

// A reader on every CPU but the grace-period thread's (Linux's default is one reader fewer
// than CPUs): non-preemptive, a reader that shares its CPU hands it over only at its next
// cond_resched, and at 64 vCPUs on 2 host cores that reader's vCPU is often not running at
// all, so every grace period waited on it twice. The writer goes there instead: it sleeps in
// synchronize_rcu half the time. On one CPU they all share.
static int
start_threads(u64 ns)
{
  int cpu, n = 0, writer_cpu = rcu_gp_cpu();
  writes = alloc_fails = 0;
  nreaders = 0;
  torture_gate_init(&gate, ns);
  for(int i = 0; i < NR_CPUS; i++)
    readers[i] = (struct reader){ 0 };
  for_each_online_cpu(cpu) {
    if(cpu == writer_cpu && num_online_cpus() > 1)
      continue;
    readers[cpu].long_reads = cpu != writer_cpu;
    readers[cpu].next_long = ktime_ns();
    readers[cpu].thread = kthread_create(reader, &readers[cpu], cpu, "rcu_reader/%d", cpu);
    n += readers[cpu].thread != NULL;
    nreaders++;
  }
  for(int i = 0; i < NFAKE; i++) {
    fakes[i] = (struct fake_writer){ 0 };
    fakes[i].thread = kthread_create(fake_writer, &fakes[i], -1, "rcu_fakewriter/%d", i);
    n += fakes[i].thread != NULL;
  }
  writer_thread = kthread_create(writer, NULL, writer_cpu, "rcu_writer");
  n += writer_thread != NULL;
  return n;
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

static struct rcu_stats s0;
static u64 gps_floor, reads_floor;

static u64
reads_so_far(void)
{
  u64 reads = 0;
  int cpu;
  for_each_online_cpu(cpu)
    reads += READ_ONCE(readers[cpu].reads);
  return reads;
}

// The floors, read while the threads run: whether the run may end at its duration.
static bool
enough(void)
{
  struct rcu_stats s;
  rcu_get_stats(&s);
  return s.gp_completed - s0.gp_completed >= gps_floor && reads_so_far() >= reads_floor;
}

// Runs the torture for ns (longer if the floors need it, see torture.h) and prints Linux's
// "Reader Pipe:" histogram and the rates. planted: grace periods end without waiting for
// readers while the threads run; it has no floors.
static bool
rcu_torture(const char *name, u64 ns, bool planted)
{
  struct rcu_stats s1;
  pool_init();
  rcu_plant_early_gp(planted);
  int n = start_threads(ns);
  bool started = n == nreaders + NFAKE + 1;
  gps_floor = planted ? 0 : torture_floor(GPS_PER_SEC, ns);
  reads_floor = planted ? 0 : torture_floor(READS_PER_READER_SEC * nreaders, ns);
  if(!started) {   // a kthread_create failed: let the started ones go
    torture_gate_abort(&gate);
    join_threads();
    rcu_plant_early_gp(false);
    drain();
    return torture_skip_kthread(name, n, nreaders + NFAKE + 1);
  }
  rcu_get_stats(&s0);
  torture_gate_open(&gate, n);
  u64 run_ns = torture_gate_run(&gate, enough);
  join_threads();
  rcu_get_stats(&s1);   // the run's own work, before drain's grace periods
  rcu_plant_early_gp(false);
  bool drained = drain();

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
  u64 gps_per_sec = gps * 1000000000UL / run_ns, cbs_per_sec = cbs * 1000000000UL / run_ns;
  printk("%s: Reader Pipe:%s%s\n", name, hist, too_old ? " !!!" : "");
  printk("%s: reads=%lu poisoned=%lu writes=%lu alloc_fails=%lu barrier_errors=%lu\n", name,
         reads, poisoned, writes, alloc_fails, barrier_errors);
  printk("%s: gps=%lu (%lu/s) cbs=%lu (%lu/s) in %lu ms, %d readers\n", name, gps, gps_per_sec,
         cbs, cbs_per_sec, run_ns / 1000000, nreaders);
  selftest_extra("secs=%lu.%03lu readers=%d gps=%lu gps_per_sec=%lu cbs_per_sec=%lu reads=%lu "
                 "writes=%lu too_old=%lu poisoned=%lu", run_ns / 1000000000, run_ns / 1000000 % 1000,
                 nreaders, gps, gps_per_sec, cbs_per_sec, reads, writes, too_old, poisoned);

  bool ok = drained && too_old == 0 && poisoned == 0 && barrier_errors == 0;
  // The floors only where the run checks RCU: planted-rcu's grace periods do not wait.
  if(!planted) {
    ok &= torture_enough(name, "gps", gps, gps_floor);
    ok &= torture_enough(name, "reads", reads, reads_floor);
  }
  if(!drained)
    pr_err("%s: %d of %d elements never came back to the pool\n", name, NELEM - nfree, NELEM);
  printk("%s: --- End of test: %s\n", name, ok ? "SUCCESS" : "FAILURE");
  return ok;
}

static bool
rcutorture_test(void)
{
  return rcu_torture("rcutorture", torture_ns(DURATION_MS), false);
}
SELFTEST("rcutorture", rcutorture_test);

// Needs two CPUs or more: on one, nothing but the tick runs during a read-side section, and
// no grace period, early or not, can end without the grace-period thread.
static bool
planted_rcu_test(void)
{
  return rcu_torture("planted-rcu", PLANTED_MS * 1000000UL, true);
}
SELFTEST("planted-rcu", planted_rcu_test);

// The torture that does nothing, as rcutorture did at 64 vCPUs when its threads started after
// their deadline: no error can show, so only the work floors can fail it. Short: it runs to
// the cap (three times this) looking for work that never comes.
static bool
planted_torture_idle(void)
{
  idle = true;
  bool ok = rcu_torture("planted-torture-idle", PLANTED_MS * 1000000UL / 4, false);
  idle = false;
  return ok;
}
SELFTEST("planted-torture-idle", planted_torture_idle);
