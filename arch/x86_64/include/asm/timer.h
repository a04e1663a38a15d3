// This CPU's one-shot timer, which raises VEC_TIMER (Linux's clock event device, one-shot):
// the tick re-arms it; an idle CPU stops it or arms it for its next sleeper (arch/x86_64/lapic.c).
#pragma once
#include "types.h"

void arch_timer_set_oneshot(u64 ns);   // one interrupt ns from now (at least one timer count)
bool arch_timer_deliverable(void);    // the tick is requested and nothing blocks it but IF
void arch_timer_stop(void);            // no interrupt until the next arch_timer_set_oneshot
