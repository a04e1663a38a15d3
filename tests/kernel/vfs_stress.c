// ramfs-stress: every CPU creates, writes, reads, renames, unlinks and looks up files in
// shared and private directories of four ramfs mounts, one per page-cache variant, at once;
// contents are checked by checksum, then a checker walks the whole tree against the model.
// Under fault injection the workers' operations may fail with ENOMEM: each must then have
// changed nothing, or what the model can read back (a write cut short).
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "torture.h"
#include "vfs_test.h"
#include "vsprintf.h"

#define STRESS_MS 1500                 // the default; torture.secs= sets it
#define OPS_PER_CPU_SEC 20             // the work floor (torture.h); 64 vCPUs did 229
#define NSLOTS 12                      // files a thread may own at once
#define MAX_SIZE (3 * PAGE_SIZE + 700)
#define MAX_NAMES 512                  // entries one directory can hold: NSLOTS per CPU
#define NR_MOUNTS NR_PC_VARIANTS

// The model: what each thread believes its files are.
struct slot {
  bool exists;
  bool shared;   // in the mount's shared directory, else in the owner's private one
  int mnt;
  u32 gen;       // bumped by every rename and re-create: the name is c<cpu>s<slot>g<gen>
  u64 seed;      // byte o of the file is pattern_byte(seed, o)
  u64 size;
  int seen;      // by the final checker
};

struct worker;
static void fail(struct worker *w, const char *what, const char *path, long got);

struct worker {
  struct thread *thread;
  int cpu;
  struct torture_rand r;
  struct slot slots[NSLOTS];
  u8 *buf, *rbuf;                // MAX_SIZE each
  u64 ops, bytes, errors;
  u64 enomem;                    // operations fault injection failed (failslab=, failpage=)
};

static struct worker workers[NR_CPUS];
static struct worker checker;
static u64 end_ns;

static void
slot_path(struct worker *w, struct slot *s, char *buf)
{
  int idx = s - w->slots;
  const char *v = pagecache_variant_names[vfs_test_variants[s->mnt].variant];
  if(s->shared)
    snprintf(buf, 96, "/stress-%s/shared/c%ds%dg%u", v, w->cpu, idx, s->gen);
  else
    snprintf(buf, 96, "/stress-%s/p%d/c%ds%dg%u", v, w->cpu, w->cpu, idx, s->gen);
}

// An operation that failed with ENOMEM while injection is on: counted, not a failure.
static bool
injected(struct worker *w, long err)
{
  if(err != -ENOMEM || !fault_inject_active())
    return false;
  w->enomem++;
  return true;
}

// The size the file at path has now, after a failed operation left the model unsure
// (a truncate or write cut short); a stat injection fails is tried again.
static u64
size_now(struct worker *w, const char *path, u64 model)
{
  struct kstat st;
  int err;
  while((err = vfs_stat(path, 0, &st)) == -ENOMEM && injected(w, err))
    cond_resched();
  if(err) {
    fail(w, "stat after ENOMEM", path, err);
    return model;
  }
  return st.size;
}

static void
fail(struct worker *w, const char *what, const char *path, long got)
{
  if(w->errors++ < 5)
    pr_err("ramfs-stress: cpu %d: %s %s: got %ld\n", w->cpu, what, path, got);
}

// Each call walks one of three ways; RCU-walk alone may give up (-EAGAIN) under renames.
static unsigned
any_walk(struct worker *w)
{
  static const unsigned walks[] = { 0, LOOKUP_RCU_ONLY, LOOKUP_REF_ONLY };
  return walks[torture_random(&w->r) % 3];
}

static int
open_any(struct worker *w, const char *path, unsigned oflags, struct file **f)
{
  int err = vfs_open(path, oflags, any_walk(w), f);
  return err == -EAGAIN ? vfs_open(path, oflags, 0, f) : err;
}

