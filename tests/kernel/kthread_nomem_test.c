// kthread-nomem: kthread_create fails under failslab= as Linux's does, gives its thread slot
// back, and a torture test that could not create every thread lets the started ones go.
#include "fault_inject.h"
#include "sched.h"
#include "selftest.h"
#include "torture.h"

#define FAILS 8      // creations that must fail at failslab=1000
#define GATED 4      // threads waiting at the gate when the next creation fails

static int
free_slots(void)
{
  int n = 0;
  for(int i = 0; i < MAX_THREADS; i++)
    n += READ_ONCE(threads[i].state) == T_FREE;
  return n;
}

static int
never_runs(void *arg)
{
  return 1;
}

// A torture thread: waits at the gate, then works while the run lasts; returns its work.
static int
gated(void *arg)
{
  struct torture_gate *g = arg;
  int loops = 0;
  torture_gate_wait(g);
  while(torture_running(g)) {
    loops++;
    cond_resched();
  }
  return loops;
}

static bool
kthread_nomem_test(void)
{
  static struct torture_gate gate;
  struct thread *t[GATED];
  struct fault_rates rates;
  fault_inject_pause(&rates);
  int slots = free_slots(), failed = 0, started = 0, worked = 0;
  u64 injected = fault_inject_count(FAULT_SLAB);

  // Every creation fails, and no slot is lost to it.
  fault_inject_set(FAULT_SLAB, 1000);
  for(int i = 0; i < FAILS; i++)
    failed += kthread_create(never_runs, NULL, -1, "nomem/%d", i) == NULL;
  injected = fault_inject_count(FAULT_SLAB) - injected;
  fault_inject_set(FAULT_SLAB, 0);
  int slots_after_fail = free_slots();

  // GATED threads start and wait at the gate; the next one fails: the abort lets them go
  // before the run began, so each exits without doing any work.
  torture_gate_init(&gate, 3600 * 1000000000UL);   // were they to run, they would run an hour
  for(int i = 0; i < GATED; i++)
    started += (t[i] = kthread_create(gated, &gate, -1, "nomem-gated/%d", i)) != NULL;
  fault_inject_set(FAULT_SLAB, 1000);
  struct thread *last = kthread_create(gated, &gate, -1, "nomem-gated/%d", GATED);
  fault_inject_set(FAULT_SLAB, 0);
  torture_gate_abort(&gate);
  for(int i = 0; i < GATED; i++)
    if(t[i])
      worked += kthread_join(t[i]);
  fault_inject_restore(&rates);

  selftest_extra("failed=%d/%d injected=%lu slots_lost=%d gated=%d aborted_work=%d", failed,
                 FAILS, injected, slots - slots_after_fail, started, worked);
  return failed == FAILS && injected >= FAILS && slots_after_fail == slots && started == GATED &&
         last == NULL && worked == 0 && free_slots() == slots;
}
SELFTEST("kthread-nomem", kthread_nomem_test);
