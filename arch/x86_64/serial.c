// The 16550 UART on COM1: the kernel's console, 115200 8N1. Output is polled; input comes
// by the received-data interrupt (ISA IRQ 4) while a terminal session wants it.
// Register offsets and bits from the PC16550D data sheet (National Semiconductor, 1995).
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/irq.h>
#include <asm/serial.h>
#include <asm/smp.h>
#include <asm/traps.h>
#include <asm/x86.h>

#define COM1 0x3f8
#define COM1_IRQ 4   // ISA IRQ of COM1 (an ACPI interrupt source override may move it)
#define THR 0   // transmit holding register (DLAB=0)
#define RBR 0   // receiver buffer register (DLAB=0, read)
#define IER 1   // interrupt enable (DLAB=0)
#define DLL 0   // divisor latch low (DLAB=1)
#define DLM 1   // divisor latch high (DLAB=1)
#define IIR 2   // interrupt identification (read)
#define FCR 2   // FIFO control (write)
#define LCR 3   // line control
#define MCR 4   // modem control
#define LSR 5   // line status
#define LSR_DR 0x01     // data ready: a received byte waits in RBR or the FIFO
#define LSR_THRE 0x20   // transmitter holding register empty
#define IER_ERBFI 0x01  // enable received data available interrupt (and the FIFO's time-out)
#define IIR_NO_INT 0x01 // no interrupt pending
#define MCR_OUT2 0x08   // on PCs the UART's interrupt line reaches the interrupt controller only with OUT2

static void (*rx_fn)(u8 c);
static u32 rx_gsi;

void
serial_init(void)
{
  outb(COM1 + IER, 0);       // polled: no interrupts
  outb(COM1 + LCR, 0x80);    // DLAB on to set the divisor
  outb(COM1 + DLL, 1);       // 115200 / 1
  outb(COM1 + DLM, 0);
  outb(COM1 + LCR, 0x03);    // 8 bits, no parity, 1 stop bit, DLAB off
  outb(COM1 + FCR, 0x07);    // enable and clear the FIFOs
  outb(COM1 + MCR, 0x03);    // DTR, RTS
}

void
serial_putc(char c)
{
  // Bounded: a missing UART reads 0xff (THRE set), a stuck one must not hang the kernel.
  for(int i = 0; i < 100000 && !(inb(COM1 + LSR) & LSR_THRE); i++)
    cpu_relax();
  outb(COM1 + THR, c);
}

void
serial_write(const char *s, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    if(s[i] == '\n')
      serial_putc('\r');
    serial_putc(s[i]);
  }
}

// Every byte the FIFO holds goes to rx_fn: reading RBR until LSR.DR clears ends the
// received-data and character time-out interrupts (data sheet table 4), so the line drops and
// the next byte raises a new edge. Bounded: a missing UART reads 0xff, DR set for ever.
static void
serial_interrupt(struct trapframe *tf)
{
  (void)inb(COM1 + IIR);
  for(int i = 0; i < 64 && (inb(COM1 + LSR) & LSR_DR); i++) {
    u8 c = inb(COM1 + RBR);
    if(rx_fn)
      rx_fn(c);
  }
  arch_irq_eoi();
}

void
serial_rx_start(void (*fn)(u8 c))
{
  rx_fn = fn;
  rx_gsi = isa_irq_gsi(COM1_IRQ);
  set_irq_handler(IRQ_BASE + rx_gsi, serial_interrupt);
  ioapic_route_isa(COM1_IRQ, IRQ_BASE + rx_gsi, cpu_apic_id[0]);
  // FIFOs on and cleared (what came before the session is not input for it), the receiver's
  // trigger level at 1 byte (FCR bits 7:6 = 00): each key interrupts at once.
  outb(COM1 + FCR, 0x07);
  outb(COM1 + MCR, 0x03 | MCR_OUT2);
  outb(COM1 + IER, IER_ERBFI);
}

void
serial_rx_stop(void)
{
  outb(COM1 + IER, 0);
  outb(COM1 + MCR, 0x03);
  ioapic_mask(rx_gsi);
  rx_fn = NULL;
}
