// The pagecache suite: page-cache lookups while pages are replaced by fresh ones, in the four
// indexing variants (the 2001 pagecache_lock thread and the 2002 radix-tree pagecache thread).
#include "bench.h"
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "sched.h"
#include "pagecache.h"
#include "pagemap.h"
#include "printk.h"
#include "rcupdate.h"
#include "string.h"
#include "vsprintf.h"

#define NR_PAGES_SHIFT 12
#define NR_PAGES (1UL << NR_PAGES_SHIFT)   // a 16 MiB file
#define REPLACE_ONE_IN 64                   // one operation in 64 replaces a page
#define YIELD_EVERY 64

// The running run's file, built afresh by every run's setup and destroyed by its teardown, so
// that each run meets its own layout of pages and radix nodes and the intervals count how
// much layouts differ. Built once per point, as until 2026-12-05, a column's runs all shared
// the layout its warm-up drew, and ten A/A boots found a variant and its copy apart in 5 of
// 10 (doc/notebook/2026-12-05-aa.md): a difference between two layouts, met once per
// comparison, that no run's scatter held. The build, 4096 pages, is outside the interval.
// One for every column, at one address: only one run is alive at a time. Until 2026-12-06
// each column had its own at its slot's static address, so that its tree_lock and radix root
// sat for the whole boot where its copy's did not: unaligned (168 bytes), ten A/A boots found
// radix-lock/128 slower than its copy in 4, always that way (0.91 to 0.94 at 2 and 4
// threads); aligned, 2 of 10 either way (doc/notebook/2026-12-06-sched-rcu.md). What a
// placement costs under the emulator (its soft TLB is direct-mapped by page) now falls on
// every column alike.
struct pc_run {
  struct address_space as;
  u64 replaced_total;                     // since this run's setup: what the generations add up to
} __aligned(64);
static struct pc_run run_file;
// Each column's account over the point's runs, for pc_point_done.
struct pc_file {
  struct pc_tally tally;                  // the runs verified since pc_take_tally
  struct pagecache_rcu_stats races;       // radix-rcu's race counts, the point's runs' own
};
static struct pc_file files[BENCH_MAX_SLOTS];   // by ctx->slot
static struct pc_tally run_tally;     // the running run's: each worker adds its own as it returns
static struct pagecache_rcu_stats run_races;   // the race counts when the running run began

// A page holds its index and its generation: the replacements its index had seen when it went
// in. Both are written before the page is added, and never while it is in the file.
static void
set_content(struct page *page, unsigned long index, unsigned long gen)
{
  unsigned long *w = page_address(page);
  w[0] = index;
  w[1] = gen;
}

static unsigned long
content_index(struct page *page)
{
  return READ_ONCE(((unsigned long *)page_address(page))[0]);
}

static unsigned long
content_gen(struct page *page)
{
  return READ_ONCE(((unsigned long *)page_address(page))[1]);
}

static void
tally_add(struct pc_tally *to, const struct pc_tally *t)
{
  __atomic_fetch_add(&to->lookups, t->lookups, __ATOMIC_RELAXED);
  __atomic_fetch_add(&to->misses, t->misses, __ATOMIC_RELAXED);
  __atomic_fetch_add(&to->wrong, t->wrong, __ATOMIC_RELAXED);
  __atomic_fetch_add(&to->replaced, t->replaced, __ATOMIC_RELAXED);
  __atomic_fetch_add(&to->raced, t->raced, __ATOMIC_RELAXED);
  __atomic_fetch_add(&to->failed, t->failed, __ATOMIC_RELAXED);
}

static void
rcu_stats_sum(struct pagecache_rcu_stats *s)
{
  int cpu;
  *s = (struct pagecache_rcu_stats){ 0 };
  for_each_online_cpu(cpu) {
    s->refused += READ_ONCE(per_cpu(pagecache_rcu_races, cpu).refused);
    s->moved += READ_ONCE(per_cpu(pagecache_rcu_races, cpu).moved);
  }
}

