// The reader-writer semaphore: readers share it, a writer has it alone; mmap_sem is one.
// Arrivals queue behind any waiter, so a waiting writer stops new readers from overtaking it:
// writers do not starve (unlike 2.4's rwlocks).
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
// to the next writer. Called with wait_lock held.
static void
rwsem_grant(struct rw_semaphore *s)
{
  while(!list_empty(&s->waiters)) {
    struct rwsem_waiter *w = list_first_entry(&s->waiters, struct rwsem_waiter, list);
    if(w->write) {
      if(s->count != 0)
        return;
      s->count = -1;
    } else {
      if(s->count < 0)
        return;
      s->count++;
    }
    list_del(&w->list);
    w->granted = true;
    wake_up_thread(w->thread);
    if(w->write)
      return;
  }
}

// Returns the lock statistics' contention stamp (0 while they are off): a reader or writer
// that has to queue is a contended acquisition, as in mutex_lock.
static u64
rwsem_wait(struct rw_semaphore *s, struct rwsem_waiter *w, u64 *flags)
{
  u64 t0 = ktime_ns(), stat_t0 = lock_stat_enabled() ? lock_contended(&s->dep_map) : 0;
  list_add_tail(&w->list, &s->waiters);
  for(;;) {
    set_current_state(T_SLEEPING);
    current->wait_on = s->name;
    if(w->granted)
      break;
    spin_unlock_irqrestore(&s->wait_lock, *flags);
    schedule();
    spin_lock_irqsave(&s->wait_lock, *flags);
  }
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  s->wait_ns += ktime_ns() - t0;   // under wait_lock
  return stat_t0;
}

void
down_read(struct rw_semaphore *s)
{
  struct rwsem_waiter w = { .thread = current, .write = false };
  u64 flags, t0 = 0;
  might_sleep();
  lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_READ, _RET_IP_);
  spin_lock_irqsave(&s->wait_lock, flags);
  if(s->count >= 0 && list_empty(&s->waiters))
    s->count++;
  else
    t0 = rwsem_wait(s, &w, &flags);
  spin_unlock_irqrestore(&s->wait_lock, flags);
  if(lock_stat_enabled())
    lock_acquired(&s->dep_map, t0);
}

void
down_write(struct rw_semaphore *s)
{
  struct rwsem_waiter w = { .thread = current, .write = true };
  u64 flags, t0 = 0;
  might_sleep();
  lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP, _RET_IP_);
  spin_lock_irqsave(&s->wait_lock, flags);
  if(s->count == 0 && list_empty(&s->waiters))
    s->count = -1;
  else
    t0 = rwsem_wait(s, &w, &flags);
  spin_unlock_irqrestore(&s->wait_lock, flags);
  if(lock_stat_enabled())
    lock_acquired(&s->dep_map, t0);
}

bool
down_read_trylock(struct rw_semaphore *s)
{
  u64 flags;
  bool ok = false;
  spin_lock_irqsave(&s->wait_lock, flags);
  if(s->count >= 0 && list_empty(&s->waiters)) {
    s->count++;
    ok = true;
  }
  spin_unlock_irqrestore(&s->wait_lock, flags);
  if(ok)
    lockdep_acquire(&s->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_READ | LOCKDEP_TRY, _RET_IP_);
  if(ok && lock_stat_enabled())
    lock_acquired(&s->dep_map, 0);
  return ok;
}

void
up_read(struct rw_semaphore *s)
{
  u64 flags;
  lockdep_release(&s->dep_map);
  if(lock_stat_enabled())
    lock_release(&s->dep_map);
  spin_lock_irqsave(&s->wait_lock, flags);
  if(s->count <= 0)
    panic("up_read: %s is not read-held", s->name);
  s->count--;
  rwsem_grant(s);
  spin_unlock_irqrestore(&s->wait_lock, flags);
}

void
up_write(struct rw_semaphore *s)
{
  u64 flags;
  lockdep_release(&s->dep_map);
  if(lock_stat_enabled())
    lock_release(&s->dep_map);
  spin_lock_irqsave(&s->wait_lock, flags);
  if(s->count != -1)
    panic("up_write: %s is not write-held", s->name);
  s->count = 0;
  rwsem_grant(s);
  spin_unlock_irqrestore(&s->wait_lock, flags);
}
