// Big-reader lock (include/brlock.h): per-CPU spinlocks, the reader's own CPU's for reading,
// all of them for writing (Linux 2.6.36's lglock/brlock, Nick Piggin and Andi Kleen).
#include "brlock.h"
#include "smp.h"

bool br_write_skip_last_cpu;

void
br_read_lock(struct brlock *b)
{
  spin_lock(this_cpu_ptr(b->percpu));
}

// The CPU that locked: a reader does not sleep inside, so it has not moved.
void
br_read_unlock(struct brlock *b)
{
  spin_unlock(this_cpu_ptr(b->percpu));
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
  for(int cpu = 0; cpu < n; cpu++)
    spin_lock(per_cpu_ptr(b->percpu, cpu));
}

void
br_write_unlock(struct brlock *b)
{
  for(int cpu = write_cpus() - 1; cpu >= 0; cpu--)
    spin_unlock(per_cpu_ptr(b->percpu, cpu));
}
