// SMP bring-up: per-CPU areas and stacks, INIT-SIPI-SIPI to every AP at once, and the BOOT line.
// Dense CPU ids 0..n-1 (0 is the boot CPU) map to APIC ids, which need not be contiguous.
#include "bootinfo.h"
#include "bootmem.h"
#include "cmdline.h"
#include "cpumask.h"
#include "mm.h"
#include "panic.h"
#include "power.h"
#include "printk.h"
#include "sched.h"
#include "sections.h"
#include "smp.h"
#include "string.h"
#include "tick.h"
#include "time.h"
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/smp_boot.h>
#include <asm/traps.h>
#include <asm/x86.h>

int nr_cpu_ids = 1;
int nr_cpus_possible = 1;
u64 __per_cpu_offset[NR_CPUS];
DEFINE_PER_CPU(struct cpu, cpu_info);

u32 cpu_apic_id[NR_CPUS];
u64 ap_stack_top[256];            // by APIC id, read by ap_entry
static int apic_to_cpu[256];
u64 boot_us;

// The bring-up handshake, one word per APIC id. An AP that reaches ap_main calls in by
// moving its word from AP_WAITING to AP_CALLED_IN; the BSP, at its deadline, gives up on an
// AP by moving it from AP_WAITING to AP_ABANDONED. One compare-and-swap each, so exactly one
// of them wins: an AP either comes online, and the BSP waits for it however late, or halts
// without touching anything. With a flag read by the AP and online read by the BSP instead,
// an AP could read "not abandoned", then the BSP pass its deadline, see it not yet online,
// log that it never answered and publish cpu_online_mask without it, and then the AP come
// online: running its idle loop outside the mask, or inside it if it was just in time for
// mark_online, either way against the log. Linux's old do_boot_cpu had the AP call in
// (cpu_callin_mask) and then waited for cpu_online without a deadline; since 6.5 the same
// cmpxchg decides between cpuhp_ap_sync_alive and the BSP's timeout (kernel/cpu.c).
enum { AP_WAITING, AP_CALLED_IN, AP_ABANDONED };
static u32 ap_state[256];
static int nr_called_in;
int nr_cpus_started = 1;
u64 ap_callin_deadline_ns;
u64 late_ap_online_ns;


void
percpu_early_init(void)
{
  struct cpu *c = &cpu_info;   // the boot CPU uses the section itself: offset 0
  c->self = c;
  c->id = 0;
  wrmsr(MSR_GS_BASE, (u64)c);
}

// Each AP gets a copy of the per-CPU section, a guarded stack and its IST stacks, all
// allocated here on the boot CPU.
static void
prepare_cpu(int id, u32 apic)
{
  u64 size = __per_cpu_end - __per_cpu_start;
  struct page *pages = alloc_pages(GFP_KERNEL, get_order(size));
  if(!pages)
    panic("smp: no memory for CPU %d's per-CPU area", id);
  char *area = page_address(pages);
  // Zeroed, not copied: the boot CPU's copy is live by now (its run queue, RCU lists),
  // so per-CPU variables take no initializers and start at zero on every CPU.
  memset(area, 0, size);
  __per_cpu_offset[id] = (u64)area - (u64)__per_cpu_start;
  struct cpu *c = per_cpu_ptr(&cpu_info, id);
  memset(c, 0, sizeof(*c));
  c->self = c;
  c->percpu_off = __per_cpu_offset[id];
  c->id = id;
  c->apic_id = apic;
  c->stack_top = stack_alloc(KSTACK_SIZE);
  cpu_alloc_ist(c);
  cpu_apic_id[id] = apic;
  apic_to_cpu[apic] = id;
  ap_stack_top[apic] = c->stack_top;
}

