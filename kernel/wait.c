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

static void
wake_some(struct wait_queue_head *wq, bool all)
{
  u64 flags;
  spin_lock_irqsave(&wq->lock, flags);
  while(!list_empty(&wq->head)) {
    struct wait_queue_entry *e = list_first_entry(&wq->head, struct wait_queue_entry, entry);
    list_del_init(&e->entry);   // the waiter re-queues itself if its condition is still false
    wake_up_thread(e->thread);
    if(!all)
      break;
  }
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

void
complete(struct completion *c)
{
  u64 flags;
  spin_lock_irqsave(&c->wait.lock, flags);
  c->done++;
  spin_unlock_irqrestore(&c->wait.lock, flags);
  wake_up(&c->wait);
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
