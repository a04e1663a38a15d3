// The reader-writer semaphore: readers share it, a writer has it alone; mmap_sem is one.
// Arrivals queue behind any waiter, so a waiting writer stops new readers from overtaking it:
// writers do not starve (unlike 2.4's rwlocks).
//
// Uncontended, down_read, up_read, down_write and up_write are each one atomic operation on
// count and never touch wait_lock. Until 2026-12-06 every one of them took wait_lock, and a
// profile of four threads faulting pages at 4 vCPUs found wait_lock the hottest spin of the
// run (doc/notebook/2026-12-06-mmap-sem.md). Once RWSEM_WAITERS is set, no fast path can
// take the lock (a reader's needs count free of WRITER and WAITERS, a writer's count 0), so
// count then changes only by releases and, under wait_lock, by grants: rwsem_grant reads it
// and acts without a race. Whoever makes the lock free while RWSEM_WAITERS is set (the last
// reader, the writer) takes wait_lock and grants; a waiter that queued just after such a
// release finds the lock free itself, in the grant it runs once queued.
#include "lockdep.h"
#include "panic.h"
#include "rwsem.h"
#include "sched.h"
#include "time.h"

void
__init_rwsem(struct rw_semaphore *s, const char *name, struct lock_class_key *key)
{
  spin_lock_init(&s->wait_lock);
  s->count = 0;
  INIT_LIST_HEAD(&s->waiters);
  s->name = name;
  s->wait_ns = 0;
  lockdep_set_class(&s->dep_map, key);
}

// Grants the lock to the waiters at the head of the queue: one writer, or every reader up
// to the next writer; clears RWSEM_WAITERS once nobody is left queued. Called with
// wait_lock held.
static void
rwsem_grant(struct rw_semaphore *s)
{
  while(!list_empty(&s->waiters)) {
    struct rwsem_waiter *w = list_first_entry(&s->waiters, struct rwsem_waiter, list);
    long c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
    if(w->write) {
      if(c & ~RWSEM_WAITERS)   // held, by readers or a writer
        return;
      __atomic_fetch_or(&s->count, RWSEM_WRITER, __ATOMIC_ACQ_REL);
    } else {
      if(c & RWSEM_WRITER)
        return;
      __atomic_fetch_add(&s->count, RWSEM_READER, __ATOMIC_ACQ_REL);
    }
    list_del(&w->list);
    smp_store_release(&w->granted, true);   // pairs with rwsem_wait's check
    wake_up_thread(w->thread);
    if(w->write)
      break;
  }
  if(list_empty(&s->waiters))
    __atomic_fetch_and(&s->count, ~RWSEM_WAITERS, __ATOMIC_ACQ_REL);
}

// Queues w and sleeps until a grant hands it the lock. Returns the lock statistics'
// contention stamp (0 while they are off): a reader or writer that has to queue is a
// contended acquisition, as in mutex_lock.
static u64
rwsem_wait(struct rw_semaphore *s, struct rwsem_waiter *w)
{
  u64 flags, t0 = ktime_ns(), stat_t0 = lock_stat_enabled() ? lock_contended(&s->dep_map) : 0;
  spin_lock_irqsave(&s->wait_lock, flags);
  list_add_tail(&w->list, &s->waiters);
  __atomic_fetch_or(&s->count, RWSEM_WAITERS, __ATOMIC_ACQ_REL);
  rwsem_grant(s);   // it may have come free since the fast path looked: then it is ours now
  for(;;) {
    set_current_state(T_SLEEPING);
    current->wait_on = s->name;
    if(smp_load_acquire(&w->granted))   // pairs with rwsem_grant's release
      break;
    spin_unlock_irqrestore(&s->wait_lock, flags);
    schedule();
    spin_lock_irqsave(&s->wait_lock, flags);
  }
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  s->wait_ns += ktime_ns() - t0;   // under wait_lock
  spin_unlock_irqrestore(&s->wait_lock, flags);
  return stat_t0;
}

// Takes wait_lock and grants: the releaser that left the lock free with waiters queued.
static void
rwsem_wake(struct rw_semaphore *s)
{
  u64 flags;
  spin_lock_irqsave(&s->wait_lock, flags);
  rwsem_grant(s);
  spin_unlock_irqrestore(&s->wait_lock, flags);
}

static bool
read_trylock(struct rw_semaphore *s)
{
  long c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
  while(!(c & (RWSEM_WRITER | RWSEM_WAITERS)))
    if(__atomic_compare_exchange_n(&s->count, &c, c + RWSEM_READER, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

void
down_read(struct rw_semaphore *s)
{
  struct rwsem_waiter w = { .thread = current, .write = false };
  u64 t0 = 0;
  might_sleep();
  lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_READ, _RET_IP_);
  if(!read_trylock(s))
    t0 = rwsem_wait(s, &w);
  if(lock_stat_enabled())
    lock_acquired(&s->dep_map, t0);
}

void
down_write(struct rw_semaphore *s)
{
  struct rwsem_waiter w = { .thread = current, .write = true };
  long free = 0;
  u64 t0 = 0;
  might_sleep();
  lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP, _RET_IP_);
  if(!__atomic_compare_exchange_n(&s->count, &free, RWSEM_WRITER, false, __ATOMIC_ACQUIRE,
                                  __ATOMIC_RELAXED))
    t0 = rwsem_wait(s, &w);
  if(lock_stat_enabled())
    lock_acquired(&s->dep_map, t0);
}

bool
down_read_trylock(struct rw_semaphore *s)
{
  bool ok = read_trylock(s);
  if(ok)
    lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_READ | LOCKDEP_TRY, _RET_IP_);
  if(ok && lock_stat_enabled())
    lock_acquired(&s->dep_map, 0);
  return ok;
}

void
up_read(struct rw_semaphore *s)
{
  lockdep_release(&s->dep_map);
  if(lock_stat_enabled())
    lock_release(&s->dep_map);
  long c = __atomic_sub_fetch(&s->count, RWSEM_READER, __ATOMIC_RELEASE);
  if(c < 0 || (c & RWSEM_WRITER))
    panic("up_read: %s is not read-held", s->name);
  if(c == RWSEM_WAITERS)   // the last reader, and someone queued
    rwsem_wake(s);
}

void
up_write(struct rw_semaphore *s)
{
  long held = RWSEM_WRITER;
  lockdep_release(&s->dep_map);
  if(lock_stat_enabled())
    lock_release(&s->dep_map);
  if(__atomic_compare_exchange_n(&s->count, &held, 0, false, __ATOMIC_RELEASE,
                                 __ATOMIC_RELAXED))
    return;
  if(!(held & RWSEM_WRITER))
    panic("up_write: %s is not write-held", s->name);
  __atomic_fetch_and(&s->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);   // waiters: grant them
  rwsem_wake(s);
}
