// Ticket spinlock: each arrival takes a ticket and waits until it is served, so waiters go in
// arrival order. All waiters spin on one word, so every handover costs a cache miss per waiter.
#include "spinlock.h"
#include <asm/processor.h>

void
ticket_lock(struct ticket_lock *l)
{
  // Relaxed: the ticket itself orders nothing; the acquire load below does.
  u32 me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
  // Acquire: the previous holder's critical section happens before ours. A waiter that is
  // not next may halt under a hypervisor (virt_wait, kernel/locking/paravirt.c).
  u32 owner, spins = 0;
  while((owner = smp_load_acquire(&l->owner)) != me) {
    if(me - owner > 1)
      virt_wait(&spins);
    else
      cpu_relax();
  }
}

bool
ticket_trylock(struct ticket_lock *l)
{
  // Relaxed: a stale owner only makes the compare-and-swap below fail.
  u32 owner = READ_ONCE(l->owner);
  u32 want = owner;
  // Take a ticket only if it would be served at once (next == owner).
  // Acquire on success, as in ticket_lock; nothing is ordered on failure.
  return __atomic_compare_exchange_n(&l->next, &want, owner + 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

void
ticket_unlock(struct ticket_lock *l)
{
  // Only the holder writes owner, so a relaxed read of it is exact.
  u32 owner = READ_ONCE(l->owner);
  // Release: the critical section's stores are visible before the next owner runs.
  smp_store_release(&l->owner, owner + 1);
}

bool
ticket_is_locked(struct ticket_lock *l)
{
  // Relaxed: the answer is a snapshot that orders nothing.
  return READ_ONCE(l->owner) !=
         READ_ONCE(l->next);
}
