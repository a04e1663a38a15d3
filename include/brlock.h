// Big-reader lock: a spinlock per CPU. A reader takes only its own CPU's, a writer every CPU's
// (kernel/locking/brlock.c), as Linux 2.6.36's br_read_lock guarded vfsmount_lock.
#pragma once
#include "percpu.h"
#include "spinlock.h"
#include "types.h"

// Readers on different CPUs share no cache line, so reading scales; writing costs a lock
// per CPU and is meant to be rare (mount, umount). Not for interrupt context: a reader
// interrupted by a handler that wants the write side would deadlock its own CPU.
//
// The per-CPU locks are arch locks and the brlock is one lock class, as Linux's lglock
// (arch_spinlock_t per CPU, one lockdep_map): a writer is one acquisition of the class, not
// one per CPU, and the per-CPU copies, which start zeroed, need no class of their own.
//
// Writers are not starved. Under a hypervisor spin_lock tests-and-sets (virt_spin_lock), and
// a reader that leaves and comes back to its own CPU's lock wins it again and again against
// a writer spinning on another vCPU: at 64 vCPUs a mount and umount took a minute. So a
// writer raises `writers` before it takes the first lock, and a reader waits for it to fall
// before taking its own (Linux's percpu_rw_semaphore does the same with its `block`): while a
// writer waits, each CPU's lock is overtaken by at most the one reader that had already looked.
struct brlock {
  arch_spinlock_t *percpu;   // a DEFINE_PER_CPU lock: CPU c's is per_cpu_ptr(percpu, c)
  int writers;               // atomic: writers waiting or inside; new readers wait while > 0
  struct lockdep_map dep_map;
};

// Per-CPU copies start zeroed, and a zeroed arch_spinlock_t is free (include/spinlock.h).
#define DEFINE_BRLOCK(name)                                                   \
  static DEFINE_PER_CPU(arch_spinlock_t, name##_percpu);                      \
  struct brlock name = { .percpu = &name##_percpu, .dep_map = STATIC_LOCKDEP_MAP(#name) }

// The reader stays on its CPU until br_read_unlock: the lock counts in preempt_count, as a
// spinlock does, and this kernel never preempts or migrates a thread that does not sleep.
void br_read_lock(struct brlock *b);
void br_read_unlock(struct brlock *b);
// Every CPU's lock, in CPU order, so two writers cannot deadlock each other.
void br_write_lock(struct brlock *b);
void br_write_unlock(struct brlock *b);

// planted-brlock-skip (tests/kernel/mount_test.c): the write side leaves the last CPU's lock
// alone, so readers there are not excluded.
extern bool br_write_skip_last_cpu;
// brlock-writer's unfixed run (tests/kernel/brlock_test.c): readers ignore `writers`, as
// before the bound, so the test can show what it is there for.
extern bool br_read_ignore_writers;
