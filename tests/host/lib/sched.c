// Threads on the host: each host thread is a kernel thread of its own (current), and the host
// schedules them, so schedule() only yields: a sleeper finds what it waits for when it looks
// again (kernel/locking/mutex.c and rwsem.c loop until granted). Nothing sleeps for long. A
// host thread's on_cpu stays false: its struct goes with the thread when it exits, so a mutex
// locker must not watch it (the kernel's slots are never freed), and lockers sleep at once.
#include <sched.h>

#include "sched.h"

static __thread struct thread self;

struct thread *
get_current(void)
{
  return &self;
}

void
set_current_state(int state)
{
  smp_store_mb(current->state, state);
}

void
schedule(void)
{
  sched_yield();
}

void
yield(void)
{
  sched_yield();
}

// No tick asks a host thread to give up its CPU.
void
cond_resched(void)
{
}

bool
need_resched(void)
{
  return false;
}

// The sleeper looks again by itself; only the state changes.
bool
wake_up_thread(struct thread *t)
{
  int sleeping = T_SLEEPING;
  return __atomic_compare_exchange_n(&t->state, &sleeping, T_RUNNING, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}
