// Host stand-in for finding this CPU's per-CPU copies: the offset of the CPU its thread plays
// (tests/host/lib/cpu.c gives every CPU a copy of the section, as arch/x86_64/smp.c does).
#pragma once
#include "types.h"
#include <asm/cpu.h>

extern u64 __per_cpu_offset[];

static inline u64
this_cpu_off(void)
{
  return __per_cpu_offset[smp_processor_id()];
}

// A copy lies outside the variable it is reached from, which -fsanitize=object-size takes for
// an overflow; the empty asm hides where the address came from (Linux's RELOC_HIDE).
#define SHIFT_PERCPU_PTR(ptr, off)                                  \
  ({                                                                \
    unsigned long addr_;                                            \
    __asm__("" : "=r"(addr_) : "0"(ptr));                           \
    (__typeof__(ptr))(addr_ + (off));                               \
  })
