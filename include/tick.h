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
