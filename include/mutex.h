// Sleeping locks: a mutex, and a reader-writer semaphore (the future mmap_sem).
// Both hand the lock to waiters in arrival order, so nobody starves; never take them in interrupts.
#pragma once
#include "list.h"
#include "spinlock.h"

struct thread;

// A sleeping waiter, on its own stack, queued on a mutex or rwsem.
struct lock_waiter {
  struct list_head list;
  struct thread *thread;
  bool write;      // rwsem: a writer
  bool granted;    // set by the releasing thread, under wait_lock: the lock is now ours
};

struct mutex {
  spinlock_t wait_lock;
  struct thread *owner;
  struct list_head waiters;   // struct lock_waiter, oldest first
  const char *name;
};

#define MUTEX_INIT(m) { SPINLOCK_INIT, NULL, LIST_HEAD_INIT((m).waiters), #m }
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m)
#define mutex_init(m) __mutex_init((m), #m)

void __mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);

struct rw_semaphore {
  spinlock_t wait_lock;
  int count;                  // readers holding it; -1: a writer holds it
  struct list_head waiters;   // readers and writers, oldest first
  const char *name;
  u64 wait_ns;                // time its waiters spent queued, summed (lock_stat's waittime)
};

#define RWSEM_INIT(s) { SPINLOCK_INIT, 0, LIST_HEAD_INIT((s).waiters), #s, 0 }
#define DECLARE_RWSEM(s) struct rw_semaphore s = RWSEM_INIT(s)
#define init_rwsem(s) __init_rwsem((s), #s)

void __init_rwsem(struct rw_semaphore *s, const char *name);
void down_read(struct rw_semaphore *s);
void down_write(struct rw_semaphore *s);
bool down_read_trylock(struct rw_semaphore *s);
void up_read(struct rw_semaphore *s);
void up_write(struct rw_semaphore *s);