// Writes bytes [from, to) of the pattern in chunks of random sizes, to cross page edges.
// Returns 0, or the error of a write cut short (-ENOMEM: injection kept a page from it).
static long
write_pattern(struct worker *w, struct file *f, u64 seed, u64 from, u64 to)
{
  pattern_fill(w->buf, seed, from, to - from);
  for(u64 pos = from; pos < to;) {
    size_t n = 1 + torture_random(&w->r) % 5000;   // not inside MIN: it would draw twice
    n = MIN(n, to - pos);
    ssize_t got = vfs_pwrite(f, w->buf + (pos - from), n, pos);
    if(got != (ssize_t)n)
      return got < 0 ? got : -ENOMEM;   // short: the next page could not be had
    pos += n;
  }
  return 0;
}

// After write_pattern: the size the file has, if a write was cut short.
static void
written(struct worker *w, struct file *f, struct slot *s, const char *path, long err)
{
  struct kstat st;
  if(!err)
    return;
  if(!injected(w, err) || vfs_fstat(f, &st)) {
    fail(w, "write", path, err);
    return;
  }
  s->size = st.size;   // the pattern up to where the write stopped
}

// Reads owner's file s with vfs_read in random pieces, with w's buffers; compares checksums
// with the model.
static void
verify(struct worker *w, struct worker *owner, struct slot *s)
{
  char path[96];
  struct file *f;
  slot_path(owner, s, path);
  int err = open_any(w, path, 0, &f);
  if(err) {
    if(!injected(w, err))
      fail(w, "open to verify", path, err);
    return;
  }
  u64 got = 0;
  ssize_t n;
  do {
    size_t want = 1 + torture_random(&w->r) % 6000;
    n = vfs_read(f, w->rbuf + got, MIN(want, MAX_SIZE - got));
    got += n > 0 ? n : 0;
  } while(n > 0 && got < MAX_SIZE);
  struct kstat st;
  vfs_fstat(f, &st);
  vfs_close(f);
  if(n < 0 && injected(w, n))
    return;
  pattern_fill(w->buf, s->seed, 0, s->size);
  if(n < 0 || got != s->size || st.size != s->size)
    fail(w, "size of", path, n < 0 ? n : (long)got);
  else if(checksum(CHECKSUM_INIT, w->rbuf, got) != checksum(CHECKSUM_INIT, w->buf, s->size))
    fail(w, "checksum of", path, got);
  else
    w->bytes += got;
}

static void
op_create(struct worker *w, struct slot *s)
{
  char path[96];
  struct file *f;
  s->mnt = torture_random(&w->r) % NR_MOUNTS;
  s->shared = torture_random(&w->r) & 1;
  s->gen++;
  slot_path(w, s, path);
  int err = open_any(w, path, O_CREAT | O_EXCL, &f);
  if(err) {
    if(!injected(w, err))   // an open that fails creates nothing (vfs_open)
      fail(w, "create", path, err);
    return;
  }
  s->exists = true;
  s->seed = ((u64)torture_random(&w->r) << 32) | torture_random(&w->r);
  s->size = torture_random(&w->r) % MAX_SIZE;
  written(w, f, s, path, write_pattern(w, f, s->seed, 0, s->size));
  vfs_close(f);
}

static void
op_rewrite(struct worker *w, struct slot *s, bool append)
{
  char path[96];
  struct file *f;
  slot_path(w, s, path);
  int err = open_any(w, path, append ? 0 : O_TRUNC, &f);
  if(err) {
    if(!injected(w, err))   // an open that fails has not truncated (vfs_open)
      fail(w, "open to write", path, err);
    return;
  }
  u64 from = append ? s->size : 0;
  if(!append) {
    s->seed = ((u64)torture_random(&w->r) << 32) | torture_random(&w->r);
    s->size = 0;
  }
  s->size = from + torture_random(&w->r) % (MAX_SIZE - from + 1);
  written(w, f, s, path, write_pattern(w, f, s->seed, from, s->size));
  vfs_close(f);
}

static void
op_truncate(struct worker *w, struct slot *s)
{
  char path[96];
  slot_path(w, s, path);
  u64 size = torture_random(&w->r) % (s->size + 1);   // down only: the pattern stays true
  int err = vfs_truncate(path, size);
  if(err && injected(w, err)) {
    s->size = size_now(w, path, s->size);   // the open failed, or the truncate after it
    return;
  }
  if(err)
    fail(w, "truncate", path, err);
  s->size = size;
}

