// ubench's memory suites: ufault (first-touch page faults of a shared file mapping and of
// anonymous memory) and umadvise (the 2007 MADV_FREE thread's malloc/free transactions).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "txnheap.h"
#include "ubench.h"

// ---- ufault -----------------------------------------------------------------------------
// One operation: the first write to one page of a fresh mapping, that is one page fault.
// Each worker maps a 1 MiB chunk, writes one word of each page in turn, and unmaps it when
// all are touched (or the run is over), then maps the next: will-it-scale's page_fault1
// (anonymous) and page_fault3 (MAP_SHARED file) loops.
//
// What is fair: the mmap and munmap are inside the timed interval, one each per 256 faults.
// A page faulted in must be unmapped again before another fault can take its place, so
// sustained faulting costs the fault and its share of the teardown together: for anonymous
// memory munmap frees the page the fault allocated and zeroed (and, in a threaded process,
// flushes the other CPUs' TLBs), for the file it drops the mapping's reference. Unmapping
// outside the interval would credit a kernel with a cheap fault and an expensive unmap for
// what it does not measure. A 1 MiB chunk cannot hold an aligned 2 MiB range, so Linux's
// transparent huge pages should never replace the 256 faults by one (not measured here; the
// equal-terms Linux of make compare-linux has them off anyway: umadvise, below, for figures).
//
// "file-shared": the chunks of one file written before the runs (all its pages cached),
// worker i mapping its own 1 MiB of it, MAP_SHARED: the faults look pages up in the one
// file's page cache and map them, allocating nothing. Each is a write fault of a
// write-notified mapping on both kernels, so it also does page_mkwrite's work: the file's
// mtime and ctime updated (file_update_time; both kernels store them only once a tick has
// passed since the last store, Linux with its coarse clock, this kernel by testing the times
// against the tick's start, then under the file's i_mutex, which the workers share) and the
// page marked dirty. "anon": MAP_PRIVATE|MAP_ANONYMOUS,
// every fault allocates and zeroes a page.
//
// Checks: after each write the page's next word must read 0 (a fresh anonymous page is
// zeroed; the file was written with zeros), and before each unmap every word written must
// still be there; after the run each worker's first page of the file must hold what it
// wrote there last (a shared mapping writes the page cache itself).
#define CHUNK_PAGES 256
#define CHUNK_BYTES (CHUNK_PAGES * UB_PAGE)

enum { FAULT_FILE, FAULT_ANON };

struct fault_state {
  u64 last0;      // the word last written to the first page of its file chunk (0: none)
  u64 seq;
} __attribute__((aligned(64)));

static char fault_file[512];
static int fault_fd = -1;

