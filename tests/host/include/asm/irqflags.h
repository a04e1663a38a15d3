// Host stand-in for the interrupt flag: interrupts cannot be masked from user space, and no
// host test takes one, so saving and restoring the flag does nothing.
#pragma once
#include "types.h"

static inline u64 local_irq_save(void) { return 0; }
static inline void local_irq_restore(u64 flags) { (void)flags; }
