// Lock statistics (Linux's lock_stat): per lock class, acquisitions, contended acquisitions,
// wait and hold times, counted only while switched on (kernel/locking/lock_stat.c).
#pragma once
#include "compiler.h"
#include "lockdep_types.h"
#include "types.h"

struct thread;

// More classes than this kernel has init sites (about 50); a class past it is not counted.
#define MAX_LOCK_CLASSES 128

// One class's counts, kept per CPU while on: an acquisition writes only its own CPU's line,
// as Linux keeps its lock_class_stats per CPU, so counting does not itself add a shared
// cache line to every lock it measures.
struct lock_class_stats {
  u64 acquisitions;   // taken, trylocks that succeeded included
  u64 contended;      // of those, taken after a first try failed
  u64 wait_ns;        // from the first failed try to the taking, summed
  u64 max_wait_ns;    // the longest such wait
  u64 hold_ns;        // from the taking to the release, of those taken and released while on
};

#ifdef CONFIG_LOCK_STAT
extern bool lock_stat_on;   // read-mostly: flipped twice a timed run, read by every lock

// The one test in every lock's fast path while off: a load of a line nobody writes, and a
// branch the CPU predicts. Linux uses a static key (a patched jump); this kernel does not
// patch its text, and the measured cost of the branch is in doc/notebook/2026-12-01-lockstat-cost.md.
#define lock_stat_enabled() unlikely(READ_ONCE(lock_stat_on))

u64 lock_contended(struct lockdep_map *map);           // a first try failed: returns when
void lock_acquired(struct lockdep_map *map, u64 t0);   // taken; t0 from lock_contended or 0
void lock_release(struct lockdep_map *map);            // about to be released
// A lock that another thread will release: the run-queue lock, taken by the thread that
// switches out and released by the one that switches in (kernel/sched.c). Its held entry
// moves to `to`, as Linux's prepare_lock_switch/finish_lock_switch hand rq->lock over.
void lock_hand_over(struct lockdep_map *map, struct thread *to);
#else
#define lock_stat_enabled() false
static inline u64 lock_contended(struct lockdep_map *map) { return 0; }
static inline void lock_acquired(struct lockdep_map *map, u64 t0) {}
static inline void lock_release(struct lockdep_map *map) {}
static inline void lock_hand_over(struct lockdep_map *map, struct thread *to) {}
#endif

// Takes a lock with the statement `lock`, trying `try` (true when it got the lock) first
// while statistics are on, so that a failed first try marks the acquisition contended.
// Linux's LOCK_CONTENDED has the same shape. Only for the out-of-line slow paths: it would
// put a second copy of the lock in every inlined spin_lock.
#define LOCK_CONTENDED(map, try, lock)                                        \
  do {                                                                        \
    if(lock_stat_enabled()) {                                                 \
      u64 __t0 = 0;                                                           \
      if(!(try)) {                                                            \
        __t0 = lock_contended(map);                                           \
        lock;                                                                 \
      }                                                                       \
      lock_acquired((map), __t0);                                             \
    } else {                                                                  \
      lock;                                                                   \
    }                                                                         \
  } while(0)

// Switching on and off; neither clears the counts. On bumps the held-lock epoch, so that
// locks a thread took in an earlier on-period and released while off are forgotten.
void lock_stat_start(void);
void lock_stat_stop(void);
// Adds every CPU's counts of class i into sum[i] (MAX_LOCK_CLASSES entries) and clears them.
// Call it while off.
void lock_stat_fold(struct lock_class_stats *sum);
// One class's counts summed over the CPUs, live and left as they are (what klockstat reads).
void lock_stat_read(const struct lock_class_key *key, struct lock_class_stats *out);

// The classes seen so far, in the order they were first taken while on; lock_classes[i] is
// class i of lock_stat_fold's sum. nr_lock_classes is written with release semantics after
// the slot it covers.
extern struct lock_class_key *lock_classes[MAX_LOCK_CLASSES];
extern int nr_lock_classes;
extern u64 lock_stat_overflow;   // acquisitions not counted: classes or nesting past the max

// planted-lockstat-count (tests/kernel/lockstat_test.c): the next acquisition of this class is
// not counted.
extern struct lock_class_key *lock_stat_planted_miss;
