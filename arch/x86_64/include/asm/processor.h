// What a CPU does while it busy-waits (Linux's cpu_relax, asm/processor.h).
// Generic spin loops reach it here rather than through asm/x86.h.
#pragma once

// PAUSE marks a spin-wait loop: the CPU spends less power in it and leaves it without the
// memory-order mis-speculation a plain loop pays for (SDM vol. 2B, PAUSE).
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
