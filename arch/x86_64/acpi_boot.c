// What the firmware says about this machine: the ACPI tables, read through the direct map.
// A missing or damaged MADT is reported and the kernel boots on the boot CPU alone.
#include "bootinfo.h"
#include "bootmem.h"
#include "printk.h"
#include <asm/acpi.h>
#include <asm/memlayout.h>
#include <asm/paging.h>

struct acpi_info acpi;
bool acpi_ok;

// ACPI tables live in ranges the memory map lists: RAM and ACPI ranges are
// direct-mapped already, and firmware-reserved ones (QEMU puts its tables there) are
// mapped read-only at their direct-map address on first use.
void *
acpi_map(u64 phys, size_t len)
{
  if(len == 0 || phys + len < phys || !bootmem_in_map(phys, len))
    return NULL;
  for(u64 pa = ALIGN_DOWN(phys, PAGE_SIZE); pa < phys + len; pa += PAGE_SIZE)
    if(!kernel_addr_mapped((u64)__va(pa)) && kernel_map((u64)__va(pa), pa, PAGE_SIZE, pte_nx) < 0)
      return NULL;
  return __va(phys);
}

void
acpi_init(void)
{
  if(bootinfo.rsdp_len == 0) {
    pr_err("acpi: the boot loader found no RSDP; booting on one CPU\n");
    return;
  }
  int err = acpi_parse(bootinfo.rsdp, bootinfo.rsdp_len, &acpi);
  for(int i = 0; i < acpi.nwarn; i++)
    pr_warn("acpi: warning: %s\n", acpi.warn[i]);
  if(err < 0) {
    pr_err("acpi: %s; booting on one CPU\n", acpi.error);
    return;
  }
  acpi_ok = true;
  pr_info("acpi: rev %u, OEM '%s', %d CPUs, %d I/O APICs, %d overrides, local APIC at %#lx%s\n",
          acpi.revision, acpi.oem_id, acpi.ncpus, acpi.nioapic, acpi.niso, acpi.lapic_phys,
          acpi.pcat_compat ? ", 8259 PICs present" : "");
  if(acpi.nx2apic_skipped)
    pr_warn("acpi: %d CPUs have x2APIC ids above 254, unreachable in xAPIC mode: skipped\n",
            acpi.nx2apic_skipped);
  if(acpi.hpet_phys)
    pr_info("acpi: HPET at %#lx\n", acpi.hpet_phys);
}
