// The 16550 UART on COM1: the kernel's console, 115200 8N1, polled.
// Register offsets from the PC16550D data sheet (National Semiconductor, 1995).
#include <asm/serial.h>
#include <asm/x86.h>

#define COM1 0x3f8
#define THR 0   // transmit holding register (DLAB=0)
#define IER 1   // interrupt enable (DLAB=0)
#define DLL 0   // divisor latch low (DLAB=1)
#define DLM 1   // divisor latch high (DLAB=1)
#define FCR 2   // FIFO control
#define LCR 3   // line control
#define MCR 4   // modem control
#define LSR 5   // line status
#define LSR_THRE 0x20   // transmitter holding register empty

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
