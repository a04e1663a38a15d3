// Benchmark statistics: mean, spread and 95% intervals in integer fixed point.
// The kernel has no FPU, so every result is an integer in milli-units (1.042 is 1042).
#pragma once

#include "types.h"

// Verdicts of a two-variant comparison. Samples are rates (higher is better),
// so "faster" means variant a has the larger mean.
#define STATS_SLOWER (-1)
#define STATS_SAME 0
#define STATS_FASTER 1

// Summary of n runs, in milli-units of the samples.
// One run has no spread to estimate: stddev_m and ci95_m are then 0,
// meaning "no interval", not "no noise".
struct stats {
  u32 n;
  u64 mean_m;
  u64 stddev_m;  // sample standard deviation, n-1 denominator
  u64 ci95_m;    // half-width of the 95% interval of the mean
};

// Welch's unequal-variance comparison of the means of a and b.
struct welch {
  s64 diff_m;   // mean(a) - mean(b)
  u64 ci95_m;   // half-width of the 95% interval of diff_m
  u32 df;       // Welch-Satterthwaite degrees of freedom, rounded down
  int verdict;  // STATS_FASTER, STATS_SLOWER or STATS_SAME
};

// mean(a) / mean(b), dimensionless, in milli (1042 is 1.042).
struct ratio {
  u64 ratio_m;
  u64 ci95_m;  // half-width of its 95% interval (delta method)
};

// Limits: n <= 1000 runs of samples <= 1e12; no step overflows or
// divides by zero within them (most steps have orders of magnitude to spare).
void stats_compute(struct stats *s, const u64 *x, u32 n);
void stats_welch(struct welch *w, const struct stats *a, const struct stats *b);
int stats_ratio(struct ratio *r, const struct stats *a, const struct stats *b);

u32 stats_t975(u32 df);
u64 stats_rate(u64 ops, u64 ns);
u64 isqrt_u128(unsigned __int128 x);
