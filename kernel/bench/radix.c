// The radix suite: one lock-free radix-tree lookup under RCU, in trees of 16, 64 and 128 slots
// per node holding the same dense file-like index range (the 2002 thread's rat-4 and rat-7).
#include "bench.h"
#include "errno.h"
#include "gfp.h"
#include "printk.h"
#include "radix-tree.h"
#include "rcupdate.h"
#include "sched.h"
#include "spinlock.h"

#define NR_ITEMS (1UL << 16)   // the pages of a 256 MiB file
#define YIELD_EVERY 64

// A tree per run, built by its setup and deleted by its teardown. Built once a point and
// shared by the point's runs, a comparison met two tree layouts once, and its interval
// counted none of that: A/A boots (bench.aa=yes) gave 4 false radix families in 5 boots
// (doc/notebook/2026-12-06-aa.md). Each run's own tree makes the layout part of the
// run-to-run spread. 2^16 items, not the 2^18 of a tree a point, keep the suite's time: 16-way
// trees are 4 levels deep, 64- and 128-way 3, as at 2^18 (5 and 3). Its root is one for every
// column, at one address (only one run is alive at a time), as pagecache's file: a root of
// each column's own sat where its copy's did not for the whole boot.
static struct radix_tree_root run_tree __aligned(64);
static DEFINE_SPINLOCK(tree_lock);
static u64 misses;

static void *item_for(unsigned long index) { return (void *)((index << 4) | 0x8); }

static void
radix_empty(struct radix_tree_root *tree)
{
  for(unsigned long i = 0; i < NR_ITEMS; i++) {
    spin_lock(&tree_lock);
    radix_tree_delete(tree, i);
    spin_unlock(&tree_lock);
    cond_resched();
  }
  rcu_barrier();   // the nodes' RCU frees, outside every interval
}

static int
radix_setup(struct bench_ctx *ctx)
{
  unsigned shift = ctx->variant->fanout == 16 ? 4 : ctx->variant->fanout == 64 ? 6 : 7;
  int err = 0;

  INIT_RADIX_TREE(&run_tree, shift);
  for(unsigned long i = 0; i < NR_ITEMS && !err; i++) {
    if((err = radix_tree_preload(GFP_KERNEL)) < 0)
      break;
    spin_lock(&tree_lock);
    err = radix_tree_insert(&run_tree, i, item_for(i));
    spin_unlock(&tree_lock);
    radix_tree_preload_end();
    cond_resched();   // seconds of inserts under TCG: let RCU and this CPU's others in
  }
  if(err < 0) {
    radix_empty(&run_tree);   // a setup that fails undoes itself (include/bench.h)
    return err;
  }
  if(ctx->round == 0)   // the warm-up's: every run's tree has this shape
    pr_info("bench: radix: fanout %d: %lu items, height %u, %lu nodes\n",
            ctx->variant->fanout, NR_ITEMS, radix_tree_height(&run_tree),
            radix_tree_nr_nodes(&run_tree));
  return 0;
}

static void
radix_teardown(struct bench_ctx *ctx)
{
  radix_empty(&run_tree);
}

static u64
radix_worker(struct bench_ctx *ctx, int thread_index)
{
  u64 x = 0x9e3779b97f4a7c15ULL * (thread_index + 1), ops = 0, bad = 0;
  while(!bench_stopped(ctx)) {
    x ^= x << 13;   // xorshift: a random page of the file each time
    x ^= x >> 7;
    x ^= x << 17;
    unsigned long index = x % NR_ITEMS;
    rcu_read_lock();
    bad += radix_tree_lookup(&run_tree, index) != item_for(index);
    rcu_read_unlock();
    if(++ops % YIELD_EVERY == 0)
      bench_yield(ctx);
  }
  __atomic_fetch_add(&misses, bad, __ATOMIC_RELAXED);
  return ops;
}

// Every lookup of an index in the file must find its own item.
static bool
radix_verify(struct bench_ctx *ctx, u64 ops)
{
  u64 bad = __atomic_exchange_n(&misses, 0, __ATOMIC_RELAXED);
  if(bad)
    pr_err("bench: radix: %lu of %lu lookups at fanout %d found the wrong item\n", bad, ops,
           ctx->variant->fanout);
  return bad == 0;
}

BENCH_SUITE(radix_suite) = {
  .name = "radix",
  .order = 20,
  .seed = "2002 radix-tree pagecache: 128-way (rat-7) vs 16-way (rat-4) branch factor",
  .op = "one radix-tree lookup",
  .sweep = SWEEP_UP,
  .variants = {
    { "lookup", 16 },
    { "lookup", 64 },
    { "lookup", 128 },
  },
  .pairs = {
    { "lookup", 128, "lookup", 16 },
    { "lookup", 64, "lookup", 16 },
  },
  // No settle: lookups only.
  .setup = radix_setup,
  .teardown = radix_teardown,
  .worker = radix_worker,
  .verify = radix_verify,
};
