// The madvise suite: threads of one address space run malloc/free transactions whose frees give
// pages back with MADV_DONTNEED or MADV_FREE (Rik van Riel's MADV_FREE thread, LKML, April 2007).
#include "bench.h"
#include "errno.h"
#include "list.h"
#include "mm.h"
#include "printk.h"
#include "stacktable.h"
#include "reclaim.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "txnheap.h"
#include "vm.h"
#include "vsprintf.h"
#include <asm/paging.h>
#include <asm/uaccess.h>

// In 2007 glibc's free() gave whole free pages of a chunk back with MADV_DONTNEED (Ulrich
// Drepper's patched glibc did so for every free); each reuse then faulted in a zeroed page,
// and the exclusive mmap_sem of madvise stalled every other thread's faults. A transaction
// here is one such malloc/use/free round of a database thread, which fills its buffers (rows,
// sort runs) and reads them back: every cache line of every buffer is written, then summed.
// Its buffers come from a heap per thread (include/txnheap.h, shared with ubench's umadvise).
#define MAX_WORKERS 16    // the fixed sweep's largest point
#define YIELD_PAGES 4     // pages touched between two bench_yield calls
#define CHUNK_PAGES_MAX (1UL << (TXN_CLASSES - 1))

// Pinned memory leaves free, above the high watermark, the most that the workers can have in
// use at once (every buffer of a transaction at the largest size, a TLB-gather page and a
// stack each) and some for the rest of the kernel. The lazily freed pages of the MADV_FREE
// variants (TXN_HEAP_PAGES a thread at most) outgrow that at the sweep's largest point (16
// threads; 8 under bench=quick), so reclaim must drop them while the run goes on (the
// 2007 workload ran under memory pressure too); MADV_DONTNEED never needs reclaim.
#define THREAD_PAGES (TXN_MAX_BUFS * CHUNK_PAGES_MAX + 8)
#define SLACK_PAGES 1024
#define PIN_ORDER 9       // pinned in 2 MiB blocks, then smaller ones down to a page

enum { DONTNEED_WLOCK, DONTNEED_RLOCK, FREE_WLOCK, FREE_RLOCK };


// One thread's heap: a mapping of the shared mm cut into chunks, and per class a free list
// that hands out the chunk freed longest ago, so freed memory ages before it is reused (in
// a heap shared by many sizes a chunk is rarely reused at once) and reclaim finds some.
struct arena {
  unsigned long base;
  struct txn_heap heap;
  u64 bad;                          // transactions that failed their check
  u64 bytes;                        // of the buffers its transactions allocated
  u64 written, summed;              // bytes of those buffers written, and read back (per line)
  u64 done_ns;                      // ktime_ns when its worker returned from the last run
} __aligned(64);

// Counters of the whole kernel, read between runs while the workers are parked.
struct counters {
  u64 faults, ipis, lazy;
  u64 ipi_wait_ns, sem_wait_ns;   // waited for shootdown answers, and queued on mmap_sem
};

// A column's timed runs at the running point, summed for point_done's account of where its
// workers' time went: thread_ns is the runs' intervals times their workers, and of it they
// waited for shootdown answers, queued on mmap_sem, and, done with their last transaction,
// waited for the others (the run ends when the last worker returns: kernel/bench/run.c);
// the rest is their transactions' own work.
struct point_sums {
  u64 ops, thread_ns, ipi_wait_ns, sem_wait_ns, done_ns;
};

static struct mm *mm;
static struct arena arenas[MAX_WORKERS];
static int advice;
static bool old_exclusive;
static bool old_fault_vma_lock;   // vm.fault_lock= outside the suite
static LIST_HEAD(pinned);
static unsigned long free_before;
static int touched;               // arenas the variant's points have run on so far
static struct counters run_start, run_end;
// One account per column (ctx->slot): the columns take turns run by run, so one shared sum
// would pool every variant's runs into each point's account.
static struct point_sums sums[BENCH_MAX_SLOTS];
// A teardown's leak, reported as a failure by the next verify (the next variant's first
// run): the teardown hook cannot fail (include/bench.h). After the suite's last variant no
// verify follows, and the leak is only printed. NULL: none.
static const char *leak_variant;
static unsigned long leak_pages;

