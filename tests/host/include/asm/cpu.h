// Host stand-in for the CPU identity: each thread that runs kernel code plays a CPU of its own,
// numbered when it first asks and given back when it ends (tests/host/lib/cpu.c).
#pragma once

extern __thread int host_cpu;   // this thread's CPU + 1; 0 until it first asks
int host_cpu_take(void);        // the lowest free CPU becomes this thread's

static inline int
smp_processor_id(void)
{
  return host_cpu ? host_cpu - 1 : host_cpu_take();
}
