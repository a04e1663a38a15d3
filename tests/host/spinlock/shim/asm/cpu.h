// Host stand-in for the CPU identity: each test thread plays one CPU, numbered by the test.
#pragma once

extern __thread int host_cpu;

static inline int
smp_processor_id(void)
{
  return host_cpu;
}
