// Self-tests of kernel threads, sleeping and waking, mutexes, rwsems and RCU's basic promises.
// The barrier test runs more threads than CPUs: waits must sleep, or it never completes.
#include "cpumask.h"
#include "mutex.h"
#include "printk.h"
#include "rcupdate.h"
#include "rwsem.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "wait.h"
#include <asm/processor.h>

static DECLARE_WAIT_QUEUE_HEAD(barrier_wq);
static int arrived, generation;

// A sleeping barrier for n threads: the last to arrive starts the next generation.
static void
barrier_wait(int n)
{
  int gen = smp_load_acquire(&generation);
  if(__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL) == n) {
    WRITE_ONCE(arrived, 0);
    smp_store_release(&generation, gen + 1);
    wake_up_all(&barrier_wq);
  } else {
    wait_event(barrier_wq, smp_load_acquire(&generation) != gen);
  }
}

enum { BARRIER_THREADS = 20, BARRIER_ROUNDS = 10 };
static int round_count[BARRIER_ROUNDS];
static int barrier_start;   // 0 until every thread is created, then 1; -1: one was not

static int
barrier_worker(void *arg)
{
  wait_event(barrier_wq, smp_load_acquire(&barrier_start) != 0);
  if(READ_ONCE(barrier_start) < 0)
    return (int)(long)arg;
  for(int r = 0; r < BARRIER_ROUNDS; r++) {
    __atomic_fetch_add(&round_count[r], 1, __ATOMIC_RELAXED);
    barrier_wait(BARRIER_THREADS);
    // Everyone has counted round r before anyone goes on.
    if(READ_ONCE(round_count[r]) != BARRIER_THREADS)
      return -1;
  }
  return (int)(long)arg;
}

static bool
kthread_test(void)
{
  struct thread *t[BARRIER_THREADS];
  bool ok = true, created = true;
  barrier_start = 0;
  for(int r = 0; r < BARRIER_ROUNDS; r++)
    round_count[r] = 0;
  for(int i = 0; i < BARRIER_THREADS; i++) {
    t[i] = kthread_create(barrier_worker, (void *)(long)(100 + i), i % num_online_cpus(),
                          "barrier/%d", i);
    created &= t[i] != NULL;
  }
  // A barrier of 20 with a thread missing would wait for good: the created ones are let go.
  smp_store_release(&barrier_start, created ? 1 : -1);
  wake_up_all(&barrier_wq);
  for(int i = 0; i < BARRIER_THREADS; i++)
    if(t[i])
      ok &= kthread_join(t[i]) == 100 + i;
  if(!created)   // kthread_create fails under failslab=
    return ok && selftest_skip("enomem");
  selftest_extra("threads=%d rounds=%d", BARRIER_THREADS, BARRIER_ROUNDS);
  return ok;
}
SELFTEST("kthread", kthread_test);

static bool
sleep_test(void)
{
  u64 t0 = ktime_ns();
  msleep(30);
  u64 slept = ktime_ns() - t0;
  selftest_extra("slept_us=%lu", slept / 1000);
  return slept >= 30000000;
}
SELFTEST("sleep", sleep_test);

// Few rounds: with 8 vCPUs on 2 host cores every hand-over to a sleeping vCPU costs a
// host wake-up (milliseconds), and the test is about exclusion, not speed.
enum { MUTEX_ROUNDS = 300, RWSEM_ROUNDS = 200 };
static DEFINE_MUTEX(test_mutex);
static DECLARE_RWSEM(test_rwsem);
static long shared_count;
static int in_writer, in_readers;
static bool exclusion_broken;

static int
mutex_worker(void *arg)
{
  for(int i = 0; i < MUTEX_ROUNDS; i++) {
    mutex_lock(&test_mutex);
    long v = shared_count;
    if(i % 16 == 0)
      yield();   // sleep-capable section: another thread may try meanwhile
    shared_count = v + 1;
    mutex_unlock(&test_mutex);
  }
  return 0;
}

static int
rwsem_worker(void *arg)
{
  bool writer = (long)arg % 4 == 0;
  for(int i = 0; i < RWSEM_ROUNDS; i++) {
    if(writer) {
      down_write(&test_rwsem);
      if(__atomic_add_fetch(&in_writer, 1, __ATOMIC_SEQ_CST) != 1 ||
         READ_ONCE(in_readers) != 0)
        exclusion_broken = true;
      if(i % 8 == 0)
        yield();
      __atomic_sub_fetch(&in_writer, 1, __ATOMIC_SEQ_CST);
      up_write(&test_rwsem);
    } else {
      down_read(&test_rwsem);
      __atomic_add_fetch(&in_readers, 1, __ATOMIC_SEQ_CST);
      if(READ_ONCE(in_writer) != 0)
        exclusion_broken = true;
      if(i % 8 == 0)
        yield();
      __atomic_sub_fetch(&in_readers, 1, __ATOMIC_SEQ_CST);
      up_read(&test_rwsem);
    }
  }
  return 0;
}

