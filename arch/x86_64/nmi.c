// NMIs: the panic path stops other CPUs with one (it gets through even with interrupts off),
// the hang detector sends one to a stuck CPU, the profiler samples with them (kernel/profile.c),
// and one from the host dumps a hung kernel.
#include "panic.h"
#include "power.h"
#include "printk.h"
#include "profile.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "watchdog.h"
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/stacktrace.h>
#include <asm/traps.h>
#include <asm/x86.h>

static bool apic_ready;
static int nr_stopped;
static int dump_cpu = -1;   // the CPU that reports a host NMI
static int dump_lock;       // one CPU prints at a time
static int nr_dumped;

void
nmi_init(void)
{
  apic_ready = true;
}

// An NMI the kernel did not send comes from the host: QEMU's `nmi` monitor command, which
// reaches every CPU, and which tools/qemu.sh sends when a run hits its TIMEOUT. Each CPU
// prints where it is; the first to arrive then lists every thread and ends the run with a
// panic, so a hang leaves a report instead of a silent kill (Linux's sysrq-l and sysrq-t).
static void __noreturn
host_nmi(struct trapframe *tf)
{
  struct cpu *c = this_cpu_info();
  int none = -1;
  bool reporter = __atomic_compare_exchange_n(&dump_cpu, &none, c->id, false, __ATOMIC_ACQ_REL,
                                              __ATOMIC_RELAXED);

  printk_panic_mode();   // an interrupted CPU may hold the console lock: wait only so long
  while(__atomic_exchange_n(&dump_lock, 1, __ATOMIC_ACQUIRE))
    cpu_relax();
  printk(KERN_EMERG "nmi: CPU %d %s in %s\n", c->id, c->idle ? "idle" : "busy", current->name);
  show_regs(tf);
  lapic_show_timer();
  show_backtrace(tf->rbp, tf->rip, tf->rsp);
  smp_store_release(&dump_lock, 0);
  __atomic_fetch_add(&nr_dumped, 1, __ATOMIC_RELEASE);
  if(!reporter) {   // stopped, as panic's NMI would stop it
    c->stopped = 1;
    __atomic_fetch_add(&nr_stopped, 1, __ATOMIC_RELEASE);
    machine_halt();
  }
  u64 until = ktime_ns() + 2000000000UL;   // a descheduled vCPU answers late
  while(smp_load_acquire(&nr_dumped) < num_online_cpus() && ktime_ns() < until)
    cpu_relax();
  show_state();
  panic_trap(tf, "NMI from the host (qemu.sh sends one at TIMEOUT): CPUs and threads above");
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
  // Every source is asked, since one NMI may stand for several (SDM vol. 3A, 6.7.1): the
  // profiler's may have merged with the watchdog's.
  bool profiled = profile_nmi(tf);
  if(watchdog_nmi(tf) || profiled)
    return;
  host_nmi(tf);
}

void
smp_stop_others(void)
{
  if(!apic_ready || num_online_cpus() < 2)
    return;
  lapic_send_ipi_all_but_self(ICR_NMI);
  // Bounded: a vCPU the host is not running answers late; the report goes on anyway.
  u64 until = ktime_ns() + 100000000UL;
  while(smp_load_acquire(&nr_stopped) < num_online_cpus() - 1 &&
        ktime_ns() < until)
    cpu_relax();
}
