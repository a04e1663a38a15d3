// rcu-walk-rename: one CPU renames directories in a loop (RENAME_EXCHANGE mostly, plain
// renames through a spare name sometimes) while the others stat paths through them by
// RCU-walk, ref-walk and both, with and without "..". Every answer must be an inode the path
// could have named at some moment of the walk, and a name that never stopped existing must
// be found: a lookup that misses while a rename moves a dentry between hash chains has to
// try again (rename_lock). planted-rename-unlocked renames without telling lookups, with the
// rename's window widened, and must be caught.
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "torture.h"
#include "vsprintf.h"

#define RWR_MS 1000
#define RWR_STATS_PER_CPU_SEC 40   // the work floors (torture.h), per reading CPU
#define RWR_RENAMES_PER_SEC 20
#define RWR_PLANTED_MS 2000
#define NR_MOVERS 3

// Three places the movers take turns in: two in /rwr, one a level down. /rwr/c/s/f is never
// renamed, only its neighbours in /rwr's hash chains are.
static const char *const places[NR_MOVERS] = { "/rwr/a", "/rwr/b", "/rwr/x/y" };
static const char *const suffixes[] = { "/s/f", "/s/../s/f", "" };
static const struct ramfs_opts rwr_opts = { PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO };

static struct {
  struct torture_gate gate;
  u64 stats_floor, renames_floor;
  unsigned long file_ino[NR_MOVERS], dir_ino[NR_MOVERS], fixed_ino;
  u32 holes;   // odd while a place is empty (a plain rename's three steps); atomic
  u64 stats, eagain, renames, wrong, missing, errors;   // atomic adds
} rwr;

