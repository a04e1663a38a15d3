// Big-reader lock (include/brlock.h): per-CPU locks, the reader's own CPU's for reading,
// all of them for writing (Linux 2.6.36's lglock/brlock, Nick Piggin and Andi Kleen).
#include "brlock.h"
#include "lock_stat.h"
#include "lockdep.h"
#include "smp.h"
#include <asm/processor.h>

bool br_write_skip_last_cpu;
bool br_read_ignore_writers;

// Takes one CPU's lock. With lock statistics on, the first lock of an acquisition that is
// found taken makes the acquisition contended, from then (*t0) on.
static void
br_take(struct brlock *b, arch_spinlock_t *l, u64 *t0)
{
  if(!lock_stat_enabled() || *t0) {
    arch_spin_lock(l);
    return;
  }
  if(!arch_spin_trylock(l)) {
    *t0 = lock_contended(&b->dep_map);
    arch_spin_lock(l);
  }
}

void
br_read_lock(struct brlock *b)
{
  u64 t0 = 0;

  lockdep_acquire(&b->dep_map, 0, LOCKDEP_READ, _RET_IP_);
  preempt_disable();
  // Let a waiting writer in first (include/brlock.h). Relaxed: only fairness hangs on this
  // read, exclusion is the per-CPU lock's; a stale 0 lets in the one reader the bound allows.
  // Under a hypervisor a reader that waits long halts (virt_wait): the writer waits for the
  // readers inside on every CPU, and the host runs their vCPUs sooner with fewer spinning.
  u32 spins = 0;
  while(READ_ONCE(b->writers) > 0 && !READ_ONCE(br_read_ignore_writers))
    virt_wait(&spins);
  br_take(b, this_cpu_ptr(b->percpu), &t0);
  if(lock_stat_enabled())
    lock_acquired(&b->dep_map, t0);
}

// The CPU that locked: a reader does not sleep inside, so it has not moved.
void
br_read_unlock(struct brlock *b)
{
  lockdep_release(&b->dep_map);
  if(lock_stat_enabled())
    lock_release(&b->dep_map);
  arch_spin_unlock(this_cpu_ptr(b->percpu));
  preempt_enable();
}

// Every CPU that can ever run a reader has an id below nr_cpu_ids (CPUs are not hot-added
// after smp_init). The planted switch is only flipped with no writer inside.
static int
write_cpus(void)
{
  int n = READ_ONCE(nr_cpu_ids);
  return READ_ONCE(br_write_skip_last_cpu) && n > 1 ? n - 1 : n;
}

void
br_write_lock(struct brlock *b)
{
  int n = write_cpus();
  u64 t0 = 0;

  lockdep_acquire(&b->dep_map, 0, 0, _RET_IP_);
  preempt_disable();
  // Relaxed, as the readers' read of it in br_read_lock.
  __atomic_add_fetch(&b->writers, 1, __ATOMIC_RELAXED);
  for(int cpu = 0; cpu < n; cpu++)
    br_take(b, per_cpu_ptr(b->percpu, cpu), &t0);
  if(lock_stat_enabled())
    lock_acquired(&b->dep_map, t0);
}

void
br_write_unlock(struct brlock *b)
{
  lockdep_release(&b->dep_map);
  if(lock_stat_enabled())
    lock_release(&b->dep_map);
  for(int cpu = write_cpus() - 1; cpu >= 0; cpu--)
    arch_spin_unlock(per_cpu_ptr(b->percpu, cpu));
  __atomic_sub_fetch(&b->writers, 1, __ATOMIC_RELAXED);
  preempt_enable();
}
