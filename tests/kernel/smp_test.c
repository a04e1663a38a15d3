// Self-tests of SMP bring-up: IPIs to all, one and a mask of CPUs, per-CPU areas, TSC agreement,
// and planted-lockup, which proves the hang detector catches a CPU spinning with interrupts off.
#include "cpumask.h"
#include "printk.h"
#include "selftest.h"
#include "smp.h"
#include "tick.h"
#include "time.h"
#include "watchdog.h"
#include <asm/cpu.h>
#include <asm/timer.h>
#include <asm/x86.h>

DEFINE_PER_CPU(u64, ipi_test_hits);
DEFINE_PER_CPU(u64, percpu_test_value);

static void
count_hit(void *arg)
{
  this_cpu(ipi_test_hits)++;
}

static bool
hits_are(u64 want_even, u64 want_odd)
{
  int cpu;
  bool ok = true;
  for_each_online_cpu(cpu) {
    u64 want = cpu % 2 ? want_odd : want_even;
    if(cpu == smp_processor_id())
      want = 0;
    if(per_cpu(ipi_test_hits, cpu) != want) {
      pr_err("ipi: CPU %d answered %lu calls, expected %lu\n", cpu, per_cpu(ipi_test_hits, cpu),
             want);
      ok = false;
    }
    per_cpu(ipi_test_hits, cpu) = 0;
  }
  return ok;
}

static bool
ipi_test(void)
{
  enum { ROUNDS = 200 };
  int cpu;
  bool ok = true;
  for_each_online_cpu(cpu)
    per_cpu(ipi_test_hits, cpu) = 0;

  for(int i = 0; i < ROUNDS; i++)     // to all others, waiting
    ok &= smp_call_function(count_hit, NULL, true) == 0;
  ok &= hits_are(ROUNDS, ROUNDS);

  for(int i = 0; i < ROUNDS; i++)     // to each CPU alone
    for_each_online_cpu(cpu)
      if(cpu != smp_processor_id())
        ok &= smp_call_function_single(cpu, count_hit, NULL, true) == 0;
  ok &= hits_are(ROUNDS, ROUNDS);

  struct cpumask odd;                 // to a mask, without waiting, then a waiting round
  cpumask_clear(&odd);
  for_each_online_cpu(cpu)
    if(cpu % 2)
      cpumask_set_cpu(cpu, &odd);
  for(int i = 0; i < ROUNDS; i++)
    ok &= smp_call_function_many(&odd, count_hit, NULL, i == ROUNDS - 1) == 0;
  ok &= hits_are(0, ROUNDS);

  ok &= smp_call_function_single(nr_cpu_ids, count_hit, NULL, true) < 0;   // a bad CPU id
  selftest_extra("cpus=%d calls=%d", num_online_cpus(), 3 * ROUNDS * (num_online_cpus() - 1));
  return ok;
}
SELFTEST("ipi", ipi_test);

static void
percpu_fill(void *arg)
{
  u64 **where = arg;
  int me = smp_processor_id();
  this_cpu(percpu_test_value) = 1000 + me;
  where[me] = this_cpu_ptr(&percpu_test_value);
}

static bool
percpu_test(void)
{
  static u64 *where[NR_CPUS];
  bool ok = on_each_cpu(percpu_fill, where, true) == 0;
  int cpu, other;
  for_each_online_cpu(cpu) {
    struct cpu *c = per_cpu_ptr(&cpu_info, cpu);
    ok &= c->self == c && c->id == cpu && per_cpu(percpu_test_value, cpu) == 1000u + cpu;
    ok &= where[cpu] == per_cpu_ptr(&percpu_test_value, cpu);
    for_each_online_cpu(other)
      ok &= other == cpu || where[other] != where[cpu];
  }
  selftest_extra("cpus=%d", num_online_cpus());
  return ok;
}
SELFTEST("percpu", percpu_test);

// Cross-CPU agreement: a time read on CPU t inside a call must fall between the
// caller's reads before and after the call, within TSC_SKEW_NS.
#define TSC_SKEW_NS 100000

static void
read_time(void *arg)
{
  *(u64 *)arg = ktime_ns();
}

static bool
tsc_test(void)
{
  bool ok = true;
  u64 worst = 0;
  int cpu;
  for(int i = 0; i < 1000; i++) {
    u64 a = ktime_ns(), b = ktime_ns();
    ok &= b >= a;
  }
  for(int round = 0; round < 20; round++) {
    for_each_online_cpu(cpu) {
      u64 t = 0;
      u64 before = ktime_ns();
      smp_call_function_single(cpu, read_time, &t, true);
      u64 after = ktime_ns();
      if(t + TSC_SKEW_NS < before || t > after + TSC_SKEW_NS) {
        pr_err("tsc: CPU %d read %lu, outside [%lu, %lu]\n", cpu, t, before, after);
        ok = false;
      }
      u64 skew = t < before ? before - t : t > after ? t - after : 0;
      worst = MAX(worst, skew);
    }
  }
  selftest_extra("bound_ns=%d worst_ns=%lu", TSC_SKEW_NS, worst);
  return ok;
}
SELFTEST("tsc", tsc_test);

// Planted: this CPU spins with interrupts off while every other CPU is idle, its tick
// stopped. The hard-lockup check must still run (khungtaskd's timer wakes the last CPU each
// second) and NMI this CPU within a few seconds. Returning means it was not caught.
static bool
planted_lockup(void)
{
  if(num_online_cpus() < 2) {
    pr_err("planted-lockup: needs two CPUs (one spins, another detects)\n");
    return true;
  }
  pr_info("planted-lockup: CPU %d spins with interrupts off; the others are idle\n",
          smp_processor_id());
  u64 deadline = ktime_ns() + 4 * watchdog_thresh_ns();
  u64 flags = local_irq_save();
  while(ktime_ns() < deadline)
    cpu_relax();
  local_irq_restore(flags);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-lockup", planted_lockup);

// Planted: this CPU's tick is stopped while it runs with interrupts on (the bug of a busy CPU
// whose tick idle stopped and nothing restarted). The hard-lockup check excuses a CPU with
// interrupts on only when its tick is requested and deliverable (the host has not run it,
// kernel/watchdog.c), so this one must still be caught. Returning means it was not.
static bool
planted_tick_lost(void)
{
  if(num_online_cpus() < 2) {
    pr_err("planted-tick-lost: needs two CPUs (one runs tickless, another detects)\n");
    return true;
  }
  pr_info("planted-tick-lost: CPU %d stops its tick and spins with interrupts on\n",
          smp_processor_id());
  u64 deadline = ktime_ns() + 4 * watchdog_thresh_ns();
  arch_timer_stop();
  while(ktime_ns() < deadline)
    cpu_relax();
  arch_timer_set_oneshot(TICK_NS);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-tick-lost", planted_tick_lost);
