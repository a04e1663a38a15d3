// Ending the run: leave QEMU with a status the Makefile maps, or halt every CPU for gdb.
// Without the isa-debug-exit device (plain qemu or real hardware) machine_exit returns.
#pragma once
#include "compiler.h"
#include "types.h"

#define EXIT_PASS 0x10   // QEMU exits 33
#define EXIT_FAIL 0x11   // QEMU exits 35

void machine_exit(bool pass);
void machine_halt(void) __noreturn;
void kernel_end(bool pass) __noreturn;
