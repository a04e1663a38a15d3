// The ramfs a file-system suite runs on (struct bench_fs): mounted on a directory of the root
// at setup, filled in and emptied by the suite, taken down at teardown, its errors reported.
#include "bench.h"
#include "errno.h"
#include "fs.h"
#include "panic.h"
#include "printk.h"
#include "rcupdate.h"
#include "slab.h"

// Whether the running variant's ramfs is mounted: the harness sets up one variant at a time
// (kernel/bench/bench.c), so one flag serves every suite.
static bool mounted;

void
bench_fs_note(int *err, int e)
{
  if(e && e != -ENOENT && !*err)
    *err = e;
}

// mkdir + mount; on failure nothing is left behind.
static int
fs_mount(const char *dir, const struct ramfs_opts *o)
{
  int err = vfs_mkdir(dir);
  if(err < 0)
    return err;
  if((err = vfs_mount(dir, o)) < 0)
    vfs_rmdir(dir);
  return err;
}

// Undoes what setup did, also after a setup cut short: the suite's clean, the workers' state,
// the unmount if it was mounted, then the directory, which may already be gone. Returns the
// first error.
static int
fs_cleanup(struct bench_ctx *ctx)
{
  const struct bench_fs *fs = &ctx->suite->fs;
  int err = fs->clean(ctx), e;

  kfree(ctx->priv);
  ctx->priv = NULL;
  e = mounted ? vfs_umount(fs->mnt) : 0;
  if(e && !err)
    err = e;
  mounted = false;
  bench_fs_note(&err, vfs_rmdir(fs->mnt));
  // The freed inodes, dentries and radix-tree nodes go before the next variant is measured
  // (and with free-rcu inodes, before the next ramfs variant compares against them).
  rcu_barrier();
  return err;
}

int
bench_fs_setup(struct bench_ctx *ctx)
{
  const struct bench_fs *fs = &ctx->suite->fs;
  struct ramfs_opts o;
  int err;

  fs->opts(ctx, &o);
  if((err = fs_mount(fs->mnt, &o)) < 0)
    return err;
  mounted = true;
  if(fs->thread_size && !(ctx->priv = kzalloc(ctx->max_threads * fs->thread_size, GFP_KERNEL)))
    err = -ENOMEM;
  else
    err = fs->build(ctx);
  if(err < 0) {
    pr_err("bench: %s: setup: %d\n", ctx->suite->name, err);
    fs_cleanup(ctx);
  }
  return err;
}

// A filesystem that cannot be emptied is a VFS bug that would also break every later
// suite; the harness's teardown has no way to report it, so it stops the run.
void
bench_fs_teardown(struct bench_ctx *ctx)
{
  int err = fs_cleanup(ctx);

  if(err)
    panic("bench: %s: %s: teardown failed: %d", ctx->suite->name, ctx->variant->name, err);
}
