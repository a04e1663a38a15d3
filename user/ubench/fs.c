// ubench's file-system suites: ucreate (create+unlink of empty files, the 2010 RCU-inode
// thread's fs_mark busy loop), upread (4 KiB preads of one cached file, the 2001/2002 page
// cache threads) and ustat (stat of a deep path in a shared tree, the 2010 rcu-walk work).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ubench.h"

#define PATH_MAX_UB 512

// ---- ucreate ----------------------------------------------------------------------------
// One operation: open(O_CREAT|O_EXCL) of an empty file, close, unlink: fs_mark with zero
// file size and no syncs, the loop Piggin timed in 2010 (as kernel/bench/ramfs.c does in
// the kernel). Each thread has its own file name; "dir-per-thread" puts it in a directory of
// its own, "shared-dir" every thread's in one directory, whose lock they then share.
enum { CREATE_OWN_DIR, CREATE_SHARED_DIR };

struct create_state {
  char file[2][PATH_MAX_UB];   // per variant
} __attribute__((aligned(64)));

static int
create_init(struct ub_ctx *ctx)
{
  struct create_state *cs = calloc(ctx->max_threads, sizeof(*cs));
  char d[PATH_MAX_UB];

  if(!cs)
    return -ENOMEM;
  ctx->priv = cs;
  if(ub_path(d, sizeof(d), "%s/shared", ctx->dir) < 0)
    return -ENAMETOOLONG;
  if(mkdir(d, 0755) < 0)
    return -errno;
  for(int i = 0; i < ctx->max_threads; i++) {
    char *own = cs[i].file[CREATE_OWN_DIR];
    if(ub_path(cs[i].file[CREATE_SHARED_DIR], PATH_MAX_UB, "%s/f%d", d, i) < 0 ||
       ub_path(own, PATH_MAX_UB - 2, "%s/t%d", ctx->dir, i) < 0)
      return -ENAMETOOLONG;
    if(mkdir(own, 0755) < 0)
      return -errno;
    strcat(own, "/f");
  }
  return 0;
}

static void
create_fini(struct ub_ctx *ctx)
{
  struct create_state *cs = ctx->priv;
  char d[PATH_MAX_UB];

  for(int i = 0; cs && i < ctx->max_threads; i++) {
    snprintf(d, sizeof(d), "%s/t%d", ctx->dir, i);
    rmdir(d);
  }
  snprintf(d, sizeof(d), "%s/shared", ctx->dir);
  rmdir(d);
  free(cs);
}

static void
create_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  const char *f = ((struct create_state *)ctx->priv)[w->index].file[ctx->vi];
  int fd;

  while(!ub_stopped(ctx)) {
    if((fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
      ub_fail(w, "open", errno);
      return;
    }
    if(close(fd) < 0)
      ub_fail(w, "close", errno);
    if(unlink(f) < 0) {
      ub_fail(w, "unlink", errno);
      return;
    }
    ub_done(w, 1);
  }
}

// Every file was unlinked: a worker stops only after its unlink, unless a call failed (then
// its file may be left, and is removed here).
static int
create_teardown(struct ub_ctx *ctx)
{
  struct create_state *cs = ctx->priv;
  struct stat st;
  int failed = 0;

  for(int i = 0; i < ctx->threads; i++) {
    const char *f = cs[i].file[ctx->vi];
    if(stat(f, &st) == 0) {
      unlink(f);
      if(!ctx->workers[i].err) {
        printf("ubench: ucreate: %s is still there after the run\n", f);
        failed++;
      }
    }
  }
  return failed;
}

const struct ub_suite ub_ucreate = {
  .name = "ucreate",
  .op = "create+close+unlink of an empty file",
  .seed = "2010 RCU-freed inodes, fs_mark's loop",
  .sweep = UB_SWEEP_UP,
  .variants = { [CREATE_OWN_DIR] = "dir-per-thread", [CREATE_SHARED_DIR] = "shared-dir" },
  .init = create_init,
  .fini = create_fini,
  .teardown = create_teardown,
  .worker = create_worker,
};

// ---- upread -----------------------------------------------------------------------------
// One operation: pread of one 4 KiB page at a random page offset of one 16 MiB file written
// before the runs (so every page is cached), as a static web server reads its files
// (2001) and dbench's clients read theirs (2002). Each worker has the file open on a
// descriptor of its own, as a server's requests each open it: they share the inode and its
// page cache, which is what the seeds measured, but not one struct file, whose reference
// count Linux's fdget would bounce between CPUs on every call of a threaded process.
#define PREAD_PAGES 4096
#define PREAD_WORDS (UB_PAGE / sizeof(u64))

struct pread_state {
  int fd;
} __attribute__((aligned(64)));

static char pread_file[PATH_MAX_UB];

// What word k of page p holds: every word differs, so a read of the wrong page or the wrong
// part of one shows.
static u64
pread_word(u64 p, u64 k)
{
  return (p << 32 | k) ^ 0x5a5a5a5a5a5a5a5aULL;
}

static int
write_all(int fd, const void *buf, size_t n)
{
  for(size_t done = 0; done < n;) {
    ssize_t r = write(fd, (const char *)buf + done, n - done);
    if(r < 0)
      return -errno;
    if(r == 0)
      return -EIO;
    done += r;
  }
  return 0;
}

