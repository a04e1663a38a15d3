// The ramfs suite: create + unlink of an empty file in a per-thread directory, on a ramfs that
// frees inodes at once against one that frees them after an RCU grace period (Piggin, 2010).
#include "bench.h"
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "vsprintf.h"

#define MNT "/bench-ramfs"

enum { FREE_NOW_V, FREE_RCU_V };

// One per worker, each on its own cache line so that the counters do not share one.
struct tstate {
  char dir[32];      // MNT/tN: this thread's directory
  char file[40];     // MNT/tN/f: the file it creates and unlinks
  u64 errors;        // calls that failed
} __aligned(64);

static int nts;   // per-thread directories made
static struct super_block *sb;

// Both mounts index their (empty) files' pages alike, radix-rcu at fanout 64, and both
// walk paths by reference (WALK_REF_ONLY), as both of Piggin's 2010 kernels did: only the
// freeing of inodes differs, which is what the 2010 thread measured. The lookup suite
// shows what RCU-walk, which free-rcu makes possible, is worth on top.
static void
ramfs_mount_opts(const struct bench_ctx *ctx, struct ramfs_opts *o)
{
  *o = (struct ramfs_opts){ PC_RADIX_RCU, 64, ctx->vi == FREE_RCU_V ? FREE_RCU : FREE_NOW,
                            WALK_REF_ONLY };
}

static int
ramfs_build(struct bench_ctx *ctx)
{
  struct tstate *ts = ctx->priv;
  struct dentry *root;
  int err;

  for(; nts < ctx->max_threads; nts++) {
    snprintf(ts[nts].dir, sizeof(ts[nts].dir), MNT "/t%d", nts);
    snprintf(ts[nts].file, sizeof(ts[nts].file), "%s/f", ts[nts].dir);
    if((err = vfs_mkdir(ts[nts].dir)) < 0)
      return err;
  }
  if((err = path_lookup(MNT, LOOKUP_REF_ONLY, &root)) < 0)
    return err;
  sb = root->d_sb;   // the mount keeps it until teardown
  dput(root);
  return 0;
}

static int
ramfs_clean(struct bench_ctx *ctx)
{
  struct tstate *ts = ctx->priv;
  int err = 0, i;

  for(i = 0; i < nts; i++) {
    bench_fs_note(&err, vfs_unlink(ts[i].file));
    bench_fs_note(&err, vfs_rmdir(ts[i].dir));
  }
  nts = 0;
  return err;
}

static u64
ramfs_worker(struct bench_ctx *ctx, int thread_index)
{
  struct tstate *t = (struct tstate *)ctx->priv + thread_index;
  u64 ops = 0;

  int err;

  while(!bench_stopped(ctx)) {
    // A create that fails for lack of memory (fault injection) made no file to unlink.
    if((err = vfs_create(t->file, 0)) == -ENOMEM) {
      bench_enomem(ctx);
      bench_yield(ctx);
      continue;
    }
    if(err < 0)
      t->errors++;
    if(vfs_unlink(t->file) < 0)
      t->errors++;
    ops++;
    bench_yield(ctx);
  }
  return ops;
}

static bool
count_entry(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  (*(int *)arg)++;
  return false;   // one is enough to know the directory is not empty
}

// True if the directory at path has no entries.
static bool
dir_empty(const char *path)
{
  struct file *f;
  int n = 0;

  if(vfs_open(path, 0, 0, &f) < 0)
    return false;
  vfs_readdir(f, count_entry, &n);
  vfs_close(f);
  return n == 0;
}

// Every create and unlink succeeded, every per-thread directory is empty again, and the
// filesystem holds no inode but its root's and the directories': none leaked.
static bool
ramfs_verify(struct bench_ctx *ctx, u64 ops)
{
  struct tstate *ts = ctx->priv;
  u64 errors = 0;
  long inodes = READ_ONCE(sb->s_inodes);
  int i, full = 0;

  for(i = 0; i < nts; i++) {
    errors += ts[i].errors;
    ts[i].errors = 0;
    full += !dir_empty(ts[i].dir);
  }
  if(errors == 0 && full == 0 && inodes == 1 + nts)
    return true;
  pr_err("bench: ramfs: %s at %d threads: %lu calls failed, %d directories not empty, "
         "%ld inodes (expected %d)\n", ctx->variant->name, ctx->threads, errors, full,
         inodes, 1 + nts);
  return false;
}

BENCH_SUITE(ramfs_suite) = {
  .name = "ramfs",
  .order = 60,
  .seed = "2010 RCU-freed inodes: ramfs create+unlink busy loop, 95% confidence",
  .op = "one create + unlink of an empty file",
  .sweep = SWEEP_UP,
  .variants = {
    [FREE_NOW_V] = { "free-now" },
    [FREE_RCU_V] = { "free-rcu" },
  },
  .pairs = {
    { "free-rcu", 0, "free-now", 0 },
  },
  // doc/seeds.md, 2010 fs_mark table: rcu 39916.66 against vanilla's 39648.76 files/s, 1.007,
  // "no significant difference at 95% confidence"; one thread, as fs_mark ran.
  .headline = { "free-rcu", 0, "free-now", 0, HEAD_ONE, 1007, STATS_SAME,
                "doc/seeds.md 2010 fs_mark table" },
  // free-rcu's inodes, and both variants' dentries, are freed through RCU: inside the run.
  .settle = bench_settle_rcu,
  .fs = { MNT, sizeof(struct tstate), ramfs_mount_opts, ramfs_build, ramfs_clean },
  .setup = bench_fs_setup,
  .teardown = bench_fs_teardown,
  .worker = ramfs_worker,
  .verify = ramfs_verify,
};