// The run's file: a page at every index, holding that index, generation 0.
int
pc_setup(struct bench_ctx *ctx)
{
  struct pc_file *f = &files[ctx->slot];
  enum pagecache_variant v = 0;

  ctx->priv = &run_file.as;
  run_tally = (struct pc_tally){ 0 };
  rcu_stats_sum(&run_races);   // the counters are per CPU, not per file: only a difference
  if(ctx->round == 0) {        // the warm-up: the point's first run of this column
    f->tally = (struct pc_tally){ 0 };
    f->races = (struct pagecache_rcu_stats){ 0 };
  }
  while(v < NR_PC_VARIANTS && strcmp(pagecache_variant_names[v], ctx->variant->name) != 0)
    v++;
  int err = address_space_init(&run_file.as, v, ctx->variant->fanout, NULL, false);
  for(unsigned long i = 0; err == 0 && i < NR_PAGES; i++) {
    struct page *page = alloc_page(GFP_KERNEL);
    if(!page) {
      err = -ENOMEM;
      break;
    }
    set_content(page, i, 0);
    lock_page(page);
    err = add_to_page_cache(page, &run_file.as, i, GFP_KERNEL);
    unlock_page(page);
    put_page(page);
  }
  if(err) {
    address_space_destroy(&run_file.as);
    ctx->priv = NULL;
    return err;
  }
  run_file.replaced_total = 0;
  return 0;
}

void
pc_teardown(struct bench_ctx *ctx)
{
  address_space_destroy(&run_file.as);
  rcu_barrier();   // the radix nodes' RCU frees, before the next run's file
  ctx->priv = NULL;
}

// Replaces the page at index by a fresh one holding the next generation, as truncate and a
// re-read would; the old page is freed by whoever drops it last, which may be a lookup.
// The fresh page is allocated first: the old one, freed to the head of this CPU's free list,
// is then this CPU's next fresh page, at another index, so a lookup still on its way to a
// reference to it finds another index's contents unless it rechecks its slot. Replacers of
// one index are kept apart by the old page's lock: a second one finds the index empty or the
// fresh page. Returns 1 if it replaced, 0 if the index was empty, or -ENOMEM (with nothing
// changed: the fresh page could not be had).
static int
replace(struct address_space *file, unsigned long index)
{
  struct page *fresh = alloc_page(GFP_KERNEL), *old;
  if(!fresh)
    return -ENOMEM;
  old = find_lock_page(file, index);
  if(!old) {
    put_page(fresh);
    return 0;
  }
  unsigned long gen = content_gen(old) + 1;
  delete_from_page_cache(old);
  unlock_page(old);
  put_page(old);
  set_content(fresh, index, gen);
  lock_page(fresh);
  // The index is empty until the insert succeeds, and verify wants a page at every one: an
  // insert that fault injection failed (a hash node) is tried again, a real shortage is not
  // waited out for long.
  int err, tries = 0;
  while((err = add_to_page_cache(fresh, file, index, GFP_KERNEL)) == -ENOMEM && tries++ < 100)
    cond_resched();
  unlock_page(fresh);
  put_page(fresh);
  return err ? err : 1;
}

u64
pc_worker(struct bench_ctx *ctx, int thread_index)
{
  struct address_space *file = ctx->priv;
  u64 x = 0x9e3779b97f4a7c15ULL * (thread_index + 1), ops = 0;
  struct pc_tally t = { 0 };
  while(!bench_stopped(ctx)) {
    // xorshift64* (Vigna 2016): the index from the top bits, the choice from others, so that
    // every page is replaced as often as it is looked up.
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    u64 r = x * 0x2545f4914f6cdd1dULL;
    unsigned long index = r >> (64 - NR_PAGES_SHIFT);
    if((r >> 16) % REPLACE_ONE_IN == 0) {
      int done = replace(file, index);
      t.replaced += done == 1;
      t.raced += done == 0;
      if(done == -ENOMEM && fault_inject_active()) {   // nothing changed: not counted
        bench_enomem(ctx);
        bench_yield(ctx);
        continue;
      }
      t.failed += done < 0;
    } else {
      struct page *page = find_get_page(file, index);
      t.lookups++;
      if(page) {
        t.wrong += content_index(page) != index;
        put_page(page);
      } else {
        t.misses++;
      }
    }
    if(++ops % YIELD_EVERY == 0)
      bench_yield(ctx);
  }
  tally_add(&run_tally, &t);
  return ops;
}

