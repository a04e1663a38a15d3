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
// must reference and release in turn and RCU-walk only reads. Ref-walk also crosses the
// mount at MNT under its own CPU's share of vfsmount_lock (fs/super.c); RCU-walk takes no lock.
static const char *const dirs[] = { MNT "/a", MNT "/a/b", MNT "/a/b/c" };
static char paths[NR_FILES][32];
static unsigned long inos[NR_FILES];   // what each stat must find
static int nfiles;

// One per worker, on its own cache line.
struct tstate {
  u64 lookups;     // this point's measured runs
  u64 fallbacks;   // of them, RCU-walks that gave up (-EAGAIN) and were redone by reference
  u64 misses;      // stats that did not find their file, since the last verify
} __aligned(64);

// The running point's runs so far (its warm-up first) and the operations its measured runs
// returned: verify keeps the workers' counts to exactly those runs, point_done prints them.
static int point_runs;
static u64 point_ops;

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

  point_runs = 0;
  point_ops = 0;
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

// Right after the point's BENCH line: how many of its lookups fell back. Then the next
// point starts counting afresh.
static void
lookup_point_done(struct bench_ctx *ctx)
{
  struct tstate *ts = ctx->priv;
  u64 lookups = 0, fallbacks = 0;
  int i;

  for(i = 0; i < ctx->threads; i++) {
    lookups += ts[i].lookups;
    fallbacks += ts[i].fallbacks;
    ts[i].lookups = ts[i].fallbacks = 0;
  }
  if(ctx->vi == RCU_WALK)
    printk("bench: lookup: rcu-walk at %d thread%s: %lu of %lu lookups fell back to ref-walk\n",
           ctx->threads, ctx->threads == 1 ? "" : "s", fallbacks, lookups);
  point_runs = 0;
  point_ops = 0;
}

// Every stat found its own file, and the counts point_done will print are this point's
// measured runs and nothing else: the harness runs a warm-up, then the measured runs, then
// prints the BENCH line and calls point_done (kernel/bench/bench.c), so the warm-up's counts
// are dropped here and every later run's lookups must add up to the operations it returned.
static bool
lookup_verify(struct bench_ctx *ctx, u64 ops)
{
  struct tstate *ts = ctx->priv;
  u64 misses = 0, lookups = 0, others = 0;
  int i;

  if(point_runs++ == 0) {
    for(i = 0; i < ctx->threads; i++)
      ts[i].lookups = ts[i].fallbacks = 0;
  } else {
    point_ops += ops;
  }
  for(i = 0; i < ctx->max_threads; i++) {
    if(i < ctx->threads)
      lookups += ts[i].lookups;
    else
      others += ts[i].lookups + ts[i].fallbacks;
    misses += ts[i].misses;
    ts[i].misses = 0;
  }
  if(misses)
    pr_err("bench: lookup: %s at %d threads: %lu of %lu stats missed their file\n",
           ctx->variant->name, ctx->threads, misses, ops);
  if(lookups != point_ops || others)
    pr_err("bench: lookup: %s at %d threads: the workers counted %lu lookups (and %lu in"
           " idle slots), the point's measured runs %lu\n", ctx->variant->name,
           ctx->threads, lookups, others, point_ops);
  return misses == 0 && lookups == point_ops && !others;
}

BENCH_SUITE(lookup_suite) = {
  .name = "lookup",
  .order = 70,
  .seed = "2010 rcu-walk path lookup vs ref-walk (dentry locks and refcounts, mounts under a"
          " per-CPU reader lock as 2.6.36's vfsmount_lock), one shared directory tree",
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
  .teardown = bench_fs_teardown,
  .worker = lookup_worker,
  .verify = lookup_verify,
  .point_done = lookup_point_done,
};
