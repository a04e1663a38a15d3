// Kernel time on the host: nanoseconds from the host's monotonic clock (clock_gettime(2)).
#include <time.h>

#include "time.h"

u64
ktime_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// A busy wait, as the kernel's (kernel/wait.c's complete waits out a waker this way).
void
udelay(u64 us)
{
  u64 end = ktime_ns() + us * 1000;
  while(ktime_ns() < end)
    ;
}
