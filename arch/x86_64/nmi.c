// NMIs: the panic path stops other CPUs with one (it gets through even with interrupts off),
// and the hang detector sends one to a stuck CPU so it panics with its own backtrace.
#include "apic.h"
#include "cpu.h"
#include "panic.h"
#include "power.h"
#include "printk.h"
#include "smp.h"
#include "time.h"
#include "traps.h"
#include "watchdog.h"
#include "x86.h"

static bool apic_ready;
static int nr_stopped;

void
nmi_init(void)
{
  apic_ready = true;
}

// The CPU stays in the NMI handler: further NMIs are blocked until an iret that
// never comes, so it stops for good (SDM vol. 3A, 6.7.1).
void
nmi_handler(struct trapframe *tf)
{
  struct cpu *c = this_cpu_info();
  c->nmi_count++;
  if(panic_in_progress()) {
    c->stopped = 1;
    __atomic_fetch_add(&nr_stopped, 1, __ATOMIC_RELEASE);
    machine_halt();
  }
  if(watchdog_nmi(tf))
    return;
  pr_warn("nmi: unexpected NMI on CPU %d at %#lx\n", c->id, tf->rip);
}

void
smp_stop_others(void)
{
  if(!apic_ready || num_online_cpus() < 2)
    return;
  lapic_send_ipi_all_but_self(ICR_NMI);
  // Bounded: a vCPU the host is not running answers late; the report goes on anyway.
  u64 until = ktime_ns() + 100000000UL;
  while(__atomic_load_n(&nr_stopped, __ATOMIC_ACQUIRE) < num_online_cpus() - 1 &&
        ktime_ns() < until)
    cpu_relax();
}