static void
arena_init(struct arena *a, unsigned long base, int index)
{
  a->base = base;
  txn_heap_init(&a->heap, index);
  a->bad = a->bytes = a->written = a->summed = 0;
}

// Writes one word in every cache line, each its own value (seed ^ address), and adds them
// to *total. The first store to a page faults it in unless MADV_FREE left it mapped.
static bool
fill(struct bench_ctx *ctx, struct arena *a, const struct txn_buf *b, u64 seed, u64 *total)
{
  unsigned long addr = a->base + b->page * PAGE_SIZE, end = addr + (PAGE_SIZE << b->class);
  bool ok = true;
  for(unsigned long p = addr; p < end; p += PAGE_SIZE) {
    for(unsigned long w = p; w < p + PAGE_SIZE; w += TXN_LINE_BYTES) {
      ok &= put_user(seed ^ w, (u64 *)w) == 0;
      *total += seed ^ w;
      a->written += TXN_LINE_BYTES;
    }
    if((p - addr) / PAGE_SIZE % YIELD_PAGES == YIELD_PAGES - 1)
      bench_yield(ctx);
  }
  return ok;
}

// The transaction's "work": reads back and sums what fill wrote, every cache line again.
static bool
sum(struct bench_ctx *ctx, struct arena *a, const struct txn_buf *b, u64 *total)
{
  unsigned long addr = a->base + b->page * PAGE_SIZE, end = addr + (PAGE_SIZE << b->class);
  bool ok = true;
  for(unsigned long p = addr; p < end; p += PAGE_SIZE) {
    for(unsigned long w = p; w < p + PAGE_SIZE; w += TXN_LINE_BYTES) {
      u64 v;
      ok &= get_user(v, (u64 *)w) == 0;
      *total += v;
      a->summed += TXN_LINE_BYTES;
    }
    if((p - addr) / PAGE_SIZE % YIELD_PAGES == YIELD_PAGES - 1)
      bench_yield(ctx);
  }
  return ok;
}

// One operation: 3 to 6 buffers of 4 KiB to 128 KiB allocated, written, summed and freed.
// The sums differ if a store did not stick until the read: reclaim dropped a page that was
// written again after MADV_FREE (the race lazyfree_evict must win against the dirty bit,
// which planted-lazyfree-dirty plants), or a fault mapped a frame someone else also got.
// They are no check of TLB shootdowns: an arena is only ever touched by its own worker,
// bound to one CPU, so no other CPU holds its translations (tlb-shootdown in
// tests/kernel/vm_test.c tests those).
static bool
transaction(struct bench_ctx *ctx, struct arena *a)
{
  struct txn_buf b[TXN_MAX_BUFS];
  u64 seed, want = 0, got = 0;
  int n = txn_begin(&a->heap, b, &seed);
  bool ok = true;
  for(int i = 0; i < n; i++)
    a->bytes += PAGE_SIZE << b[i].class;
  for(int i = 0; i < n; i++)
    ok &= fill(ctx, a, &b[i], seed, &want);
  for(int i = 0; i < n; i++)
    ok &= sum(ctx, a, &b[i], &got);
  for(int i = 0; i < n; i++) {
    ok &= madvise(mm, a->base + b[i].page * PAGE_SIZE, PAGE_SIZE << b[i].class, advice) == 0;
    txn_put(&a->heap, &b[i]);   // its pages given back to the kernel first
    bench_yield(ctx);
  }
  return ok && got == want;
}

static u64
madv_worker(struct bench_ctx *ctx, int thread_index)
{
  struct arena *a = &arenas[thread_index];
  u64 ops = 0;
  use_mm(mm);
  while(!bench_stopped(ctx)) {
    // A page fault that fault injection failed leaves its put_user failed and the sums
    // apart; the transaction has freed its buffers all the same.
    u64 injected = current->faults_injected;
    if(transaction(ctx, a))
      ops++;
    else if(current->faults_injected != injected)
      bench_enomem(ctx);
    else
      a->bad++;
  }
  unuse_mm(mm);
  a->done_ns = ktime_ns();
  return ops;
}

