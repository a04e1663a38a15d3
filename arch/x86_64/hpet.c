// The HPET as the profiler's NMI source: timer 0 in periodic mode, through the I/O APIC with
// delivery mode NMI to one CPU, so that samples land inside interrupt-disabled regions too.
#include "printk.h"
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/hpet.h>
#include <asm/memlayout.h>
#include <asm/nmi_timer.h>
#include <asm/paging.h>
#include <asm/smp.h>

// Registers and bits from the IA-PC HPET specification 1.0a, section 2.3.
#define HPET_GCAP       0x000   // bits 63:32 the counter's period in femtoseconds
#define HPET_GCFG       0x010
#define HPET_MAIN       0x0f0
#define HPET_T0_CFG     0x100
#define HPET_T0_CMP     0x108
#define GCFG_ENABLE     (1u << 0)
#define GCFG_LEGACY     (1u << 1)   // LEG_RT_CNF: timer 0 -> I/O APIC pin 2, the 8254 cut off
#define TCFG_INT_ENB    (1u << 2)
#define TCFG_PERIODIC   (1u << 3)
#define TCFG_PER_CAP    (1u << 4)
#define TCFG_VAL_SET    (1u << 6)
#define TCFG_32BIT      (1u << 8)
#define LEGACY_T0_GSI   2           // spec 2.3.9.2.1: "IRQ2 in the I/O APIC"

static volatile u32 *hpet;
static u32 period;      // counter ticks between two NMIs
static u32 last_cmp;    // the comparator at the last NMI the timer sent

static u32
hpet_read(u32 reg)
{
  return hpet[reg / 4];
}

static void
hpet_write(u32 reg, u32 v)
{
  hpet[reg / 4] = v;
}

// Legacy replacement routing, as Linux's HPET clock event device uses it: the route needs no
// knowledge of the chipset's Tn_INT_ROUTE_CAP wiring (QEMU's pc machine offers timer 0 only
// GSI 2, which the 8254 also drives; LEG_RT_CNF disconnects the 8254, whose 18.2 Hz BIOS tick
// would otherwise arrive as NMIs too). The timer runs in 32-bit mode (Tn_32MODE_CNF) so that each
// register is one 32-bit access: a 64-bit comparator written in halves would set only its low
// half with Tn_VAL_SET_CNF, which the first write clears (spec 2.3.9.2.2, table 2-8).
bool
arch_nmi_timer_init(u32 hz, int cpu)
{
  if(!acpi.hpet_phys) {
    pr_err("profile: no HPET in the ACPI tables: no NMI source, profiling off\n");
    return false;
  }
  hpet = ioremap(acpi.hpet_phys, PAGE_SIZE);
  u32 fs = hpet_read(HPET_GCAP + 4);
  if(fs == 0 || fs > 100000000 || !(hpet_read(HPET_T0_CFG) & TCFG_PER_CAP)) {
    pr_err("profile: HPET period %u fs or timer 0 without periodic mode: profiling off\n", fs);
    return false;
  }
  period = (u32)(1000000000000000ULL / ((u64)fs * hz));
  // Counter halted and cleared, comparator and period set with Tn_VAL_SET_CNF (the second
  // write of the comparator sets the period alone): Linux's hpet_clkevt_set_state_periodic,
  // with the counter cleared so that the first NMI is a period after the first start.
  hpet_write(HPET_GCFG, GCFG_LEGACY);
  hpet_write(HPET_MAIN, 0);
  hpet_write(HPET_MAIN + 4, 0);
  hpet_write(HPET_T0_CFG, TCFG_INT_ENB | TCFG_PERIODIC | TCFG_VAL_SET | TCFG_32BIT);
  hpet_write(HPET_T0_CMP, period);
  hpet_write(HPET_T0_CMP, period);
  last_cmp = period;
  // NMI delivery ignores the vector and is always edge triggered (82093AA data sheet, 3.2.4).
  ioapic_route_nmi(LEGACY_T0_GSI, cpu_apic_id[cpu]);
  pr_info("profile: HPET at %#lx, %u fs a tick, NMI every %u ticks to CPU %d\n",
          acpi.hpet_phys, fs, period, cpu);
  return true;
}

