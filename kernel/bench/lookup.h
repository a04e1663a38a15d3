// The lookup suite's per-point count of fallbacks (kernel/bench/lookup.c), read by its self-test
// (tests/kernel/lookup_suite_test.c) as point_done prints it.
#pragma once
#include "bench.h"
#include "types.h"

// A column's timed runs at the running point: their lookups, and of them the RCU-walks that
// gave up and were redone by reference.
struct lookup_count {
  u64 lookups;
  u64 fallbacks;
};

// ctx's column's count so far: from its warm-up (round 0, which starts it) to its last run.
void lookup_point_count(const struct bench_ctx *ctx, struct lookup_count *c);
