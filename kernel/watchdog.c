// Hang detection by the other CPUs: every busy CPU stamps the time on each tick; once a second
// one CPU looks at all the others and NMIs any busy one whose stamp is WATCHDOG_SECS old.
// (Linux drives its hard-lockup detector from a perf NMI; cross-CPU checks need no PMU.)
#include "apic.h"
#include "cpu.h"
#include "cpumask.h"
#include "panic.h"
#include "printk.h"
#include "smp.h"
#include "time.h"
#include "watchdog.h"

DEFINE_PER_CPU(u64, wd_stamp);
DEFINE_PER_CPU(bool, wd_fired);
static u64 last_check;

void
watchdog_touch(void)
{
  this_cpu(wd_stamp) = ktime_ns();
}

void
watchdog_tick(void)
{
  u64 now = ktime_ns();
  this_cpu(wd_stamp) = now;
  u64 last = __atomic_load_n(&last_check, __ATOMIC_RELAXED);
  if(now - last < 1000000000UL ||
     !__atomic_compare_exchange_n(&last_check, &last, now, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED))
    return;
  int me = smp_processor_id();
  int cpu;
  for_each_online_cpu(cpu) {
    struct cpu *c = per_cpu_ptr(&cpu_info, cpu);
    u64 stamp = __atomic_load_n(&per_cpu(wd_stamp, cpu), __ATOMIC_RELAXED);
    // A stamp taken after our `now` (the other CPU ticked meanwhile) is progress too.
    if(cpu == me || __atomic_load_n(&c->idle, __ATOMIC_RELAXED) || stamp == 0 || stamp >= now ||
       now - stamp < WATCHDOG_SECS * 1000000000UL || per_cpu(wd_fired, cpu))
      continue;
    per_cpu(wd_fired, cpu) = true;
    pr_err("watchdog: CPU %d has made no progress for %lu s; sending it an NMI\n", cpu,
           (now - stamp) / 1000000000UL);
    lapic_send_ipi(c->apic_id, ICR_NMI);
  }
}

// Called from the NMI handler: true if this NMI is the watchdog's (then it panics here,
// on the stuck CPU, so the backtrace shows where it was stuck).
bool
watchdog_nmi(struct trapframe *tf)
{
  if(!this_cpu(wd_fired))
    return false;
  panic_trap(tf, "hard lockup: CPU %d made no progress with interrupts off for over %d s",
             smp_processor_id(), WATCHDOG_SECS);
}
