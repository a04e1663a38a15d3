// Leaving QEMU: the isa-debug-exit device turns a byte written to port 0xf4 into QEMU's exit
// status (v << 1) | 1; the Makefile maps 0x10 (status 33) to success and anything else to failure.
#include "power.h"
#include <asm/x86.h>

#define DEBUG_EXIT_PORT 0xf4

void
machine_exit(bool pass)
{
  outb(DEBUG_EXIT_PORT, pass ? EXIT_PASS : EXIT_FAIL);
}

void
machine_halt(void)
{
  for(;;) {
    local_irq_disable();
    hlt();
  }
}