static int
fault_init(struct ub_ctx *ctx)
{
  static const char zero[CHUNK_BYTES / 16];
  int err = 0;

  if(!(ctx->priv = calloc(ctx->max_threads, sizeof(struct fault_state))))
    return -ENOMEM;
  if(ub_path(fault_file, sizeof(fault_file), "%s/data", ctx->dir) < 0)
    return -ENAMETOOLONG;
  if((fault_fd = open(fault_file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
    return -errno;
  for(long i = 0; i < 16L * ctx->max_threads && !err; i++) {
    ssize_t n = write(fault_fd, zero, sizeof(zero));
    err = n < 0 ? -errno : n != sizeof(zero) ? -EIO : 0;
  }
  return err;
}

static void
fault_fini(struct ub_ctx *ctx)
{
  if(fault_fd >= 0)
    close(fault_fd);
  fault_fd = -1;
  unlink(fault_file);
  free(ctx->priv);
}

// A kernel without file-backed mmap refuses it here, and the point is skipped with its errno.
static int
fault_setup(struct ub_ctx *ctx)
{
  struct fault_state *fs = ctx->priv;

  for(int i = 0; i < ctx->threads; i++)
    fs[i].last0 = 0;
  if(ctx->vi == FAULT_FILE) {
    void *p = mmap(NULL, UB_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fault_fd, 0);
    if(p == MAP_FAILED)
      return -errno;
    munmap(p, UB_PAGE);
  }
  return 0;
}

static void
fault_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  struct fault_state *fs = (struct fault_state *)ctx->priv + w->index;
  bool file = ctx->vi == FAULT_FILE;

  while(!ub_stopped(ctx)) {
    char *p = file ? mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fault_fd,
                          (off_t)w->index * CHUNK_BYTES)
                   : mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    u64 tag = ++fs->seq << 16 | (u64)w->index << 1 | 1;
    int n;

    if(p == MAP_FAILED) {
      ub_fail(w, "mmap", errno);
      return;
    }
    for(n = 0; n < CHUNK_PAGES && !ub_stopped(ctx); n++) {
      volatile u64 *word = (u64 *)(p + n * UB_PAGE);
      word[0] = tag + n;
      if(word[1] != 0)
        w->bad++;
      ub_done(w, 1);
    }
    for(int k = 0; k < n; k++)
      w->bad += *(volatile u64 *)(p + k * UB_PAGE) != tag + k;
    if(file && n > 0)
      fs->last0 = tag;
    if(munmap(p, CHUNK_BYTES) < 0) {
      ub_fail(w, "munmap", errno);
      return;
    }
  }
}

static int
fault_teardown(struct ub_ctx *ctx)
{
  struct fault_state *fs = ctx->priv;
  int failed = 0;

  for(int i = 0; ctx->vi == FAULT_FILE && i < ctx->threads; i++) {
    u64 v;
    if(!fs[i].last0)
      continue;
    if(pread(fault_fd, &v, sizeof(v), (off_t)i * CHUNK_BYTES) != sizeof(v) || v != fs[i].last0) {
      printf("ubench: ufault: file-shared: worker %d's last write to its chunk is not in the"
             " file\n", i);
      failed++;
    }
  }
  return failed;
}

const struct ub_suite ub_ufault = {
  .name = "ufault",
  .op = "first write to a page of a 1 MiB mmap",
  .seed = "will-it-scale page_fault3, page_fault1",
  .sweep = UB_SWEEP_UP,
  .variants = { [FAULT_FILE] = "file-shared", [FAULT_ANON] = "anon" },
  .faults = true,
  .init = fault_init,
  .fini = fault_fini,
  .setup = fault_setup,
  .teardown = fault_teardown,
  .worker = fault_worker,
};

// ---- umadvise ---------------------------------------------------------------------------
// One operation: a database thread's transaction as the boot suite runs it
// (kernel/bench/madvise.c, Rik van Riel's MADV_FREE thread, LKML, April 2007): 3 to 6
// buffers of 4 KiB to 128 KiB taken from the thread's own heap, one word of every cache line
// written, then read back and summed, then the buffers freed, which gives their pages back
// with MADV_DONTNEED ("dontneed", glibc's free then) or MADV_FREE ("free"). A reused
// MADV_DONTNEED page faults in a zeroed page again; a MADV_FREE page stays mapped until
// memory runs short. The heap is the boot suite's, the same source (include/txnheap.h): per
// size class eight chunks handed out oldest-freed first, so freed memory ages before reuse.
// Nothing here pins memory as the boot suite does, so no reclaim takes the lazily freed
// pages. Each run starts from fresh
// heaps (mapped and unmapped outside the interval), as each boot run starts from a fresh mm.
// The kernel's lock mode (madvise.lock=) is chosen on its command line, not here.
//
// Transparent huge pages change the work: an arena is TXN_HEAP_PAGES pages (2016 KiB), less
// than an aligned 2 MiB range, yet from 2 threads Debian's Linux (THP "always") took fewer
// faults a transaction, presumably because the threads' arenas, mapped one after another,
// merge into one VMA that holds such a range (not checked: /proc/self/smaps would say).
// make compare-linux therefore boots its equal-terms Linux with transparent_hugepage=never
// (tools/terms.py). faults_per_op measured 2026-12-05, make compare-linux SMP=2 SUITES=
// usyscall,umadvise THREADS=1,2, three boots of each kind (one ROUNDS=1 run, one ROUNDS=2;
// the host loaded, which moves rates, not fault counts), at 1 and at 2 threads:
//   dontneed: this kernel 47.6-50.1 and 47.3-47.4; Linux, transparent_hugepage=never,
//             47.9-50.2 and 46.1-46.6; Linux, Debian's defaults, 48.4-50.1 and 36.3-39.5.
//   free:     this kernel 0.15-0.34 and 1.4-1.7; never 0.17-0.33 and 7.8-35; Debian's
//             0.10-0.36 and 6.9-8.1 (refaults of lazily freed pages: they vary with timing).
// So with THP off both kernels fault the same pages for dontneed, and at 1 thread THP
// changed nothing measurable. Those figures are of heaps mapped one after another; since
// 2026-12-07 each starts on its own 2 MiB boundary (heap_map, as glibc's), with a 32 KiB
// hole after it, so no VMA of one holds an aligned 2 MiB range: THP should have nothing to
// map there any more (not measured).
enum { MADV_DONTNEED_V, MADV_FREE_V };

struct arena {
  char *base;
  struct txn_heap heap;
} __attribute__((aligned(64)));

static int
madv_init(struct ub_ctx *ctx)
{
  return (ctx->priv = calloc(ctx->max_threads, sizeof(struct arena))) ? 0 : -ENOMEM;
}

static void
madv_fini(struct ub_ctx *ctx)
{
  free(ctx->priv);
}

// A heap on a TXN_HEAP_ALIGN boundary, as glibc's new_heap makes its per-thread heaps: twice
// the alignment mapped, the parts before and after the aligned heap unmapped. NULL with errno.
static char *
heap_map(void)
{
  size_t len = TXN_HEAP_PAGES * UB_PAGE;
  char *p = mmap(NULL, len + TXN_HEAP_ALIGN, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(p == MAP_FAILED)
    return NULL;
  char *base = (char *)(((unsigned long)p + TXN_HEAP_ALIGN - 1) & ~(TXN_HEAP_ALIGN - 1));
  if(base > p)
    munmap(p, base - p);
  munmap(base + len, p + len + TXN_HEAP_ALIGN - (base + len));
  return base;
}

static int
madv_setup(struct ub_ctx *ctx)
{
  struct arena *arenas = ctx->priv;

  for(int i = 0; i < ctx->threads; i++) {
    struct arena *a = &arenas[i];
    if(!(a->base = heap_map())) {
      int err = -errno;
      while(i-- > 0)
        munmap(arenas[i].base, TXN_HEAP_PAGES * UB_PAGE);
      return err;
    }
    txn_heap_init(&a->heap, i);
  }
  return 0;
}

static int
madv_teardown(struct ub_ctx *ctx)
{
  struct arena *arenas = ctx->priv;

  for(int i = 0; i < ctx->threads; i++)
    munmap(arenas[i].base, TXN_HEAP_PAGES * UB_PAGE);
  return 0;
}

// Writes one word in every cache line, each its own value (seed ^ address), and adds them.
static u64
fill(char *buf, int class, u64 seed)
{
  u64 total = 0;
  for(char *w = buf; w < buf + (UB_PAGE << class); w += TXN_LINE_BYTES) {
    *(volatile u64 *)w = seed ^ (unsigned long)w;
    total += seed ^ (unsigned long)w;
  }
  return total;
}

// The transaction's work: reads back and sums what fill wrote.
static u64
sum(char *buf, int class)
{
  u64 total = 0;
  for(char *w = buf; w < buf + (UB_PAGE << class); w += TXN_LINE_BYTES)
    total += *(volatile u64 *)w;
  return total;
}

static void
madv_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  struct arena *a = (struct arena *)ctx->priv + w->index;
  int advice = ctx->vi == MADV_FREE_V ? MADV_FREE : MADV_DONTNEED;

  while(!ub_stopped(ctx)) {
    struct txn_buf b[TXN_MAX_BUFS];
    u64 seed, want = 0, got = 0;
    int n = txn_begin(&a->heap, b, &seed), err = 0;
    for(int i = 0; i < n; i++)
      want += fill(a->base + b[i].page * UB_PAGE, b[i].class, seed);
    for(int i = 0; i < n; i++)
      got += sum(a->base + b[i].page * UB_PAGE, b[i].class);
    for(int i = 0; i < n; i++) {
      if(madvise(a->base + b[i].page * UB_PAGE, UB_PAGE << b[i].class, advice) < 0 && !err)
        err = errno;
      txn_put(&a->heap, &b[i]);   // its pages given back to the kernel first
    }
    if(err) {
      ub_fail(w, "madvise", err);
      return;
    }
    w->bad += got != want;
    ub_done(w, 1);
  }
}

const struct ub_suite ub_umadvise = {
  .name = "umadvise",
  .op = "malloc/free transaction of 3-6 buffers",
  .seed = "2007 MADV_FREE vs MADV_DONTNEED",
  .sweep = UB_SWEEP_UP2X,
  .variants = { [MADV_DONTNEED_V] = "dontneed", [MADV_FREE_V] = "free" },
  .faults = true,
  .init = madv_init,
  .fini = madv_fini,
  .setup = madv_setup,
  .teardown = madv_teardown,
  .worker = madv_worker,
};
