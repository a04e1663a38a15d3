// Self-tests of cross-CPU calls that race with the caller's own wait: every call runs with
// interrupts off even when its target is itself waiting (ipi-irqs-off), and a shootdown that gets
// no answer panics rather than let its pages be freed (planted-tlb-stall).
#include "cpumask.h"
#include "mm.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "vm.h"
#include "watchdog.h"
#include <asm/cpu.h>
#include <asm/irqflags.h>
#include <asm/processor.h>

#define RING_ROUNDS 3000

DEFINE_PER_CPU(int, ring_calling);   // this CPU's ring thread is inside its own call
DEFINE_PER_CPU(u64, ring_crossed);   // calls answered here while it was
DEFINE_PER_CPU(u64, ring_irqs_on);   // calls that ran with interrupts on: the bug

static int ring_go, ring_done;

static void
ring_probe(void *arg)
{
  if(!irqs_disabled())
    this_cpu(ring_irqs_on)++;
  if(READ_ONCE(this_cpu(ring_calling)))
    this_cpu(ring_crossed)++;
}

// Calls the next online CPU, waiting, RING_ROUNDS times, interrupts on (thread context).
// Every CPU does the same at once, so calls land on CPUs that are themselves waiting: the
// waiter's loop may pop such a call before its IPI arrives and must run it as the vector
// would, with interrupts off (kernel/ipi.c, csd_wait).
static int
ring_worker(void *arg)
{
  int me = smp_processor_id();
  int next = cpumask_next(me, &cpu_online_mask);
  if(next >= nr_cpu_ids)
    next = cpumask_next(-1, &cpu_online_mask);
  __atomic_fetch_add(&ring_go, 1, __ATOMIC_ACQ_REL);
  while(smp_load_acquire(&ring_go) < num_online_cpus())
    cpu_relax();
  int err = 0;
  for(int i = 0; i < RING_ROUNDS; i++) {
    WRITE_ONCE(this_cpu(ring_calling), 1);
    err |= smp_call_function_single(next, ring_probe, NULL, true);
    WRITE_ONCE(this_cpu(ring_calling), 0);
  }
  __atomic_fetch_add(&ring_done, 1, __ATOMIC_RELEASE);
  return err;
}

static bool
ipi_irqs_off_test(void)
{
  if(num_online_cpus() < 2) {
    selftest_extra("cpus=1 skipped=needs-two-cpus");
    return true;
  }
  int cpu, me = smp_processor_id();
  for_each_online_cpu(cpu)
    per_cpu(ring_crossed, cpu) = per_cpu(ring_irqs_on, cpu) = 0;
  ring_go = ring_done = 0;
  struct thread *t[NR_CPUS] = { 0 };
  bool ok = true, created = true;
  for_each_online_cpu(cpu)
    if(cpu != me && !(t[cpu] = kthread_create(ring_worker, NULL, cpu, "ipi-ring/%d", cpu)))
      created = false;
  if(!created)   // the others would wait for a missing CPU for good: release them
    __atomic_fetch_add(&ring_go, NR_CPUS, __ATOMIC_RELEASE);
  ok &= ring_worker(NULL) == 0;
  for_each_online_cpu(cpu)
    if(t[cpu])
      ok &= kthread_join(t[cpu]) == 0;
  if(!created)   // kthread_create fails under failslab=
    return selftest_skip("enomem");
  u64 crossed = 0, irqs_on = 0;
  for_each_online_cpu(cpu) {
    crossed += per_cpu(ring_crossed, cpu);
    irqs_on += per_cpu(ring_irqs_on, cpu);
  }
  selftest_extra("cpus=%d calls=%d crossed=%lu irqs_on=%lu", num_online_cpus(),
                 num_online_cpus() * RING_ROUNDS, crossed, irqs_on);
  // A handful of calls that met a waiting target is the least that makes the verdict mean
  // something; every CPU waits in each of its rounds, so far more usually do.
  return ok && irqs_on == 0 && crossed >= 10;
}
SELFTEST("ipi-irqs-off", ipi_irqs_off_test);

static struct {
  struct mm *mm;
  int ready, release;
} stall;

// Joins the mm, then sits with interrupts off (the flush IPI cannot get in) for three IPI
// timeouts, telling the hard-lockup check it is alive: the sender's wait must give up first.
static int
stall_worker(void *arg)
{
  use_mm(stall.mm);
  u64 end = ktime_ns() + 3UL * ipi_timeout() * 1000000UL;
  u64 flags = local_irq_save();
  smp_store_release(&stall.ready, 1);
  while(!smp_load_acquire(&stall.release) && ktime_ns() < end) {
    watchdog_touch();
    cpu_relax();
  }
  local_irq_restore(flags);
  unuse_mm(stall.mm);
  return 0;
}

// Planted: a CPU in the mm's mask does not answer a TLB shootdown (interrupts off, the
// watchdog kept quiet). flush_tlb_range must panic once the IPI wait gives up: returning
// would let the caller free pages that CPU may still reach, and leave it a call on a dead
// stack frame. Returning means it was not caught.
static bool
planted_tlb_stall(void)
{
  int other = selftest_other_cpu();
  if(other < 0) {
    pr_err("planted-tlb-stall: needs two CPUs (one stalls, one flushes)\n");
    return true;
  }
  stall.mm = mm_create();
  if(!stall.mm)
    return true;
  WRITE_ONCE(ipi_timeout_ms, 1000);
  struct thread *t = kthread_create(stall_worker, NULL, other, "tlb-stall");
  if(!t) {
    WRITE_ONCE(ipi_timeout_ms, 0);
    return true;
  }
  while(!smp_load_acquire(&stall.ready))
    msleep(1);
  pr_info("planted-tlb-stall: CPU %d sits on a shootdown for up to %d ms\n", other,
          3 * ipi_timeout());
  flush_tlb_range(stall.mm, 0x40000000UL, 0x40000000UL + PAGE_SIZE);
  smp_store_release(&stall.release, 1);
  kthread_join(t);
  WRITE_ONCE(ipi_timeout_ms, 0);
  mmput(stall.mm);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-tlb-stall", planted_tlb_stall);