static void
rwr_add(u64 *counter, u64 n)
{
  __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static bool
is_one_of(const unsigned long *inos, unsigned long ino)
{
  for(int i = 0; i < NR_MOVERS; i++)
    if(inos[i] == ino)
      return true;
  return false;
}

static void
rwr_read(struct torture_rand *r)
{
  static const unsigned walks[] = { 0, LOOKUP_RCU_ONLY, LOOKUP_REF_ONLY };
  char path[48];
  int place = torture_random(r) % (NR_MOVERS + 1);   // NR_MOVERS: the fixed one
  int suffix = torture_random(r) % 3;
  unsigned walk = walks[torture_random(r) % 3];
  snprintf(path, sizeof(path), "%s%s", place < NR_MOVERS ? places[place] : "/rwr/c",
           suffixes[suffix]);
  u32 h0 = __atomic_load_n(&rwr.holes, __ATOMIC_ACQUIRE);
  struct kstat st;
  int err = vfs_stat(path, walk, &st);
  u32 h1 = __atomic_load_n(&rwr.holes, __ATOMIC_ACQUIRE);
  rwr_add(&rwr.stats, 1);
  if(err == -EAGAIN && walk == LOOKUP_RCU_ONLY) {
    rwr_add(&rwr.eagain, 1);
  } else if(err == -ENOENT) {
    // Only a plain rename empties a place, and only for a moment the reader can see.
    if(place == NR_MOVERS || (h0 == h1 && !(h0 & 1))) {
      if(__atomic_add_fetch(&rwr.missing, 1, __ATOMIC_RELAXED) <= 3)
        pr_err("rcu-walk-rename: %s: not found, walk %u\n", path, walk);
    }
  } else if(err) {
    rwr_add(&rwr.errors, 1);
  } else {
    bool dir = suffix == 2;
    bool ok = place == NR_MOVERS ? dir ? S_ISDIR(st.mode) : st.ino == rwr.fixed_ino
                                 : is_one_of(dir ? rwr.dir_ino : rwr.file_ino, st.ino);
    if(!ok && __atomic_add_fetch(&rwr.wrong, 1, __ATOMIC_RELAXED) <= 3)
      pr_err("rcu-walk-rename: %s: inode %lu, walk %u\n", path, st.ino, walk);
  }
}

static void
rwr_rename(struct torture_rand *r)
{
  int i = torture_random(r) % NR_MOVERS, j = (i + 1 + torture_random(r) % 2) % NR_MOVERS;
  int err;
  if(torture_one_in(r, 4)) {
    __atomic_add_fetch(&rwr.holes, 1, __ATOMIC_SEQ_CST);
    err = vfs_rename(places[i], "/rwr/x/t") ?: vfs_rename(places[j], places[i]) ?:
          vfs_rename("/rwr/x/t", places[j]);
    __atomic_add_fetch(&rwr.holes, 1, __ATOMIC_SEQ_CST);
  } else {
    err = vfs_rename2(places[i], places[j], RENAME_EXCHANGE);
  }
  if(err && __atomic_add_fetch(&rwr.errors, 1, __ATOMIC_RELAXED) <= 3)
    pr_err("rcu-walk-rename: rename %s and %s: %d\n", places[i], places[j], err);
  rwr_add(&rwr.renames, 1);
}

static int
rwr_thread(void *arg)
{
  int cpu = (long)arg;
  struct torture_rand r;
  torture_seed(&r, cpu);
  bool renamer = cpu == 0, alone = num_online_cpus() == 1;
  torture_gate_wait(&rwr.gate);
  while(torture_running(&rwr.gate)) {
    if(renamer)
      rwr_rename(&r);
    if(!renamer || alone)
      rwr_read(&r);
    cond_resched();
  }
  return 0;
}

static bool
rwr_enough(void)
{
  return READ_ONCE(rwr.stats) >= rwr.stats_floor && READ_ONCE(rwr.renames) >= rwr.renames_floor;
}

static unsigned long
ino_of(const char *path)
{
  struct kstat st;
  return vfs_stat(path, 0, &st) ? 0 : st.ino;
}

static u32
links_of(const char *path)
{
  struct kstat st;
  return vfs_stat(path, 0, &st) ? 0 : st.nlink;
}

// The tree: /rwr (a mount) with a, b, c and x/y, each of a, b, c, y holding s/f.
static bool
rwr_setup(void)
{
  char path[48];
  bool ok = vfs_mkdir("/rwr") == 0 && vfs_mount("/rwr", &rwr_opts) == 0 &&
            vfs_mkdir("/rwr/x") == 0 && vfs_mkdir("/rwr/c") == 0 &&
            vfs_mkdir("/rwr/c/s") == 0 && vfs_create("/rwr/c/s/f", 0) == 0;
  rwr.fixed_ino = ino_of("/rwr/c/s/f");
  for(int i = 0; i < NR_MOVERS && ok; i++) {
    snprintf(path, sizeof(path), "%s/s", places[i]);
    ok = vfs_mkdir(places[i]) == 0 && vfs_mkdir(path) == 0;
    snprintf(path, sizeof(path), "%s/s/f", places[i]);
    ok = ok && vfs_create(path, 0) == 0;
    rwr.file_ino[i] = ino_of(path);
    rwr.dir_ino[i] = ino_of(places[i]);
  }
  return ok;
}

// Afterwards every mover is in exactly one place, whole, and the link counts are right:
// /rwr has a, b, c and x below it, /rwr/x has y.
static bool
rwr_check_and_clean(void)
{
  char path[48];
  bool seen[NR_MOVERS] = { false };
  bool ok = links_of("/rwr") == 2 + 4 && links_of("/rwr/x") == 2 + 1;
  for(int i = 0; i < NR_MOVERS; i++) {
    unsigned long d = ino_of(places[i]);
    snprintf(path, sizeof(path), "%s/s/f", places[i]);
    unsigned long f = ino_of(path);
    for(int k = 0; k < NR_MOVERS; k++)
      if(rwr.dir_ino[k] == d && rwr.file_ino[k] == f && !seen[k])
        ok &= seen[k] = true;
    ok &= links_of(places[i]) == 3;
    vfs_unlink(path);
    snprintf(path, sizeof(path), "%s/s", places[i]);
    vfs_rmdir(path);
    vfs_rmdir(places[i]);
  }
  for(int k = 0; k < NR_MOVERS; k++)
    ok &= seen[k];
  vfs_unlink("/rwr/c/s/f");
  vfs_rmdir("/rwr/c/s");
  vfs_rmdir("/rwr/c");
  vfs_rmdir("/rwr/x");
  return vfs_umount("/rwr") == 0 && vfs_rmdir("/rwr") == 0 && ok;
}

static bool
rwr_run(u64 ns, bool floors)
{
  int readers = MAX(num_online_cpus() - 1, 1);
  rwr.stats_floor = floors ? torture_floor(RWR_STATS_PER_CPU_SEC * readers, ns) : 0;
  rwr.renames_floor = floors ? torture_floor(RWR_RENAMES_PER_SEC, ns) : 0;
  rwr.stats = rwr.eagain = rwr.renames = rwr.wrong = rwr.missing = rwr.errors = 0;
  rwr.holes = 0;
  torture_gate_init(&rwr.gate, ns);
  bool ok = torture_run_per_cpu(&rwr.gate, rwr_setup(), rwr_thread, "rwr", rwr_enough);
  bool tree = rwr_check_and_clean();
  selftest_extra("cpus=%d stats=%lu rcu_only_eagain=%lu renames=%lu wrong=%lu missing=%lu "
                 "errors=%lu tree=%s", num_online_cpus(), rwr.stats, rwr.eagain, rwr.renames,
                 rwr.wrong, rwr.missing, rwr.errors, tree ? "ok" : "bad");
  if(floors) {
    ok &= torture_enough("rcu-walk-rename", "stats", rwr.stats, rwr.stats_floor);
    ok &= torture_enough("rcu-walk-rename", "renames", rwr.renames, rwr.renames_floor);
  }
  return ok && tree && rwr.wrong == 0 && rwr.missing == 0 && rwr.errors == 0;
}

static bool
rcu_walk_rename_test(void)
{
  return rwr_run(torture_ns(RWR_MS), true);
}
SELFTEST_NOINJECT("rcu-walk-rename", rcu_walk_rename_test);

// Renames that leave rename_lock alone, and stay unhashed for 20 us: lookups then trust a
// miss, and readers must report a name that never stopped existing as missing.
static bool
planted_rename_unlocked(void)
{
  WRITE_ONCE(rename_planted_unlocked, true);
  bool ok = rwr_run(RWR_PLANTED_MS * 1000000UL, false);
  WRITE_ONCE(rename_planted_unlocked, false);
  return ok;
}
SELFTEST("planted-rename-unlocked", planted_rename_unlocked);
