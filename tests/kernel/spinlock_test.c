// Self-tests of the spinlock family: lock and trylock rules, every CPU counting under each lock
// at once (a lost update shows as a wrong total), and planted recursion and sleep-while-atomic.
#include "cpumask.h"
#include "panic.h"
#include "printk.h"
#include "rwlock.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include <asm/cpu.h>
#include <asm/x86.h>

// Each CPU counts ROUNDS times or until COUNT_NS have passed, whichever comes first. With
// more vCPUs than host cores a fair lock is often handed to a vCPU the host is not running,
// and everyone waits until the host runs it (lock-waiter preemption), so a fixed count can
// take minutes under load. The check stays exact: each CPU keeps a tally of its own, and
// the shared counter must equal their sum. Interrupts are off meanwhile, so COUNT_NS stays
// well inside the watchdog's 5 s.
#define ROUNDS 10000
#define COUNT_NS 500000000UL
#define WAIT_NS 4000000000UL   // for the other CPUs to answer

static bool ok;

static void
expect(bool cond, const char *what, const char *file, int line)
{
  if(!cond) {
    pr_err("spinlock-basic: %s:%d: expected %s\n", file, line, what);
    ok = false;
  }
}
#define EXPECT(cond) expect((cond), #cond, __FILE__, __LINE__)
#include "../common/locks.h"

static int writer_done;

static void
writer(void *arg)
{
  write_lock(&rw);
  write_unlock(&rw);
  smp_store_release(&writer_done, 1);
}

// With a reader in, a writer on CPU 1 waits; from then on a new reader must wait too.
static void
check_rwlock_writer_preference(void)
{
  if(num_online_cpus() < 2 || !cpumask_test_cpu(1, &cpu_online_mask))
    return;
  writer_done = 0;
  read_lock(&rw);
  EXPECT(smp_call_function_single(1, writer, NULL, false) == 0);
  bool blocked = false;
  for(u64 t0 = ktime_ns(); !blocked && ktime_ns() - t0 < WAIT_NS;) {
    if(read_trylock(&rw))
      read_unlock(&rw);
    else
      blocked = true;
    cpu_relax();
  }
  EXPECT(blocked);
  read_unlock(&rw);
  for(u64 t0 = ktime_ns(); !smp_load_acquire(&writer_done);) {
    if(ktime_ns() - t0 > WAIT_NS) {
      EXPECT(writer_done);
      return;
    }
    cpu_relax();
  }
}

static u64 counter;
static u64 tally[NR_CPUS];
static u64 stop_ns;
static int arrived, finished, torn_reads;

// Readers exclude writers: the counter stays still while the read lock is held.
static void
check_reader(void)
{
  read_lock(&rw);
  u64 before = READ_ONCE(counter);
  cpu_relax();
  if(READ_ONCE(counter) != before)
    __atomic_fetch_add(&torn_reads, 1, __ATOMIC_RELAXED);
  read_unlock(&rw);
}

// Runs on every CPU at once, with interrupts off.
static void
count(void *arg)
{
  enum kind k = (enum kind)(long)arg;
  // Start together, so the CPUs contend instead of counting one after another as the
  // IPIs arrive.
  __atomic_fetch_add(&arrived, 1, __ATOMIC_RELAXED);
  while(READ_ONCE(arrived) < num_online_cpus() && ktime_ns() < stop_ns)
    cpu_relax();
  u64 mine = 0;
  while(mine < ROUNDS && ktime_ns() < stop_ns) {
    lock(k);
    counter++;
    unlock(k);
    mine++;
    if(k == RWLOCK)
      check_reader();
  }
  tally[smp_processor_id()] = mine;
  // Release: this CPU's increments and tally are visible to the CPU that sees finished.
  __atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
}

// This CPU counts too (on_each_cpu would first wait for the others), so all CPUs contend.
static void
count_on_all_cpus(enum kind k)
{
  int n = num_online_cpus();
  counter = 0;
  arrived = 0;
  finished = 0;
  torn_reads = 0;
  for(int cpu = 0; cpu < nr_cpu_ids; cpu++)
    tally[cpu] = 0;
  u64 t0 = ktime_ns();
  stop_ns = t0 + COUNT_NS;
  EXPECT(smp_call_function(count, (void *)(long)k, false) == 0);
  u64 flags = local_irq_save();
  count((void *)(long)k);
  local_irq_restore(flags);
  while(smp_load_acquire(&finished) < n) {
    if(ktime_ns() - t0 > COUNT_NS + WAIT_NS) {
      pr_err("spinlock-basic: %s: only %d of %d CPUs finished\n", kind_name[k], finished, n);
      ok = false;
      return;
    }
    cpu_relax();
  }
  u64 total = 0;
  for(int cpu = 0; cpu < nr_cpu_ids; cpu++)
    total += tally[cpu];
  selftest_extra("%s=%lu/%lums", kind_name[k], total, (ktime_ns() - t0) / 1000000);
  if(counter != total) {
    pr_err("spinlock-basic: %s: counted %lu, expected %lu\n", kind_name[k], counter, total);
    ok = false;
  }
  EXPECT(torn_reads == 0);
}

static bool
spinlock_basic(void)
{
  ok = true;
  // count() takes these locks in function-call interrupts, so here, outside one, they are
  // held with interrupts off: a call arriving on this CPU while it held one would spin for
  // ever (lockdep's irq-inconsistent rule; no call is sent here meanwhile, but the rule
  // does not depend on timing).
  u64 flags = local_irq_save();
  for(int k = 0; k < NKINDS; k++)
    check_trylock(k);
  check_is_locked();
  check_rwlock_sharing();
  check_rwlock_writer_preference();
  local_irq_restore(flags);
  for(int k = 0; k < NKINDS && ok; k++)
    count_on_all_cpus(k);
  return ok;
}
SELFTEST("spinlock-basic", spinlock_basic);

// The planted tests' locks, at file scope: a static lock's class key is a compound literal
// (include/lockdep_types.h), which has static storage only outside a function.
static DEFINE_SPINLOCK(recursion_lock);
static DEFINE_SPINLOCK(atomic_lock);

// Takes a spinlock it already holds: with DEBUG_SPINLOCK the second spin_lock panics.
// Without the checker it would spin forever, unseen by the watchdog when the other CPUs are
// idle, so that build asks spin_trylock instead and reports the deadlock itself.
static bool
planted_spinlock_recursion(void)
{
  u64 flags, again;
  spin_lock_irqsave(&recursion_lock, flags);
#ifdef CONFIG_DEBUG_SPINLOCK
  spin_lock_irqsave(&recursion_lock, again);
#else
  again = local_irq_save();
  if(!spin_trylock(&recursion_lock))
    panic("planted-spinlock-recursion: spin_lock of a lock this cpu holds would deadlock "
          "(built without DEBUG_SPINLOCK)");
#endif
  spin_unlock_irqrestore(&recursion_lock, again);
  spin_unlock_irqrestore(&recursion_lock, flags);
  return false;
}
SELFTEST("planted-spinlock-recursion", planted_spinlock_recursion);

// Planted: a spinlock holder calls cond_resched, which may sleep. Holding the lock counts in
// preempt_count, so cond_resched must panic at once, need_resched or not. Returning means
// the bug went unseen.
static bool
planted_sleep_in_atomic(void)
{
  spin_lock(&atomic_lock);
  cond_resched();
  spin_unlock(&atomic_lock);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-sleep-in-atomic", planted_sleep_in_atomic);
