// The reader-writer semaphore: readers share it, a writer has it alone; mmap_sem is one.
// Arrivals queue behind any waiter, so a waiting writer stops new readers from overtaking it:
// writers do not starve (unlike 2.4's rwlocks).
//
// Uncontended, down_read, up_read, down_write and up_write are each one atomic operation on
// count and never touch wait_lock. Until 2026-12-06 every one of them took wait_lock, and a
// profile of four threads faulting pages at 4 vCPUs found wait_lock the hottest spin of the
// run (doc/notebook/2026-12-06-mmap-sem.md).
//
// A writer is never handed the lock while it sleeps: the releaser wakes the first waiter, and
// that writer takes the lock itself when it runs, unless another writer took it meanwhile
// (lock stealing, Linux 5.3's rwsem rework by Waiman Long). Handing it over, as this file did
// until 2026-12-07, kept the lock held by a sleeper for as long as its CPU took to wake: under
// TCG a halted vCPU's host thread, milliseconds, while every other writer queued behind it
// (mmap_sem at 8 threads: 45 us held on average, 4.4 ms waited; doc/notebook/
// 2026-12-07-rwsem-steal.md). So that stealing cannot starve anyone, the first waiter that has
// waited RWSEM_HANDOFF_NS sets RWSEM_HANDOFF and from then on the lock is its next (Linux's
// RWSEM_FLAG_HANDOFF). Readers queued at the head are still granted the lock by the releaser,
// all up to the next writer at once, as Linux's rwsem_mark_wake does.
//
// What may change count: the fast paths and a steal (only while no reader or writer holds it
// and RWSEM_HANDOFF is clear), the releases, and under wait_lock the queue's own changes (a
// queued writer's take, the readers' grant, RWSEM_WAITERS and RWSEM_HANDOFF). Whoever leaves
// the lock free with RWSEM_WAITERS set (the last reader, the writer) then takes wait_lock and
// wakes the head; a waiter looks at count under wait_lock before it sleeps, so a release
// either came before that look or wakes it after.
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

static struct rwsem_waiter *
first_waiter(struct rw_semaphore *s)
{
  return list_first_entry(&s->waiters, struct rwsem_waiter, list);
}

// The first waiter has waited long enough that nobody may take the lock before it. Under
// wait_lock, with the lock held: its release will wake the first waiter.
static void
handoff_check(struct rw_semaphore *s, struct rwsem_waiter *first, long c)
{
  if(!(c & RWSEM_HANDOFF) && ktime_ns() - first->queued_ns >= RWSEM_HANDOFF_NS)
    __atomic_fetch_or(&s->count, RWSEM_HANDOFF, __ATOMIC_RELAXED);
}

// A writer's take without the queue: nobody holds it and nobody has been promised it.
static bool
write_trylock(struct rw_semaphore *s)
{
  long c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
  while(!(c & ~RWSEM_WAITERS))
    if(__atomic_compare_exchange_n(&s->count, &c, c | RWSEM_WRITER, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

// A queued writer's take, under wait_lock: when nobody holds the lock, and RWSEM_HANDOFF, if
// set, is this writer's own (it is first). It leaves the queue, the last one clearing
// RWSEM_WAITERS.
static bool
write_take_queued(struct rw_semaphore *s, struct rwsem_waiter *w)
{
  bool first = first_waiter(s) == w;
  long c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
  for(;;) {
    if(c & ~(RWSEM_WAITERS | RWSEM_HANDOFF)) {   // held, by readers or a writer
      if(first)
        handoff_check(s, w, c);
      return false;
    }
    if((c & RWSEM_HANDOFF) && !first)
      return false;
    long n = (c | RWSEM_WRITER) & ~RWSEM_HANDOFF;
    if(list_is_singular(&s->waiters))
      n &= ~RWSEM_WAITERS;
    if(__atomic_compare_exchange_n(&s->count, &c, n, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      break;
  }
  list_del(&w->list);
  return true;
}

// Called with wait_lock held, when the lock may have come free. A writer at the head is only
// woken: it takes the lock when it runs (write_take_queued). Readers at the head are granted
// it, every one up to the next writer, unless a writer holds it (one that stole it).
static void
rwsem_wake_head(struct rw_semaphore *s)
{
  if(list_empty(&s->waiters))
    return;
  struct rwsem_waiter *w = first_waiter(s);
  long c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
  if(w->write) {
    if(!(c & ~(RWSEM_WAITERS | RWSEM_HANDOFF)))
      wake_up_thread(w->thread);
    return;
  }
  // The first reader's share by compare-and-swap: a writer may steal it until a reader holds
  // it; from then on no writer can take it, and the rest add theirs.
  do {
    if(c & RWSEM_WRITER) {
      handoff_check(s, w, c);
      return;
    }
  } while(!__atomic_compare_exchange_n(&s->count, &c, c + RWSEM_READER, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE));
  bool share = false;
  while(!list_empty(&s->waiters) && !(w = first_waiter(s))->write) {
    if(share)
      __atomic_fetch_add(&s->count, RWSEM_READER, __ATOMIC_ACQ_REL);
    share = true;
    list_del(&w->list);
    smp_store_release(&w->granted, true);   // pairs with rwsem_wait's check
    wake_up_thread(w->thread);
  }
  __atomic_fetch_and(&s->count, list_empty(&s->waiters) ? ~(RWSEM_WAITERS | RWSEM_HANDOFF)
                                                        : ~RWSEM_HANDOFF, __ATOMIC_ACQ_REL);
}

// Queues w and sleeps until it holds the lock: a reader granted it, a writer that took it.
// Returns the lock statistics' contention stamp (0 while they are off): a reader or writer
// that has to queue is a contended acquisition, as in mutex_lock.
static u64
rwsem_wait(struct rw_semaphore *s, struct rwsem_waiter *w)
{
  u64 flags, t0 = ktime_ns(), stat_t0 = lock_stat_enabled() ? lock_contended(&s->dep_map) : 0;
  spin_lock_irqsave(&s->wait_lock, flags);
  w->queued_ns = t0;
  list_add_tail(&w->list, &s->waiters);
  __atomic_fetch_or(&s->count, RWSEM_WAITERS, __ATOMIC_ACQ_REL);
  if(!w->write)
    rwsem_wake_head(s);   // it may have come free since the fast path looked
  for(;;) {
    set_current_state(T_SLEEPING);
    current->wait_on = s->name;
    if(w->write ? write_take_queued(s, w) : smp_load_acquire(&w->granted))
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

// Takes wait_lock and wakes the head: the releaser that left the lock free with waiters queued.
static void
rwsem_wake(struct rw_semaphore *s)
{
  u64 flags;
  spin_lock_irqsave(&s->wait_lock, flags);
  rwsem_wake_head(s);
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
  u64 t0 = 0;
  might_sleep();
  lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP, _RET_IP_);
  if(!write_trylock(s))   // free, or only waiters queued and none promised it: steal it
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
  if((c & ~RWSEM_HANDOFF) == RWSEM_WAITERS)   // the last reader, and someone queued
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
  __atomic_fetch_and(&s->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);   // waiters: wake the head
  rwsem_wake(s);
}
