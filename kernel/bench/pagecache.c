// The pagecache suite: page-cache lookups with some removals and re-adds, in the four indexing
// variants (the 2001 pagecache_lock thread and the 2002 radix-tree pagecache thread).
#include "bench.h"
#include "errno.h"
#include "pagemap.h"
#include "printk.h"
#include "rcupdate.h"
#include "string.h"

#define NR_PAGES 4096        // a 16 MiB file
#define REMOVE_ONE_IN 64     // one operation in 64 takes a page out and puts it back
#define YIELD_EVERY 64

static struct address_space file;
static u64 wrong;            // lookups that found a page other than the one asked for

static unsigned long
page_content(struct page *page)
{
  return READ_ONCE(*(unsigned long *)page_address(page));
}

static int
pc_setup(struct bench_ctx *ctx)
{
  enum pagecache_variant v = 0;
  while(v < NR_PC_VARIANTS && strcmp(pagecache_variant_names[v], ctx->variant->name) != 0)
    v++;
  int err = address_space_init(&file, v, ctx->variant->fanout, NULL, false);
  for(unsigned long i = 0; err == 0 && i < NR_PAGES; i++) {
    struct page *page = find_or_create_page(&file, i, GFP_KERNEL);
    if(!page) {
      err = -ENOMEM;
      break;
    }
    *(unsigned long *)page_address(page) = i;
    unlock_page(page);
    put_page(page);
  }
  if(err)
    address_space_destroy(&file);
  return err;
}

static void
pc_teardown(struct bench_ctx *ctx)
{
  address_space_destroy(&file);
  rcu_barrier();   // the radix nodes' RCU frees, before the next variant's file
}

// Takes the page at index out of the file and puts the same page back, as truncate and a
// re-read would. Its lock keeps other removers away; lookups meanwhile may miss it.
static void
remove_readd(unsigned long index)
{
  struct page *page = find_lock_page(&file, index);
  if(!page)
    return;
  delete_from_page_cache(page);
  if(add_to_page_cache(page, &file, index, GFP_KERNEL) != 0)
    __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
  unlock_page(page);
  put_page(page);
}

static u64
pc_worker(struct bench_ctx *ctx, int thread_index)
{
  u64 x = 0x9e3779b97f4a7c15ULL * (thread_index + 1), ops = 0, bad = 0;
  while(!bench_stopped(ctx)) {
    x ^= x << 13;   // xorshift: a random page of the file each time
    x ^= x >> 7;
    x ^= x << 17;
    unsigned long index = x % NR_PAGES;
    if(x % REMOVE_ONE_IN == 0) {
      remove_readd(index);
    } else {
      struct page *page = find_get_page(&file, index);
      if(page) {
        bad += page_content(page) != index;
        put_page(page);
      }
    }
    if(++ops % YIELD_EVERY == 0)
      bench_yield(ctx);
  }
  __atomic_fetch_add(&wrong, bad, __ATOMIC_RELAXED);
  return ops;
}

// Every page found is the one asked for, and every page removed came back.
static bool
pc_verify(struct bench_ctx *ctx, u64 ops)
{
  u64 bad = __atomic_exchange_n(&wrong, 0, __ATOMIC_RELAXED);
  if(bad || file.nrpages != NR_PAGES)
    pr_err("bench: pagecache: %s fanout %d: %lu wrong of %lu operations, %lu of %d pages\n",
           ctx->variant->name, ctx->variant->fanout, bad, ops, file.nrpages, NR_PAGES);
  return bad == 0 && file.nrpages == NR_PAGES;
}

BENCH_SUITE(pagecache_suite) = {
  .name = "pagecache",
  .order = 30,
  .seed = "2001 pagecache_lock vs hashed locks; 2002 radix-tree pagecache, 16- vs 128-way",
  .op = "one page-cache operation (find_get_page + put; 1 in 64 a remove and re-add)",
  .sweep = SWEEP_OVER,
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
};