// To a new name, sometimes in the other directory, sometimes over another of our files
// in the same mount.
static void
op_rename(struct worker *w, struct slot *s)
{
  char from[96], to[96];
  slot_path(w, s, from);
  struct slot *t = &w->slots[torture_random(&w->r) % NSLOTS], old = *s;
  bool over = t != s && t->exists && t->mnt == s->mnt && torture_one_in(&w->r, 4);
  if(over) {
    slot_path(w, t, to);   // t's name now holds s's file
  } else {
    s->shared = torture_random(&w->r) & 1;
    s->gen++;
    slot_path(w, s, to);
  }
  int err = vfs_rename(from, to);
  if(err && injected(w, err)) {   // a rename that fails changes nothing
    s->shared = old.shared;
    s->gen = old.gen;
    return;
  }
  if(err)
    fail(w, "rename to", to, err);
  if(over) {
    t->seed = s->seed;
    t->size = s->size;
    s->exists = false;
  }
}

static void
op_unlink(struct worker *w, struct slot *s)
{
  char path[96];
  slot_path(w, s, path);
  int err = vfs_unlink(path);
  if(err && injected(w, err))
    return;   // still there
  if(err)
    fail(w, "unlink", path, err);
  s->exists = false;
}

// Our file must be there with its size; another CPU's may or may not be.
static void
op_stat(struct worker *w, struct slot *s)
{
  char path[96];
  struct kstat st;
  unsigned walk = any_walk(w);
  slot_path(w, s, path);
  int err = vfs_stat(path, walk, &st);
  if(err == -EAGAIN)
    err = vfs_stat(path, 0, &st);
  if(!injected(w, err) && (err || st.size != s->size || !S_ISREG(st.mode)))
    fail(w, "stat", path, err ? err : (long)st.size);
  snprintf(path, sizeof(path), "/stress-%s/shared/c%ds%ug%u",
           pagecache_variant_names[vfs_test_variants[s->mnt].variant],
           (int)(torture_random(&w->r) % nr_cpu_ids), torture_random(&w->r) % NSLOTS,
           torture_random(&w->r) % 8);
  err = vfs_stat(path, walk, &st);
  if(err && err != -ENOENT && err != -EAGAIN && !injected(w, err))
    fail(w, "stat of another's", path, err);
}

static bool
count_entry(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  (*(int *)arg) += len > 0 && name[0] == 'c' && S_ISREG(mode);
  return true;
}

static void
op_readdir(struct worker *w, struct slot *s)
{
  char path[96];
  struct file *f;
  int n = 0;
  snprintf(path, sizeof(path), "/stress-%s/shared",
           pagecache_variant_names[vfs_test_variants[s->mnt].variant]);
  int err = open_any(w, path, 0, &f);
  if(!err) {
    err = vfs_readdir(f, count_entry, &n);
    vfs_close(f);
  }
  if(err && !injected(w, err))
    fail(w, "readdir", path, err);
}

static int
worker_fn(void *arg)
{
  struct worker *w = arg;
  torture_seed(&w->r, ktime_ns() ^ w->cpu);
  while(ktime_ns() < end_ns && w->errors < 10) {
    struct slot *s = &w->slots[torture_random(&w->r) % NSLOTS];
    u32 pick = torture_random(&w->r) % 100;
    if(!s->exists)
      op_create(w, s);
    else if(pick < 25)
      verify(w, w, s);
    else if(pick < 37)
      op_rewrite(w, s, false);
    else if(pick < 47)
      op_rewrite(w, s, true);
    else if(pick < 55)
      op_truncate(w, s);
    else if(pick < 70)
      op_rename(w, s);
    else if(pick < 80)
      op_unlink(w, s);
    else if(pick < 97)
      op_stat(w, s);
    else
      op_readdir(w, s);
    w->ops++;
    cond_resched();
  }
  return 0;
}