// Takes free memory away until only keep pages are left (GFP_ATOMIC: pinning must not
// reclaim; __GFP_NOSCRUB: nothing writes the pages, so overwriting them for QEMU, 1 GiB at
// the first pin, would only cost the setup seconds); each block remembers its order in
// page->private.
static void
pin_memory(unsigned long keep)
{
  for(int order = PIN_ORDER; order >= 0; order--) {
    while(nr_free_pages() >= keep + (1UL << order)) {
      struct page *p = alloc_pages(GFP_ATOMIC | __GFP_NOWARN | __GFP_NOSCRUB, order);
      if(!p)
        break;
      p->private = order;
      list_add(&p->lru, &pinned);
    }
  }
}

static void
unpin_memory(void)
{
  while(!list_empty(&pinned)) {
    struct page *p = list_first_entry(&pinned, struct page, lru);
    unsigned order = p->private;
    list_del(&p->lru);
    p->private = 0;
    __free_pages(p, order);
  }
}

// Free pages with nothing cached (mm_quiesce), plus the pages allocated for good, as
// the leak check counts (mm/leakcheck.c): a CPU's first slab call makes its magazine
// table, which a worker's fault does when it allocates a page table's lock (vm.ptl=split).
static unsigned long
free_pages_settled(void)
{
  mm_quiesce();
  return nr_free_pages() + nr_permanent_pages();
}

static void
read_counters(struct counters *c)
{
  c->faults = READ_ONCE(nr_page_faults);
  c->ipis = READ_ONCE(tlb_shootdown_ipis);
  c->lazy = READ_ONCE(lazyfree_freed);
  c->ipi_wait_ns = READ_ONCE(tlb_shootdown_wait_ns);
  c->sem_wait_ns = mm ? READ_ONCE(mm->mmap_sem.wait_ns) : 0;
}

// The harness's workers take the lowest free thread slots, and a slot keeps the stack it
// got on first use (kernel/sched.c). Threads alive all at once now give those slots their
// stacks before the free-page count is taken, so that teardown can demand every page back.
static int warmers;

static int
slot_warmer(void *arg)
{
  long n = (long)arg;
  __atomic_add_fetch(&warmers, 1, __ATOMIC_RELAXED);
  while(READ_ONCE(warmers) < n)
    msleep(1);
  return 0;
}

static void
warm_thread_slots(int n)
{
  struct thread *t[MAX_WORKERS];
  int cpus = num_online_cpus(), i;
  WRITE_ONCE(warmers, 0);
  for(i = 0; i < n && (t[i] = kthread_create(slot_warmer, (void *)(long)n, i % cpus,
                                             "madvise/warm/%d", i)); i++)
    ;
  if(i < n)
    WRITE_ONCE(warmers, n);   // let the ones that started go: the run will fail to start
  while(i-- > 0)
    kthread_join(t[i]);
}

