// smp_call_function: run a function on other CPUs through an IPI, waiting or not.
// Each sender owns one call slot per target, so senders never contend; targets pop their queue.
#include "cmdline.h"
#include "cpumask.h"
#include "errno.h"
#include "panic.h"
#include "printk.h"
#include "smp.h"
#include "tick.h"
#include "time.h"
#include <asm/cpu.h>
#include <asm/irq.h>
#include <asm/irqflags.h>
#include <asm/processor.h>
#include <asm/traps.h>

struct call_single_data {
  struct call_single_data *next;
  void (*fn)(void *);
  void *arg;
  u32 busy;     // set by the sender, cleared by the target once fn has returned
  int sender;   // the CPU that owns this slot, woken when busy clears if it halted
};

// csd_for[t]: this CPU's slot for calls to CPU t. call_queue: calls waiting on this CPU,
// a lock-free stack pushed with compare-and-swap and taken whole with an exchange.
DEFINE_PER_CPU(struct call_single_data, csd_for[NR_CPUS]);
DEFINE_PER_CPU(struct call_single_data *, call_queue);
DEFINE_PER_CPU(u64, calls_handled);
DEFINE_PER_CPU(int, csd_halted);   // waiting for an answer halted: the answer must wake it
int ipi_timeout_ms;

// The wait's limit grows with the CPU count: with more vCPUs than host cores the target may
// not run for a while, and at 64 vCPUs on 2 loaded host cores one vCPU waited 9.6 s for QEMU's
// global lock to write its local APIC's EOI (kernel/watchdog.c), near a fixed 10 s limit.
// A shootdown that gives up panics (arch/x86_64/tlb.c), so a limit the host's scheduling can
// reach turns a slow host into a kernel panic. 250 ms a CPU: 10.5 s at 2, 26 s at 64, still
// under the sender's own soft-lockup limit (SOFTLOCKUP_SECS, include/watchdog.h), which
// counts the ticks it spends waiting. Linux's csd_lock_wait has no limit at all.
int
ipi_timeout(void)
{
  int ms = READ_ONCE(ipi_timeout_ms);
  return ms ? ms : IPI_TIMEOUT_MS + IPI_TIMEOUT_PER_CPU_MS * num_online_cpus();
}

// How long a sender spins for an answer before it halts until the answer's IPI. With more
// vCPUs than host cores the CPU it waits for may not be running at all: spinning then burns
// the host time slice that CPU needs (Linux's answer under KVM is to yield to the preempted
// target, "pv sched yield"; its pv spinlocks halt and kick the same way).
// ipi.wait=spin (kcmdline.ipi_wait_spin) never halts: it spins until every target answered,
// as Linux's csd_lock_wait does, so that a comparison with Linux under the same emulator
// measures the two kernels' work and not their waiting policies (doc/compare-linux.md).
#define CSD_SPIN_NS 20000
static bool csd_may_halt = true;   // set once by ipi_init, before any other CPU runs

// Runs every queued call on this CPU, oldest first. Interrupts must be off: include/smp.h
// promises every fn runs so, and fns rely on it (mm/slab.c's drain_magazines empties this
// CPU's magazine, which an interrupt's kmalloc or kfree would change under it). Linux asserts
// the same in __flush_smp_call_function_queue (kernel/smp.c).
static void
flush_call_queue(void)
{
  BUG_ON(!irqs_disabled());
  struct call_single_data *list =
    __atomic_exchange_n(this_cpu_ptr(&call_queue), NULL, __ATOMIC_ACQUIRE);
  struct call_single_data *fifo = NULL;
  while(list) {
    struct call_single_data *next = list->next;
    list->next = fifo;
    fifo = list;
    list = next;
  }
  while(fifo) {
    struct call_single_data *next = fifo->next;
    int sender = fifo->sender;   // read first: once busy clears, the slot is the sender's
    fifo->fn(fifo->arg);
    this_cpu(calls_handled)++;
    // Release: fn's effects are visible to a sender that sees busy == 0. The fence orders
    // the store before the load of csd_halted; csd_halt orders them the other way round.
    smp_store_release(&fifo->busy, 0);
    smp_mb();
    if(READ_ONCE(per_cpu(csd_halted, sender)))
      smp_send_reschedule(sender);
    fifo = next;
  }
}

static void
call_function_interrupt(struct trapframe *tf)
{
  flush_call_queue();
  arch_irq_eoi();
}

void
ipi_init(void)
{
  set_irq_handler(VEC_CALL, call_function_interrupt);
  csd_may_halt = !kcmdline.ipi_wait_spin;
  if(csd_may_halt)
    printk("ipi: ipi.wait=halt: a CPU waiting for IPI answers spins %d us, then halts until"
           " woken\n", CSD_SPIN_NS / 1000);
  else
    printk("ipi: ipi.wait=spin: a CPU waiting for IPI answers spins until every target"
           " answered, as Linux's csd_lock_wait\n");
}

