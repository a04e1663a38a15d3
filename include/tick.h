// The periodic tick (HZ per second on a busy CPU, none on an idle one) and the idle loop.
// irq_enter/irq_exit bracket every interrupt handler: an interrupt ends idle.
#pragma once
#include "percpu.h"
#include "types.h"

#define HZ 100
#define TICK_NS (1000000000UL / HZ)

DECLARE_PER_CPU(u64, tick_count);

void tick_start(void);
void irq_enter(void);
void irq_exit(void);
bool in_interrupt(void);

// The idle clock: each CPU's time halted in the idle loop, for the profiler, which counts the
// idle share by it (kernel/profile.c). The idle loop starts it before it halts, an interrupt
// (irq_enter) or work found after a wake-up stops it.
void idle_clock_stop(void);
u64 idle_time_ns(int cpu, u64 now);   // cpu's halted time up to now (ktime_ns), from any CPU
