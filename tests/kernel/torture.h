// What rcutorture.c and locktorture.c share: a per-thread random number generator, short
// busy-waits, and the Total/Max/Min summary of per-thread counters Linux's torture tests print.
#pragma once
#include "compiler.h"
#include "types.h"
#include <asm/x86.h>

// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators,
// scrambled", 2016): one word of state per thread, so threads never share a cache line for it.
struct torture_rand {
  u64 state;
};

static inline void
torture_seed(struct torture_rand *r, u64 seed)
{
  r->state = (seed + 1) * 0x9e3779b97f4a7c15UL;   // never zero: xorshift would stay at zero
}

static inline u32
torture_random(struct torture_rand *r)
{
  u64 x = r->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->state = x;
  return (x * 0x2545f4914f6cdd1dUL) >> 32;
}

// True once in n calls, on average.
static inline bool
torture_one_in(struct torture_rand *r, u32 n)
{
  return torture_random(r) % n == 0;
}

// A delay shorter than udelay's microsecond: n pause instructions.
static inline void
torture_spin(u32 n)
{
  while(n-- > 0)
    cpu_relax();
}

// Linux's "Total: … Max/Min: …" over one counter per thread.
struct torture_sum {
  u64 total, min, max;
};
#define TORTURE_SUM_INIT { 0, ~0UL, 0 }

static inline void
torture_sum_add(struct torture_sum *s, u64 count)
{
  s->total += count;
  s->min = MIN(s->min, count);
  s->max = MAX(s->max, count);
}
