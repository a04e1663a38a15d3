// The poll table: the wait queues one poll or select call sleeps on at once, an entry per
// queue in pages of entries (Linux's fs/select.c: __pollwait, poll_freewait).
#include "errno.h"
#include "mm.h"
#include "poll.h"
#include "sched.h"

struct poll_table_entry {
  struct wait_queue_entry wait;   // on wq until a wake-up takes it off, or poll_freewait
  struct wait_queue_head *wq;
};

struct poll_table_page {
  struct poll_table_page *next;
  int n;
  struct poll_table_entry entries[];
};

#define ENTRIES_PER_PAGE \
  ((PAGE_SIZE - sizeof(struct poll_table_page)) / sizeof(struct poll_table_entry))

void
poll_initwait(struct poll_table *pt)
{
  pt->queue = true;
  pt->error = 0;
  pt->pages = NULL;
  pt->qproc = NULL;
}

void
poll_wait(struct file *f, struct wait_queue_head *wq, struct poll_table *pt)
{
  if(!pt || !pt->queue || !wq)
    return;
  if(pt->qproc) {
    pt->qproc(f, wq, pt);
    return;
  }
  struct poll_table_page *pg = pt->pages;
  if(!pg || pg->n == (int)ENTRIES_PER_PAGE) {
    pg = (struct poll_table_page *)__get_free_page(GFP_KERNEL);
    if(!pg) {
      pt->error = -ENOMEM;
      return;
    }
    pg->next = pt->pages;
    pg->n = 0;
    pt->pages = pg;
  }
  struct poll_table_entry *e = &pg->entries[pg->n++];
  e->wait.thread = current;
  e->wait.func = NULL;
  INIT_LIST_HEAD(&e->wait.entry);
  e->wq = wq;
  u64 flags;
  spin_lock_irqsave(&wq->lock, flags);
  list_add_tail(&e->wait.entry, &wq->head);
  spin_unlock_irqrestore(&wq->lock, flags);
}

// Under each queue's lock, which the waker holds while it takes the entry off: the caller set
// T_SLEEPING first (a full barrier), so a wake-up after this check finds it asleep and wakes
// it, and one before it is seen here.
bool
poll_triggered(struct poll_table *pt)
{
  for(struct poll_table_page *pg = pt->pages; pg; pg = pg->next) {
    for(int i = 0; i < pg->n; i++) {
      struct poll_table_entry *e = &pg->entries[i];
      u64 flags;
      spin_lock_irqsave(&e->wq->lock, flags);
      bool off = list_empty(&e->wait.entry);
      spin_unlock_irqrestore(&e->wq->lock, flags);
      if(off)
        return true;
    }
  }
  return false;
}

// The waker's last touch of an entry is under its queue's lock, so after taking that lock
// here the entry is ours to free.
void
poll_freewait(struct poll_table *pt)
{
  while(pt->pages) {
    struct poll_table_page *pg = pt->pages;
    for(int i = 0; i < pg->n; i++) {
      struct poll_table_entry *e = &pg->entries[i];
      u64 flags;
      spin_lock_irqsave(&e->wq->lock, flags);
      if(!list_empty(&e->wait.entry))
        list_del_init(&e->wait.entry);
      spin_unlock_irqrestore(&e->wq->lock, flags);
    }
    pt->pages = pg->next;
    free_page((unsigned long)pg);
  }
}
