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

// mean(a) / mean(b), dimensionless, in milli (1042 is 1.042), with its interval at the
// level 1 - 0.05/m of one of m comparisons that hold together at 95% (Bonferroni).
struct ratio {
  u64 ratio_m;
  u64 ci_m;     // half-width of that interval (delta method, Welch's df); 0: none
  u32 df;       // Welch-Satterthwaite degrees of freedom, rounded down; 0: no interval
  int verdict;  // STATS_FASTER: ratio_m - ci_m > 1000; STATS_SLOWER: ratio_m + ci_m < 1000
};

// Limits: n <= 1000 runs of samples <= 1e12, m <= 1000 comparisons; no step overflows or
// divides by zero within them (most steps have orders of magnitude to spare).
void stats_compute(struct stats *s, const u64 *x, u32 n);
int stats_ratio(struct ratio *r, const struct stats *a, const struct stats *b, u32 m);

u32 stats_t975(u32 df);
u32 stats_tq(u32 df, u32 m);
u64 stats_rate(u64 ops, u64 ns);
u64 isqrt_u128(unsigned __int128 x);
