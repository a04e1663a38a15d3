// The lookup suite: every thread stats files of one shared directory tree, by RCU-walk alone
// or by ref-walk alone (Nick Piggin's 2010 "fs: rcu-walk for path lookup" against the old walk).
#include "bench.h"
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "vsprintf.h"

#define MNT "/lookup"
#define NR_FILES 256
#define YIELD_EVERY 4

enum { RCU_WALK, REF_WALK };

// Every path is MNT/a/b/c/file-N: six dentries, each shared by every thread, which ref-walk
// must reference and release in turn and RCU-walk only reads.
static const char *const dirs[] = { MNT "/a", MNT "/a/b", MNT "/a/b/c" };
static char paths[NR_FILES][32];
static unsigned long inos[NR_FILES];   // what each stat must find
static int nfiles;

// One per worker, on its own cache line.
struct tstate {
  u64 lookups;     // this point's, all its runs
  u64 fallbacks;   // RCU-walks that gave up (-EAGAIN) and had to be redone by reference
  u64 misses;      // stats that did not find their file
} __aligned(64);

static int point_threads;   // the point the workers' counts are for

// A free-rcu mount, the only kind RCU-walk may enter (fs/super.c).
static void
lookup_mount_opts(const struct bench_ctx *ctx, struct ramfs_opts *o)
{
  *o = (struct ramfs_opts){ PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO };
}

static int
lookup_build(struct bench_ctx *ctx)
{
  struct kstat st;
  int err;
  u32 i;

  point_threads = 0;
  for(i = 0; i < ARRAY_SIZE(dirs); i++)
    if((err = vfs_mkdir(dirs[i])) < 0)
      return err;
  for(; nfiles < NR_FILES; nfiles++) {
    snprintf(paths[nfiles], sizeof(paths[nfiles]), "%s/file-%d", dirs[2], nfiles);
    if((err = vfs_create(paths[nfiles], 0)) < 0)
      return err;
    if((err = vfs_stat(paths[nfiles], LOOKUP_REF_ONLY, &st)) < 0) {
      nfiles++;
      return err;
    }
    inos[nfiles] = st.ino;
  }
  return 0;
}

// Removes whatever the build made, in reverse, also after a build cut short. Every file
// counted in nfiles was created, so for them "already gone" is an error too.
static int
lookup_clean(struct bench_ctx *ctx)
{
  int err = 0, e, i;

  for(i = nfiles - 1; i >= 0; i--)
    if((e = vfs_unlink(paths[i])) && !err)
      err = e;
  nfiles = 0;
  for(i = ARRAY_SIZE(dirs) - 1; i >= 0; i--)
    bench_fs_note(&err, vfs_rmdir(dirs[i]));
  return err;
}

// An RCU-walk that cannot finish is redone by reference, as the kernel's own default walk
// does, and counted: a point with many is not a fair RCU-walk number.
static u64
lookup_worker(struct bench_ctx *ctx, int thread_index)
{
  struct tstate *t = (struct tstate *)ctx->priv + thread_index;
  u64 x = 0x9e3779b97f4a7c15ULL * (thread_index + 1), ops = 0;
  unsigned flags = ctx->vi == RCU_WALK ? LOOKUP_RCU_ONLY : LOOKUP_REF_ONLY;
  struct kstat st;
  int err, i;

  while(!bench_stopped(ctx)) {
    x ^= x << 13;   // xorshift: a random file each time
    x ^= x >> 7;
    x ^= x << 17;
    i = x % NR_FILES;
    err = vfs_stat(paths[i], flags, &st);
    if(err == -EAGAIN) {
      t->fallbacks++;
      err = vfs_stat(paths[i], LOOKUP_REF_ONLY, &st);
    }
    if(err < 0 || st.ino != inos[i] || !S_ISREG(st.mode))
      t->misses++;
    if(++ops % YIELD_EVERY == 0)
      bench_yield(ctx);
  }
  t->lookups += ops;
  return ops;
}

// Prints how many of the point's lookups fell back, then starts counting afresh.
static void
report_point(const struct bench_ctx *ctx)
{
  struct tstate *ts = ctx->priv;
  u64 lookups = 0, fallbacks = 0;
  int i;

  for(i = 0; i < point_threads; i++) {
    lookups += ts[i].lookups;
    fallbacks += ts[i].fallbacks;
    ts[i].lookups = ts[i].fallbacks = 0;
  }
  if(ctx->vi == RCU_WALK && point_threads)
    printk("bench: lookup: rcu-walk at %d threads: %lu of %lu lookups fell back to ref-walk\n",
           point_threads, fallbacks, lookups);
}

// The last point's fallbacks, then the ramfs goes.
static void
lookup_teardown(struct bench_ctx *ctx)
{
  report_point(ctx);
  bench_fs_teardown(ctx);
}

// Every stat found its own file. The fallback count of a point is printed when the next
// point (or the teardown) begins: verify sees every run, warm-up included.
static bool
lookup_verify(struct bench_ctx *ctx, u64 ops)
{
  struct tstate *ts = ctx->priv;
  u64 misses = 0;
  int i;

  if(ctx->threads != point_threads) {
    report_point(ctx);
    point_threads = ctx->threads;
  }
  for(i = 0; i < ctx->threads; i++) {
    misses += ts[i].misses;
    ts[i].misses = 0;
  }
  if(misses)
    pr_err("bench: lookup: %s at %d threads: %lu of %lu stats missed their file\n",
           ctx->variant->name, ctx->threads, misses, ops);
  return misses == 0;
}

BENCH_SUITE(lookup_suite) = {
  .name = "lookup",
  .order = 70,
  .seed = "2010 rcu-walk path lookup vs ref-walk, one shared directory tree",
  .op = "one path lookup (stat) of /lookup/a/b/c/file-N",
  .sweep = SWEEP_UP,
  .variants = {
    [RCU_WALK] = { "rcu-walk" },
    [REF_WALK] = { "ref-walk" },
  },
  .pairs = {
    { "rcu-walk", 0, "ref-walk", 0 },
  },
  // No settle: stat frees nothing (the runner reports any RCU callback a run leaves).
  .fs = { MNT, sizeof(struct tstate), lookup_mount_opts, lookup_build, lookup_clean },
  .setup = bench_fs_setup,
  .teardown = lookup_teardown,
  .worker = lookup_worker,
  .verify = lookup_verify,
};
