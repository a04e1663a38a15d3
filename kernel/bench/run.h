// The runner's two halves: kernel/bench/run.c (the workers of a point and one timed run of
// them) as kernel/bench/bench.c (the sweeps, the columns and their console lines) drives it.
#pragma once
#include "bench.h"

// A timed run lasts until every worker has done this many operations, past bench.secs if it
// must (run.c says why).
#define BENCH_MIN_OPS 20

extern struct bench_ctx bench_point;   // the point being measured, its suite and variant

// What one run did, its interval and what it left for after it.
struct bench_run {
  u64 ops, ns;
  u64 settle_ns;              // of ns, what the suite's settle took
  u64 enomem;                 // operations that failed with -ENOMEM (bench_enomem)
  u64 rcu_left, lazy_left;    // RCU callbacks and lazily freed pages queued and not yet done
  bool extended;              // went on past bench.secs until every worker had BENCH_MIN_OPS
  bool capped;                // and stopped at bench_cap_ns before they all had
};

int bench_start_workers(int n, bool paused);   // how many started, bench_point.threads = n
void bench_stop_workers(int n);
void bench_wait_parked(void);
void bench_run_once(u32 us, bool measured, struct bench_run *out);
u64 bench_cap_ns(u32 us);                      // the most a run of us microseconds may last
void bench_clean_between(void);                // between runs: the allocators to one state
