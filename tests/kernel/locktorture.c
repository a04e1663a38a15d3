// locktorture (after Linux's): threads on every CPU take one lock type for a fixed time, checking
// that nobody else is inside; planted-lock proves the check on a lock that excludes nobody.
#include "cpumask.h"
#include "mutex.h"
#include "printk.h"
#include "rwlock.h"
#include "rwsem.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "torture.h"
#include "vsprintf.h"

// The default duration, an eighth of a second per CPU and at least a second (torture.secs=
// sets it), and the work floor (torture.h): ACQ_PER_CPU acquisitions per CPU in that time, of
// the write side and, for a lock that has one, of the read side; a run of torture.secs= has its
// floor in proportion. At 64 vCPUs on 2 host cores a fair lock's next owner is often a vCPU the
// host is not running, and a hand-over waits for the host to run it: the ticket and queued
// locks make 90 to 160 acquisitions a second in all, with their waiters halting (virt_wait),
// 4 to 50 without (doc/notebook/2026-12-02-torture-at-64-vcpus.md); so the duration grows with the CPUs rather
// than the floor shrinking.
#define DURATION_MS 1000
#define DURATION_MS_PER_CPU 125
#define ACQ_PER_CPU 10
// How long a run may go on past its duration for the floor: ten durations, not torture.h's
// three. A fair lock's hand-overs come at the rate the host runs the next owner's vCPU, which
// on a loaded host is a fraction of what it is on a quiet one.
#define LOCK_CAP 10
#define PLANTED_MS 100
#define MAX_WRITERS 64
#define MAX_READERS 64
#define LONG_HOLD_US 1000  // the rare long hold: waiters pile up behind it
#define SHORT_HOLD_US 2

// One lock type. The read side is NULL for exclusive locks.
struct lock_ops {
  const char *name;
  void (*write_lock)(void);
  void (*write_unlock)(void);
  void (*read_lock)(void);
  void (*read_unlock)(void);
  bool sleeps;   // a holder may yield(): waiters must sleep, not spin
};

static struct ticket_lock ticket = TICKET_LOCK_INIT;
static struct qspinlock queued = QSPINLOCK_INIT;
static struct tas_lock tas = TAS_LOCK_INIT;
static DEFINE_SPINLOCK(spin);
static DEFINE_RWLOCK(rwlock);
static DEFINE_MUTEX(mutex);
static DECLARE_RWSEM(rwsem);

static void ticket_w(void) { ticket_lock(&ticket); }
static void ticket_wu(void) { ticket_unlock(&ticket); }
static void queued_w(void) { queued_spin_lock(&queued); }
static void queued_wu(void) { queued_spin_unlock(&queued); }
static void tas_w(void) { tas_lock(&tas); }
static void tas_wu(void) { tas_unlock(&tas); }
static void spin_w(void) { spin_lock(&spin); }
static void spin_wu(void) { spin_unlock(&spin); }
static void rwlock_w(void) { write_lock(&rwlock); }
static void rwlock_wu(void) { write_unlock(&rwlock); }
static void rwlock_r(void) { read_lock(&rwlock); }
static void rwlock_ru(void) { read_unlock(&rwlock); }
static void mutex_w(void) { mutex_lock(&mutex); }
static void mutex_wu(void) { mutex_unlock(&mutex); }
static void rwsem_w(void) { down_write(&rwsem); }
static void rwsem_wu(void) { up_write(&rwsem); }
static void rwsem_r(void) { down_read(&rwsem); }
static void rwsem_ru(void) { up_read(&rwsem); }
// lock_busted: takes nothing. It yields inside like a sleeping lock, so that even one CPU
// shows the overlap.
static void busted(void) { }

static const struct lock_ops ticket_ops = { "ticket", ticket_w, ticket_wu, NULL, NULL, false };
static const struct lock_ops queued_ops = { "queued", queued_w, queued_wu, NULL, NULL, false };
static const struct lock_ops tas_ops = { "tas", tas_w, tas_wu, NULL, NULL, false };
static const struct lock_ops spin_ops = { "spinlock", spin_w, spin_wu, NULL, NULL, false };
static const struct lock_ops rwlock_ops =
  { "rwlock", rwlock_w, rwlock_wu, rwlock_r, rwlock_ru, false };
static const struct lock_ops mutex_ops = { "mutex", mutex_w, mutex_wu, NULL, NULL, true };
static const struct lock_ops rwsem_ops = { "rwsem", rwsem_w, rwsem_wu, rwsem_r, rwsem_ru, true };
static const struct lock_ops busted_ops = { "busted", busted, busted, NULL, NULL, true };

