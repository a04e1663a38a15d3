// Lock classes: a lock's class is the place that initializes it (Linux's lock_class_key), and
// the lock statistics (include/lock_stat.h) count per class, as the lock-order checker will.
#pragma once
#include "types.h"

// Lock-order checking (CONFIG_LOCKDEP, the debug image) tells apart, within one class, locks
// nested on purpose: spin_lock_nested(l, n) takes l as subclass n (include/lockdep.h).
#define MAX_LOCKDEP_SUBCLASSES 4

// One static key per initialization site: spin_lock_init(), mutex_init() and init_rwsem() are
// macros that define one at the call, and DEFINE_SPINLOCK() and the other static initializers
// one beside the lock. Every lock initialized there is of that class, as in Linux's lockdep and
// lock_stat: the dentries' d_lock are one class, not one per dentry. The name is the lock's
// expression at that site ("&mm->mmap_sem", "pagecache_lock"), as Linux's /proc/lock_stat
// names classes.
struct lock_class_key {
  const char *name;
  int id;   // lock_classes[id - 1] once lock_stat has seen it taken; 0 before (lock_stat.c)
#ifdef CONFIG_LOCKDEP
  u16 dep_class[MAX_LOCKDEP_SUBCLASSES];   // lockdep's class + 1 per subclass, 0 before it
                                           // was first taken (kernel/locking/lockdep.c)
#endif
};

// CONFIG_LOCK_STAT (the default; `make LOCKSTAT=0` builds without) or CONFIG_LOCKDEP (the
// debug image): every lock points at its class. Without them the map is an empty struct (GNU C:
// size 0), so locks are as small as before and the "free when off" claim can be measured
// against a build that has nothing.
#if defined(CONFIG_LOCK_STAT) || defined(CONFIG_LOCKDEP)
struct lockdep_map {
  struct lock_class_key *key;
};
// A statically initialized lock's class: a compound literal at file scope has static storage
// (C11 6.5.2.5), so each DEFINE_* has its own key without a second declaration beside it,
// which would not survive the `static` that callers put in front of DEFINE_SPINLOCK().
#define STATIC_LOCKDEP_MAP(n) { .key = &(struct lock_class_key){ .name = (n) } }
#define lockdep_set_class(map, k) ((map)->key = (k))
#else
struct lockdep_map {};
#define STATIC_LOCKDEP_MAP(n) {}
#define lockdep_set_class(map, k) ((void)(map), (void)(k))
#endif

// A lock the current thread holds (Linux's current->held_locks): when it was taken, for its
// hold time. Per thread, not per CPU: a mutex or an rwsem is held across schedule().
struct held_lock {
  struct lockdep_map *map;
  u64 acquire_ns;
};

// Deeper nesting than this kernel ever does (a brlock's writer is one entry, not one per
// CPU); a lock taken past it is counted but its hold time is not (lock_stat_overflow).
#define MAX_LOCK_DEPTH 16
