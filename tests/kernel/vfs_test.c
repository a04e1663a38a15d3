// Self-tests of the VFS's edges: every error from bad calls, RCU-walk racing unlink under slab
// poisoning (and the planted free-now mount that must be caught), allocation failures.
#include "cmdline.h"
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "printk.h"
#include "sched.h"
#include "expect.h"
#include "selftest.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "torture.h"
#include "vfs_test.h"
#include "vsprintf.h"

static struct expect_tally tally = { .test = "vfs-errors" };
#define EXPECT(call, want) expect_eq(&tally, #call, (call), (want))

static char long_buf[PATH_MAX + 8];

// n bytes of c after a slash.
static const char *
long_path(char c, size_t n)
{
  long_buf[0] = '/';
  memset(long_buf + 1, c, n);
  long_buf[n + 1] = 0;
  return long_buf;
}

static bool
never(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  return true;
}

static void
errors_on_files(void)
{
  struct file *f = NULL;
  struct kstat st;
  char buf[8] = { 0 };
  EXPECT(vfs_open("/errs/d", 0, 0, &f), 0);
  if(f) {
    EXPECT(vfs_write(f, buf, 8), -EISDIR);
    EXPECT(vfs_pread(f, buf, 8, 0), -EISDIR);
    EXPECT(vfs_ftruncate(f, 0), -EISDIR);
    EXPECT(vfs_readdir(f, NULL, NULL), -EINVAL);
    vfs_close(f);
  }
  f = NULL;
  EXPECT(vfs_open("/errs/f", 0, 0, &f), 0);
  if(f) {
    EXPECT(vfs_readdir(f, never, NULL), -ENOTDIR);
    EXPECT(vfs_pwrite(f, buf, 8, MAX_FILE_SIZE), -EINVAL);
    EXPECT(vfs_ftruncate(f, MAX_FILE_SIZE + 1), -EINVAL);
    EXPECT(vfs_pwrite(f, NULL, 8, 0), -EINVAL);
    fault_inject_set(FAULT_PAGE, 1000);
    EXPECT(vfs_pwrite(f, buf, 8, 0), -ENOMEM);
    fault_inject_set(FAULT_PAGE, 0);
    EXPECT(vfs_fstat(f, &st), 0);
    expect_eq(&tally, "size after a failed write", st.size, 0);
    vfs_close(f);
  }
  EXPECT(vfs_open("/errs/f", 0x100, 0, &f), -EINVAL);
  EXPECT(vfs_open("/errs/f", 0, 0, NULL), -EINVAL);
  EXPECT(vfs_open("/errs/d", O_CREAT, 0, &f), -EISDIR);
  EXPECT(vfs_open("/errs/f", O_CREAT | O_EXCL, 0, &f), -EEXIST);
  EXPECT(vfs_open("/errs/none", 0, 0, &f), -ENOENT);
  fault_inject_set(FAULT_SLAB, 1000);
  EXPECT(vfs_create("/errs/nomem", 0), -ENOMEM);
  EXPECT(vfs_mkdir("/errs/nomem"), -ENOMEM);
  EXPECT(vfs_open("/errs/f", 0, 0, &f), -ENOMEM);
  fault_inject_set(FAULT_SLAB, 0);
  EXPECT(vfs_stat("/errs/nomem", 0, &st), -ENOENT);
}

