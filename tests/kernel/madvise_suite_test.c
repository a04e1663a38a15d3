// Self-tests of the madvise suite's own checks (kernel/bench/madvise.c), driven through its
// hooks as the harness drives them: verify must catch what it claims, a teardown leak must
// fail the next run (planted-madvise-leak), and a clean run must pass.
#include "bench.h"
#include "fault_inject.h"
#include "mm.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "torture.h"
#include "vm.h"
#include <asm/uaccess.h>
#include "suite_run.h"

#define THREADS 2     // the suite's largest point here: arenas 0 and 1
#define RUN_MS 40
#define RUNS 3        // a warm-up and two more, as a point of the harness
#define TX_PER_RUN 1  // the work floor: transactions per worker and run (8 vCPUs did 40, 1 did 2)

static u64 total_ops;   // transactions of every run of the test

// One run of n workers, bound one per CPU as the harness binds them; verify's verdict.
static bool
run(struct bench_ctx *ctx, int n)
{
  u64 ops;
  ctx->threads = n;
  ctx->stop = false;
  ctx->start_ns = ktime_ns();
  ctx->deadline = ctx->start_ns + RUN_MS * 1000000UL;
  ctx->cap = ctx->deadline;   // these threads are not the harness's: the run ends on time
  bool ok = suite_threads(ctx, n, "madvtest", 0, &ops);
  total_ops += ops;
  return ctx->suite->verify(ctx, ops) && ok && ops > 0;
}

static bool
point(struct bench_ctx *ctx, int n)
{
  bool ok = true;
  for(int r = 0; r < RUNS; r++)
    ok &= run(ctx, n);
  return ok;
}

// The second arena's first page, which the point at one thread never touches: the arenas
// are mapped in turn, first fit from the bottom, one VMA each (mm/vma.c).
static unsigned long
second_arena(struct mm *mm)
{
  struct vma *v = find_vma(mm, 0);
  v = v ? vma_next(mm, v) : NULL;
  return v ? v->start : 0;
}

// verify must fail on a page mapped where no worker has run: the bound the MADV_FREE
// variants' rss is held to. The page then goes again and verify passes.
static bool
stray_page_caught(struct bench_ctx *ctx)
{
  struct mm *mm = ctx->priv;
  unsigned long a = mm ? second_arena(mm) : 0;
  if(!a)
    return false;
  use_mm(mm);
  bool ok = put_user(1UL, (u64 *)a) == 0;
  unuse_mm(mm);
  bool caught = !ctx->suite->verify(ctx, 0);
  ok &= madvise(mm, a, PAGE_SIZE, MADV_DONTNEED) == 0;
  return ok && caught && ctx->suite->verify(ctx, 0);
}

// Two variants in turn, each set up, run at one and two threads, and torn down. planted: a
// page is taken between the first variant's last run and its teardown, and given back only
// once the second variant has run: the teardown must see it as a leak, and the second
// variant's first run must fail.
static bool
suite_run(bool planted)
{
  static const char *const variants[] = { "dontneed-rlock", "free-rlock" };
  const struct benchsuite *s = suite_find("madvise");
  struct page *taken = NULL;
  bool ok = s != NULL, stray = true;
  total_ops = 0;
  for(u32 v = 0; ok && v < ARRAY_SIZE(variants); v++) {
    struct bench_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.suite = s;
    ctx.vi = bench_find_variant(s, variants[v], 0);
    if(ctx.vi < 0)
      return false;
    ctx.variant = &s->variants[ctx.vi];
    ctx.max_threads = THREADS;
    if(s->setup(&ctx) < 0)
      return false;
    ok &= point(&ctx, 1);
    stray &= stray_page_caught(&ctx);
    ok &= point(&ctx, THREADS);
    if(planted && v == 0)
      taken = alloc_page(GFP_KERNEL);
    if(taken && v == 1) {
      __free_page(taken);
      taken = NULL;
    }
    s->teardown(&ctx);
  }
  selftest_extra("transactions=%lu stray_page_caught=%s", total_ops, stray ? "yes" : "no");
  // Two variants, each RUNS runs at 1 and at THREADS workers.
  u64 floor = ARRAY_SIZE(variants) * RUNS * (1 + THREADS) * TX_PER_RUN;
  return ok && stray &&
         (planted || torture_enough("madvise-suite", "transactions", total_ops, floor));
}

// The suite's checks are held to exact counts (rss against the mapped pages, every byte
// written and summed), so the boot's injection (failslab=, failpage=) is paused for the test
// and put back after it; the madvise suite itself runs under injection in bench= boots.
static bool
madvise_suite_test(void)
{
  struct fault_rates rates;
  fault_inject_pause(&rates);
  bool ok = suite_run(false);
  fault_inject_restore(&rates);
  return ok;
}
SELFTEST("madvise-suite", madvise_suite_test);

static bool
planted_madvise_leak(void)
{
  return suite_run(true);
}
SELFTEST("planted-madvise-leak", planted_madvise_leak);