void
ap_main(u32 apic)
{
  u32 waiting = AP_WAITING;
  if(!__atomic_compare_exchange_n(&ap_state[apic], &waiting, AP_CALLED_IN, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    machine_halt();     // the BSP gave up on this CPU and said so
  __atomic_fetch_add(&nr_called_in, 1, __ATOMIC_RELEASE);
  int id = apic_to_cpu[apic];
  struct cpu *c = per_cpu_ptr(&cpu_info, id);
  bool late = (u32)id == kcmdline.smp_late_ap;
  if(late)              // test: answer only after the BSP's deadline (smp-bringup)
    while(ktime_ns() <= ap_callin_deadline_ns + 1000000)
      cpu_relax();
  cpu_init(c);          // GDT, TSS, IDT, %gs
  lapic_init();         // this CPU's local APIC
  sched_init_ap();      // this context becomes the CPU's idle thread
  if(late)
    late_ap_online_ns = ktime_ns();
  smp_store_release(&c->online, 1);
  sched_idle_loop();    // the BSP adds it to cpu_online_mask before anything can target it
}

static void
start_aps(int n)
{
  // The trampoline runs at its low physical address with paging on, so that page is
  // identity-mapped in the kernel's tables while the APs come up.
  memcpy(__va(TRAMPOLINE_PA), trampoline_start, trampoline_end - trampoline_start);
  u64 off = TRAMPOLINE_PA - (u64)trampoline_start;
  *(u32 *)__va((u64)trampoline_cr3 + off) = kernel_cr3;
  *(u32 *)__va((u64)trampoline_efer + off) = (1 << 8) | (pte_nx ? EFER_NXE : 0);
  *(u64 *)__va((u64)trampoline_entry + off) = (u64)ap_entry;
  kernel_map(TRAMPOLINE_PA, TRAMPOLINE_PA, PAGE_SIZE, 0);

  // INIT, 10 ms, STARTUP, 200 us, STARTUP (Intel MP spec B.4), sent to all APs at once:
  // one 10 ms wait in total however many CPUs there are. The deadline is set first: the AP
  // of smp.late_ap= waits for it to pass.
  nr_cpus_started = n;
  ap_callin_deadline_ns = ktime_ns() + 10000000UL + 2000000000UL + (u64)n * 50000000UL;
  for(int id = 1; id < n; id++)
    lapic_send_ipi(cpu_apic_id[id], ICR_INIT | ICR_ASSERT | ICR_LEVEL);
  mdelay(10);
  for(int round = 0; round < 2; round++) {
    for(int id = 1; id < n; id++)
      lapic_send_ipi(cpu_apic_id[id], ICR_STARTUP | (TRAMPOLINE_PA >> 12));
    udelay(200);
  }

  // Under TCG every vCPU is a host thread sharing two cores: give each AP time.
  while(smp_load_acquire(&nr_called_in) < n - 1 && ktime_ns() < ap_callin_deadline_ns)
    cpu_relax();

  bool all = true;
  for(int id = 1; id < n; id++) {
    u32 waiting = AP_WAITING;
    if(!__atomic_compare_exchange_n(&ap_state[cpu_apic_id[id]], &waiting, AP_ABANDONED, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      continue;   // it called in: it is coming online
    all = false;
    pr_err("smp: the CPU with APIC id %u never answered INIT-SIPI-SIPI; going on without it\n",
           cpu_apic_id[id]);
  }
  // Every AP that called in comes online, however late: its own set-up is a few
  // microseconds of its time, so one that does not finish it is stuck, a kernel bug.
  for(int id = 1; id < n; id++) {
    if(ap_state[cpu_apic_id[id]] != AP_CALLED_IN)
      continue;
    u64 start = ktime_ns();
    while(!smp_load_acquire(&per_cpu_ptr(&cpu_info, id)->online))
      if(ktime_ns() - start > IPI_TIMEOUT_MS * 1000000UL)
        panic("smp: CPU %d (APIC id %u) called in but did not come online in %d ms", id,
              cpu_apic_id[id], IPI_TIMEOUT_MS);
      else
        cpu_relax();
  }
  // A late AP still needs the trampoline page mapped, so it is unmapped only when
  // every AP has left it.
  if(all)
    kernel_unmap(TRAMPOLINE_PA, PAGE_SIZE);
}

// CPU ids stay as assigned: a missing AP leaves a hole in cpu_online_mask (as in
// Linux), and nr_cpu_ids bounds every id in use.
static void
mark_online(int n)
{
  for(int id = 1; id < n; id++)
    if(per_cpu_ptr(&cpu_info, id)->online) {
      cpumask_set_cpu(id, &cpu_online_mask);
      nr_cpu_ids = id + 1;
    }
}

void
smp_init(void)
{
  acpi_init();                     // CPUs, I/O APICs, HPET from the MADT
  if(acpi_ok)
    lapic_phys = acpi.lapic_phys;
  pic_disable();                   // legacy 8259s masked: the APICs take over
  lapic_init();                    // the boot CPU's local APIC
  lapic_calibrate();               // timer ticks per ms, against the TSC
  ioapic_init();                   // every I/O APIC pin masked
  nmi_init();                      // NMI: panic stop and the hang detector
  ipi_init();                      // smp_call_function's vector

  struct cpu *bsp = this_cpu_info();
  bsp->apic_id = lapic_id();
  bsp->online = 1;
  cpu_apic_id[0] = bsp->apic_id;
  cpumask_set_cpu(0, &cpu_online_mask);

  int n = 1;
  nr_cpus_possible = acpi_ok ? acpi.ncpus : 1;
  u32 limit = kcmdline.nr_cpus ? kcmdline.nr_cpus : NR_CPUS;
  for(int i = 0; acpi_ok && i < acpi.ncpus && n < (int)limit; i++)
    if(acpi.apic_id[i] != bsp->apic_id)
      prepare_cpu(n++, acpi.apic_id[i]);
  if(n > 1)
    start_aps(n);
  mark_online(n);

  boot_us = ktime_ns() / 1000;
  printk("BOOT cpus=%d possible=%d mem_mib=%lu tsc_khz=%lu boot_us=%lu\n", num_online_cpus(),
         nr_cpus_possible, bootmem_ram_bytes() >> 20, tsc_khz, boot_us);
  tick_start();                    // the boot CPU is busy: its tick runs
}
