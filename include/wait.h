// Wait queues and completions: how a thread sleeps until a condition holds.
// wait_event re-tests the condition after every wake-up, so spurious wake-ups are harmless.
#pragma once
#include "list.h"
#include "sched.h"
#include "spinlock.h"

struct wait_queue_head {
  spinlock_t lock;
  struct list_head head;
  const char *name;          // shown by gdb's kthreads for threads sleeping here
};

// A sleeping thread's entry, taken off the queue by the wake-up that wakes it; or, with func,
// a watcher's (epoll's, fs/eventpoll.c): every wake-up calls func under the queue's lock with
// interrupts off, and the entry stays queued until its owner takes it off (Linux's
// wait_queue_entry.func, as ep_poll_callback uses it).
struct wait_queue_entry {
  struct thread *thread;
  struct list_head entry;
  void (*func)(struct wait_queue_entry *e);
};

#define WAIT_QUEUE_HEAD_INIT(n) { SPINLOCK_INIT(n.lock), LIST_HEAD_INIT((n).head), #n }
#define DECLARE_WAIT_QUEUE_HEAD(n) struct wait_queue_head n = WAIT_QUEUE_HEAD_INIT(n)
// The lock's class is the call site, as spin_lock_init's.
#define init_waitqueue_head(wq)                                               \
  do {                                                                        \
    static struct lock_class_key __key = { .name = #wq };                     \
    __init_waitqueue_head((wq), #wq, &__key);                                 \
  } while(0)

void __init_waitqueue_head(struct wait_queue_head *wq, const char *name,
                           struct lock_class_key *key);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e, int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
// A watcher (e->func set) goes at the head: every wake-up calls it, before any sleeper.
void add_wait_queue_watcher(struct wait_queue_head *wq, struct wait_queue_entry *e);
void wake_up(struct wait_queue_head *wq);       // the first waiter
void wake_up_all(struct wait_queue_head *wq);

#define wait_event(wq, cond)                                                  \
  do {                                                                        \
    struct wait_queue_entry __we = { current, LIST_HEAD_INIT(__we.entry), NULL };  \
    for(;;) {                                                                 \
      prepare_to_wait(&(wq), &__we, T_SLEEPING);                              \
      if(cond)                                                                \
        break;                                                                \
      schedule();                                                             \
    }                                                                         \
    finish_wait(&(wq), &__we);                                                \
  } while(0)

// wait_event for a thread that waits until there is work, for as long as it takes (a daemon,
// or a runner waiting out a benchmark run): the hung-task check leaves such a wait alone.
#define wait_event_idle(wq, cond)                                             \
  do {                                                                        \
    current->idle_wait = true;                                                \
    wait_event(wq, cond);                                                     \
    current->idle_wait = false;                                               \
  } while(0)

// wait_event for a user's wait under a mutex m, which may last for ever by design (a pipe's
// reader, a socket's): m is released while asleep and held again to test cond; evaluates to 0
// once cond holds, or -ERESTARTSYS when a signal comes first (restarted under SA_RESTART, else
// EINTR), the process's end included. The hung-task check leaves it alone.
#define wait_event_interruptible_mutex(wq, m, cond)                           \
  ({                                                                          \
    struct wait_queue_entry __we = { current, LIST_HEAD_INIT(__we.entry), NULL };  \
    int __err = 0;                                                            \
    mutex_unlock(&(m));                                                       \
    current->idle_wait = true;                                                \
    for(;;) {                                                                 \
      prepare_to_wait(&(wq), &__we, T_SLEEPING);                              \
      if(cond)                                                                \
        break;                                                                \
      if(signal_pending(current)) {                                           \
        __err = -ERESTARTSYS;                                                 \
        break;                                                                \
      }                                                                       \
      schedule();                                                             \
    }                                                                         \
    finish_wait(&(wq), &__we);                                                \
    current->idle_wait = false;                                               \
    mutex_lock(&(m));                                                         \
    __err;                                                                    \
  })

// Like wait_event, for at most ns nanoseconds; evaluates to true if cond held.
#define wait_event_timeout(wq, cond, ns)                                      \
  ({                                                                          \
    struct wait_queue_entry __we = { current, LIST_HEAD_INIT(__we.entry), NULL };  \
    u64 __end = ktime_ns() + (ns);                                            \
    bool __ok;                                                                \
    for(;;) {                                                                 \
      prepare_to_wait(&(wq), &__we, T_SLEEPING);                              \
      if((__ok = (cond)) || ktime_ns() >= __end)                              \
        break;                                                                \
      schedule_timeout(__end - ktime_ns());                                   \
    }                                                                         \
    finish_wait(&(wq), &__we);                                                \
    __ok;                                                                     \
  })

struct completion {
  unsigned done;
  struct wait_queue_head wait;
};

void init_completion(struct completion *c);
void complete(struct completion *c);   // its last access to *c is the unlock of c->wait.lock
extern u64 complete_wake_delay_us;       // test hook: complete() pauses between done++ and the wake
void wait_for_completion(struct completion *c);
