// preempt_disable/preempt_enable: mark a section that must stay on this CPU and not sleep.
// The kernel never preempts, so these only count; schedule() panics if the count is not zero.
#pragma once
#include "compiler.h"
#include "percpu.h"

DECLARE_PER_CPU(int, preempt_count);

static inline void
preempt_disable(void)
{
  this_cpu(preempt_count)++;
  barrier();
}

static inline void
preempt_enable(void)
{
  barrier();
  this_cpu(preempt_count)--;
}
