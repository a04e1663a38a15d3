// Test-and-test-and-set spinlock: one flag; waiters read it and try to swap it only once it
// looks free (Rudolph & Segall, ISCA 1984). Unfair: any waiter may win. Kept for comparison.
#include "spinlock.h"
#include <asm/processor.h>

bool
tas_trylock(struct tas_lock *l)
{
  // Relaxed read first: a held lock is not written, so its cache line stays shared
  // among the waiters instead of bouncing on every attempt.
  // Acquire on the exchange: the critical section stays after it.
  return !READ_ONCE(l->locked) &&
         !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

void
tas_lock(struct tas_lock *l)
{
  while(!tas_trylock(l))
    cpu_relax();
}

void
tas_unlock(struct tas_lock *l)
{
  // Release: the critical section's stores are visible before the flag clears.
  smp_store_release(&l->locked, 0);
}

bool
tas_is_locked(struct tas_lock *l)
{
  // Relaxed: a snapshot that orders nothing.
  return READ_ONCE(l->locked) != 0;
}
