// Hang detection, three ways (Linux's lockup detectors and khungtaskd): a busy CPU with no tick
// for watchdog_thresh_ns() (interrupts off) gets an NMI from another CPU; a thread that goes
// softlockup_secs of ticks without schedule or cond_resched is caught by its own tick; a thread
// asleep without a timeout for hung_task_secs is reported by khungtaskd. Each one panics.
// (Linux drives its hard-lockup detector from a perf NMI; cross-CPU checks need no PMU.)
#include "cpumask.h"
#include "panic.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "smp.h"
#include "tick.h"
#include "time.h"
#include "watchdog.h"
#include <asm/cpu.h>
#include <asm/irqflags.h>
#include <asm/timer.h>
#include <asm/traps.h>

DEFINE_PER_CPU(u64, wd_stamp);
DEFINE_PER_CPU(bool, wd_fired);
// The watchdog's NMI found this CPU still without a tick once; a second one, a check later,
// finds it a hard lockup. A vCPU the host has not run for seconds (64 vCPUs on 2 loaded host
// cores) looks the same as one stuck with interrupts off, and when the host runs it again its
// pending timer interrupt and the NMI come together: the NMI can land before the tick's stamp.
// Cleared by this CPU's next tick.
DEFINE_PER_CPU(bool, wd_asked);
// Set while this CPU's tick is on its way to the stamp, from the timer interrupt's first
// instruction (watchdog_tick_begin): an NMI that lands there finds a CPU that is ticking, not
// stuck. At 64 vCPUs NMIs landed inside the clock read, and inside the tick's EOI write: under
// TCG a local APIC access waits for QEMU's global lock, and one vCPU waited 9.6 s for it.
DEFINE_PER_CPU(bool, wd_in_tick);
// Ticks this CPU has taken since its last schedule or cond_resched. Counted in ticks, not
// read off the clock: a vCPU the host does not run takes no ticks (64 vCPUs on 2 host cores
// run each one a 32nd of the time), so only time the CPU really spent looping counts.
DEFINE_PER_CPU(u64, softlockup_ticks);
static u64 last_check;
int softlockup_secs = SOFTLOCKUP_SECS;
int hung_task_secs = HUNG_TASK_SECS;

void
touch_softlockup_watchdog(void)
{
  this_cpu(softlockup_ticks) = 0;
}

// A thread that keeps its CPU without passing through schedule or cond_resched breaks the
// rule RCU and every other thread on this CPU depend on (include/sched.h). The tick that
// notices interrupted it, so the trap frame shows where it loops.
static void
check_softlockup(struct trapframe *tf)
{
  struct thread *t = current;
  u64 ticks;

  if(this_cpu_info()->idle || t->idle)
    return;
  if(user_mode(tf)) {   // ring 3 can be preempted: a user loop is progress, not a lockup
    t->user_ticks++;
    touch_softlockup_watchdog();
    return;
  }
  ticks = ++this_cpu(softlockup_ticks);
  if(ticks < (u64)READ_ONCE(softlockup_secs) * HZ)
    return;
  panic_trap(tf, "soft lockup: CPU %d stuck for %lu s (%lu ticks) in thread %s "
             "without a schedule or cond_resched", smp_processor_id(), ticks / HZ, ticks, t->name);
}

// A thread asleep without a timeout for hung_task_secs waits for a wake-up that is not coming:
// a lost wake-up, or a lock or completion never released. Waits that may last for ever by
// design are wait_event_idle and are left alone.
static void
check_hung_tasks(u64 now)
{
  for(int i = 0; i < MAX_THREADS; i++) {
    struct thread *t = &threads[i];
    if(smp_load_acquire(&t->state) != T_SLEEPING)
      continue;
    u64 since = READ_ONCE(t->sleep_since);
    if(READ_ONCE(t->idle_wait) || READ_ONCE(t->wake_at) || since == 0 || now < since ||
       now - since < (u64)READ_ONCE(hung_task_secs) * NSEC_PER_SEC)
      continue;
    pr_err("hung task: %s (tid %d) blocked for %lu s; every thread:\n", t->name, t->tid,
           (now - since) / NSEC_PER_SEC);
    show_state();
    panic("hung task: %s blocked for more than %d s on %s", t->name, hung_task_secs,
          t->wait_on ? t->wait_on : "?");
  }
}

// The hard-lockup limit: WATCHDOG_SECS, and 330 ms per online CPU once that is more (from 16
// CPUs; 21 s at 64). With 64 vCPUs on 2 loaded host cores the host runs each vCPU a 32nd of
// the time or less, and a CPU's wait with interrupts off for what another vCPU holds stretches
// with it: a torture run at 64 vCPUs (load average 18) had 24 CPUs reported within 17 s, and
// CPU 57, in its tick printing one of those reports, spun 12 s for the console's lock
// (kernel/printk.c) and was panicked as a hard lockup. A real lockup is caught all the same,
// a few seconds later. Linux's watchdog_thresh is fixed (10 s), but on hardware.
u64
watchdog_thresh_ns(void)
{
  u64 ms = (u64)WATCHDOG_PER_CPU_MS * num_online_cpus();
  return (ms > WATCHDOG_SECS * 1000UL ? ms : WATCHDOG_SECS * 1000UL) * 1000000UL;
}