static void
errors_on_names(void)
{
  struct kstat st;
  EXPECT(vfs_stat(NULL, 0, &st), -EINVAL);
  EXPECT(vfs_create(NULL, 0), -EINVAL);
  EXPECT(vfs_rename(NULL, "/errs/x"), -EINVAL);
  EXPECT(vfs_rename("/errs/f", NULL), -EINVAL);
  EXPECT(vfs_stat("", 0, &st), -ENOENT);
  EXPECT(vfs_mkdir(""), -ENOENT);
  EXPECT(vfs_stat("errs", 0, &st), -EINVAL);
  EXPECT(vfs_stat("/errs", 0, NULL), -EINVAL);
  EXPECT(vfs_stat("//", 0, &st), 0);
  // RCU-walk alone, where the root allows it (not under ramfs.free=now: -EAGAIN, ref-walk's).
  EXPECT(vfs_stat("//errs//f", LOOKUP_RCU_ONLY, &st), root_mnt->mnt_sb->s_rcu_walk ? 0 : -EAGAIN);
  // The root as a last name exists, as Linux's LAST_ROOT: mkdir(2), unlink(2), rmdir(2).
  EXPECT(vfs_mkdir("//"), -EEXIST);
  EXPECT(vfs_unlink("/"), -EISDIR);
  EXPECT(vfs_rmdir("/"), -EBUSY);
  EXPECT(vfs_stat("/errs/..", 0, &st), 0);
  EXPECT(vfs_stat("/..", LOOKUP_REF_ONLY, &st), 0);
  EXPECT(vfs_create("/errs/.", 0), -EEXIST);   // Linux's answers for "." and ".."
  EXPECT(vfs_rmdir("/errs/."), -EINVAL);
  EXPECT(vfs_unlink("/errs/.."), -EISDIR);
  EXPECT(vfs_rename("/errs/f", "/errs/.."), -EBUSY);
  EXPECT(vfs_create(long_path('n', NAME_MAX + 1), 0), -ENAMETOOLONG);
  EXPECT(vfs_stat(long_path('n', NAME_MAX + 1), LOOKUP_REF_ONLY, &st), -ENAMETOOLONG);
  EXPECT(vfs_create(long_path('n', NAME_MAX), 0), 0);
  EXPECT(vfs_unlink(long_path('n', NAME_MAX)), 0);
  EXPECT(vfs_stat(long_path('/', PATH_MAX - 2), 0, &st), 0);   // 4095 bytes: the longest
  EXPECT(vfs_stat(long_path('/', PATH_MAX - 1), 0, &st), -ENAMETOOLONG);
  EXPECT(vfs_mkdir(long_path('/', PATH_MAX + 5)), -ENAMETOOLONG);
  EXPECT(vfs_stat("/errs/none", 0, &st), -ENOENT);
  EXPECT(vfs_create("/errs/none/x", 0), -ENOENT);
  EXPECT(vfs_unlink("/errs/none"), -ENOENT);
  EXPECT(vfs_rmdir("/errs/none"), -ENOENT);
  EXPECT(vfs_rename("/errs/none", "/errs/x"), -ENOENT);
  EXPECT(vfs_truncate("/errs/none", 0), -ENOENT);
  EXPECT(vfs_mkdir("/errs/d"), -EEXIST);
  EXPECT(vfs_mkdir("/errs/f"), -EEXIST);
  EXPECT(vfs_create("/errs/f", 0), -EEXIST);
  EXPECT(vfs_stat("/errs/f/x", 0, &st), -ENOTDIR);
  EXPECT(vfs_stat("/errs/f/", LOOKUP_REF_ONLY, &st), -ENOTDIR);
  EXPECT(vfs_create("/errs/f/x", 0), -ENOTDIR);
  EXPECT(vfs_rmdir("/errs/f"), -ENOTDIR);
  EXPECT(vfs_unlink("/errs/f/"), -ENOTDIR);
  EXPECT(vfs_rename("/errs/d", "/errs/f"), -ENOTDIR);
  EXPECT(vfs_unlink("/errs/d"), -EISDIR);
  EXPECT(vfs_rename("/errs/f", "/errs/d"), -EISDIR);
  EXPECT(vfs_create("/errs/new/", 0), -EISDIR);
  EXPECT(vfs_rmdir("/errs/d"), -ENOTEMPTY);
  EXPECT(vfs_rename("/errs/e", "/errs/d"), -ENOTEMPTY);
  EXPECT(vfs_rename("/errs/d", "/errs/d/x/y"), -ENOTDIR);
  EXPECT(vfs_rename("/errs/d", "/errs/d/sub"), -EINVAL);
  EXPECT(vfs_rename("/errs/f", "/errs/f"), 0);
}

