// The HPET's main counter as a reference clock, for the TSC's self-test (arch/x86_64/hpet.c;
// the profiler's use of the same HPET is asm/nmi_timer.h).
#pragma once
#include "types.h"

u32 hpet_clock_begin(void);   // femtoseconds a tick; 0: no HPET (nothing to end)
u64 hpet_clock_read(void);
void hpet_clock_end(void);
