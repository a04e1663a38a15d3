// The vmscale suite (issue 34; RadixVM's microbenchmarks, Clements et al., EuroSys 2013): the
// address-space operations of threads that share a process but not their memory, on shared
// and on per-core page tables (vm.pt=, mm/percore.c), in one boot. Run only when named.
//
// private: a thread maps a region of its own, writes every page, MADV_FREEs it, writes it
// again and unmaps it. Under shared tables the MADV_FREE and the munmap each interrupt every
// other CPU running the address space; under per-core ones only CPUs whose tables copied one
// of its pages, which no other thread touched: none. region: every thread reads the pages of
// one region and zaps it (MADV_DONTNEED), where the sharing is the point and per-core tables
// save nothing: every CPU holds copies, and every zap must reach them all.
#include "bench.h"
#include "errno.h"
#include "mm.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "vm.h"
#include <asm/memlayout.h>
#include <asm/uaccess.h>

#define PAGES 16   // a thread's region, and the shared one

enum { SHARED, PERCORE, SHARED_REGION, PERCORE_REGION };

static struct mm *mm;         // the run's address space, made by setup for its variant
static unsigned long region;  // the region variants' mapping
static u64 ipis0;             // shootdown IPIs when the run began
static u64 pt0;               // page-table pages in use before mm was made
static u64 bad;               // operations that read back what they should not have

static bool
percore(const struct bench_ctx *ctx)
{
  return ctx->vi == PERCORE || ctx->vi == PERCORE_REGION;
}

// A fresh mm a run, made under the variant's vm.pt= (mm_create reads it: nothing else makes
// an mm while the suites run).
static int
vms_setup(struct bench_ctx *ctx)
{
  if(percore(ctx) && nr_cpu_ids > 64) {
    pr_err("bench: vmscale: per-core page tables need at most 64 CPUs, not %d\n", nr_cpu_ids);
    return -EINVAL;
  }
  pt0 = READ_ONCE(pt_pages_shared.now) + READ_ONCE(pt_pages_percore.now);
  bool was = vm_pt_percore;
  WRITE_ONCE(vm_pt_percore, percore(ctx));
  mm = mm_create();
  WRITE_ONCE(vm_pt_percore, was);
  if(!mm)
    return -ENOMEM;
  if(ctx->vi == SHARED_REGION || ctx->vi == PERCORE_REGION) {
    long r = vm_mmap(mm, 0, PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS);
    if(r < 0) {
      mmput(mm);
      mm = NULL;
      return (int)r;
    }
    region = r;
  }
  bad = 0;
  ipis0 = READ_ONCE(tlb_shootdown_ipis);
  return 0;
}

static void
vms_teardown(struct bench_ctx *ctx)
{
  mmput(mm);
  mm = NULL;
}

// Every page written, freed lazily, read back (its data, or zero if reclaim took it) and
// written again, then the region unmapped. false: it failed, or read something else.
static bool
private_op(void)
{
  long a = vm_mmap(mm, 0, PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  if(a < 0)
    return false;
  bool ok = true;
  for(u64 i = 0; i < PAGES; i++)
    ok &= put_user(i + 1, (u64 *)(a + i * PAGE_SIZE)) == 0;
  ok &= madvise(mm, a, PAGES * PAGE_SIZE, MADV_FREE) == 0;
  for(u64 i = 0; i < PAGES; i++) {
    u64 v = ~0UL, *p = (u64 *)(a + i * PAGE_SIZE);
    ok &= get_user(v, p) == 0 && (v == i + 1 || v == 0) && put_user(i + 2, p) == 0;
  }
  return vm_munmap(mm, a, PAGES * PAGE_SIZE) == 0 && ok;
}

// Every page of the shared region read (zero: nobody writes it), then all of it zapped.
static bool
region_op(void)
{
  bool ok = true;
  for(u64 i = 0; i < PAGES; i++) {
    u64 v = ~0UL;
    ok &= get_user(v, (u64 *)(region + i * PAGE_SIZE)) == 0 && v == 0;
  }
  return madvise(mm, region, PAGES * PAGE_SIZE, MADV_DONTNEED) == 0 && ok;
}

static u64
vms_worker(struct bench_ctx *ctx, int thread_index)
{
  bool shared_region = ctx->vi == SHARED_REGION || ctx->vi == PERCORE_REGION;
  u64 ops = 0;
  use_mm(mm);
  while(!bench_stopped(ctx)) {
    u64 injected = current->faults_injected;
    if(shared_region ? region_op() : private_op())
      ops++;
    else if(current->faults_injected != injected)
      bench_enomem(ctx);   // a failed allocation (fault injection): not counted
    else
      __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    bench_yield(ctx);
  }
  unuse_mm(mm);
  return ops;
}

// The MADV_FREE'd pages the operations wrote again and the VMAs munmap freed through RCU
// belong to the run's interval.
static void
vms_settle(struct bench_ctx *ctx)
{
  bench_settle_lazyfree(ctx);
  bench_settle_rcu(ctx);
}

// Nothing read back wrong, and a private run leaves nothing mapped.
static bool
vms_verify(struct bench_ctx *ctx, u64 ops)
{
  bool private = ctx->vi == SHARED || ctx->vi == PERCORE;
  if(bad == 0 && (!private || mm->rss == 0))
    return true;
  pr_err("bench: vmscale: %s at %d threads: %lu operations read back wrong data, %lu pages"
         " left mapped\n", ctx->variant->name, ctx->threads, bad, mm->rss);
  return false;
}

// Shootdown IPIs per operation, and the page-table pages the run's mm had at its end.
static void
vms_extra(struct bench_ctx *ctx, u64 ops, u64 ns, u64 *value_m)
{
  u64 ipis = READ_ONCE(tlb_shootdown_ipis) - ipis0;
  u64 pt = READ_ONCE(pt_pages_shared.now) + READ_ONCE(pt_pages_percore.now) - pt0;
  value_m[0] = ops ? ipis * 1000 / ops : 0;
  value_m[1] = pt * 1000;
}

BENCH_SUITE(vmscale_suite) = {
  .name = "vmscale",
  .order = 100,
  .named_only = true,
  // At 8 threads on 8 vCPUs per-core does 1.17-1.22 times shared's operations, and 20 runs
  // of 0.1 s left that inconclusive (± 0.2-0.3) where 50 decide it (± 0.12-0.17); A/A at 50
  // runs: 0 false verdicts of 14 (doc/notebook/2026-12-07-madvise-vma.md).
  .runs = 50,
  .seed = "RadixVM per-core page tables (Clements et al. 2013) against one shared table",
  .op = "map, write, MADV_FREE, rewrite and unmap a thread's own 16 pages (the region"
        " variants read and zap 16 shared pages)",
  .sweep = SWEEP_OVER,
  .variants = {
    [SHARED] = { "shared" },
    [PERCORE] = { "percore" },
    [SHARED_REGION] = { "shared-region" },
    [PERCORE_REGION] = { "percore-region" },
  },
  .pairs = {
    { "percore", 0, "shared", 0 },
    { "percore-region", 0, "shared-region", 0 },
  },
  .extras = { "ipis_per_op", "pt_pages", NULL },
  .setup = vms_setup,
  .teardown = vms_teardown,
  .worker = vms_worker,
  .settle = vms_settle,
  .verify = vms_verify,
  .extra = vms_extra,
};
