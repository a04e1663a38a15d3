// The hang detector: a CPU that is busy but makes no progress (no tick) for WATCHDOG_SECS with
// interrupts off is sent an NMI, whose handler panics with that CPU's own backtrace.
#pragma once
#include "types.h"

#define WATCHDOG_SECS 5

struct trapframe;
void watchdog_tick(void);
void watchdog_touch(void);
bool watchdog_nmi(struct trapframe *tf);
