// Kernel time: nanoseconds since boot from the TSC, and calibrated busy-wait delays.
// The TSC is calibrated against the PIT once at boot (arch/x86_64/tsc.c).
#pragma once
#include "types.h"

#define NSEC_PER_SEC 1000000000UL
#define FOREVER (~0UL)   // a deadline (ktime ns) that never comes: a wait with no timeout

extern u64 tsc_khz;      // TSC ticks per millisecond; 0 until calibrated
extern u64 tsc_boot;     // TSC at kernel entry

void tsc_init(void);
u64 ktime_ns(void);
u64 tsc_to_ns(u64 cycles);
u64 ns_to_tsc(u64 ns);
void udelay(u64 us);
// The wall clock: CLOCK_REALTIME is an offset plus ktime_ns (kernel/time.c), set from
// the RTC at boot (arch/x86_64/rtc.c) and by clock_settime.
void rtc_init(void);
void realtime_set(u64 ns);
void mdelay(u64 ms);
