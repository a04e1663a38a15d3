// Self-tests of the lock-order checker (kernel/locking/lockdep.c): patterns it must let pass,
// and planted bugs it must report (a lock order and an interrupt use that never deadlock here).
#include "lockdep.h"
#include "mutex.h"
#include "printk.h"
#include "rcupdate.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"

static DEFINE_SPINLOCK(order_a);
static DEFINE_SPINLOCK(order_b);
static DEFINE_SPINLOCK(irq_lock);
static DEFINE_SPINLOCK(clean_a);
static DEFINE_SPINLOCK(clean_b);
static DEFINE_MUTEX(rcu_mutex);

static int
reports(void)
{
  int n = 0;
  for(int k = 0; k < LOCKDEP_NR_KINDS; k++)
    n += lockdep_count(k);
  return n;
}

// Runs fn in a thread of its own and waits for it: the planted orders are taken one thread
// after the other, never at the same time, so they cannot deadlock.
static bool
run_thread(int (*fn)(void *), const char *name)
{
  struct thread *t = kthread_create(fn, NULL, -1, "%s", name);
  if(t)
    kthread_join(t);
  return t != NULL;   // kthread_create fails under failslab=
}

// Two locks of one class, nested by design (a parent then its child), annotated: no report.
// Two locks in one order, one thread after another: no report. The reverse order as a
// trylock: it never waits, so no cycle. Each of these must stay silent.
struct two_locks {
  spinlock_t parent, child;
};

static void
pair_lock_init(spinlock_t *l)
{
  spin_lock_init(l);   // one init site: one class for both locks of the pair
}

static int
clean_forward(void *arg)
{
  spin_lock(&clean_a);
  spin_lock(&clean_b);
  spin_unlock(&clean_b);
  spin_unlock(&clean_a);
  return 0;
}

static int
clean_try_reverse(void *arg)
{
  spin_lock(&clean_b);
  if(spin_trylock(&clean_a))
    spin_unlock(&clean_a);
  spin_unlock(&clean_b);
  return 0;
}

static bool
lockdep_clean(void)
{
  struct two_locks l;
  int before = reports();

  pair_lock_init(&l.parent);
  pair_lock_init(&l.child);
  spin_lock(&l.parent);
  spin_lock_nested(&l.child, 1);
  spin_unlock(&l.child);
  spin_unlock(&l.parent);
  bool ran = run_thread(clean_forward, "lockdep-fwd");
  ran &= run_thread(clean_forward, "lockdep-fwd");
  ran &= run_thread(clean_try_reverse, "lockdep-try");
  int after = reports();
  selftest_extra("reports=%d", after - before);
  if(!ran)
    return after == before && selftest_skip("enomem");
  return after == before;
}
SELFTEST("lockdep-clean", lockdep_clean);

static int
order_ab(void *arg)
{
  spin_lock(&order_a);
  spin_lock(&order_b);
  spin_unlock(&order_b);
  spin_unlock(&order_a);
  return 0;
}

static int
order_ba(void *arg)
{
  spin_lock(&order_b);
  spin_lock(&order_a);
  spin_unlock(&order_a);
  spin_unlock(&order_b);
  return 0;
}

// Planted: A then B in one thread, later B then A in another. It never deadlocks here, but two
// threads doing it at once could: lockdep must report kind=circular. Not reporting means the
// bug went unseen.
static bool
planted_lock_order(void)
{
  int before = lockdep_count(LOCKDEP_CIRCULAR);

  run_thread(order_ab, "lockdep-ab");
  run_thread(order_ba, "lockdep-ba");
  bool caught = lockdep_count(LOCKDEP_CIRCULAR) > before;
  selftest_extra("caught=%s", caught ? "yes" : "no");
  return !caught;
}
SELFTEST("planted-lock-order", planted_lock_order);

static void
take_irq_lock(void *arg)
{
  spin_lock(&irq_lock);
  spin_unlock(&irq_lock);
}

// Planted: a lock taken in an interrupt handler (a function-call IPI to another CPU) and
// elsewhere with interrupts on. Never at once on one CPU here, but an interrupt that comes
// while its own CPU holds the lock spins for ever: lockdep must report kind=irq-inconsistent.
static bool
planted_irq_lock(void)
{
  int before = lockdep_count(LOCKDEP_IRQ), cpu = smp_processor_id() == 0 ? 1 : 0;

  if(num_online_cpus() < 2) {
    pr_err("planted-irq-lock: needs 2 CPUs for an interrupt from another one\n");
    selftest_extra("caught=no cpus=1");
    return true;
  }
  spin_lock(&irq_lock);   // interrupts on
  spin_unlock(&irq_lock);
  smp_call_function_single(cpu, take_irq_lock, NULL, true);
  bool caught = lockdep_count(LOCKDEP_IRQ) > before;
  selftest_extra("caught=%s", caught ? "yes" : "no");
  return !caught;
}
SELFTEST("planted-irq-lock", planted_irq_lock);

// Planted: a mutex taken inside rcu_read_lock. Free, so it does not sleep this time, but it
// may: lockdep must report kind=sleep-in-rcu on this call, not only when it switches.
static bool
planted_sleep_in_rcu(void)
{
  int before = lockdep_count(LOCKDEP_SLEEP_RCU);

  rcu_read_lock();
  mutex_lock(&rcu_mutex);
  mutex_unlock(&rcu_mutex);
  rcu_read_unlock();
  bool caught = lockdep_count(LOCKDEP_SLEEP_RCU) > before;
  selftest_extra("caught=%s", caught ? "yes" : "no");
  return !caught;
}
SELFTEST("planted-sleep-in-rcu", planted_sleep_in_rcu);
