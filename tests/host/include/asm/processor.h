// Host stand-in for cpu_relax. Unlike CPUs, threads get preempted: a lock handed to a
// preempted thread waits for the host to run it, so waiters yield instead of pausing.
#pragma once
#include <sched.h>

static inline void cpu_relax(void) { sched_yield(); }
