// The reader-writer semaphore, a sleeping lock: readers share it, a writer has it alone.
// mmap_sem is one (include/vm.h). A writer may take it ahead of queued waiters unless the
// first of them has waited too long; never take it in interrupts.
#pragma once
#include "list.h"
#include "spinlock.h"

struct thread;

// A sleeping waiter, on its own stack, queued on an rwsem.
struct rwsem_waiter {
  struct list_head list;
  struct thread *thread;
  bool write;      // a writer
  bool granted;    // a reader's: set by the releasing thread, under wait_lock: the lock is ours
  u64 queued_ns;   // when it queued: past RWSEM_HANDOFF_NS at the head, it stops the steals
};

// count: RWSEM_WRITER while a writer holds it, RWSEM_WAITERS while anyone is queued,
// RWSEM_HANDOFF while the first waiter has waited too long and nobody may take the lock
// before it, and RWSEM_READER for each reader holding it. Taking it without a queue is one
// compare-and-swap on count (Linux's rwsem fast paths); only a waiter, and whoever must wake
// one, takes wait_lock.
#define RWSEM_WRITER 1L
#define RWSEM_WAITERS 2L
#define RWSEM_HANDOFF 4L
#define RWSEM_READER 256L
// Linux's RWSEM_WAIT_TIMEOUT (HZ/250): how long the first waiter lets writers steal past it.
#define RWSEM_HANDOFF_NS 4000000ULL

struct rw_semaphore {
  spinlock_t wait_lock;       // waiters and, while RWSEM_WAITERS is set, every grant
  long count;                 // atomic: RWSEM_* above
  struct list_head waiters;   // struct rwsem_waiter, readers and writers, oldest first
  const char *name;
  u64 wait_ns;                // time its waiters spent queued, summed (lock_stat's waittime)
  struct lockdep_map dep_map; // its class (include/lockdep_types.h)
};

#define RWSEM_INIT(s)                                                         \
  { .wait_lock = SPINLOCK_INIT(s.wait_lock), .waiters = LIST_HEAD_INIT((s).waiters),  \
    .name = #s, .dep_map = STATIC_LOCKDEP_MAP(#s) }
#define DECLARE_RWSEM(s) struct rw_semaphore s = RWSEM_INIT(s)
// The class is the call site, as spin_lock_init's; mmap_sem's is "&mm->mmap_sem" (mm/vma.c).
#define init_rwsem(s)                                                         \
  do {                                                                        \
    static struct lock_class_key __key = { .name = #s };                      \
    __init_rwsem((s), #s, &__key);                                            \
  } while(0)

void __init_rwsem(struct rw_semaphore *s, const char *name, struct lock_class_key *key);
void down_read(struct rw_semaphore *s);
void down_write(struct rw_semaphore *s);
bool down_read_trylock(struct rw_semaphore *s);
void up_read(struct rw_semaphore *s);
void up_write(struct rw_semaphore *s);