// The counter runs only while samples are wanted, so an idle CPU is not woken between them;
// halting it freezes the comparator too (spec 2.3.5), and the NMI handler's bookkeeping
// carries on across a stop and a start: an NMI the timer raised before a stop, delivered late
// to a vCPU the host was not running, still finds the comparator moved.
void
arch_nmi_timer_start(void)
{
  hpet_write(HPET_GCFG, GCFG_LEGACY | GCFG_ENABLE);
}

void
arch_nmi_timer_stop(void)
{
  hpet_write(HPET_GCFG, GCFG_LEGACY);
}

// In periodic mode the comparator steps on by the period each time the timer fires (spec
// 2.3.9.2.2): how far it moved since the last NMI says how many periods have passed (more
// than one when a descheduled vCPU missed some: one NMI stays latched, SDM vol. 3A, 6.7.1, so
// the others merged into it). An NMI that finds it unmoved may still be the timer's: it fired
// again while the handler ran, before it read the comparator, which latched a second NMI; or
// QEMU 7.2's hpet_timer found the counter exactly at the comparator, raised the NMI without
// moving the comparator (its "after" test is strict) and raised it again a tick later.
u32
arch_nmi_timer_fired(void)
{
  u32 n = (hpet_read(HPET_T0_CMP) - last_cmp) / period;

  last_cmp += n * period;
  return n;
}

// The main counter as a reference clock for checking the TSC (tests/kernel/tsc_test.c): the
// femtoseconds of a tick, or 0 if there is no HPET. A counter this starts, hpet_clock_end
// halts again. One the profiler set up and halted is borrowed: timer 0's interrupt masked
// while it runs, then the counter, comparator and period put back as they were (the
// comparator write with Tn_VAL_SET sets it, the next one the period: spec 2.3.9.2.2), so the
// profiler's bookkeeping (last_cmp) finds no period passed.
static bool clock_started;
static u32 saved_t0_cfg, saved_t0_cmp;
static u64 saved_main;

u32
hpet_clock_begin(void)
{
  if(!acpi.hpet_phys)
    return 0;
  if(!hpet) {
    hpet = ioremap(acpi.hpet_phys, PAGE_SIZE);
    hpet_write(HPET_GCFG, 0);     // spec 2.3.5: timers' interrupts still off (the reset value)
  }
  u32 fs = hpet_read(HPET_GCAP + 4);
  u32 cfg = hpet_read(HPET_GCFG);
  if(fs == 0 || fs > 100000000)
    return 0;
  clock_started = !(cfg & GCFG_ENABLE);
  if(clock_started) {
    saved_t0_cfg = hpet_read(HPET_T0_CFG);
    saved_t0_cmp = hpet_read(HPET_T0_CMP);
    saved_main = hpet_clock_read();
    hpet_write(HPET_T0_CFG, saved_t0_cfg & ~TCFG_INT_ENB);
    hpet_write(HPET_GCFG, cfg | GCFG_ENABLE);
  }
  return fs;
}

// One 64-bit read: QEMU's HPET takes 8-byte accesses to the main counter whole.
u64
hpet_clock_read(void)
{
  return *(volatile u64 *)((volatile u8 *)hpet + HPET_MAIN);
}

void
hpet_clock_end(void)
{
  if(!clock_started)
    return;
  hpet_write(HPET_GCFG, hpet_read(HPET_GCFG) & ~GCFG_ENABLE);
  hpet_write(HPET_MAIN, (u32)saved_main);
  hpet_write(HPET_MAIN + 4, (u32)(saved_main >> 32));
  if(period) {
    hpet_write(HPET_T0_CFG, saved_t0_cfg | TCFG_VAL_SET);
    hpet_write(HPET_T0_CMP, saved_t0_cmp);
    hpet_write(HPET_T0_CMP, period);
  }
  hpet_write(HPET_T0_CFG, saved_t0_cfg);
  clock_started = false;
}
