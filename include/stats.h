// Benchmark statistics: mean, spread and 95% intervals in integer fixed point.
// The kernel has no FPU, so every result is an integer in milli-units (1.042 is 1042).
#pragma once

#include "types.h"

// Verdicts of a two-variant comparison. Samples are rates (higher is better), so "faster"
// means variant a has the larger mean: its whole interval lies above 1. "same" is a claim of
// equivalence: the whole interval lies inside 1 +- the margin (bench.margin=). An interval
// that holds 1 but reaches past the margin says neither: "inconclusive", we cannot tell
// (as an equivalence test, Schuirmann's two one-sided tests, would conclude).
#define STATS_SLOWER (-1)
#define STATS_SAME 0
#define STATS_FASTER 1
#define STATS_INCONCLUSIVE 2

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
  u64 ci_m;     // its longer arm (log scale: delta method, Welch's df); 0: none
  u32 df;       // Welch-Satterthwaite degrees of freedom, rounded down; 0: no interval
  int verdict;  // FASTER: ratio_m - ci_m > 1000; SLOWER: ratio_m + ci_m < 1000; SAME: both
                // ends within the margin of 1000; else (or no interval) INCONCLUSIVE
  u32 pairs;    // stats_pair_ratio: the rounds it paired; 0: stats_ratio's unpaired interval
};

// Paired runs: round i ran a[i] and b[i] next to each other, so whatever slowed the host in
// that round slowed both. Kept as the log2 of each round's ratio a[i]/b[i], in Q32 fixed
// point (1 << 32 is a factor of 2): their mean and sample standard deviation.
struct stats_pair {
  u32 n;         // rounds; 0: none (a zero rate has no logarithm)
  s64 mean_q;    // mean of log2(a[i] / b[i]), Q32
  u64 sd_q;      // their sample standard deviation, n-1 denominator, Q32
};

// Limits: n <= 1000 runs of samples <= 1e12, m <= 1000 comparisons; no step overflows or
// divides by zero within them (most steps have orders of magnitude to spare).
void stats_compute(struct stats *s, const u64 *x, u32 n);
// margin_m: the equivalence margin in milli (50 is +-5%).
int stats_ratio(struct ratio *r, const struct stats *a, const struct stats *b, u32 m,
                u32 margin_m);
// Rates a[i], b[i] > 0 of n <= 1000 rounds; p->n is 0 if any is 0.
void stats_pair_compute(struct stats_pair *p, const u64 *a, const u64 *b, u32 n);
// The rounds' geometric mean ratio and its interval at 1 - 0.05/m (Student's t on the log
// ratios, n-1 df). Returns -1, with everything 0, if p has no rounds.
int stats_pair_ratio(struct ratio *r, const struct stats_pair *p, u32 m, u32 margin_m);
int stats_verdict(u64 ratio_m, u64 ci_m, u32 margin_m);
s64 stats_log2_q32(u64 x);
u64 stats_exp2_milli(s64 x_q, int round);

u32 stats_t975(u32 df);
u32 stats_tq(u32 df, u32 m);
u64 stats_rate(u64 ops, u64 ns);
// n runs of ops[i] operations in ns[i] nanoseconds: samples y[i] (operations a second) whose
// mean is sum ops / sum ns and whose spread gives that rate's standard error.
void stats_time_weighted(u64 *y, const u64 *ops, const u64 *ns, u32 n);
u64 isqrt_u128(unsigned __int128 x);
