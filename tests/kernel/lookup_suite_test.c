// lookup-suite: the lookup suite's fallback counts (kernel/bench/lookup.c) driven through its
// hooks as the harness drives a point, its two columns taking turns: each column counts its own.
#include "bench.h"
#include "fs.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "../../kernel/bench/lookup.h"
#include "suite_run.h"

#define THREADS 2
#define RUN_MS 50       // from the moment every worker runs
#define RUNS 2          // timed runs of each column, after its warm-up
#define MIN_OPS 20      // a run that did fewer lookups proves nothing
#define PLANT_SLOT 0    // the rcu-walk column's first timed run crosses a ref-walk-only mount
#define PLANT_ROUND 1

static bool plant;   // the next mount refuses RCU-walk: every rcu-walk lookup falls back

// The suite's own mount options, but ref-walk only while plant is set (include/fs.h: RCU-walk
// then gives up at the mount and the worker redoes the lookup by reference).
static void
test_opts(const struct bench_ctx *ctx, struct ramfs_opts *o)
{
  *o = (struct ramfs_opts){ PC_RADIX_RCU, 64, FREE_RCU, plant ? WALK_REF_ONLY : WALK_AUTO };
}

// One run of ctx's column: setup, THREADS workers for RUN_MS once all of them run (waking a
// halted vCPU can take longer than that when vCPUs outnumber host cores), verify, teardown.
// Its operations in *ops; false if anything failed or it did too little.
static bool
run(struct bench_ctx *ctx, u64 *ops)
{
  if(ctx->suite->setup(ctx) < 0)
    return false;
  // These threads are not the harness's: this thread ends the run, bench_yield never does.
  ctx->stop = false;
  ctx->start_ns = ktime_ns();
  ctx->deadline = ctx->cap = ~0ULL;
  bool ok = suite_threads(ctx, THREADS, "lookuptest", RUN_MS, ops);
  ctx->stop_ns = ktime_ns();
  ok &= ctx->suite->verify(ctx, *ops) && *ops >= MIN_OPS;
  ctx->suite->teardown(ctx);
  return ok;
}

static bool
lookup_suite_test(void)
{
  static const char *const variants[] = { "rcu-walk", "ref-walk" };   // slots 0 and 1
  static struct benchsuite suite;
  struct lookup_count got[2];
  u64 want_lookups[2] = { 0 }, want_fallbacks[2] = { 0 }, ops;
  const struct benchsuite *s;
  struct bench_ctx ctx;
  bool ok = true;

  if(!(s = suite_find("lookup")))
    return false;
  suite = *s;
  suite.fs.opts = test_opts;
  memset(&ctx, 0, sizeof(ctx));
  ctx.suite = &suite;
  ctx.threads = ctx.max_threads = THREADS;
  ctx.runs = RUNS;
  // The harness's order (kernel/bench/bench.c): the warm-up round B A, then A B, B A, ...
  for(u32 r = 0; ok && r <= RUNS; r++) {
    for(int k = 0; ok && k < 2; k++) {
      int slot = r % 2 ? k : 1 - k;
      ctx.slot = slot;
      ctx.vi = bench_find_variant(&suite, variants[slot], 0);
      if(ctx.vi < 0)
        return false;
      ctx.variant = &suite.variants[ctx.vi];
      ctx.round = r;
      plant = slot == PLANT_SLOT && r == PLANT_ROUND;
      ok &= run(&ctx, &ops);
      if(r > 0) {
        want_lookups[slot] += ops;
        want_fallbacks[slot] += plant ? ops : 0;
      }
      plant = false;
      if(r == RUNS)
        lookup_point_count(&ctx, &got[slot]);
    }
  }
  if(!ok)
    return false;
  selftest_extra("rcu_walk=%lu/%lu ref_walk=%lu/%lu want=%lu/%lu,%lu/%lu", got[0].fallbacks,
                 got[0].lookups, got[1].fallbacks, got[1].lookups, want_fallbacks[0],
                 want_lookups[0], want_fallbacks[1], want_lookups[1]);
  // The unplanted rcu-walk run may fall back a few times on its own (a race with the
  // harness's own work is all there is here): the planted run's fallbacks are a floor.
  return got[0].lookups == want_lookups[0] && got[0].fallbacks >= want_fallbacks[0] &&
         got[0].fallbacks <= want_lookups[0] && got[1].lookups == want_lookups[1] &&
         got[1].fallbacks == 0 && want_fallbacks[0] >= MIN_OPS;
}
SELFTEST_NOINJECT("lookup-suite", lookup_suite_test);
