// Host stand-in for preemption control: pthreads are preempted by the host whatever the
// count says, and no host test schedules, so there is nothing to count.
#pragma once
#define KERNEL_PREEMPT_H   // include/preempt.h, reached through include/spinlock.h, steps aside

#define preempt_disable() do { } while(0)
#define preempt_enable() do { } while(0)
