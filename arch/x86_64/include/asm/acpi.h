// ACPI table parser: from the boot-time RSDP copy to the CPUs, I/O APICs,
// interrupt overrides, HPET and RTC century the kernel needs to bring up SMP and timers.
#pragma once
#include "types.h"

#define ACPI_MAXCPU 255     // xAPIC ids 0..254; 255 is the broadcast address
#define ACPI_MAXIOAPIC 8
#define ACPI_MAXISO 16      // one per ISA IRQ
#define ACPI_MAXWARN 8

struct acpi_ioapic {
  u8 id;
  u32 phys;       // register window
  u32 gsi_base;   // first global system interrupt it serves
};

// Interrupt Source Override: ISA IRQ bus_irq arrives on GSI gsi.
struct acpi_iso {
  u8 bus_irq;
  u32 gsi;
  u16 flags;      // MPS INTI flags: polarity in bits 0-1, trigger mode in bits 2-3
};

// What acpi_parse found. On failure only error and warn[] are meaningful.
struct acpi_info {
  u8 revision;              // RSDP revision: 0 for ACPI 1.0, 2 for ACPI 2.0 and later
  char oem_id[7];           // from the RSDP, NUL-terminated
  u64 lapic_phys;           // local APIC registers
  bool pcat_compat;         // dual 8259 PICs present; mask them before using I/O APICs
  int ncpus;
  u8 apic_id[ACPI_MAXCPU];  // usable CPUs, in MADT order, no duplicates
  int nx2apic_skipped;      // CPUs with x2APIC ids > 254, unreachable in xAPIC mode
  int nioapic;
  struct acpi_ioapic ioapic[ACPI_MAXIOAPIC];
  int niso;
  struct acpi_iso iso[ACPI_MAXISO];
  u64 hpet_phys;            // HPET registers; 0 if there is no usable HPET table
  u8 century;               // the RTC's CMOS index of the century (FADT); 0: none
  const char *error;        // NULL on success
  int nwarn;
  const char *warn[ACPI_MAXWARN];  // static text, each message at most once
};

// Provided by the caller: a pointer to physical memory [phys, phys+len),
// or NULL if that range is not readable RAM or ACPI memory.
void *acpi_map(u64 phys, size_t len);

// Parse the tables reachable from an RSDP copy (multiboot2 tag 14 or 15).
// Returns 0 if a usable MADT with at least one CPU was found; otherwise -1
// with out->error set, and the kernel should boot on one CPU.
int acpi_parse(const void *rsdp, size_t rsdp_len, struct acpi_info *out);

// The kernel's own reading of the tables (arch/x86_64/acpi_boot.c): acpi_init parses the
// RSDP multiboot handed over and sets acpi_ok when acpi is usable.
extern struct acpi_info acpi;
extern bool acpi_ok;
void acpi_init(void);