static int
madv_setup(struct bench_ctx *ctx)
{
  if(ctx->max_threads > MAX_WORKERS)
    return -EINVAL;
  warm_thread_slots(ctx->max_threads);
  free_before = free_pages_settled();
  mm = mm_create();
  if(!mm)
    return -ENOMEM;
  for(int i = 0; i < ctx->max_threads; i++) {   // each on its own TXN_HEAP_ALIGN boundary
    unsigned long at = ALIGN_UP(MMAP_BASE, TXN_HEAP_ALIGN) + i * TXN_HEAP_ALIGN;
    long base = vm_mmap(mm, at, TXN_HEAP_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
    if(base < 0) {
      mmput(mm);
      return base;
    }
    arena_init(&arenas[i], base, i);
  }
  ctx->priv = mm;   // for tests/kernel/madvise_suite_test.c
  touched = 0;
  advice = ctx->vi == FREE_WLOCK || ctx->vi == FREE_RLOCK ? MADV_FREE : MADV_DONTNEED;
  old_exclusive = madvise_exclusive;
  WRITE_ONCE(madvise_exclusive, ctx->vi == DONTNEED_WLOCK || ctx->vi == FREE_WLOCK);
  // Every variant faults under mmap_sem, as the seed's kernels did (per-VMA locks are Linux
  // 6.4's): under a VMA's lock, madvise's write lock would no longer shut the faults out, and
  // the wlock variants would measure something the 2007 thread did not.
  old_fault_vma_lock = fault_vma_lock;
  WRITE_ONCE(fault_vma_lock, false);
  pin_memory(wmark.high + ctx->max_threads * THREAD_PAGES + SLACK_PAGES);
  if(ctx->round == 0) {   // every run's setup is the same: say it, and start the sums, once
    pr_info("bench: madvise: %s: %d arenas of %lu KiB, %lu pages left free (high watermark"
            " %lu)\n", ctx->variant->name, ctx->max_threads, TXN_HEAP_PAGES * PAGE_SIZE / 1024,
            nr_free_pages(), wmark.high);
    sums[ctx->slot] = (struct point_sums){ 0 };
  }
  read_counters(&run_end);
  return 0;
}

// Every page must come back: the mm's pages, page tables, VMAs and TLB-gather pages, and the
// pinned memory. Setup gave the worker slots their stacks first, and counted after RCU
// callbacks, per-CPU lists and empty slabs were drained, as it counts here.
static void
madv_teardown(struct bench_ctx *ctx)
{
  unpin_memory();
  mmput(mm);
  mm = NULL;
  ctx->priv = NULL;
  WRITE_ONCE(madvise_exclusive, old_exclusive);
  WRITE_ONCE(fault_vma_lock, old_fault_vma_lock);
  unsigned long after = free_pages_settled();
  if(after < free_before) {
    pr_err("bench: madvise: %s leaked %lu pages (%lu free before, %lu after)\n",
           ctx->variant->name, free_before - after, free_before, after);
    leak_variant = ctx->variant->name;
    leak_pages = free_before - after;
  }
}

// Pages mapped in arena a, as its PTEs say; under page_table_lock, which lazyfree_evict takes
// too (mm/lazyfree.c): with the workers parked, reclaim is all that still changes them.
static unsigned long
arena_mapped(const struct arena *a)
{
  unsigned long n = 0;
  for(unsigned long i = 0; i < TXN_HEAP_PAGES; i++) {
    u64 *pte = pte_lookup(mm, a->base + i * PAGE_SIZE);
    n += pte && (READ_ONCE(*pte) & PTE_P);
  }
  return n;
}

// The workers' buffers, transactions and the mm's pages after a run, workers parked.
static bool
check_arenas(struct bench_ctx *ctx, u64 ops)
{
  u64 bad = 0, bytes = 0, written = 0, summed = 0;
  for(int i = 0; i < ctx->max_threads; i++) {
    struct arena *a = &arenas[i];
    bad += a->bad;
    bytes += a->bytes;
    written += a->written;
    summed += a->summed;
    a->bad = a->bytes = a->written = a->summed = 0;
  }
  // MADV_DONTNEED unmaps at once: nothing may stay mapped. MADV_FREE leaves pages mapped
  // until reclaim takes them, but only in arenas that have run, and rss must count exactly
  // the present PTEs (faults add, zaps and lazyfree_evict subtract): so at most touched
  // arenas' worth.
  touched = MAX(touched, ctx->threads);
  unsigned long mapped = 0, stray = 0;
  spin_lock(&mm->page_table_lock);
  for(int i = 0; i < ctx->max_threads; i++) {
    unsigned long n = arena_mapped(&arenas[i]);
    mapped += n;
    if(i >= touched)
      stray += n;
  }
  unsigned long rss = READ_ONCE(mm->rss);
  spin_unlock(&mm->page_table_lock);
  bool maps_ok = rss == mapped && stray == 0 && (advice == MADV_FREE || mapped == 0);
  bool touch_ok = written == bytes && summed == bytes;
  if(bad || !maps_ok || !touch_ok)
    pr_err("bench: madvise: %s at %d threads: %lu of %lu transactions failed; rss %lu, %lu"
           " pages mapped (%lu in arenas that did not run); %lu bytes allocated, %lu written,"
           " %lu summed\n", ctx->variant->name, ctx->threads, bad, ops, rss, mapped, stray,
           bytes, written, summed);
  return bad == 0 && maps_ok && touch_ok;
}

// Runs after every run, the warm-up included, while extra follows measured runs only: so
// verify closes the counters' interval and extra reports it. A leak the last teardown found
// fails the first run after it.
static bool
madv_verify(struct bench_ctx *ctx, u64 ops)
{
  run_start = run_end;
  read_counters(&run_end);
  bool ok = check_arenas(ctx, ops);
  if(leak_variant) {
    pr_err("bench: madvise: %s's teardown leaked %lu pages: counted as a failure here\n",
           leak_variant, leak_pages);
    leak_variant = NULL;
    ok = false;
  }
  return ok;
}

static void
madv_extra(struct bench_ctx *ctx, u64 ops, u64 ns, u64 *value_m)
{
  u64 n = ops ? ops : 1;
  value_m[0] = (run_end.faults - run_start.faults) * 1000 / n;
  value_m[1] = (run_end.ipis - run_start.ipis) * 1000 / n;
  value_m[2] = (run_end.lazy - run_start.lazy) * 1000;
  struct point_sums *p = &sums[ctx->slot];
  p->ops += ops;
  p->thread_ns += ns * ctx->threads;
  p->ipi_wait_ns += run_end.ipi_wait_ns - run_start.ipi_wait_ns;
  p->sem_wait_ns += run_end.sem_wait_ns - run_start.sem_wait_ns;
  for(int i = 0; i < ctx->threads; i++)
    if(ctx->stop_ns > arenas[i].done_ns)
      p->done_ns += ctx->stop_ns - arenas[i].done_ns;
}

// Per mille of part in whole, as "12%" (rounded).
static const char *
pct(char *buf, size_t size, s64 pm)
{
  scnprintf(buf, size, "%ld%%", (pm < 0 ? 0 : pm + 5) / 10);
  return buf;
}

static s64
pm_of(u64 part, u64 whole)
{
  return whole ? (s64)(part * 1000 / whole) : 0;
}

// The account's four parts, per mille of the workers' time (shootdown, mmap_sem, the rest,
// done: they add up to 1000 but for rounding).
enum { ACC_IPI, ACC_SEM, ACC_WORK, ACC_DONE, NACC };

// The profile's categories for the same parts, in this order (prof_split: the first that
// names a frame of a stack takes it): a sender waiting for answers (smp_call_function_many
// and csd_wait under shootdown, the span shootdown times, answers to other CPUs' calls
// included), a thread queued on the rwsem (rwsem_wait, the span that times mmap_sem's wait,
// in madvise or in a fault), the transactions themselves, and the harness's worker thread
// outside them (done: settling the run, parking). The walk goes on through a fault's or an
// interrupt's trap frame into the code it stopped (arch/x86_64/unwind.c); only a sample taken
// in the entry code itself, before it calls trap(), misses the stopped function: a page
// fault's bare stub (vector14) is the worker's own user access, so work. Time halted is idle,
// not a function: a worker asleep on mmap_sem and one done and parked both leave their CPU
// halted, so the profile tells those two apart only while they run, and the comparison takes
// them together.
static const char *const prof_ipi[] = { "shootdown", "smp_call_function_many", "csd_wait", NULL };
static const char *const prof_sem[] = { "rwsem_wait", NULL };
static const char *const prof_work[] = { "madv_worker", "vector14", NULL };
static const char *const prof_done[] = { "worker_main", NULL };
static const char *const *const prof_cats[NACC] = {
  [ACC_IPI] = prof_ipi, [ACC_SEM] = prof_sem, [ACC_WORK] = prof_work, [ACC_DONE] = prof_done,
};

// The point's profile beside its account, both as shares of the workers' time. The profile
// covers every CPU; at n threads on cpus CPUs the workers run one to a CPU, and the others'
// time, idle but for the odd kernel thread, is taken off the profile's idle share. Its busy
// samples are scaled to the busy share the idle clock gives (profile_print_top's "by the
// clock": the samples of halted CPUs can be biased, kernel/profile.c).
// Periods an NMI of category k stood for on average, as "1.4" (a vCPU the host did not run
// takes one NMI for every period it missed, kernel/profile.c).
static const char *
weight(char *buf, size_t size, const u64 *count, const u64 *hits, int k)
{
  u64 w = hits[k] ? count[k] * 10 / hits[k] : 0;
  scnprintf(buf, size, "%lu.%lu", w / 10, w % 10);
  return buf;
}

// The busy categories' shares of the workers' time, from per-category counts (samples, or
// NMIs), scaled to the busy share the clock gives.
static void
busy_shares(const u64 *count, s64 idle_pm, int cpus, int n, s64 *q)
{
  u64 busy = 0;

  for(int k = 0; k < NACC + 2; k++)
    if(k != NACC + PROF_SPLIT_IDLE)
      busy += count[k];
  for(int k = 0; k < NACC + 2; k++)
    q[k] = busy ? (1000 - idle_pm) * (s64)count[k] / (s64)busy * cpus / n : 0;
}

static void
compare_profile(struct bench_ctx *ctx, const s64 *acc)
{
  u64 count[NACC + 2], hits[NACC + 2], idle_ns, cpu_ns, all;
  int cpus = num_online_cpus(), n = ctx->threads;
  s64 idle_pm, idle_s_pm, q[NACC + 2], qh[NACC + 2];
  char a[8], b[8], c[8], d[8], e[8], f[8], g[8], h[8], i[8], j[8], o[8];

  if(!bench_profile_split(ctx->slot, prof_cats, NACC, count, hits, &idle_ns, &cpu_ns))
    return;
  if(n > cpus) {
    pr_info("bench: madvise: %s at %d threads: profile / account: not compared (more threads "
            "than CPUs: a thread's waits overlap another's work on its CPU)\n",
            ctx->variant->name, n);
    return;
  }
  all = 0;
  for(int k = 0; k < NACC + 2; k++)
    all += count[k];
  idle_s_pm = pm_of(count[NACC + PROF_SPLIT_IDLE], all);
  idle_pm = cpu_ns ? pm_of(idle_ns, cpu_ns) : idle_s_pm;
  busy_shares(count, idle_pm, cpus, n, q);
  busy_shares(hits, idle_pm, cpus, n, qh);
  q[NACC + PROF_SPLIT_IDLE] = (idle_pm * cpus - (cpus - n) * 1000) / n;
  idle_s_pm = (idle_s_pm * cpus - (cpus - n) * 1000) / n;
  pr_info("bench: madvise: %s at %d thread%s: profile / account: shootdown answers %s / %s, "
          "mmap_sem queue or done %s / %s (halted %s by the clock, %s by samples; account "
          "mmap_sem %s, done %s), the rest %s / %s (other threads %s)\n",
          ctx->variant->name, n, n == 1 ? "" : "s", pct(a, 8, q[ACC_IPI]),
          pct(b, 8, acc[ACC_IPI]),
          pct(c, 8, q[NACC + PROF_SPLIT_IDLE] + q[ACC_SEM] + q[ACC_DONE]),
          pct(d, 8, acc[ACC_SEM] + acc[ACC_DONE]), pct(e, 8, q[NACC + PROF_SPLIT_IDLE]),
          pct(f, 8, idle_s_pm), pct(g, 8, acc[ACC_SEM]), pct(h, 8, acc[ACC_DONE]),
          pct(i, 8, q[ACC_WORK] + q[NACC + PROF_SPLIT_OTHER]), pct(j, 8, acc[ACC_WORK]),
          pct(o, 8, q[NACC + PROF_SPLIT_OTHER]));
  // The same busy samples each counted once, and what they stood for: doc/profiling.md.
  pr_info("bench: madvise: %s at %d thread%s: profile by NMIs, each once: shootdown answers %s, "
          "mmap_sem queue or done %s, the rest %s; periods an NMI stood for: shootdown answers "
          "%s, mmap_sem queue %s, the rest %s, done %s\n", ctx->variant->name, n,
          n == 1 ? "" : "s", pct(a, 8, qh[ACC_IPI]),
          pct(c, 8, q[NACC + PROF_SPLIT_IDLE] + qh[ACC_SEM] + qh[ACC_DONE]),
          pct(i, 8, qh[ACC_WORK] + qh[NACC + PROF_SPLIT_OTHER]),
          weight(b, 8, count, hits, ACC_IPI), weight(d, 8, count, hits, ACC_SEM),
          weight(e, 8, count, hits, ACC_WORK), weight(f, 8, count, hits, ACC_DONE));
}

static void
print_share(char *buf, size_t size, const char *what, u64 ns, s64 pm)
{
  char ms[32], p[8];
  bench_fmt_milli(ms, sizeof(ms), ns / 1000);
  scnprintf(buf, size, "%s %s ms (%s)", what, ms, pct(p, sizeof(p), pm));
}

// Where a transaction's time goes: a thread's time per transaction, and of it the time spent
// waiting for the answers to TLB-shootdown IPIs, queued on mmap_sem, done with its last
// transaction and waiting for the run's end, and the rest. With more vCPUs than host cores
// these waits last a host time slice each, which is why the 8-thread ratios here differ from
// the 2007 table (doc/benchmarks.md: the madvise suite). With profile=, a second line sets the profile
// of the same runs beside it.
static void
madv_point_done(struct bench_ctx *ctx)
{
  const struct point_sums *p = &sums[ctx->slot];
  u64 n = p->ops ? p->ops : 1, op_ns = p->thread_ns / n;
  u64 waits = p->ipi_wait_ns + p->sem_wait_ns + p->done_ns;
  u64 work = p->thread_ns > waits ? p->thread_ns - waits : 0;
  s64 acc[NACC] = {
    [ACC_IPI] = pm_of(p->ipi_wait_ns, p->thread_ns),
    [ACC_SEM] = pm_of(p->sem_wait_ns, p->thread_ns),
    [ACC_WORK] = pm_of(work, p->thread_ns),
    [ACC_DONE] = pm_of(p->done_ns, p->thread_ns),
  };
  char op[32], ipi[64], sem[64], done[64], rest[64];

  bench_fmt_milli(op, sizeof(op), op_ns / 1000);
  print_share(ipi, sizeof(ipi), "shootdown answers", p->ipi_wait_ns / n, acc[ACC_IPI]);
  print_share(sem, sizeof(sem), "mmap_sem queue", p->sem_wait_ns / n, acc[ACC_SEM]);
  print_share(done, sizeof(done), "done, waiting for the run's end", p->done_ns / n,
              acc[ACC_DONE]);
  print_share(rest, sizeof(rest), "the rest", work / n, acc[ACC_WORK]);
  pr_info("bench: madvise: %s at %d thread%s: %s ms a transaction; waiting for %s, in %s, %s; "
          "%s\n", ctx->variant->name, ctx->threads, ctx->threads == 1 ? "" : "s", op, ipi, sem,
          done, rest);
  compare_profile(ctx, acc);
}

BENCH_SUITE(madvise_suite) = {
  .name = "madvise",
  .order = 80,
  .seed = "2007 MADV_FREE and madvise under a shared mmap_sem (Rik van Riel, Nick Piggin)",
  .op = "one malloc/free transaction (3-6 buffers of 4-128 KiB: a word of every 64-byte line"
        " written then read and summed, then freed)",
  .sweep = SWEEP_FIXED,
  .variants = {
    [DONTNEED_WLOCK] = { "dontneed-wlock", 0 },
    [DONTNEED_RLOCK] = { "dontneed-rlock", 0 },
    [FREE_WLOCK] = { "free-wlock", 0 },
    [FREE_RLOCK] = { "free-rlock", 0 },
  },
  .pairs = {
    { "free-rlock", 0, "dontneed-wlock", 0 },
    { "free-wlock", 0, "dontneed-wlock", 0 },
    { "free-rlock", 0, "free-wlock", 0 },
  },
  .extras = { "faults_per_op", "ipis_per_op", "lazy_freed", NULL },
  // doc/seeds.md, 2007 table, 8 threads: "MADV_FREE + mmap_sem read" 2087 against "new
  // glibc" (which frees with MADV_DONTNEED under the exclusive mmap_sem) 1088, 1.918.
  .headline = { "free-rlock", 0, "dontneed-wlock", 0, HEAD_CPUS, 1918, STATS_FASTER,
                "doc/seeds.md 2007 table, 8 threads" },
  // MADV_FREE defers freeing to reclaim: what a run left lazily freed is reclaimed inside it.
  .settle = bench_settle_lazyfree,
  .setup = madv_setup,
  .teardown = madv_teardown,
  .worker = madv_worker,
  .verify = madv_verify,
  .extra = madv_extra,
  .point_done = madv_point_done,
};
