// The tick and tickless idle: a busy CPU takes HZ one-shot timer interrupts a second, an idle
// CPU none (kernel/sched.c's idle loop stops it), so hundreds of halted vCPUs cost the host
// nothing (doc/qemu.md).
#include "percpu.h"
#include "rcupdate.h"
#include "sched.h"
#include "smp.h"
#include "tick.h"
#include "timer.h"
#include "watchdog.h"
#include <asm/cpu.h>
#include <asm/irq.h>
#include <asm/timer.h>
#include <asm/traps.h>

DEFINE_PER_CPU(u64, tick_count);

static void
timer_interrupt(struct trapframe *tf)
{
  watchdog_tick_begin();   // the EOI write can wait seconds on a loaded host (kernel/watchdog.c)
  arch_irq_eoi();
  this_cpu(tick_count)++;
  watchdog_tick(tf);
  run_timers();   // callbacks with interrupts off; sleepers woken before the slice check
  sched_tick();
  rcu_tick();
  if(!this_cpu_info()->idle)
    arch_timer_set_oneshot(TICK_NS);
}

void
tick_start(void)
{
  set_irq_handler(VEC_TIMER, timer_interrupt);
  // Both lockup checks count from here: a CPU stuck before its first tick is caught too.
  watchdog_touch();
  touch_softlockup_watchdog();
  arch_timer_set_oneshot(TICK_NS);
}

// An interrupt ends idle: the CPU is busy until it halts again, so its tick restarts
// (and the hang detector watches it again).
void
irq_enter(void)
{
  struct cpu *c = this_cpu_info();
  c->irq_depth++;
  if(c->idle) {
    // The stamp first, then idle off with release: a hard-lockup check that sees this CPU
    // busy must also see a fresh stamp, not the one from before it halted, perhaps seconds
    // ago (pairs with the acquire in watchdog_tick).
    watchdog_touch();
    smp_store_release(&c->idle, 0);
    idle_clock_stop();
    rcu_idle_exit();
    arch_timer_set_oneshot(TICK_NS);
  }
}

void
irq_exit(void)
{
  this_cpu_info()->irq_depth--;
}

bool
in_interrupt(void)
{
  return this_cpu_info()->irq_depth > 0;
}