// The run's lookups found only their own pages, and the file is whole: a page at every
// index, holding that index, the generations adding up to the replacements made.
bool
pc_verify(struct bench_ctx *ctx, u64 ops)
{
  struct pc_file *f = &files[ctx->slot];
  struct pc_tally t = run_tally;
  struct pagecache_rcu_stats now;
  unsigned long lost = 0, misplaced = 0, gens = 0;

  run_tally = (struct pc_tally){ 0 };
  tally_add(&f->tally, &t);
  run_file.replaced_total += t.replaced;
  rcu_stats_sum(&now);
  f->races.refused += now.refused - run_races.refused;
  f->races.moved += now.moved - run_races.moved;
  for(unsigned long i = 0; i < NR_PAGES; i++) {
    struct page *page = find_get_page(&run_file.as, i);
    if(!page) {
      lost++;
      continue;
    }
    misplaced += content_index(page) != i;
    gens += content_gen(page);
    put_page(page);
  }
  bool ok = t.wrong == 0 && t.failed == 0 && lost == 0 && misplaced == 0 &&
            gens == run_file.replaced_total && run_file.as.nrpages == NR_PAGES;
  if(!ok)
    pr_err("bench: pagecache: %s fanout %d: %lu wrong pages of %lu lookups, %lu replacements "
           "failed; file: %lu of %lu pages (%lu lost, %lu misplaced), generations %lu of %lu\n",
           ctx->variant->name, ctx->variant->fanout, t.wrong, t.lookups, t.failed,
           run_file.as.nrpages, NR_PAGES, lost, misplaced, gens, run_file.replaced_total);
  return ok;
}

void
pc_take_tally(struct bench_ctx *ctx, struct pc_tally *t)
{
  *t = files[ctx->slot].tally;
  files[ctx->slot].tally = (struct pc_tally){ 0 };
}

// How often the point's runs of this variant (its warm-up too) reached the paths where
// lookups race replacements: a reader can see the workload exercised them.
static void
pc_point_done(struct bench_ctx *ctx)
{
  struct pagecache_rcu_stats *races = &files[ctx->slot].races;
  struct pc_tally t;
  char name[32], rcu[128] = "";

  pc_take_tally(ctx, &t);
  scnprintf(name, sizeof(name), ctx->variant->fanout ? "%s/%d" : "%s", ctx->variant->name,
            ctx->variant->fanout);
  if(strcmp(ctx->variant->name, pagecache_variant_names[PC_RADIX_RCU]) == 0)
    scnprintf(rcu, sizeof(rcu), "; speculative references refused %lu, dropped at the recheck %lu",
              races->refused, races->moved);
  pr_info("bench: pagecache: %s at %d thread%s: lookups %lu (%lu found the index "
          "mid-replacement), pages replaced %lu (%lu more found another replacement under way)%s\n",
          name, ctx->threads, ctx->threads == 1 ? "" : "s", t.lookups, t.misses, t.replaced,
          t.raced, rcu);
}

BENCH_SUITE(pagecache_suite) = {
  .name = "pagecache",
  .order = 30,
  .seed = "2001 pagecache_lock vs hashed locks; 2002 radix-tree pagecache, 16- vs 128-way",
  .op = "one page-cache operation on a 4096-page file: find_get_page + contents check + put, or "
        "1 in 64 (chosen apart from the index) a page replaced by a fresh one",
  .sweep = SWEEP_OVER,
  // Ten runs, not five: at 16 threads on 8 vCPUs a run's rate depends on which vCPUs the 2
  // host cores happen to run (radix-rcu's runs scatter by a third of their mean), and over
  // its 28 comparisons five runs gave the headline `faster` in 2 of 5 boots at a ratio that
  // stayed near 3.4 (doc/benchmarks.md).
  .runs = 10,
  .variants = {
    { "hash-global", 0 },
    { "hash-bucket", 0 },
    { "radix-lock", 16 },
    { "radix-lock", 64 },
    { "radix-lock", 128 },
    { "radix-rcu", 16 },
    { "radix-rcu", 64 },
    { "radix-rcu", 128 },
  },
  .pairs = {
    { "radix-rcu", 64, "hash-global", 0 },
    { "hash-bucket", 0, "hash-global", 0 },
    { "radix-lock", 128, "radix-lock", 16 },
    { "radix-rcu", 64, "radix-lock", 64 },
  },
  // An estimate, not a table: in 2001 SGI found half the CPU cycles of 32-processor AIM7 runs
  // waiting on pagecache_lock, which would make the lock-free lookup twice as fast once the
  // threads outnumber the CPUs; the 2002 thread claims "nice scalability improvements on big
  // machines" without a number (doc/seeds.md, 2001 and 2002).
  .headline = { "radix-rcu", 64, "hash-global", 0, HEAD_TWICE_CPUS, 2000, STATS_FASTER,
                "doc/seeds.md 2001 (SGI, 32 CPUs) and 2002" },
  // The radix variants free tree nodes through RCU when a page is removed.
  .settle = bench_settle_rcu,
  .setup = pc_setup,
  .teardown = pc_teardown,
  .worker = pc_worker,
  .verify = pc_verify,
  .point_done = pc_point_done,
};
