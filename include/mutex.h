// The mutex: a sleeping lock with one owner. Waiters get it in arrival order, so nobody
// starves; never take it in interrupts. The reader-writer semaphore is in include/rwsem.h.
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
  const char *name;
};

#define MUTEX_INIT(m) { SPINLOCK_INIT, NULL, LIST_HEAD_INIT((m).waiters), #m }
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m)
#define mutex_init(m) __mutex_init((m), #m)

void __mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
