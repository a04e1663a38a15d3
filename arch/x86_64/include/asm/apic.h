// The local APIC (xAPIC through its MMIO page, or x2APIC through MSRs when CPUID offers it)
// and the I/O APIC. Register numbers from the Intel SDM vol. 3A, chapter 11 (table 11-1).
#pragma once
#include "types.h"

#define APIC_ID      0x020
#define APIC_TPR     0x080
#define APIC_PPR     0x0a0   // processor priority (read-only)
#define APIC_EOI     0x0b0
#define APIC_ISR     0x100   // 8 registers, 0x10 apart: vectors in service
#define APIC_SVR     0x0f0
#define APIC_IRR     0x200   // 8 registers, 0x10 apart: vectors requested
#define APIC_ESR     0x280
#define APIC_ICR_LO  0x300
#define APIC_ICR_HI  0x310
#define APIC_LVT_TMR 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERR 0x370
#define APIC_TMR_INIT 0x380
#define APIC_TMR_CUR 0x390
#define APIC_TMR_DIV 0x3e0

// ICR fields
#define ICR_FIXED      0x000
#define ICR_NMI        0x400
#define ICR_INIT       0x500
#define ICR_STARTUP    0x600
#define ICR_PENDING    0x1000
#define ICR_ASSERT     0x4000
#define ICR_LEVEL      0x8000
#define ICR_ALL_BUT_SELF 0xc0000

// Generic code reaches the local APIC only through asm/irq.h, asm/smp.h and asm/timer.h.
extern bool x2apic_mode;
extern u64 lapic_phys;        // the local APIC's registers (the MADT may move them)
extern u64 lapic_timer_khz;   // timer ticks per millisecond (divide-by-16 clock)

void lapic_init(void);            // this CPU's local APIC: enable, mask LVTs, timer
u32 lapic_id(void);
void lapic_send_ipi(u32 apic_id, u32 vector_and_mode);
void lapic_send_ipi_all_but_self(u32 vector_and_mode);
bool lapic_ipi_wait(void);        // false if the ICR stayed busy
void lapic_show_timer(void);      // for dumps: the timer's state and any pending tick
void lapic_calibrate(void);

void ioapic_init(void);
void ioapic_route(u32 gsi, u8 vector, u32 apic_id);
void ioapic_route_nmi(u32 gsi, u32 apic_id);   // edge, delivery mode NMI
// An ISA IRQ through the MADT's interrupt source overrides: its GSI, polarity and trigger mode.
u32 isa_irq_gsi(u32 irq);
void ioapic_route_isa(u32 irq, u8 vector, u32 apic_id);
void ioapic_mask(u32 gsi);
void pic_disable(void);
