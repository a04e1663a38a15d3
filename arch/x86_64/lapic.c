// The local APIC of each CPU: enabling it, IPIs, and the one-shot timer that drives the tick;
// behind it, the arch interfaces generic code uses (asm/irq.h, asm/smp.h, asm/timer.h).
// xAPIC registers through the MMIO page, physical destination mode (8-bit ids, up to 255 CPUs);
// x2APIC through MSRs only where CPUID.1:ECX[21] says the CPU has it (QEMU 7.2's TCG does not).
#include "printk.h"
#include "time.h"
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/irq.h>
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <asm/timer.h>
#include <asm/traps.h>
#include <asm/x86.h>

#define APIC_BASE_ENABLE  (1UL << 11)
#define APIC_BASE_X2APIC  (1UL << 10)
#define SVR_ENABLE        0x100
#define LVT_MASKED        0x10000
#define LVT_DM_NMI        0x400

bool x2apic_mode;
u64 lapic_timer_khz;
static volatile u32 *lapic_mmio;
u64 lapic_phys = 0xfee00000;

static u32
lapic_read(u32 reg)
{
  if(x2apic_mode)
    return rdmsr(0x800 + (reg >> 4));
  return lapic_mmio[reg / 4];
}

static void
lapic_write(u32 reg, u32 v)
{
  if(x2apic_mode)
    wrmsr(0x800 + (reg >> 4), v);
  else
    lapic_mmio[reg / 4] = v;
}

u32
lapic_id(void)
{
  return x2apic_mode ? lapic_read(APIC_ID) : lapic_read(APIC_ID) >> 24;
}

void
arch_irq_eoi(void)
{
  lapic_write(APIC_EOI, 0);
}

// The spurious vector needs no EOI (SDM vol. 3A, 11.9).
static void
spurious_irq(struct trapframe *tf)
{
}

void
lapic_init(void)
{
  u32 a, b, c, d;
  cpuid(1, 0, &a, &b, &c, &d);
  u64 base = rdmsr(MSR_APIC_BASE);
  if(!lapic_mmio && !x2apic_mode) {
    x2apic_mode = (c >> 21) & 1;
    if(!x2apic_mode)
      lapic_mmio = ioremap(lapic_phys, PAGE_SIZE);
    set_irq_handler(VEC_SPURIOUS, spurious_irq);
  }
  base |= APIC_BASE_ENABLE;
  if(x2apic_mode)
    base |= APIC_BASE_X2APIC;
  wrmsr(MSR_APIC_BASE, base);

  lapic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
  lapic_write(APIC_LVT_TMR, LVT_MASKED);
  lapic_write(APIC_LVT_LINT0, LVT_MASKED);
  // LINT1 is the platform's NMI line (MP spec, 5.1; QEMU's inject-nmi raises it on every
  // CPU): delivered as an NMI everywhere, as Linux's apic_extnmi=all, so a dump request
  // reaches every CPU (arch/x86_64/nmi.c). Delivery mode NMI is 100b (SDM vol. 3A, 10.5.1).
  lapic_write(APIC_LVT_LINT1, LVT_DM_NMI);
  lapic_write(APIC_LVT_ERR, LVT_MASKED);
  lapic_write(APIC_ESR, 0);
  lapic_write(APIC_ESR, 0);
  lapic_write(APIC_TPR, 0);   // accept every vector
  lapic_write(APIC_TMR_DIV, 0x3);   // divide by 16
  arch_irq_eoi();
}

bool
lapic_ipi_wait(void)
{
  if(x2apic_mode)
    return true;   // x2APIC ICR writes complete at once (SDM vol. 3A, 11.12.9)
  for(int i = 0; i < 1000000; i++) {
    if(!(lapic_read(APIC_ICR_LO) & ICR_PENDING))
      return true;
    cpu_relax();
  }
  return false;
}

void
lapic_send_ipi(u32 apic_id, u32 cmd)
{
  u64 flags = local_irq_save();
  if(x2apic_mode) {
    wrmsr(0x830, ((u64)apic_id << 32) | cmd);
  } else {
    lapic_ipi_wait();
    lapic_write(APIC_ICR_HI, apic_id << 24);
    lapic_write(APIC_ICR_LO, cmd);   // writing the low half sends it
  }
  local_irq_restore(flags);
}

void
lapic_send_ipi_all_but_self(u32 cmd)
{
  u64 flags = local_irq_save();
  if(x2apic_mode) {
    wrmsr(0x830, cmd | ICR_ALL_BUT_SELF);
  } else {
    lapic_ipi_wait();
    lapic_write(APIC_ICR_HI, 0);
    lapic_write(APIC_ICR_LO, cmd | ICR_ALL_BUT_SELF);
  }
  local_irq_restore(flags);
}

