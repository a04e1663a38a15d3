// Host stand-in for the interrupt flag: interrupts cannot be masked from user space, and no
// host test takes one, so saving and restoring the flag does nothing.
#pragma once
#include "types.h"

static inline u64 local_irq_save(void) { return 0; }
static inline void local_irq_restore(u64 flags) { (void)flags; }
// A host thread cannot halt till an interrupt: as with interrupts off, a lock waiter spins.
static inline bool irqs_disabled(void) { return true; }
static inline void local_irq_disable(void) { }
static inline void arch_safe_halt(void) { }