// One torture thread's tallies, a cache line each so that counting does not add contention.
struct torturer {
  struct thread *thread;
  u64 acquired;
  u64 fails;
  int id;
} __aligned(64);

static const struct lock_ops *ops;
static const char *test_name;   // locktorture-<lock>, or the planted test's
static struct torturer writers[MAX_WRITERS], readers[MAX_READERS];
static int nwriters, nreaders;
static struct torture_gate gate;
static u64 floor;
static bool idle;   // planted-locktorture-idle: every thread sleeps through the run
// What the checks look at: set by whoever is inside, as Linux's lock_is_write_held and
// lock_is_read_held.
static bool write_held;
static int read_held;

static u64
acquired_so_far(struct torturer *t, int n)
{
  u64 sum = 0;
  for(int i = 0; i < n; i++)
    sum += READ_ONCE(t[i].acquired);
  return sum;
}

static bool
enough(void)
{
  return acquired_so_far(writers, nwriters) >= floor &&
         (!nreaders || acquired_so_far(readers, nreaders) >= floor);
}

// Whether a thread goes on: till the cap, and past the duration only while the floors are
// not met. The threads see it themselves: the test's own thread, which would stop them, shares
// CPU 0 with two of them and does not get it back while they spin on the lock (rwlock at 64
// vCPUs ran to twice its duration with its floors long met).
static bool
running(void)
{
  if(!torture_running(&gate))
    return false;
  return ktime_ns() - gate.start_ns < gate.ns || !enough();
}

// Hold the lock a while: mostly a few pauses, sometimes microseconds, rarely a millisecond
// (Linux's write_delay: the long holds make waiters queue up). A sleeping lock's holder
// sometimes yields, so that its waiters go to sleep and must be woken.
static void
hold(struct torture_rand *r)
{
  int n = nwriters + nreaders;
  if(torture_one_in(r, n * 2000))
    udelay(LONG_HOLD_US);
  else if(torture_one_in(r, n * 2))
    udelay(SHORT_HOLD_US);
  else
    torture_spin(torture_random(r) % 64);
  if(ops->sleeps && torture_one_in(r, 16))
    yield();
}

static int
writer(void *arg)
{
  struct torturer *w = arg;
  struct torture_rand r;
  torture_seed(&r, ktime_ns() ^ w->id);
  torture_gate_wait(&gate);
  while(running()) {
    if(idle) {
      msleep(10);
      continue;
    }
    ops->write_lock();
    if(READ_ONCE(write_held) || READ_ONCE(read_held) != 0)
      w->fails++;
    WRITE_ONCE(write_held, true);
    hold(&r);
    WRITE_ONCE(write_held, false);
    ops->write_unlock();
    w->acquired++;
    cond_resched();   // outside the lock: a spinning waiter on this CPU would never get it
  }
  return 0;
}

static int
reader(void *arg)
{
  struct torturer *rd = arg;
  struct torture_rand r;
  torture_seed(&r, ktime_ns() ^ (rd->id + MAX_WRITERS));
  torture_gate_wait(&gate);
  while(running()) {
    if(idle) {
      msleep(10);
      continue;
    }
    ops->read_lock();
    __atomic_add_fetch(&read_held, 1, __ATOMIC_RELAXED);
    if(READ_ONCE(write_held))
      rd->fails++;
    hold(&r);
    __atomic_sub_fetch(&read_held, 1, __ATOMIC_RELAXED);
    ops->read_unlock();
    rd->acquired++;
    cond_resched();
  }
  return 0;
}

// The i-th thread goes to the (i mod online)-th online CPU, so every CPU gets its share.
static int
nth_online_cpu(int i)
{
  int cpu, n = i % num_online_cpus();
  for_each_online_cpu(cpu)
    if(n-- == 0)
      return cpu;
  return -1;
}

static bool
start(struct torturer *t, int id, int (*fn)(void *), const char *kind)
{
  t->id = id;
  t->acquired = t->fails = 0;
  t->thread = kthread_create(fn, t, nth_online_cpu(id), "lt-%s/%d", kind, id);
  return t->thread != NULL;
}

// Prints Linux's summary line; returns the failures. "???": the busiest thread got more than
// twice the acquisitions of the idlest. Only a hint, never a failure: with 8 vCPUs on 2 host
// cores a vCPU the host does not run starves whatever the lock does.
static u64
report(const char *what, struct torturer *t, int n, struct torture_sum *s)
{
  u64 fails = 0;
  for(int i = 0; i < n; i++) {
    torture_sum_add(s, t[i].acquired);
    fails += t[i].fails;
  }
  printk("%s: %s: Total: %lu Max/Min: %lu/%lu %sFail: %lu%s\n", test_name, what,
         s->total, s->max, s->min, s->max / 2 > s->min ? "??? " : "", fails,
         fails ? " !!!" : "");
  return fails;
}