// The checker: every name in a directory must be a file some thread says it left there,
// with that content; every file a thread left must be found exactly once.
struct dir_names {
  int n;
  char (*names)[32];
  bool bad;
};

static bool
collect(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  struct dir_names *d = arg;
  if(d->n == MAX_NAMES || len >= 32 || !S_ISREG(mode)) {
    d->bad = true;
    return true;
  }
  memcpy(d->names[d->n], name, len);
  d->names[d->n++][len] = 0;
  return true;
}

// "c<cpu>s<slot>g<gen>": the owner's worker and slot; false if the name is not one.
static bool
parse_name(const char *name, struct worker **w, struct slot **s, u32 *gen)
{
  unsigned v[3] = { 0, 0, 0 };
  for(int i = 0; i < 3; i++) {
    if(*name++ != "csg"[i] || *name < '0' || *name > '9')
      return false;
    while(*name >= '0' && *name <= '9')
      v[i] = v[i] * 10 + (*name++ - '0');
  }
  if(*name || v[0] >= (unsigned)nr_cpu_ids || v[1] >= NSLOTS)
    return false;
  *w = &workers[v[0]];
  *s = &(*w)->slots[v[1]];
  *gen = v[2];
  return true;
}

// One directory: owner -1 is the shared one. Every entry is checked against the model and
// its content verified.
static void
check_dir(int mnt, int owner, struct dir_names *d)
{
  char path[96];
  struct file *f;
  const char *v = pagecache_variant_names[vfs_test_variants[mnt].variant];
  if(owner < 0)
    snprintf(path, sizeof(path), "/stress-%s/shared", v);
  else
    snprintf(path, sizeof(path), "/stress-%s/p%d", v, owner);
  d->n = 0;
  d->bad = false;
  int err = vfs_open(path, 0, 0, &f);
  if(!err) {
    err = vfs_readdir(f, collect, d);
    vfs_close(f);
  }
  if(err || d->bad) {
    fail(&checker, "readdir", path, err);
    return;
  }
  for(int i = 0; i < d->n; i++) {
    struct worker *w;
    struct slot *s;
    u32 gen;
    if(!parse_name(d->names[i], &w, &s, &gen) || !s->exists || s->gen != gen ||
       s->mnt != mnt || s->shared != (owner < 0) || (owner >= 0 && owner != w->cpu)) {
      fail(&checker, "unexpected entry in", path, i);
      continue;
    }
    s->seen++;
    verify(&checker, w, s);
  }
}

// Unlinks every file the model has, then the directories, mounts and mount points: each
// step must succeed, and umount succeeding proves no inode of the mount was left behind.
static void
cleanup(void)
{
  char path[96];
  int cpu;
  for_each_online_cpu(cpu)
    for(int i = 0; i < NSLOTS; i++) {
      struct slot *s = &workers[cpu].slots[i];
      if(!s->exists)
        continue;
      slot_path(&workers[cpu], s, path);
      int err = vfs_unlink(path);
      if(err)
        fail(&checker, "cleanup unlink", path, err);
    }
  for(int m = 0; m < NR_MOUNTS; m++) {
    const char *v = pagecache_variant_names[vfs_test_variants[m].variant];
    for_each_online_cpu(cpu) {
      snprintf(path, sizeof(path), "/stress-%s/p%d", v, cpu);
      vfs_rmdir(path);
    }
    snprintf(path, sizeof(path), "/stress-%s/shared", v);
    vfs_rmdir(path);
    snprintf(path, sizeof(path), "/stress-%s", v);
    int err = vfs_umount(path);
    if(err)
      fail(&checker, "umount", path, err);
    err = vfs_rmdir(path);
    if(err)
      fail(&checker, "rmdir of mount point", path, err);
  }
}

