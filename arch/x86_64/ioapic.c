// The I/O APIC routes device interrupts to CPUs; the legacy 8259 PICs are masked for good.
// Register layout from the Intel 82093AA I/O APIC data sheet (IOREGSEL at 0, IOWIN at 0x10).
#include "printk.h"
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/x86.h>

#define IOREGSEL   0x00
#define IOWIN      0x10
#define IOAPICVER  0x01
#define REDTBL(n)  (0x10 + 2 * (n))
#define RTE_MASKED 0x10000
#define RTE_LEVEL  0x8000   // trigger mode: level (else edge)
#define RTE_LOW    0x2000   // pin polarity: active low (else high)
#define RTE_DM_NMI 0x400
#define ISO_POLARITY 0x3    // MPS INTI flags (ACPI 6.4, table 5.51): 01 high, 11 low, 00 the bus's
#define ISO_TRIGGER  0xc    // 01 edge, 11 level, 00 the bus's (ISA: edge, active high)


struct ioapic {
  volatile u32 *mmio;
  u32 gsi_base;
  u32 nr_pins;
};

static struct ioapic ioapics[ACPI_MAXIOAPIC];
static int nioapic;

static u32
ioapic_read(struct ioapic *io, u32 reg)
{
  io->mmio[IOREGSEL / 4] = reg;
  return io->mmio[IOWIN / 4];
}

static void
ioapic_write(struct ioapic *io, u32 reg, u32 v)
{
  io->mmio[IOREGSEL / 4] = reg;
  io->mmio[IOWIN / 4] = v;
}

// Both 8259s: remap them away from the exception vectors, then mask every line, so a
// stray legacy interrupt can never look like a CPU exception.
void
pic_disable(void)
{
  outb(0x20, 0x11);
  outb(0xa0, 0x11);
  outb(0x21, 0x20);
  outb(0xa1, 0x28);
  outb(0x21, 0x04);
  outb(0xa1, 0x02);
  outb(0x21, 0x01);
  outb(0xa1, 0x01);
  outb(0x21, 0xff);
  outb(0xa1, 0xff);
}

void
ioapic_init(void)
{
  for(int i = 0; i < acpi.nioapic; i++) {
    struct ioapic *io = &ioapics[nioapic++];
    io->mmio = ioremap(acpi.ioapic[i].phys, PAGE_SIZE);
    io->gsi_base = acpi.ioapic[i].gsi_base;
    io->nr_pins = ((ioapic_read(io, IOAPICVER) >> 16) & 0xff) + 1;
    for(u32 pin = 0; pin < io->nr_pins; pin++) {
      ioapic_write(io, REDTBL(pin), RTE_MASKED);
      ioapic_write(io, REDTBL(pin) + 1, 0);
    }
    pr_info("ioapic: id %u at %#x, GSIs %u-%u, all masked\n", acpi.ioapic[i].id,
            acpi.ioapic[i].phys, io->gsi_base, io->gsi_base + io->nr_pins - 1);
  }
}

// The pin serving a GSI, or NULL (reported).
static struct ioapic *
ioapic_pin(u32 gsi, u32 *pin)
{
  for(int i = 0; i < nioapic; i++) {
    struct ioapic *io = &ioapics[i];
    if(gsi >= io->gsi_base && gsi < io->gsi_base + io->nr_pins) {
      *pin = gsi - io->gsi_base;
      return io;
    }
  }
  pr_err("ioapic: no I/O APIC serves GSI %u\n", gsi);
  return NULL;
}

// Route a GSI to one CPU, edge triggered, active high (ISA defaults; an interrupt
// source override would say otherwise for its line).
void
ioapic_route(u32 gsi, u8 vector, u32 apic_id)
{
  u32 pin;
  struct ioapic *io = ioapic_pin(gsi, &pin);
  if(!io)
    return;
  ioapic_write(io, REDTBL(pin) + 1, apic_id << 24);
  ioapic_write(io, REDTBL(pin), vector);
}

// The same with delivery mode NMI (100b in bits 10:8), whose vector is ignored.
void
ioapic_route_nmi(u32 gsi, u32 apic_id)
{
  u32 pin;
  struct ioapic *io = ioapic_pin(gsi, &pin);
  if(!io)
    return;
  ioapic_write(io, REDTBL(pin) + 1, apic_id << 24);
  ioapic_write(io, REDTBL(pin), RTE_DM_NMI);
}

// The MADT's interrupt source override for an ISA IRQ, or NULL: the IRQ is the GSI of the same
// number, edge triggered and active high (ACPI 6.4, 5.2.12.5).
static const struct acpi_iso *
isa_override(u32 irq)
{
  for(int i = 0; i < acpi.niso; i++)
    if(acpi.iso[i].bus_irq == irq)
      return &acpi.iso[i];
  return NULL;
}

u32
isa_irq_gsi(u32 irq)
{
  const struct acpi_iso *iso = isa_override(irq);
  return iso ? iso->gsi : irq;
}

void
ioapic_route_isa(u32 irq, u8 vector, u32 apic_id)
{
  const struct acpi_iso *iso = isa_override(irq);
  u32 pin, flags = 0;
  struct ioapic *io = ioapic_pin(isa_irq_gsi(irq), &pin);
  if(!io)
    return;
  if(iso && (iso->flags & ISO_POLARITY) == 0x3)
    flags |= RTE_LOW;
  if(iso && (iso->flags & ISO_TRIGGER) == 0xc)
    flags |= RTE_LEVEL;
  ioapic_write(io, REDTBL(pin) + 1, apic_id << 24);
  ioapic_write(io, REDTBL(pin), vector | flags);
}

void
ioapic_mask(u32 gsi)
{
  u32 pin;
  struct ioapic *io = ioapic_pin(gsi, &pin);
  if(io)
    ioapic_write(io, REDTBL(pin), RTE_MASKED);
}