static u64
default_ns(void)
{
  return MAX(DURATION_MS, DURATION_MS_PER_CPU * num_online_cpus()) * 1000000UL;
}

// ACQ_PER_CPU for each CPU in the default duration, in proportion for another (at least 1).
static u64
acq_floor(u64 ns)
{
  u64 f = ACQ_PER_CPU * num_online_cpus() * ns / default_ns();
  return f ? f : 1;
}

// 2 x online CPUs writers, Linux's default, and as many readers for a lock that has a read side.
static bool
lock_torture(const char *name, const struct lock_ops *o, u64 ns)
{
  int started = 0;
  ops = o;
  test_name = name;
  floor = acq_floor(ns);
  torture_gate_init(&gate, ns);
  gate.cap = LOCK_CAP;
  write_held = false;
  read_held = 0;
  nwriters = MIN(2 * num_online_cpus(), MAX_WRITERS);
  nreaders = o->read_lock ? MIN(2 * num_online_cpus(), MAX_READERS) : 0;
  for(int i = 0; i < nwriters; i++)
    started += start(&writers[i], i, writer, "w");
  for(int i = 0; i < nreaders; i++)
    started += start(&readers[i], i, reader, "r");
  u64 run_ns = 0;
  bool all = started == nwriters + nreaders;
  if(all) {
    torture_gate_open(&gate, started);
    run_ns = torture_gate_run(&gate, enough);
  } else {
    torture_gate_abort(&gate);   // a kthread_create failed: let the started ones go
  }

  for(int i = 0; i < nwriters; i++)
    if(writers[i].thread)
      kthread_join(writers[i].thread);
  for(int i = 0; i < nreaders; i++)
    if(readers[i].thread)
      kthread_join(readers[i].thread);
  if(!all)
    return torture_skip_kthread(name, started, nwriters + nreaders);

  struct torture_sum ws = TORTURE_SUM_INIT, rs = TORTURE_SUM_INIT;
  u64 fails = report("Writes", writers, nwriters, &ws);
  selftest_extra("secs=%lu.%03lu threads=%d acquisitions=%lu min=%lu max=%lu",
                 run_ns / 1000000000, run_ns / 1000000 % 1000, nwriters + nreaders, ws.total,
                 ws.min, ws.max);
  if(nreaders) {
    fails += report("Reads", readers, nreaders, &rs);
    selftest_extra("reads=%lu rmin=%lu rmax=%lu", rs.total, rs.min, rs.max);
  }
  selftest_extra("fails=%lu floor=%lu", fails, floor);
  bool ok = fails == 0;
  ok &= torture_enough(name, "acquisitions", ws.total, floor);
  if(nreaders)
    ok &= torture_enough(name, "reads", rs.total, floor);
  return ok;
}

static bool
torture(const struct lock_ops *o)
{
  char name[32];
  snprintf(name, sizeof(name), "locktorture-%s", o->name);
  return lock_torture(name, o, torture_ns(default_ns() / 1000000));
}

static bool ticket_torture(void) { return torture(&ticket_ops); }
static bool queued_torture(void) { return torture(&queued_ops); }
static bool tas_torture(void) { return torture(&tas_ops); }
static bool spin_torture(void) { return torture(&spin_ops); }
static bool rwlock_torture(void) { return torture(&rwlock_ops); }
static bool mutex_torture(void) { return torture(&mutex_ops); }
static bool rwsem_torture(void) { return torture(&rwsem_ops); }
static bool busted_torture(void) { return torture(&busted_ops); }

SELFTEST("locktorture-ticket", ticket_torture);
SELFTEST("locktorture-queued", queued_torture);
SELFTEST("locktorture-tas", tas_torture);
SELFTEST("locktorture-spinlock", spin_torture);
SELFTEST("locktorture-rwlock", rwlock_torture);
SELFTEST("locktorture-mutex", mutex_torture);
SELFTEST("locktorture-rwsem", rwsem_torture);
SELFTEST("planted-lock", busted_torture);

// The locktorture that does nothing: its threads sleep through the run, so no exclusion
// error can show and only the work floors can fail it. Short, whatever torture.secs= says:
// it runs to the cap (LOCK_CAP times PLANTED_MS) looking for work that never comes.
static bool
planted_locktorture_idle(void)
{
  idle = true;
  bool ok = lock_torture("planted-locktorture-idle", &rwlock_ops, PLANTED_MS * 1000000UL);
  idle = false;
  return ok;
}
SELFTEST("planted-locktorture-idle", planted_locktorture_idle);
