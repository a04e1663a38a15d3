// The mutex: a sleeping lock with one owner. A locker watches an owner that runs for a while,
// then sleeps; waiters queue in arrival order; a running thread may take a released mutex
// before the woken waiter runs, but only once a wake: nobody starves. Never take it in
// interrupts. The reader-writer semaphore is in include/rwsem.h.
#pragma once
#include "list.h"
#include "spinlock.h"

struct thread;

// A sleeping waiter, on its own stack, queued on a mutex.
struct mutex_waiter {
  struct list_head list;
  struct thread *thread;
  bool granted;    // set by the releasing thread, under wait_lock: the mutex is now ours
};

struct mutex {
  spinlock_t wait_lock;
  struct thread *owner;
  struct list_head waiters;   // struct mutex_waiter, oldest first
  // Under wait_lock: the oldest waiter woke and found the mutex taken again, so the next
  // unlock hands it over instead of releasing it (Linux's MUTEX_FLAG_HANDOFF).
  bool handoff;
  const char *name;
  struct lockdep_map dep_map;   // its class (include/lockdep_types.h)
};

#define MUTEX_INIT(m)                                                         \
  { .wait_lock = SPINLOCK_INIT(m.wait_lock), .waiters = LIST_HEAD_INIT((m).waiters),  \
    .name = #m, .dep_map = STATIC_LOCKDEP_MAP(#m) }
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m)
// The class is the call site, as spin_lock_init's.
#define mutex_init(m)                                                         \
  do {                                                                        \
    static struct lock_class_key __key = { .name = #m };                      \
    __mutex_init((m), #m, &__key);                                            \
  } while(0)

void __mutex_init(struct mutex *m, const char *name, struct lock_class_key *key);
void mutex_lock(struct mutex *m);
// A mutex of a class this thread may already hold, taken on purpose in a fixed order: for the
// lock-order checker, subclass n is a class of its own (as spin_lock_nested).
void mutex_lock_nested(struct mutex *m, int subclass);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
