// Host stand-in for the x86 helpers the locks use. Unlike CPUs, threads get preempted: a lock
// handed to a preempted thread waits for the host to run it, so waiters yield instead of pause.
// Interrupts cannot be masked from user space, and no host test takes one.
#pragma once
#include <sched.h>
#include "types.h"

static inline void cpu_relax(void) { sched_yield(); }
static inline u64 local_irq_save(void) { return 0; }
static inline void local_irq_restore(u64 flags) { (void)flags; }
