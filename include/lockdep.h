// Lock-order checking (Linux's lockdep, smaller), in the debug image only (CONFIG_LOCKDEP): every
// acquisition is checked against the order of lock classes seen so far (kernel/locking/lockdep.c).
#pragma once
#include "compiler.h"
#include "lockdep_types.h"
#include "types.h"

struct thread;

// lockdep_acquire's flags, kept in the held entry.
#define LOCKDEP_TRY   1   // a trylock that succeeded: held, but no order edge leads to it
#define LOCKDEP_READ  2   // shared: read_lock, down_read, br_read_lock
#define LOCKDEP_SLEEP 4   // a sleeping lock (mutex, rwsem): may be held across schedule()

// A lock the thread holds, as lockdep sees it. Independent of lock_stat's held_locks, which
// hold only what was taken while statistics were on.
struct lockdep_held {
  struct lockdep_map *map;
  u64 ip;      // where it was taken
  u16 class;   // lockdep's class id (the key and subclass)
  u8 flags;    // LOCKDEP_*
  bool irq;    // taken in interrupt context: no order edge joins it to the thread's locks
};

// Current's held locks, innermost last; an interrupt handler's go on top of the thread it
// interrupted, and are gone again when it returns.
struct lockdep_task {
  struct lockdep_held held[MAX_LOCK_DEPTH];
  int depth;
};

// The kinds of report, each a `LOCKDEP kind=` line (doc/console.md).
enum lockdep_kind {
  LOCKDEP_CIRCULAR,        // a new edge closes a cycle of classes
  LOCKDEP_IRQ,             // a class taken in interrupts and held with interrupts on
  LOCKDEP_SLEEP_ATOMIC,    // a sleep with a spinlock held, preemption off or in an interrupt
  LOCKDEP_SLEEP_RCU,       // a sleep inside rcu_read_lock
  LOCKDEP_NR_KINDS,
};

#ifdef CONFIG_LOCKDEP
void lockdep_acquire(struct lockdep_map *map, int subclass, int flags, u64 ip);
void lockdep_release(struct lockdep_map *map);
// rq->lock at a context switch: taken by the thread switching out, released by the next one.
void lockdep_hand_over(struct lockdep_map *map, struct thread *to);
void lockdep_might_sleep(u64 ip);
// Reports printed so far of one kind (the planted tests compare before and after).
int lockdep_count(enum lockdep_kind kind);
// At the end of the run: a summary line; non-zero when lockdep reported anything (or its
// tables overflowed), which fails the run.
int lockdep_end(void);
#else
static inline void lockdep_acquire(struct lockdep_map *map, int subclass, int flags, u64 ip) {}
static inline void lockdep_release(struct lockdep_map *map) {}
static inline void lockdep_hand_over(struct lockdep_map *map, struct thread *to) {}
static inline void lockdep_might_sleep(u64 ip) {}
static inline int lockdep_count(enum lockdep_kind kind) { return 0; }
static inline int lockdep_end(void) { return 0; }
#endif

// Code that may sleep says so, so that a caller holding a spinlock or inside rcu_read_lock is
// caught on every call, not only on the calls that happen to switch (Linux's might_sleep).
#define might_sleep() lockdep_might_sleep((u64)__builtin_return_address(0))
// The caller's address, for the held-lock entries and the report's "taken at".
#define _RET_IP_ ((u64)__builtin_return_address(0))