// Halts until an interrupt, the answer's IPI most likely, unless busy has cleared meanwhile.
// An answer IPI that comes between the check and the halt stays pending through the cli
// and is taken at the sti, so it cannot be missed (SDM vol. 2B, STI).
static void
csd_halt(struct call_single_data *csd)
{
  local_irq_disable();
  WRITE_ONCE(this_cpu(csd_halted), 1);
  smp_mb();   // pairs with flush_call_queue's, after it clears busy
  if(smp_load_acquire(&csd->busy))
    arch_safe_halt();
  else
    local_irq_enable();
  WRITE_ONCE(this_cpu(csd_halted), 0);
}

// Waits for a slot to clear, answering calls to this CPU meanwhile (two CPUs calling
// each other with interrupts off must not deadlock). Spins CSD_SPIN_NS, then halts between
// checks if interrupts are on (with them off only spinning is safe). Reports once, at a tenth
// of the limit (1 s at 2 CPUs, 2.6 s at 64, where a wait of a second is the host's doing and
// each report is one more line for 64 CPUs to queue on the console's lock), gives up at it.
//
// The queue is flushed with interrupts off, as the vector would run it. A sender waiting in
// thread context has them on, and a call queued to it can be popped here before its IPI
// arrives: run with interrupts on, drain_magazines was interrupted between reading a
// magazine and emptying it by an interrupt whose kfree pushed an object onto it (lost) or
// whose kmalloc popped one already handed back to the slab (handed out twice). Linux's
// flush_smp_call_function_queue likewise wraps its flush in local_irq_save.
static int
csd_wait(struct call_single_data *csd, int cpu)
{
  u64 start = ktime_ns();
  bool reported = false, may_halt = csd_may_halt && !irqs_disabled();
  int limit = ipi_timeout();   // once: num_online_cpus counts a mask (2.9% of a spinning wait)
  while(smp_load_acquire(&csd->busy)) {
    u64 flags = local_irq_save();
    flush_call_queue();
    local_irq_restore(flags);
    if(may_halt && ktime_ns() - start > CSD_SPIN_NS)
      csd_halt(csd);
    else
      cpu_relax();
    u64 waited = (ktime_ns() - start) / 1000000;
    if(waited > (u64)limit / 10 && !reported) {
      pr_err("ipi: CPU %d has not answered a call for %lu ms\n", cpu, waited);
      reported = true;
    }
    if(waited > (u64)limit) {
      pr_err("ipi: giving up on CPU %d after %lu ms\n", cpu, waited);
      return -ETIMEDOUT;
    }
  }
  return 0;
}

static int
queue_call(int cpu, void (*fn)(void *), void *arg)
{
  struct call_single_data *csd = this_cpu_ptr(&csd_for[cpu]);
  if(csd_wait(csd, cpu) < 0)   // the previous call to cpu, if made without waiting
    return -ETIMEDOUT;
  csd->fn = fn;
  csd->arg = arg;
  csd->sender = smp_processor_id();
  csd->busy = 1;
  struct call_single_data **q = &per_cpu(call_queue, cpu);
  struct call_single_data *head = READ_ONCE(*q);
  do {
    csd->next = head;
  } while(!__atomic_compare_exchange_n(q, &head, csd, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  arch_send_call_function_single_ipi(cpu);
  return 0;
}

int
smp_call_function_many(const struct cpumask *mask, void (*fn)(void *), void *arg, bool wait)
{
  BUG_ON(in_interrupt());
  int me = smp_processor_id();
  int cpu, err = 0;
  for_each_cpu(cpu, mask)
    if(cpu != me && cpumask_test_cpu(cpu, &cpu_online_mask) && queue_call(cpu, fn, arg) < 0)
      err = -ETIMEDOUT;
  if(!wait)
    return err;
  for_each_cpu(cpu, mask)
    if(cpu != me && cpumask_test_cpu(cpu, &cpu_online_mask) &&
       csd_wait(this_cpu_ptr(&csd_for[cpu]), cpu) < 0)
      err = -ETIMEDOUT;
  return err;
}

int
smp_call_function_single(int cpu, void (*fn)(void *), void *arg, bool wait)
{
  if(cpu < 0 || cpu >= nr_cpu_ids || !cpumask_test_cpu(cpu, &cpu_online_mask))
    return -EINVAL;
  if(cpu == smp_processor_id()) {
    u64 flags = local_irq_save();
    fn(arg);
    local_irq_restore(flags);
    return 0;
  }
  struct cpumask m;
  cpumask_clear(&m);
  cpumask_set_cpu(cpu, &m);
  return smp_call_function_many(&m, fn, arg, wait);
}

int
smp_call_function(void (*fn)(void *), void *arg, bool wait)
{
  return smp_call_function_many(&cpu_online_mask, fn, arg, wait);
}

int
on_each_cpu(void (*fn)(void *), void *arg, bool wait)
{
  int err = smp_call_function(fn, arg, wait);
  u64 flags = local_irq_save();
  fn(arg);
  local_irq_restore(flags);
  return err;
}