// The vectors are the ones generic code set handlers for (asm/traps.h). Ordering is the
// caller's: each caller orders its stores before the send with a locked instruction or a full
// fence, and names what that pairs with.
void
smp_send_reschedule(int cpu)
{
  lapic_send_ipi(cpu_apic_id[cpu], ICR_FIXED | VEC_RESCHED);
}

void
arch_send_call_function_single_ipi(int cpu)
{
  lapic_send_ipi(cpu_apic_id[cpu], ICR_FIXED | VEC_CALL);
}

void
arch_send_nmi(int cpu)
{
  lapic_send_ipi(cpu_apic_id[cpu], ICR_NMI);
}

// From an NMI handler: the NMI may have interrupted lapic_send_ipi on this CPU between its
// two ICR writes, so the destination it wrote is put back before returning, and the ICR is
// idle again, as that sender's next write expects (SDM vol. 3A, 11.6.1: software writes the
// ICR only while its delivery status is idle). x2APIC's ICR is one MSR write, nothing to keep.
void
arch_send_nmi_from_nmi(int cpu)
{
  if(x2apic_mode) {
    wrmsr(0x830, ((u64)cpu_apic_id[cpu] << 32) | ICR_NMI);
    return;
  }
  u32 hi = lapic_read(APIC_ICR_HI);
  lapic_ipi_wait();
  lapic_write(APIC_ICR_HI, cpu_apic_id[cpu] << 24);
  lapic_write(APIC_ICR_LO, ICR_NMI);
  lapic_ipi_wait();
  lapic_write(APIC_ICR_HI, hi);
}

// Count the timer's decrements over 10 ms of the (already calibrated) TSC.
void
lapic_calibrate(void)
{
  lapic_write(APIC_LVT_TMR, LVT_MASKED);
  lapic_write(APIC_TMR_INIT, 0xffffffff);
  mdelay(10);
  u32 left = lapic_read(APIC_TMR_CUR);
  lapic_write(APIC_TMR_INIT, 0);
  lapic_timer_khz = (0xffffffffu - left) / 10;
  if(lapic_timer_khz == 0)
    lapic_timer_khz = 1;
  pr_info("lapic: timer at %lu kHz (bus clock / 16), %s mode\n", lapic_timer_khz,
          x2apic_mode ? "x2APIC" : "xAPIC");
}

// One-shot mode: the tick code re-arms it, and idle simply does not, so an idle CPU
// takes no timer interrupts at all (tickless idle).
void
arch_timer_set_oneshot(u64 ns)
{
  u64 count = ns * lapic_timer_khz / 1000000;
  if(count == 0)
    count = 1;
  if(count > 0xffffffff)
    count = 0xffffffff;
  lapic_write(APIC_LVT_TMR, VEC_TIMER);   // one-shot, unmasked
  lapic_write(APIC_TMR_INIT, count);
}

// The timer's vector is requested (IRR) and its priority class is above the processor
// priority (PPR: the TPR and the highest vector in service, SDM vol. 3A, 11.8.3.1): with
// interrupts on, the CPU takes it at its next instruction boundary. For the hard-lockup
// check: a tick in this state that does not come is the host's doing, not this kernel's.
bool
arch_timer_deliverable(void)
{
  u32 irr = lapic_read(APIC_IRR + (VEC_TIMER / 32) * 0x10);
  return (irr & (1u << (VEC_TIMER % 32))) && (VEC_TIMER >> 4) > (lapic_read(APIC_PPR) >> 4);
}

void
arch_timer_stop(void)
{
  lapic_write(APIC_TMR_INIT, 0);
}

// For dumps of a hung CPU: is its timer armed, and when does it fire; is an interrupt waiting.
void
lapic_show_timer(void)
{
  u32 lvt = lapic_read(APIC_LVT_TMR), init = lapic_read(APIC_TMR_INIT);
  u32 cur = lapic_read(APIC_TMR_CUR);
  u32 irr = lapic_read(APIC_IRR + (VEC_TIMER / 32) * 0x10);
  u32 isr = lapic_read(APIC_ISR + (VEC_TIMER / 32) * 0x10);
  printk(KERN_EMERG "  timer: lvt %#x init %u current %u (%lu us left); vector %d %s%s\n", lvt,
         init, cur, (u64)cur * 1000 / lapic_timer_khz, VEC_TIMER,
         irr & (1u << (VEC_TIMER % 32)) ? "requested " : "",
         isr & (1u << (VEC_TIMER % 32)) ? "in service" : "");
}
