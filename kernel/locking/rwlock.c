// Reader-writer spinlock on one word (include/rwlock.h): readers count up, a writer sets a bit.
// Writer preference as in Linux's qrwlock: a waiting writer sets RW_WAITING and new readers wait.
//
// Writers among themselves are not queued: whoever sees the lock free first takes it, and
// clears RW_WAITING as it does; any writer still waiting sets the bit again on its next look.
// A reader in an interrupt ignores RW_WAITING (Linux's qrwlock does the same): the code it
// interrupted may hold the lock for reading, and the waiting writer waits for that code,
// which cannot go on until the interrupt returns.
#include "lock_stat.h"
#include "lockdep.h"
#include "rwlock.h"
#include "tick.h"
#include <asm/cpu.h>
#include <asm/processor.h>

#define RW_WRITER  1u   // a writer holds the lock
#define RW_WAITING 2u   // a writer waits: new readers wait too
#define RW_READER  4u   // one reader

// The bits that keep a new reader out.
static u32
reader_blockers(void)
{
  return in_interrupt() ? RW_WRITER : RW_WRITER | RW_WAITING;
}

static bool
__read_trylock(rwlock_t *l)
{
  u32 block = reader_blockers();
  // Relaxed read: a stale value only makes the compare-and-swap fail and retry.
  u32 v = READ_ONCE(l->cnts);
  // A failed compare-and-swap reloads v: another reader came or went, look again.
  // Acquire on success: the critical section stays after it.
  while(!(v & block))
    if(__atomic_compare_exchange_n(&l->cnts, &v, v + RW_READER, true, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

// Lock statistics: the trylocks that succeed count as acquisitions; a lock that had to
// spin is a contended one (include/lock_stat.h).
bool
read_trylock(rwlock_t *l)
{
  if(!__read_trylock(l))
    return false;
  lockdep_acquire(&l->dep_map, 0, LOCKDEP_TRY | LOCKDEP_READ, _RET_IP_);
  if(lock_stat_enabled())
    lock_acquired(&l->dep_map, 0);
  return true;
}

static void
read_spin(rwlock_t *l)
{
  while(!__read_trylock(l))
    cpu_relax();
}

void
read_lock(rwlock_t *l)
{
  lockdep_acquire(&l->dep_map, 0, LOCKDEP_READ, _RET_IP_);
  LOCK_CONTENDED(&l->dep_map, __read_trylock(l), read_spin(l));
}

void
read_unlock(rwlock_t *l)
{
  lockdep_release(&l->dep_map);
  if(lock_stat_enabled())
    lock_release(&l->dep_map);
  // Release: this reader's loads are done before a writer can take the lock.
  __atomic_fetch_sub(&l->cnts, RW_READER, __ATOMIC_RELEASE);
}

static bool
__write_trylock(rwlock_t *l)
{
  // Free means no readers and no writer; a waiting writer's bit may be set, and taking
  // the lock clears it (see the top of the file).
  u32 v = READ_ONCE(l->cnts);
  // Acquire on success: the critical section stays after it.
  return !(v & ~RW_WAITING) &&
         __atomic_compare_exchange_n(&l->cnts, &v, RW_WRITER, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

bool
write_trylock(rwlock_t *l)
{
  if(!__write_trylock(l))
    return false;
  lockdep_acquire(&l->dep_map, 0, LOCKDEP_TRY, _RET_IP_);
  if(lock_stat_enabled())
    lock_acquired(&l->dep_map, 0);
  return true;
}

static void
write_spin(rwlock_t *l)
{
  while(!__write_trylock(l)) {
    // Relaxed: the bit only holds readers back; the taking is ordered by __write_trylock.
    if(!(READ_ONCE(l->cnts) & RW_WAITING))
      __atomic_fetch_or(&l->cnts, RW_WAITING, __ATOMIC_RELAXED);
    cpu_relax();
  }
}

void
write_lock(rwlock_t *l)
{
  lockdep_acquire(&l->dep_map, 0, 0, _RET_IP_);
  LOCK_CONTENDED(&l->dep_map, __write_trylock(l), write_spin(l));
}

void
write_unlock(rwlock_t *l)
{
  lockdep_release(&l->dep_map);
  if(lock_stat_enabled())
    lock_release(&l->dep_map);
  // A subtraction, not a store: RW_WAITING may be set meanwhile and must survive.
  // Release: the critical section's stores are visible before anyone else gets in.
  __atomic_fetch_sub(&l->cnts, RW_WRITER, __ATOMIC_RELEASE);
}