static bool
setup(void)
{
  char path[96];
  int cpu;
  for(int m = 0; m < NR_MOUNTS; m++) {
    const char *v = pagecache_variant_names[vfs_test_variants[m].variant];
    struct ramfs_opts o = { vfs_test_variants[m].variant, vfs_test_variants[m].fanout,
                            m % 2 ? FREE_NOW : FREE_RCU, WALK_AUTO };
    snprintf(path, sizeof(path), "/stress-%s", v);
    if(vfs_mkdir(path) || vfs_mount(path, &o))
      return false;
    snprintf(path, sizeof(path), "/stress-%s/shared", v);
    if(vfs_mkdir(path))
      return false;
    for_each_online_cpu(cpu) {
      snprintf(path, sizeof(path), "/stress-%s/p%d", v, cpu);
      if(vfs_mkdir(path))
        return false;
    }
  }
  return true;
}

// The fixture (buffers, mounts, directories), the final check and the cleanup are made with
// the boot's injection paused; the workers run under it.
static bool
ramfs_stress_test(void)
{
  int cpu, threads = 0;
  struct fault_rates rates;
  fault_inject_pause(&rates);
  struct dir_names d = { 0, kmalloc(MAX_NAMES * 32, GFP_KERNEL), false };
  checker = (struct worker){ .buf = kmalloc(MAX_SIZE, GFP_KERNEL),
                             .rbuf = kmalloc(MAX_SIZE, GFP_KERNEL) };
  torture_seed(&checker.r, 1);
  bool ok = d.names && checker.buf && checker.rbuf && setup();
  for_each_online_cpu(cpu)
    workers[cpu] = (struct worker){ .cpu = cpu, .buf = kmalloc(MAX_SIZE, GFP_KERNEL),
                                    .rbuf = kmalloc(MAX_SIZE, GFP_KERNEL) };
  fault_inject_restore(&rates);
  u64 ns = torture_ns(STRESS_MS);
  end_ns = ktime_ns() + ns;
  for_each_online_cpu(cpu) {
    struct worker *w = &workers[cpu];
    if(ok && w->buf && w->rbuf)
      w->thread = kthread_create(worker_fn, w, cpu, "ramfs_stress/%d", cpu);
    threads += w->thread != NULL;
  }
  u64 ops = 0, bytes = 0, errors = 0, files = 0, enomem = 0;
  for_each_online_cpu(cpu) {
    struct worker *w = &workers[cpu];
    if(w->thread)
      kthread_join(w->thread);
    ops += w->ops;
    bytes += w->bytes;
    errors += w->errors;
    enomem += w->enomem;
  }
  // A worker kthread_create failed (failslab=) did nothing: the others' files are checked.
  bool created = threads == num_online_cpus();
  fault_inject_pause(&rates);
  if(ok) {
    for(int m = 0; m < NR_MOUNTS; m++) {
      check_dir(m, -1, &d);
      for_each_online_cpu(cpu)
        check_dir(m, cpu, &d);
    }
    for_each_online_cpu(cpu)
      for(int i = 0; i < NSLOTS; i++) {
        struct slot *s = &workers[cpu].slots[i];
        files += s->seen;
        if(s->exists != (s->seen == 1))
          fail(&checker, "found wrongly often:", "a file", s->seen);
      }
    cleanup();
  }
  for_each_online_cpu(cpu) {
    kfree(workers[cpu].buf);
    kfree(workers[cpu].rbuf);
  }
  kfree(checker.buf);
  kfree(checker.rbuf);
  kfree(d.names);
  fault_inject_restore(&rates);
  selftest_extra("cpus=%d ms=%lu variants=hash-global,hash-bucket,radix-lock/16,radix-rcu/128 "
                 "ops=%lu enomem=%lu bytes_verified=%lu files_checked=%lu errors=%lu",
                 num_online_cpus(), ns / 1000000, ops, enomem, bytes + checker.bytes, files,
                 errors + checker.errors);
  ok &= errors == 0 && checker.errors == 0;
  if(!created)
    return ok && selftest_skip("enomem");
  return ok && torture_enough("ramfs-stress", "ops", ops - MIN(enomem, ops),
                              torture_floor(OPS_PER_CPU_SEC * num_online_cpus(), ns));
}
SELFTEST("ramfs-stress", ramfs_stress_test);
