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
struct brlock {
  arch_spinlock_t *percpu;   // a DEFINE_PER_CPU lock: CPU c's is per_cpu_ptr(percpu, c)
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