static void
errors_on_mounts(void)
{
  struct ramfs_opts o = { PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO };
  struct ramfs_opts bad = { PC_RADIX_LOCK, 32, FREE_RCU, WALK_AUTO };
  EXPECT(vfs_mount("/errs/d", &bad), -EINVAL);
  EXPECT(vfs_mount("/errs/d", NULL), -EINVAL);
  EXPECT(vfs_mount("/errs/f", &o), -ENOTDIR);
  EXPECT(vfs_mount("/errs/none", &o), -ENOENT);
  EXPECT(vfs_umount("/"), -EINVAL);
  EXPECT(vfs_umount("/errs/e"), -EINVAL);
  EXPECT(vfs_mount("/errs/e", &o), 0);
  EXPECT(vfs_rmdir("/errs/e"), -EBUSY);
  EXPECT(vfs_rename("/errs/e", "/errs/e2"), -EBUSY);
  EXPECT(vfs_create("/errs/e/g", 0), 0);
  EXPECT(vfs_rename("/errs/e/g", "/errs/g"), -EXDEV);
  EXPECT(vfs_umount("/errs/e"), -EBUSY);
  EXPECT(vfs_unlink("/errs/e/g"), 0);
  EXPECT(vfs_umount("/errs/e"), 0);
  EXPECT(vfs_rmdir("/errs/e"), 0);
}

// Each errno is expected exactly, ENOMEM where the test injects it itself: the boot's
// injection (failslab=, failpage=) is paused for the test and put back after it.
static bool
vfs_errors_test(void)
{
  struct fault_rates rates;
  fault_inject_pause(&rates);
  tally.mismatches = tally.checks = 0;
  EXPECT(vfs_mkdir("/errs"), 0);
  EXPECT(vfs_create("/errs/f", 0), 0);
  EXPECT(vfs_mkdir("/errs/d"), 0);
  EXPECT(vfs_mkdir("/errs/e"), 0);
  EXPECT(vfs_create("/errs/d/x", 0), 0);
  errors_on_names();
  errors_on_files();
  errors_on_mounts();
  EXPECT(vfs_unlink("/errs/d/x"), 0);
  EXPECT(vfs_rmdir("/errs/d"), 0);
  EXPECT(vfs_unlink("/errs/f"), 0);
  EXPECT(vfs_rmdir("/errs"), 0);
  struct kstat st;
  EXPECT(vfs_stat("/errs", 0, &st), -ENOENT);
  selftest_extra("errnos=ENOENT,EEXIST,ENOTDIR,EISDIR,ENOTEMPTY,ENAMETOOLONG,EINVAL,ENOMEM,"
                 "EBUSY,EXDEV mismatches=%d", tally.mismatches);
  fault_inject_restore(&rates);
  return tally.mismatches == 0;
}
SELFTEST("vfs-errors", vfs_errors_test);

// rcu-walk-unlink: unlinkers create and unlink a few names as fast as they can while readers
// look them up and then linger on the inode they reached before checking it is still live
// and the same one. Freed inodes are poisoned (slab debugging on), and a reused one has
// another number. Even CPUs unlink, odd ones read (one CPU does both, in turn).
#define RWU_FILES 4
#define RWU_MS 1400              // both mounts' default; torture.secs= sets it
#define RWU_LOOKUPS_PER_CPU_SEC 20    // the work floors (torture.h): a loaded host did 32 at 1 vCPU
#define RWU_CYCLES_PER_SEC 10         // and 32; 64 vCPUs did 670 and 235
#define RWU_PLANTED_MS 3000
#define LINGER_US 20

struct rwu_mount {
  const char *dir;
  struct ramfs_opts opts;
};

static const struct rwu_mount rwu_free_rcu[] = {
  { "/rwu-free-rcu", { PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO } },
};
static const struct rwu_mount rwu_free_now[] = {
  { "/rwu-free-now", { PC_HASH_BUCKET, 0, FREE_NOW, WALK_AUTO } },   // walks fall back to ref-walk
};
static const struct rwu_mount rwu_planted[] = {
  { "/rwu-unsafe", { PC_RADIX_RCU, 64, FREE_NOW, WALK_UNSAFE_RCU } },
};

static struct {
  const struct rwu_mount *mounts;
  int nmounts;
  struct torture_gate gate;          // the threads start together, and run past the duration
  u64 lookups_floor, cycles_floor;   // until these are met (torture.h)
  u64 lookups, found, rcu_walks, stale, cycles, errors;   // atomic adds
} rwu;

static void
rwu_name(char *buf, int m, int k)
{
  snprintf(buf, 64, "%s/f%d", rwu.mounts[m].dir, k);
}

