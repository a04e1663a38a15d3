// Kernel time: nanoseconds since boot from the TSC, and calibrated busy-wait delays.
// The TSC is calibrated against the PIT once at boot (arch/x86_64/tsc.c).
#pragma once
#include "types.h"

extern u64 tsc_khz;      // TSC ticks per millisecond; 0 until calibrated
extern u64 tsc_boot;     // TSC at kernel entry

void tsc_init(void);
u64 ktime_ns(void);
u64 tsc_to_ns(u64 cycles);
u64 ns_to_tsc(u64 ns);
void udelay(u64 us);
void mdelay(u64 ms);