static int
pread_init(struct ub_ctx *ctx)
{
  u64 page[PREAD_WORDS];
  int fd, err = 0;

  if(ub_path(pread_file, sizeof(pread_file), "%s/data", ctx->dir) < 0)
    return -ENAMETOOLONG;
  if(!(ctx->priv = calloc(ctx->max_threads, sizeof(struct pread_state))))
    return -ENOMEM;
  if((fd = open(pread_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
    return -errno;
  for(u64 p = 0; p < PREAD_PAGES && !err; p++) {
    for(u64 k = 0; k < PREAD_WORDS; k++)
      page[k] = pread_word(p, k);
    err = write_all(fd, page, sizeof(page));
  }
  if(close(fd) < 0 && !err)
    err = -errno;
  return err;
}

static void
pread_fini(struct ub_ctx *ctx)
{
  unlink(pread_file);
  free(ctx->priv);
}

static int
pread_setup(struct ub_ctx *ctx)
{
  struct pread_state *ps = ctx->priv;

  for(int i = 0; i < ctx->threads; i++) {
    if((ps[i].fd = open(pread_file, O_RDONLY | O_CLOEXEC)) < 0) {
      int err = -errno;
      while(i-- > 0)
        close(ps[i].fd);
      return err;
    }
  }
  return 0;
}

static int
pread_teardown(struct ub_ctx *ctx)
{
  struct pread_state *ps = ctx->priv;

  for(int i = 0; i < ctx->threads; i++)
    close(ps[i].fd);
  return 0;
}

// Each read is checked at its first and last word (the whole page would add a 4 KiB scan
// to a 4 KiB copy).
static void
pread_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  int fd = ((struct pread_state *)ctx->priv)[w->index].fd;
  u64 x = 0x9e3779b97f4a7c15ULL * (w->index + 1), buf[PREAD_WORDS];

  while(!ub_stopped(ctx)) {
    u64 p = ub_rand(&x) % PREAD_PAGES;
    ssize_t n = pread(fd, buf, UB_PAGE, p * UB_PAGE);
    if(n < 0) {
      ub_fail(w, "pread", errno);
      return;
    }
    if(n != UB_PAGE || buf[0] != pread_word(p, 0) ||
       buf[PREAD_WORDS - 1] != pread_word(p, PREAD_WORDS - 1))
      w->bad++;
    ub_done(w, 1);
  }
}

const struct ub_suite ub_upread = {
  .name = "upread",
  .op = "pread of 4 KiB at a random page of a cached 16 MiB file",
  .seed = "2001/2002 page-cache lookup",
  .sweep = UB_SWEEP_UP,
  .variants = { "random-4k" },
  .init = pread_init,
  .fini = pread_fini,
  .setup = pread_setup,
  .teardown = pread_teardown,
  .worker = pread_worker,
};

// ---- ustat ------------------------------------------------------------------------------
// One operation: stat of a random one of 256 files at the bottom of a chain of eight
// directories, <dir>/a/b/c/d/e/f/g/h/file-N: every thread walks the same dentries, which a
// walk by reference must get and put in turn and an RCU walk only reads (kernel/bench/lookup.c
// measures both inside the kernel).
#define STAT_FILES 256
#define STAT_DEPTH 8

struct stat_tree {
  char path[STAT_FILES][PATH_MAX_UB];
  ino_t ino[STAT_FILES];
  int nfiles;
  int ndirs;
};

static int
stat_init(struct ub_ctx *ctx)
{
  struct stat_tree *t = calloc(1, sizeof(*t));
  char d[PATH_MAX_UB];
  struct stat st;
  int len;

  if(!(ctx->priv = t))
    return -ENOMEM;
  if(ub_path(d, sizeof(d), "%s", ctx->dir) < 0)
    return -ENAMETOOLONG;
  len = strlen(d);
  for(; t->ndirs < STAT_DEPTH; t->ndirs++) {
    if(ub_path(d + len, sizeof(d) - len, "/%c", 'a' + t->ndirs) < 0)
      return -ENAMETOOLONG;
    len += 2;
    if(mkdir(d, 0755) < 0)
      return -errno;
  }
  for(; t->nfiles < STAT_FILES; t->nfiles++) {
    char *p = t->path[t->nfiles];
    int fd;
    if(ub_path(p, PATH_MAX_UB, "%s/file-%d", d, t->nfiles) < 0)
      return -ENAMETOOLONG;
    if((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
      return -errno;
    close(fd);
    if(stat(p, &st) < 0) {
      t->nfiles++;
      return -errno;
    }
    t->ino[t->nfiles] = st.st_ino;
  }
  return 0;
}

static void
stat_fini(struct ub_ctx *ctx)
{
  struct stat_tree *t = ctx->priv;
  char d[PATH_MAX_UB];
  int len;

  if(!t)
    return;
  for(int i = 0; i < t->nfiles; i++)
    unlink(t->path[i]);
  for(int k = t->ndirs; k > 0; k--) {
    len = snprintf(d, sizeof(d), "%s", ctx->dir);
    for(int j = 0; j < k; j++)
      len += snprintf(d + len, sizeof(d) - len, "/%c", 'a' + j);
    rmdir(d);
  }
  free(t);
}

static void
stat_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  const struct stat_tree *t = ctx->priv;
  u64 x = 0x9e3779b97f4a7c15ULL * (w->index + 1);
  struct stat st;

  while(!ub_stopped(ctx)) {
    int i = ub_rand(&x) % STAT_FILES;
    if(stat(t->path[i], &st) < 0) {
      ub_fail(w, "stat", errno);
      return;
    }
    if(st.st_ino != t->ino[i] || !S_ISREG(st.st_mode))
      w->bad++;
    ub_done(w, 1);
  }
}

const struct ub_suite ub_ustat = {
  .name = "ustat",
  .op = "stat of <dir>/a/b/c/d/e/f/g/h/file-N, N random of 256",
  .seed = "2010 rcu-walk path lookup",
  .sweep = UB_SWEEP_UP,
  .variants = { "deep-path" },
  .init = stat_init,
  .fini = stat_fini,
  .worker = stat_worker,
};
