// The lookup suite: every thread stats files of one shared directory tree, by RCU-walk alone
// or by ref-walk alone (Nick Piggin's 2010 "fs: rcu-walk for path lookup" against the old walk).
#include "errno.h"
#include "fs.h"
#include "lookup.h"
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

// One per worker, on its own cache line; every run's setup gives fresh ones (kernel/bench/fs.c).
struct tstate {
  u64 lookups;     // this run's
  u64 fallbacks;   // of them, RCU-walks that gave up (-EAGAIN) and were redone by reference
  u64 misses;      // stats that did not find their file
} __aligned(64);

// The running point's timed runs so far, one count per column (ctx->slot): the columns take
// turns run by run (kernel/bench/bench.c), so one shared count would pool every variant's
// runs, and the columns that print after another's last run would see its runs too.
// Verify starts a column's count at its warm-up and adds each timed run; point_done prints.
static struct lookup_count counts[BENCH_MAX_SLOTS];

void
lookup_point_count(const struct bench_ctx *ctx, struct lookup_count *c)
{
  *c = counts[ctx->slot];
}

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

// Right after the point's BENCH line: how many of its timed runs' lookups fell back.
static void
lookup_point_done(struct bench_ctx *ctx)
{
  const struct lookup_count *c = &counts[ctx->slot];

  if(ctx->vi == RCU_WALK)
    printk("bench: lookup: rcu-walk at %d thread%s: %lu of %lu lookups fell back to ref-walk\n",
           ctx->threads, ctx->threads == 1 ? "" : "s", c->fallbacks, c->lookups);
}

// After every run: every stat found its own file, the workers' lookups add up to the
// operations the run returned, and the timed runs' counts join the point's (the harness
// runs the warm-up, round 0, first: kernel/bench/bench.c).
static bool
lookup_verify(struct bench_ctx *ctx, u64 ops)
{
  struct tstate *ts = ctx->priv;
  u64 misses = 0, lookups = 0, fallbacks = 0, others = 0;
  int i;

  for(i = 0; i < ctx->max_threads; i++) {
    if(i < ctx->threads) {
      lookups += ts[i].lookups;
      fallbacks += ts[i].fallbacks;
    } else {
      others += ts[i].lookups + ts[i].fallbacks;
    }
    misses += ts[i].misses;
  }
  if(ctx->round == 0)
    counts[ctx->slot] = (struct lookup_count){ 0 };
  else {
    counts[ctx->slot].lookups += lookups;
    counts[ctx->slot].fallbacks += fallbacks;
  }
  if(misses)
    pr_err("bench: lookup: %s at %d threads: %lu of %lu stats missed their file\n",
           ctx->variant->name, ctx->threads, misses, ops);
  if(lookups != ops || others)
    pr_err("bench: lookup: %s at %d threads: the workers counted %lu lookups (and %lu in"
           " idle slots), the run %lu\n", ctx->variant->name, ctx->threads, lookups, others,
           ops);
  return misses == 0 && lookups == ops && !others;
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