void
watchdog_touch(void)
{
  this_cpu(wd_stamp) = ktime_ns();
}

void
watchdog_tick_begin(void)
{
  WRITE_ONCE(this_cpu(wd_in_tick), true);
  barrier();   // before the EOI write the NMI may land in
}

void
watchdog_tick(struct trapframe *tf)
{
  WRITE_ONCE(this_cpu(wd_in_tick), true);
  barrier();   // the NMI handler on this CPU reads it: set before the clock is read
  u64 now = ktime_ns();
  this_cpu(wd_stamp) = now;
  this_cpu(wd_asked) = false;
  barrier();
  WRITE_ONCE(this_cpu(wd_in_tick), false);
  check_softlockup(tf);
  u64 last = READ_ONCE(last_check);
  if(now - last < NSEC_PER_SEC ||
     !__atomic_compare_exchange_n(&last_check, &last, now, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED))
    return;
  int me = smp_processor_id();
  int cpu;
  for_each_online_cpu(cpu) {
    struct cpu *c = per_cpu_ptr(&cpu_info, cpu);
    // Idle before the stamp: a CPU that has just left idle wrote its stamp before clearing
    // idle (irq_enter in kernel/tick.c), so seeing it busy means seeing that stamp too.
    if(smp_load_acquire(&c->idle))
      continue;
    u64 stamp = READ_ONCE(per_cpu(wd_stamp, cpu));
    // A stamp taken after our `now` (the other CPU ticked meanwhile) is progress too.
    if(cpu == me || stamp == 0 || stamp >= now ||
       now - stamp < watchdog_thresh_ns() || per_cpu(wd_fired, cpu))
      continue;
    per_cpu(wd_fired, cpu) = true;
    pr_err("watchdog: CPU %d has made no progress for %lu s; sending it an NMI\n", cpu,
           (now - stamp) / NSEC_PER_SEC);
    arch_send_nmi(cpu);
  }
}

// Called from the NMI handler: true if this NMI is the watchdog's (then it panics here,
// on the stuck CPU, so the backtrace shows where it was stuck).
bool
watchdog_nmi(struct trapframe *tf)
{
  if(!this_cpu(wd_fired))
    return false;
  // Ticking again by the time the NMI came, or in its tick right now (a vCPU the host had
  // stopped between the check and the NMI): progress after all, and the NMI was the watchdog's.
  // It may fire again.
  if(READ_ONCE(this_cpu(wd_in_tick)) ||
     ktime_ns() - READ_ONCE(this_cpu(wd_stamp)) < watchdog_thresh_ns()) {
    this_cpu(wd_fired) = false;
    return true;
  }
  // Interrupts on and the tick requested with nothing masking it (arch_timer_deliverable):
  // by the architecture the CPU takes it at its next instruction, so a CPU found here again is
  // one the host has not let take it, not one this kernel stuck with interrupts off. At 64
  // vCPUs on 2 host cores such CPUs were found over 9 s after their tick, in a loop that calls
  // cond_resched (a loop without it is the soft-lockup check's). A tick never armed, or held
  // back by a vector never acknowledged (in service, raising the PPR), is not excused.
  if((tf->rflags & X86_EFLAGS_IF) && arch_timer_deliverable()) {
    WRITE_ONCE(this_cpu(wd_fired), false);
    return true;
  }
  // The first NMI to find no tick asks again: the next check (a second on) sends another
  // unless this CPU has ticked meanwhile, as a vCPU back from the host's run queue does.
  if(!this_cpu(wd_asked)) {
    this_cpu(wd_asked) = true;   // no printk here: the NMI may have cut into one
    WRITE_ONCE(this_cpu(wd_fired), false);
    return true;
  }
  panic_trap(tf, "hard lockup: CPU %d made no progress with %s for over %lu s",
             smp_processor_id(),
             tf->rflags & X86_EFLAGS_IF ? "interrupts on and no tick armed or deliverable"
                                        : "interrupts off",
             watchdog_thresh_ns() / NSEC_PER_SEC);
}

// A thread of its own, as Linux's khungtaskd, not the tick: in the hang it looks for, every CPU
// is idle with its tick stopped, and only a sleeper's timer still fires. It lives on the last
// CPU, with rcu_gp and away from init on CPU 0: the timer that wakes it each second also runs the
// hard-lockup check above when CPU 0 is stuck with interrupts off and the others are idle.
static int
khungtaskd(void *arg)
{
  for(;;) {
    msleep(1000);
    check_hung_tasks(ktime_ns());
  }
  return 0;
}

void
hung_task_init(void)
{
  if(!kthread_create(khungtaskd, NULL, num_online_cpus() - 1, "khungtaskd"))
    pr_err("watchdog: cannot start khungtaskd; hung tasks go unreported\n");
}
