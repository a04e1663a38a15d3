// Ticket spinlock: each arrival takes a ticket and waits until it is served, so waiters go in order.
// The atomics say their ordering: acquire on taking the lock, release on giving it back.
#include "spinlock.h"
#include "x86.h"

void
spin_lock_init(spinlock_t *l)
{
  l->next = 0;
  l->owner = 0;
}

void
spin_lock(spinlock_t *l)
{
  // Relaxed: the ticket itself orders nothing; the acquire load below does.
  u32 me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
  while(__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
    cpu_relax();
}

bool
spin_trylock(spinlock_t *l)
{
  u32 owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
  u32 want = owner;
  // Take a ticket only if it would be served at once (next == owner).
  return __atomic_compare_exchange_n(&l->next, &want, owner + 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void
spin_unlock(spinlock_t *l)
{
  // Release: the critical section's stores are visible before the next owner runs.
  __atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

bool
spin_is_locked(spinlock_t *l)
{
  return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
         __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}
