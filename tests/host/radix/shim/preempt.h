// Host stand-in for preemption control. Host per-CPU data is per-thread, so a thread
// can never see another's copy and there is nothing to disable.
#pragma once
#define KERNEL_PREEMPT_H   // include/preempt.h, reached through include/spinlock.h, steps aside

#define preempt_disable() do { } while(0)
#define preempt_enable() do { } while(0)
