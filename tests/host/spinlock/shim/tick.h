// Host stand-in for in_interrupt(): a per-thread flag the test sets to play an interrupt handler.
#pragma once
#include "types.h"

extern __thread bool host_in_interrupt;

static inline bool
in_interrupt(void)
{
  return host_in_interrupt;
}
