// The pagecache suite's workload (kernel/bench/pagecache.c), shared with planted-pagecache-recheck
// (tests/kernel/pagecache_planted.c), which runs it on a radix-rcu file without the recheck.
#pragma once
#include "bench.h"
#include "types.h"

// What the workers did and found, summed over their runs.
struct pc_tally {
  u64 lookups;
  u64 misses;     // lookups that found the index empty: between a replacement's remove and add
  u64 wrong;      // lookups that returned a page holding another index: the variant's failure
  u64 replaced;   // pages replaced by fresh ones
  u64 raced;      // replacements that found the index empty, another worker replacing it
  u64 failed;     // replacements that could not add their fresh page (-ENOMEM)
};

// The run's file for ctx->variant (name and fanout, ctx->vi its own), filled at every setup
// and destroyed at every teardown; ctx->priv is its address_space.
int pc_setup(struct bench_ctx *ctx);
void pc_teardown(struct bench_ctx *ctx);
u64 pc_worker(struct bench_ctx *ctx, int thread_index);
// With the workers parked: checks the run just ended and the whole file; false (and a line on
// the console) if a lookup found a wrong page or the file lost a page or a replacement.
bool pc_verify(struct bench_ctx *ctx, u64 ops);
// The tally of ctx's file's runs verified since the last call, which it clears.
void pc_take_tally(struct bench_ctx *ctx, struct pc_tally *t);
