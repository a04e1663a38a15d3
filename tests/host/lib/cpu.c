// Host CPUs: each thread that runs kernel code plays a CPU of its own, with that CPU's copy of
// the per-CPU section (bounded by lib/percpu.ld), its preempt count and its interrupt depth.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "percpu.h"
#include "preempt.h"
#include "tick.h"
#include <asm/cpu.h>

extern char __per_cpu_start[], __per_cpu_end[];

u64 __per_cpu_offset[NR_CPUS];
DEFINE_PER_CPU(int, preempt_count);
static DEFINE_PER_CPU(int, irq_depth);

__thread int host_cpu;

static pthread_mutex_t cpus_lock = PTHREAD_MUTEX_INITIALIZER;
static bool taken[NR_CPUS];     // under cpus_lock
static char *areas[NR_CPUS];    // kept for LeakSanitizer: only offsets point at them
static pthread_key_t cpu_key;   // its destructor gives a thread's CPU back

static void
cpu_give_back(void *cpu_plus_one)
{
  pthread_mutex_lock(&cpus_lock);
  taken[(long)cpu_plus_one - 1] = false;
  pthread_mutex_unlock(&cpus_lock);
}

// Every CPU's copy exists before main, so a thread may reach another CPU's at any time (the
// MCS lock writes into its predecessor's node). CPU 0 uses the section itself, as the
// kernel's boot CPU does, and the others zeroed copies (arch/x86_64/smp.c).
__attribute__((constructor)) static void
percpu_areas_init(void)
{
  size_t size = __per_cpu_end - __per_cpu_start;
  for(int cpu = 1; cpu < NR_CPUS && size > 0; cpu++) {
    areas[cpu] = aligned_alloc(4096, size);
    if(!areas[cpu]) {
      fprintf(stderr, "host cpu: no memory for CPU %d's per-CPU area\n", cpu);
      abort();
    }
    memset(areas[cpu], 0, size);
    __per_cpu_offset[cpu] = (u64)areas[cpu] - (u64)__per_cpu_start;
  }
  pthread_key_create(&cpu_key, cpu_give_back);
}

int
host_cpu_take(void)
{
  int cpu = 0;
  pthread_mutex_lock(&cpus_lock);
  while(cpu < NR_CPUS && taken[cpu])
    cpu++;
  if(cpu < NR_CPUS)
    taken[cpu] = true;
  pthread_mutex_unlock(&cpus_lock);
  if(cpu == NR_CPUS) {
    fprintf(stderr, "host cpu: more than %d threads at once\n", NR_CPUS);
    abort();
  }
  pthread_setspecific(cpu_key, (void *)(long)(cpu + 1));
  host_cpu = cpu + 1;
  return cpu;
}

// A test plays an interrupt handler between irq_enter and irq_exit.
void
irq_enter(void)
{
  this_cpu(irq_depth)++;
}

void
irq_exit(void)
{
  this_cpu(irq_depth)--;
}

bool
in_interrupt(void)
{
  return this_cpu(irq_depth) > 0;
}
