// CPU mask iteration.
// A mask is NR_CPUS bits; these walk it a 64-bit word at a time.
#include "cpumask.h"
#include "smp.h"

struct cpumask cpu_online_mask;

int
cpumask_next(int cpu, const struct cpumask *m)
{
  for(int c = cpu + 1; c < NR_CPUS;) {
    u64 word = READ_ONCE(m->bits[c / 64]) >> (c % 64);
    if(word)
      return c + __builtin_ctzl(word);
    c = (c / 64 + 1) * 64;
  }
  return NR_CPUS;
}

int
cpumask_weight(const struct cpumask *m)
{
  int n = 0;
  for(int i = 0; i < NR_CPUS / 64; i++)
    n += __builtin_popcountl(m->bits[i]);
  return n;
}

int
num_online_cpus(void)
{
  return cpumask_weight(&cpu_online_mask);
}
