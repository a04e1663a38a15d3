// CPU masks: one bit per CPU id, as Linux's struct cpumask.
// Plain (non-atomic) updates: a mask is owned by one writer or protected by its user's lock.
#pragma once
#include "percpu.h"
#include "types.h"

struct cpumask {
  u64 bits[NR_CPUS / 64];
};

static inline void cpumask_clear(struct cpumask *m)
{ for(int i = 0; i < NR_CPUS / 64; i++) m->bits[i] = 0; }
static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{ m->bits[cpu / 64] |= 1UL << (cpu % 64); }
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{ m->bits[cpu / 64] &= ~(1UL << (cpu % 64)); }
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{ return (m->bits[cpu / 64] >> (cpu % 64)) & 1; }

// Atomic variants, for masks several CPUs update at once (an mm's TLB mask).
static inline void cpumask_set_cpu_atomic(int cpu, struct cpumask *m)
{ __atomic_fetch_or(&m->bits[cpu / 64], 1UL << (cpu % 64), __ATOMIC_RELAXED); }
static inline void cpumask_clear_cpu_atomic(int cpu, struct cpumask *m)
{ __atomic_fetch_and(&m->bits[cpu / 64], ~(1UL << (cpu % 64)), __ATOMIC_RELAXED); }

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *src)
{ for(int i = 0; i < NR_CPUS / 64; i++) dst->bits[i] |= READ_ONCE(src->bits[i]); }
static inline void cpumask_and(struct cpumask *dst, const struct cpumask *src)
{ for(int i = 0; i < NR_CPUS / 64; i++) dst->bits[i] &= READ_ONCE(src->bits[i]); }

int cpumask_next(int cpu, const struct cpumask *m);   // next set bit after cpu, or NR_CPUS
int cpumask_weight(const struct cpumask *m);

#define for_each_cpu(cpu, mask) \
  for((cpu) = cpumask_next(-1, (mask)); (cpu) < NR_CPUS; (cpu) = cpumask_next((cpu), (mask)))

extern struct cpumask cpu_online_mask;
#define for_each_online_cpu(cpu) for_each_cpu(cpu, &cpu_online_mask)
