// Self-tests of the kernel timers (kernel/timer.c): a timer on each CPU fires there, waking
// that CPU from idle; mod_timer and del_timer's return values and effects; del_timer_sync
// against a self-re-arming callback running on another CPU. planted-timer-nosync proves that
// last check: del_timer_sync that does not wait for the running callback.
#include "cpumask.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "timer.h"
#include "wait.h"
#include <asm/processor.h>

extern bool timer_planted_nosync;

struct cpu_probe {
  struct timer_list timer;
  int fired_on;                   // the CPU the callback ran on, -1 before
  int fired;                      // times it ran
  struct wait_queue_head wq;
};

static void
probe_fn(struct timer_list *timer)
{
  struct cpu_probe *p = from_timer(p, timer, timer);
  WRITE_ONCE(p->fired_on, smp_processor_id());
  smp_store_release(&p->fired, p->fired + 1);   // pairs with the waiter's wait_event_idle test
  wake_up_all(&p->wq);
}

// On its CPU: a timer 2 ms out, then sleep with no timeout of its own (wait_event_idle), so
// the CPU idles and only its one-shot timer, armed for the timer, can end the wait.
static int
probe_thread(void *arg)
{
  struct cpu_probe *p = arg;
  timer_setup(&p->timer, probe_fn);
  p->timer.expires = ktime_ns() + 2000000;
  add_timer(&p->timer);
  wait_event_idle(p->wq, smp_load_acquire(&p->fired) > 0);
  return 0;
}

static struct cpu_probe probes[NR_CPUS];

static bool
timer_each_cpu(void)
{
  struct thread *t[NR_CPUS] = { 0 };
  int cpu, wrong = 0, missed = 0, n = 0;
  for_each_online_cpu(cpu) {
    struct cpu_probe *p = &probes[cpu];
    p->fired_on = -1;
    p->fired = 0;
    init_waitqueue_head(&p->wq);
    t[cpu] = kthread_create(probe_thread, p, cpu, "timer-probe/%d", cpu);
    if(!t[cpu])
      return selftest_skip("enomem");
  }
  for_each_online_cpu(cpu) {
    kthread_join(t[cpu]);
    struct cpu_probe *p = &probes[cpu];
    n++;
    missed += p->fired != 1;
    wrong += p->fired_on != cpu;
  }
  selftest_extra("cpus=%d missed=%d wrong_cpu=%d", n, missed, wrong);
  return n > 0 && missed == 0 && wrong == 0;
}
SELFTEST("timer-each-cpu", timer_each_cpu);

static int plain_fired;
static void plain_fn(struct timer_list *t) { WRITE_ONCE(plain_fired, plain_fired + 1); }

// mod_timer says whether the timer was pending; del_timer takes a pending one off for good.
static bool
timer_mod_del(void)
{
  struct timer_list t;
  int bad = 0;
  timer_setup(&t, plain_fn);
  WRITE_ONCE(plain_fired, 0);
  bad += mod_timer(&t, ktime_ns() + 10 * NSEC_PER_SEC) != 0;   // was inactive
  bad += !timer_pending(&t);
  bad += mod_timer(&t, ktime_ns() + 1000000) != 1;             // was pending: moved to 1 ms
  while(READ_ONCE(plain_fired) == 0)
    msleep(1);
  bad += timer_pending(&t);
  bad += del_timer(&t) != 0;                                    // fired: not pending
  t.expires = ktime_ns() + 5000000;
  add_timer(&t);
  bad += del_timer(&t) != 1;
  msleep(20);                                                   // past its expiry
  bad += READ_ONCE(plain_fired) != 1;                           // taken off: never ran
  bad += del_timer_sync(&t) != 0;
  selftest_extra("bad=%d fired=%d", bad, READ_ONCE(plain_fired));
  return bad == 0;
}
SELFTEST("timer-mod-del", timer_mod_del);

// A callback that re-arms itself at once and spins a while in the middle, on the other CPU;
// del_timer_sync from this one, at moments spread over its run. Once del_timer_sync has
// returned, the callback must not be running nor run again: a count taken then must not move.
#define SYNC_ROUNDS 24

static struct timer_list sync_timer;
static int sync_runs, sync_running;

static void
sync_fn(struct timer_list *t)
{
  WRITE_ONCE(sync_running, 1);
  udelay(200);   // a window del_timer_sync can be called in
  WRITE_ONCE(sync_runs, sync_runs + 1);
  mod_timer(t, ktime_ns());   // again at the next tick
  WRITE_ONCE(sync_running, 0);
}

static int sync_go, sync_armed;

static int
sync_arm_thread(void *arg)
{
  for(int i = 1; i <= SYNC_ROUNDS; i++) {
    while(smp_load_acquire(&sync_go) < i)
      cpu_relax();
    mod_timer(&sync_timer, ktime_ns());   // on this CPU's base
    smp_store_release(&sync_armed, i);
  }
  return 0;
}

static bool
del_sync_race(void)
{
  int other = selftest_other_cpu();
  if(other < 0) {
    selftest_extra("cpus=1 skipped=needs-two-cpus");
    return true;
  }
  timer_setup(&sync_timer, sync_fn);
  sync_go = sync_armed = sync_runs = 0;
  struct thread *t = kthread_create(sync_arm_thread, NULL, other, "timer-arm");
  if(!t)
    return selftest_skip("enomem");
  int after = 0, running = 0, caught_running = 0;
  u64 total = 0;
  for(int i = 1; i <= SYNC_ROUNDS; i++) {
    smp_store_release(&sync_go, i);
    while(smp_load_acquire(&sync_armed) < i)
      cpu_relax();
    int start = READ_ONCE(sync_runs);
    while(READ_ONCE(sync_runs) < start + 1 + i % 2)   // let it run a few times, then race it
      cpu_relax();
    if(i % 2)   // half the rounds: into the callback's window
      for(int spin = 0; spin < 100000000 && !READ_ONCE(sync_running); spin++)
        cpu_relax();
    else
      udelay(i % 17);
    caught_running += READ_ONCE(sync_running);
    del_timer_sync(&sync_timer);
    running += READ_ONCE(sync_running);
    int n = READ_ONCE(sync_runs);
    mdelay(30);   // three ticks: a callback left armed or running would show
    after += READ_ONCE(sync_runs) != n;
  }
  kthread_join(t);
  total = READ_ONCE(sync_runs);
  selftest_extra("rounds=%d runs=%llu caught_running=%d running_after=%d ran_after=%d",
                 SYNC_ROUNDS, (unsigned long long)total, caught_running, running, after);
  // Enough races for the verdict to mean something: a third of the rounds met the callback.
  return total >= SYNC_ROUNDS && caught_running >= SYNC_ROUNDS / 3 && running == 0 &&
         after == 0;
}
SELFTEST("timer-del-sync", del_sync_race);

static bool
planted_timer_nosync(void)
{
  WRITE_ONCE(timer_planted_nosync, true);
  bool ok = del_sync_race();
  WRITE_ONCE(timer_planted_nosync, false);
  return ok;
}
SELFTEST("planted-timer-nosync", planted_timer_nosync);
