// How x86-64 finds this CPU's per-CPU offset: %gs points at the CPU's struct cpu
// (asm/cpu.h), whose second word is the offset (Linux's this_cpu_off, kept at %gs:8).
#pragma once
#include "types.h"

static inline u64
this_cpu_off(void)
{
  u64 off;
  __asm__ volatile("mov %%gs:8, %0" : "=r"(off));
  return off;
}