static void
rwu_add(u64 *counter, u64 n)
{
  __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static bool
inode_changed(struct inode *inode, unsigned long ino)
{
  return READ_ONCE(inode->i_magic) != INODE_MAGIC || READ_ONCE(inode->i_ino) != ino;
}

// One lookup: RCU-walk where the mount allows it, checking under the same rcu_read_lock;
// else a referenced open, which must hold the inode by itself.
static void
rwu_read(struct torture_rand *r)
{
  char path[64];
  int m = torture_random(r) % rwu.nmounts;
  rwu_name(path, m, torture_random(r) % RWU_FILES);
  struct inode *inode;
  rcu_read_lock();
  int err = vfs_lookup_rcu(path, &inode);
  if(!err) {
    unsigned long ino = READ_ONCE(inode->i_ino);
    bool stale = READ_ONCE(inode->i_magic) != INODE_MAGIC;
    udelay(LINGER_US);
    stale |= inode_changed(inode, ino);
    rwu_add(&rwu.stale, stale);
    rwu_add(&rwu.found, 1);
    rwu_add(&rwu.rcu_walks, 1);
  }
  rcu_read_unlock();
  if(err == -EAGAIN) {
    struct file *f;
    err = vfs_open(path, 0, 0, &f);
    if(!err) {
      unsigned long ino = f->f_inode->i_ino;
      udelay(LINGER_US);
      rwu_add(&rwu.stale, inode_changed(f->f_inode, ino));
      rwu_add(&rwu.found, 1);
      vfs_close(f);
    }
  }
  if(err && err != -ENOENT)
    rwu_add(&rwu.errors, 1);
  rwu_add(&rwu.lookups, 1);
}

// Creates every name of one mount, then unlinks them: each name exists half the time.
static void
rwu_cycle(struct torture_rand *r)
{
  char path[64];
  int m = torture_random(r) % rwu.nmounts;
  for(int unlink = 0; unlink < 2; unlink++)
    for(int k = 0; k < RWU_FILES; k++) {
      rwu_name(path, m, k);
      int err = unlink ? vfs_unlink(path) : vfs_create(path, 0);
      if(err != 0 && err != (unlink ? -ENOENT : -EEXIST))
        rwu_add(&rwu.errors, 1);
    }
  rwu_add(&rwu.cycles, 1);
}

static int
rwu_thread(void *arg)
{
  int cpu = (long)arg;
  struct torture_rand r;
  torture_seed(&r, cpu);
  bool reader = cpu % 2 == 1, alone = num_online_cpus() == 1;
  torture_gate_wait(&rwu.gate);
  while(torture_running(&rwu.gate) && !READ_ONCE(rwu.stale)) {   // one is enough
    if(reader || alone)
      rwu_read(&r);
    if(!reader || alone)
      rwu_cycle(&r);
    cond_resched();
  }
  return 0;
}

static bool
rwu_enough(void)
{
  return READ_ONCE(rwu.lookups) >= rwu.lookups_floor && READ_ONCE(rwu.cycles) >= rwu.cycles_floor;
}

static bool
rwu_run(const char *tag, const struct rwu_mount *mounts, int n, u64 ns, bool floors)
{
  bool ok = true;
  rwu.lookups_floor = floors ? torture_floor(RWU_LOOKUPS_PER_CPU_SEC * num_online_cpus(), ns) : 0;
  rwu.cycles_floor = floors ? torture_floor(RWU_CYCLES_PER_SEC, ns) : 0;
  torture_gate_init(&rwu.gate, ns);
  rwu.mounts = mounts;
  rwu.nmounts = n;
  rwu.lookups = rwu.found = rwu.rcu_walks = rwu.stale = rwu.cycles = rwu.errors = 0;
  for(int m = 0; m < n; m++)
    ok &= vfs_mkdir(mounts[m].dir) == 0 && vfs_mount(mounts[m].dir, &mounts[m].opts) == 0;
  slab_debug_enable(true);
  ok = torture_run_per_cpu(&rwu.gate, ok, rwu_thread, "rwu", rwu_enough);
  rcu_barrier();   // every inode freed by RCU is poisoned and back before debugging goes off
  slab_debug_enable(kcmdline.debug_slab);
  char path[64];
  for(int m = 0; m < n; m++) {
    for(int k = 0; k < RWU_FILES; k++) {
      rwu_name(path, m, k);
      vfs_unlink(path);
    }
    ok &= vfs_umount(mounts[m].dir) == 0 && vfs_rmdir(mounts[m].dir) == 0;
  }
  selftest_extra("%s_lookups=%lu %s_found=%lu %s_rcu_walks=%lu %s_unlink_cycles=%lu "
                 "%s_stale=%lu %s_errors=%lu", tag, rwu.lookups, tag, rwu.found, tag,
                 rwu.rcu_walks, tag, rwu.cycles, tag, rwu.stale, tag, rwu.errors);
  if(floors) {
    char what[32];
    snprintf(what, sizeof(what), "%s_lookups", tag);
    ok &= torture_enough("rcu-walk-unlink", what, rwu.lookups, rwu.lookups_floor);
    snprintf(what, sizeof(what), "%s_unlink_cycles", tag);
    ok &= torture_enough("rcu-walk-unlink", what, rwu.cycles, rwu.cycles_floor);
  }
  return ok && rwu.errors == 0 && rwu.stale == 0;
}

static bool
rcu_walk_unlink_test(void)
{
  // One mount at a time: ref-walk's shared d_lock traffic on the free-now mount would
  // otherwise starve the RCU-walk readers on a loaded host.
  selftest_extra("cpus=%d free-rcu=radix-rcu/64 free-now=hash-bucket", num_online_cpus());
  u64 ns = torture_ns(RWU_MS) / 2;
  bool ok = rwu_run("rcu", rwu_free_rcu, 1, ns, true);
  return rwu_run("now", rwu_free_now, 1, ns, true) && ok;
}
SELFTEST_NOINJECT("rcu-walk-unlink", rcu_walk_unlink_test);

// The bug the 2010 patch prevents: inodes freed at once under RCU-walkers. Readers must
// catch an inode freed under them: result=fail with stale > 0.
static bool
planted_free_now_rcu_walk(void)
{
  selftest_extra("cpus=%d unsafe=radix-rcu/64", num_online_cpus());
  return rwu_run("unsafe", rwu_planted, 1, RWU_PLANTED_MS * 1000000UL, false);
}
SELFTEST("planted-free-now-rcu-walk", planted_free_now_rcu_walk);

// ramfs-nomem: one thread runs random operations on each variant's mount while a tenth of
// slab and page allocations fail. A call either fails with -ENOMEM and changes nothing, or
// succeeds (a write may stop short and says how far it got). Then, with injection off, the
// tree must be exactly the model, and the mount must unmount: no inode was leaked.
#define NOMEM_FILES 6
#define NOMEM_OPS 400
#define NOMEM_PERMILLE 100
#define NOMEM_MAX 9000

static struct {
  bool exists;
  u64 size;   // content: pattern_byte(seed, offset), seed = the file's number
} nomem_model[NOMEM_FILES];

static u8 nomem_buf[NOMEM_MAX], nomem_rbuf[NOMEM_MAX];
static u64 nomem_failed, nomem_ops, nomem_bad;

static void
nomem_expect(bool ok, const char *what, int k, long got)
{
  if(!ok && nomem_bad++ < 5)
    pr_err("ramfs-nomem: %s f%d: got %ld\n", what, k, got);
}

static void
nomem_op(const char *dir, struct torture_rand *r)
{
  char path[64];
  struct file *f;
  int k = torture_random(r) % NOMEM_FILES;
  u32 pick = torture_random(r) % 4;
  bool exists = nomem_model[k].exists;
  snprintf(path, sizeof(path), "%s/f%d", dir, k);
  long err;
  if(!exists || pick == 0) {   // create, or unlink what exists
    err = exists ? vfs_unlink(path) : vfs_create(path, 0);
    nomem_expect(err == 0 || (!exists && err == -ENOMEM), "create/unlink", k, err);
    if(err == 0)
      nomem_model[k] = (typeof(nomem_model[k])){ !exists, 0 };
  } else if(pick == 1) {       // truncate down
    u64 size = torture_random(r) % (nomem_model[k].size + 1);
    err = vfs_truncate(path, size);
    nomem_expect(err == 0 || err == -ENOMEM, "truncate", k, err);
    if(err == 0)
      nomem_model[k].size = size;
  } else if((err = vfs_open(path, 0, 0, &f)) == 0) {   // append, or read and compare
    u64 size = nomem_model[k].size;
    if(pick == 2) {
      size_t n = torture_random(r) % (NOMEM_MAX - size + 1);
      pattern_fill(nomem_buf, k, size, n);
      err = vfs_pwrite(f, nomem_buf, n, size);
      nomem_expect(err >= 0 || err == -ENOMEM, "append", k, err);
      if(err > 0)
        nomem_model[k].size += err;
    } else {
      err = vfs_pread(f, nomem_rbuf, NOMEM_MAX, 0);
      pattern_fill(nomem_buf, k, 0, size);
      nomem_expect(err == (long)size && memcmp(nomem_buf, nomem_rbuf, size) == 0, "read", k, err);
    }
    vfs_close(f);
  } else
    nomem_expect(err == -ENOMEM, "open", k, err);
  nomem_failed += err == -ENOMEM;
  nomem_ops++;
}

static bool
nomem_count(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  int k = len == 2 && name[0] == 'f' ? name[1] - '0' : -1;
  nomem_expect(k >= 0 && k < NOMEM_FILES && nomem_model[k].exists, "stray entry", k, len);
  (*(int *)arg)++;
  return true;
}

// The tree against the model, with injection off; then everything is removed.
static void
nomem_check(const char *dir)
{
  char path[64];
  struct file *f;
  int entries = 0, files = 0;
  nomem_expect(vfs_open(dir, 0, 0, &f) == 0, "open dir", -1, 0);
  vfs_readdir(f, nomem_count, &entries);
  vfs_close(f);
  for(int k = 0; k < NOMEM_FILES; k++) {
    if(!nomem_model[k].exists)
      continue;
    files++;
    snprintf(path, sizeof(path), "%s/f%d", dir, k);
    long err = vfs_open(path, 0, 0, &f);
    nomem_expect(err == 0, "open", k, err);
    if(err)
      continue;
    err = vfs_pread(f, nomem_rbuf, NOMEM_MAX, 0);
    pattern_fill(nomem_buf, k, 0, nomem_model[k].size);
    nomem_expect(err == (long)nomem_model[k].size &&
                 memcmp(nomem_buf, nomem_rbuf, err) == 0, "final read", k, err);
    vfs_close(f);
    nomem_expect(vfs_unlink(path) == 0, "final unlink", k, 0);
  }
  nomem_expect(entries == files, "entries", entries, files);
}

static bool
ramfs_nomem_test(void)
{
  char dir[64];
  struct torture_rand r;
  torture_seed(&r, 7);
  struct fault_rates rates;
  bool ok = true;
  // The test injects at a rate of its own around its operations only, so that its mounts
  // and tally.checks cannot fail: the boot's rates are paused meanwhile and put back after it.
  fault_inject_pause(&rates);
  nomem_failed = nomem_ops = nomem_bad = 0;
  for(int v = 0; v < NR_PC_VARIANTS; v++) {
    struct ramfs_opts o = { vfs_test_variants[v].variant, vfs_test_variants[v].fanout,
                            v % 2 ? FREE_NOW : FREE_RCU, WALK_AUTO };
    snprintf(dir, sizeof(dir), "/nomem-%s", pagecache_variant_names[o.variant]);
    if(vfs_mkdir(dir) || vfs_mount(dir, &o)) {
      vfs_rmdir(dir);
      ok = false;
      break;
    }
    memset(nomem_model, 0, sizeof(nomem_model));
    u64 injected = fault_inject_count(FAULT_SLAB) + fault_inject_count(FAULT_PAGE);
    fault_inject_set(FAULT_SLAB, NOMEM_PERMILLE);
    fault_inject_set(FAULT_PAGE, NOMEM_PERMILLE);
    for(int i = 0; i < NOMEM_OPS; i++) {
      nomem_op(dir, &r);
      cond_resched();
    }
    fault_inject_set(FAULT_SLAB, 0);
    fault_inject_set(FAULT_PAGE, 0);
    injected = fault_inject_count(FAULT_SLAB) + fault_inject_count(FAULT_PAGE) - injected;
    nomem_check(dir);
    nomem_expect(vfs_umount(dir) == 0 && vfs_rmdir(dir) == 0, "umount", -1, 0);
    selftest_extra("%s=%lu", pagecache_variant_names[o.variant], injected);
  }
  fault_inject_restore(&rates);
  selftest_extra("ops=%lu enomem=%lu bad=%lu (variant=injected failures)", nomem_ops,
                 nomem_failed, nomem_bad);
  return ok && nomem_bad == 0 && nomem_failed > 0;
}
SELFTEST("ramfs-nomem", ramfs_nomem_test);
