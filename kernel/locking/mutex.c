// The mutex: free, or owned by one thread; waiters sleep in a FIFO, and unlock releases it and
// wakes the oldest, whom a running thread may beat to it once (then the next unlock hands it
// over).
#include "lockdep.h"
#include "mutex.h"
#include "panic.h"
#include "sched.h"

void
__mutex_init(struct mutex *m, const char *name, struct lock_class_key *key)
{
  spin_lock_init(&m->wait_lock);
  m->owner = NULL;
  INIT_LIST_HEAD(&m->waiters);
  m->handoff = false;
  m->name = name;
  lockdep_set_class(&m->dep_map, key);
}

// Lock statistics count a mutex's acquisitions as a spinlock's: contended when the first look
// finds it owned, the wait from then until it is handed over, the hold from then to the
// mutex_unlock (kept on the thread, which sleeps while holding it).

static void
__mutex_lock(struct mutex *m, int subclass, u64 ip)
{
  struct mutex_waiter w = { .thread = current };
  u64 flags, t0 = 0;
  lockdep_might_sleep(ip);
  lockdep_acquire(&m->dep_map, subclass, LOCKDEP_SLEEP, ip);
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner == current)
    panic("mutex_lock: %s is already held by this thread (%s)", m->name, current->name);
  if(!m->owner) {
    m->owner = current;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    if(lock_stat_enabled())
      lock_acquired(&m->dep_map, 0);
    return;
  }
  if(lock_stat_enabled())
    t0 = lock_contended(&m->dep_map);
  list_add_tail(&w.list, &m->waiters);
  for(bool woken = false;; woken = true) {
    if(w.granted)
      break;
    if(!m->owner) {
      m->owner = current;
      list_del(&w.list);
      break;
    }
    // Taken again while this waiter was waking: it is the one unlock wakes, the oldest, and
    // the next unlock hands the mutex to it.
    if(woken && list_first_entry(&m->waiters, struct mutex_waiter, list) == &w)
      m->handoff = true;
    set_current_state(T_SLEEPING);
    current->wait_on = m->name;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    schedule();
    spin_lock_irqsave(&m->wait_lock, flags);
  }
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  spin_unlock_irqrestore(&m->wait_lock, flags);
  if(lock_stat_enabled())
    lock_acquired(&m->dep_map, t0);
}

void
mutex_lock(struct mutex *m)
{
  __mutex_lock(m, 0, _RET_IP_);
}

void
mutex_lock_nested(struct mutex *m, int subclass)
{
  __mutex_lock(m, subclass, _RET_IP_);
}

bool
mutex_trylock(struct mutex *m)
{
  u64 flags;
  bool ok = false;
  spin_lock_irqsave(&m->wait_lock, flags);
  if(!m->owner) {
    m->owner = current;
    ok = true;
  }
  spin_unlock_irqrestore(&m->wait_lock, flags);
  if(ok)
    lockdep_acquire(&m->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_TRY, _RET_IP_);
  if(ok && lock_stat_enabled())
    lock_acquired(&m->dep_map, 0);
  return ok;
}

void
mutex_unlock(struct mutex *m)
{
  u64 flags;
  lockdep_release(&m->dep_map);
  if(lock_stat_enabled())
    lock_release(&m->dep_map);
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner != current)
    panic("mutex_unlock: %s is not held by this thread (%s)", m->name, current->name);
  m->owner = NULL;
  if(!list_empty(&m->waiters)) {
    struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, list);
    // Why not always hand over, as strict FIFO would: then every contended acquisition waits
    // for the wakee's CPU to run it, while the threads that are running queue behind it (a
    // lock convoy); with 8 vCPUs on 2 host cores that is a host time slice per create in a
    // shared directory (doc/notebook/2026-12-02-compare-linux.md). Linux releases too and hands over
    // only to a waiter that already lost once (MUTEX_FLAG_HANDOFF in its
    // kernel/locking/mutex.c: "locking/mutex: Add lock handoff to avoid starvation", 2016).
    if(m->handoff) {
      list_del(&w->list);
      m->owner = w->thread;
      w->granted = true;
      m->handoff = false;
    }
    wake_up_thread(w->thread);
  }
  spin_unlock_irqrestore(&m->wait_lock, flags);
}
