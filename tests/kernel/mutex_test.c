// Self-test of the mutex's optimistic spinning (kernel/locking/mutex.c): a locker that finds
// the owner running on another CPU watches it rather than sleep; one that finds it asleep sleeps.
#include "mutex.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include <asm/processor.h>

// An owner holds the mutex HOLD_NS past the moment the locker starts to take it: well inside
// the watch's bound (MUTEX_SPIN_NS, 20 us), so a locker that watches gets it without sleeping
// unless the host deschedules the owner's vCPU meanwhile. A sleeping owner sleeps SLEEP_MS.
enum { TRIES = 40, HOLD_NS = 5000, SLEEP_MS = 5 };

static DEFINE_MUTEX(spin_mutex);
static int go;                  // 1: both threads made, start; -1: one was not, stop
static int held, trying, done;  // the try the owner holds in, the locker tries, finished
static bool owner_sleeps;       // this round's owner sleeps while it holds the mutex
static bool in_section;         // the owner is between its lock and its unlock
static int locker_slept, overlap;

static void
wait_for(int *flag, int value)
{
  while(smp_load_acquire(flag) != value)
    cpu_relax();
}

// Both threads first wait for go, yielding: the creator may share the CPU and still have
// to make the other one. A thread whose partner was not made returns at once.
static bool
started(void)
{
  while(smp_load_acquire(&go) == 0)
    yield();
  return READ_ONCE(go) > 0;
}

static int
owner_fn(void *arg)
{
  if(!started())
    return 0;
  for(int i = 1; i <= TRIES; i++) {
    mutex_lock(&spin_mutex);
    WRITE_ONCE(in_section, true);
    smp_store_release(&held, i);   // pairs with the locker's wait_for(&held)
    wait_for(&trying, i);
    if(owner_sleeps) {
      msleep(SLEEP_MS);
    } else {
      u64 t0 = ktime_ns();
      while(ktime_ns() - t0 < HOLD_NS)
        cpu_relax();
    }
    WRITE_ONCE(in_section, false);
    mutex_unlock(&spin_mutex);
    wait_for(&done, i);
  }
  return 0;
}

static int
locker_fn(void *arg)
{
  if(!started())
    return 0;
  for(int i = 1; i <= TRIES; i++) {
    wait_for(&held, i);
    u64 switches = current->switches;
    smp_store_release(&trying, i);   // pairs with the owner's wait_for(&trying)
    mutex_lock(&spin_mutex);
    locker_slept += current->switches != switches;
    overlap += READ_ONCE(in_section);
    mutex_unlock(&spin_mutex);
    smp_store_release(&done, i);
  }
  return 0;
}

// One round of TRIES hand-overs from an owner on CPU 1 to a locker on CPU 0; how many times
// the locker slept, or -1 if a thread could not be made.
static int
spin_round(bool sleeps)
{
  owner_sleeps = sleeps;
  go = held = trying = done = 0;
  locker_slept = overlap = 0;
  struct thread *o = kthread_create(owner_fn, NULL, 1, "mutex-owner");
  struct thread *l = kthread_create(locker_fn, NULL, 0, "mutex-locker");
  smp_store_release(&go, o && l ? 1 : -1);
  if(o)
    kthread_join(o);
  if(l)
    kthread_join(l);
  return o && l ? locker_slept : -1;
}

// Watching a running owner: the locker slept in at most half the tries (without spinning it
// sleeps in nearly all, the owner holding 5 us past its start); a sleeping owner: the locker
// slept in at least half (it must not watch a thread that is off its CPU, nor take the mutex
// from it). Never both inside the section at once.
static bool
mutex_spin_test(void)
{
  if(num_online_cpus() < 2)
    return selftest_skip("one-cpu");
  int spinning = spin_round(false);
  int overlap_spin = overlap;
  int sleeping = spinning < 0 ? -1 : spin_round(true);
  if(spinning < 0 || sleeping < 0)
    return selftest_skip("enomem");
  selftest_extra("tries=%d slept_running_owner=%d slept_sleeping_owner=%d", TRIES, spinning,
                 sleeping);
  return spinning <= TRIES / 2 && sleeping >= TRIES / 2 && overlap_spin + overlap == 0;
}
SELFTEST("mutex-spin", mutex_spin_test);