static bool
sleeping_lock_test(void)
{
  enum { N = 12 };
  struct thread *t[N];
  int created = 0;
  shared_count = 0;
  exclusion_broken = false;
  // The workers are independent: each one kthread_create failed (failslab=) is left out.
  for(int i = 0; i < N; i++)
    created += (t[i] = kthread_create(mutex_worker, NULL, -1, "mutex/%d", i)) != NULL;
  for(int i = 0; i < N; i++)
    if(t[i])
      kthread_join(t[i]);
  bool ok = shared_count == created * MUTEX_ROUNDS;
  for(int i = 0; i < N; i++)
    created += (t[i] = kthread_create(rwsem_worker, (void *)(long)i, -1, "rwsem/%d", i)) != NULL;
  for(int i = 0; i < N; i++)
    if(t[i])
      kthread_join(t[i]);
  ok &= !exclusion_broken && mutex_trylock(&test_mutex);
  mutex_unlock(&test_mutex);
  selftest_extra("mutex_count=%ld threads=%d", shared_count, created);
  if(created < 2 * N)
    return ok && selftest_skip("enomem");
  return ok;
}
SELFTEST("sleeping-locks", sleeping_lock_test);

struct rcu_probe {
  struct rcu_head head;
  int ran;
};

static void
probe_cb(struct rcu_head *h)
{
  smp_store_release(&container_of(h, struct rcu_probe, head)->ran, 1);
}

static bool
rcu_basic_test(void)
{
  static struct rcu_probe p[64];
  struct rcu_stats before, after;
  rcu_get_stats(&before);
  u64 t0 = ktime_ns();
  synchronize_rcu();
  u64 sync_us = (ktime_ns() - t0) / 1000;
  for(int i = 0; i < 64; i++) {
    p[i].ran = 0;
    call_rcu(&p[i].head, probe_cb);
  }
  rcu_barrier();
  bool ok = true;
  for(int i = 0; i < 64; i++)
    ok &= smp_load_acquire(&p[i].ran) == 1;
  rcu_get_stats(&after);
  ok &= after.gp_completed > before.gp_completed;
  selftest_extra("sync_us=%lu gps=%lu", sync_us, after.gp_completed - before.gp_completed);
  return ok;
}
SELFTEST("rcu-basic", rcu_basic_test);

// A wake-up must not cost the waker its turn (kernel/sched.c, struct rq). Three threads on
// CPU 0: a spinner, a waker that wakes a partner after each unit of work, and the partner,
// which only sleeps again. The waker and the spinner do the same 20-us units, so with turns
// kept each gets about half of the CPU; when the waker went to the back of the queue on every
// wake-up it got one unit per tick (10 ms) beside the spinner's 500, 0.2%.
enum { WAKE_UNIT_NS = 20000, WAKE_TEST_MS = 300 };
static DECLARE_WAIT_QUEUE_HEAD(wake_wq);
static long wake_ticket, wake_units[2];
static int wake_stop;
extern bool planted_sched_wake_tail;

static void
wake_unit(void)
{
  u64 t0 = ktime_ns();
  while(ktime_ns() - t0 < WAKE_UNIT_NS)
    cpu_relax();
}

static int
wake_worker(void *arg)
{
  long who = (long)arg;   // 0 spins, 1 wakes the partner after every unit
  while(!READ_ONCE(wake_stop)) {
    wake_unit();
    wake_units[who]++;
    if(who == 1) {
      WRITE_ONCE(wake_ticket, wake_ticket + 1);
      wake_up(&wake_wq);
    }
    cond_resched();
  }
  return 0;
}

static int
wake_partner(void *arg)
{
  long seen = 0;
  (void)arg;
  while(!READ_ONCE(wake_stop)) {
    wait_event(wake_wq, READ_ONCE(wake_ticket) != seen || READ_ONCE(wake_stop));
    seen = READ_ONCE(wake_ticket);
  }
  return 0;
}

static bool
wake_turn_run(void)
{
  struct thread *t[3];
  int (*fn[3])(void *) = { wake_worker, wake_worker, wake_partner };
  bool created = true;
  wake_ticket = wake_units[0] = wake_units[1] = 0;
  WRITE_ONCE(wake_stop, 0);
  for(long i = 0; i < 3; i++) {
    t[i] = kthread_create(fn[i], (void *)i, 0, "wake-turn/%ld", i);
    created &= t[i] != NULL;
  }
  if(created)
    msleep(WAKE_TEST_MS);
  WRITE_ONCE(wake_stop, 1);
  wake_up(&wake_wq);
  for(int i = 0; i < 3; i++)
    if(t[i])
      kthread_join(t[i]);
  if(!created)   // kthread_create fails under failslab=
    return selftest_skip("enomem");
  long spin = wake_units[0], waker = wake_units[1];
  selftest_extra("spinner=%ld waker=%ld share=%ld%%", spin, waker,
                 spin ? waker * 100 / spin : 0);
  // Enough work to judge: the spinner alone had 300 ms for 15000 units; a tenth of that, or
  // the host took the vCPU away for most of the test.
  if(spin + waker < WAKE_TEST_MS * 1000000L / WAKE_UNIT_NS / 10)
    return false;
  return waker * 4 >= spin;   // a quarter of the spinner's units at least
}

SELFTEST("sched-wake-turn", wake_turn_run);

// The planted bug: the waker goes to the back of the queue on every wake-up (as this kernel
// did until 2026-12-06); sched-wake-turn's share must fall below a quarter.
static bool
planted_sched_wake_tail_test(void)
{
  WRITE_ONCE(planted_sched_wake_tail, true);
  bool ok = wake_turn_run();
  WRITE_ONCE(planted_sched_wake_tail, false);
  return ok;
}
SELFTEST("planted-sched-wake-tail", planted_sched_wake_tail_test);
