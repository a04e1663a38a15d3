// Wait queues and completions. A waiter queues itself and sets its state under the queue's
// lock before testing its condition; a waker changes the condition, then wakes under the lock.
#include "lockdep.h"
#include "panic.h"
#include "sched.h"
#include "time.h"
#include "wait.h"

void
__init_waitqueue_head(struct wait_queue_head *wq, const char *name, struct lock_class_key *key)
{
  __spin_lock_init(&wq->lock, key);
  INIT_LIST_HEAD(&wq->head);
  wq->name = name;
}

void
prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e, int state)
{
  u64 flags;
  might_sleep();   // a wait_event whose condition already holds is checked all the same
  spin_lock_irqsave(&wq->lock, flags);
  if(list_empty(&e->entry))
    list_add_tail(&e->entry, &wq->head);
  set_current_state(state);
  current->wait_on = wq->name;
  spin_unlock_irqrestore(&wq->lock, flags);
}

void
finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
  u64 flags;
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  spin_lock_irqsave(&wq->lock, flags);
  if(!list_empty(&e->entry))
    list_del_init(&e->entry);
  spin_unlock_irqrestore(&wq->lock, flags);
}

// Caller holds wq->lock. Every watcher hears of it (a watcher is never the one woken that
// wake_up stops at: Linux's non-exclusive waiters), then the first sleeper, or all of them.
// Watchers are queued at the head (add_wait_queue_watcher), sleepers at the tail, so the walk
// ends at the first sleeper for wake_up, as it did before there were watchers.
static void
wake_some_locked(struct wait_queue_head *wq, bool all)
{
  struct wait_queue_entry *e, *n;
  list_for_each_entry_safe(e, n, &wq->head, entry) {
    if(e->func) {
      e->func(e);
      continue;
    }
    list_del_init(&e->entry);   // the waiter re-queues itself if its condition is still false
    wake_up_thread(e->thread);
    if(!all)
      break;
  }
}

void
add_wait_queue_watcher(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
  u64 flags;
  spin_lock_irqsave(&wq->lock, flags);
  list_add(&e->entry, &wq->head);
  spin_unlock_irqrestore(&wq->lock, flags);
}

static void
wake_some(struct wait_queue_head *wq, bool all)
{
  u64 flags;
  spin_lock_irqsave(&wq->lock, flags);
  wake_some_locked(wq, all);
  spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up(struct wait_queue_head *wq) { wake_some(wq, false); }
void wake_up_all(struct wait_queue_head *wq) { wake_some(wq, true); }

void
init_completion(struct completion *c)
{
  c->done = 0;
  init_waitqueue_head(&c->wait);
}

u64 complete_wake_delay_us;

// Counts and wakes under one hold of the lock, as Linux's complete() does (swake_up_locked
// under x->wait.lock). Waking after the unlock let a waiter see done, take the lock, consume
// it and return while this CPU had yet to wake: the completion's owner may then reuse it
// (rcu_barrier re-initializes its static barrier_done, a caller returns and its on-stack one
// is gone) while wake_up still takes its lock and walks its list. Now the unlock is the last
// access to *c, and wait_for_completion takes the lock before it returns, so it returns
// only after that unlock.
void
complete(struct completion *c)
{
  u64 flags;
  spin_lock_irqsave(&c->wait.lock, flags);
  c->done++;
  u64 delay = READ_ONCE(complete_wake_delay_us);
  if(delay)
    udelay(delay);   // the test's window between publishing done and the wake-up
  wake_some_locked(&c->wait, false);
  spin_unlock_irqrestore(&c->wait.lock, flags);
}

// Takes one completion; a completion counts, so complete() before the wait is not lost.
void
wait_for_completion(struct completion *c)
{
  for(;;) {
    wait_event(c->wait, READ_ONCE(c->done) > 0);
    u64 flags;
    spin_lock_irqsave(&c->wait.lock, flags);
    if(c->done > 0) {
      c->done--;
      spin_unlock_irqrestore(&c->wait.lock, flags);
      return;
    }
    spin_unlock_irqrestore(&c->wait.lock, flags);
  }
}
