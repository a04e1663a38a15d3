// The mutex: free, or owned by one thread; waiters sleep in a FIFO and unlock hands the
// mutex straight to the oldest, so a releasing thread cannot take it back before them.
#include "mutex.h"
#include "panic.h"
#include "sched.h"

void
__mutex_init(struct mutex *m, const char *name)
{
  spin_lock_init(&m->wait_lock);
  m->owner = NULL;
  INIT_LIST_HEAD(&m->waiters);
  m->name = name;
}

void
mutex_lock(struct mutex *m)
{
  struct mutex_waiter w = { .thread = current };
  u64 flags;
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner == current)
    panic("mutex_lock: %s is already held by this thread (%s)", m->name, current->name);
  if(!m->owner) {
    m->owner = current;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    return;
  }
  list_add_tail(&w.list, &m->waiters);
  for(;;) {
    set_current_state(T_SLEEPING);
    current->wait_on = m->name;
    if(w.granted)
      break;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    schedule();
    spin_lock_irqsave(&m->wait_lock, flags);
  }
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  spin_unlock_irqrestore(&m->wait_lock, flags);
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
  return ok;
}

void
mutex_unlock(struct mutex *m)
{
  u64 flags;
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner != current)
    panic("mutex_unlock: %s is not held by this thread (%s)", m->name, current->name);
  m->owner = NULL;
  if(!list_empty(&m->waiters)) {
    struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, list);
    list_del(&w->list);
    m->owner = w->thread;
    w->granted = true;
    wake_up_thread(w->thread);
  }
  spin_unlock_irqrestore(&m->wait_lock, flags);
}
