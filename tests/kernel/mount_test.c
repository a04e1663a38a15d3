// Self-tests of the mount table's lock (vfsmount_lock, include/brlock.h): mounts and umounts
// racing ref-walks and readers that hold the read side, and planted-brlock-skip, which must fail.
#include "brlock.h"
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "fs.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "torture.h"

#define MW_DIR "/mw"
#define MW_MNT MW_DIR "/m"
#define MW_FILE MW_MNT "/f"
#define MW_MS 1000         // a run lasts this long, and until it has MIN_CYCLES
#define MW_PLANTED_MS 3000
// A run that has not got MIN_CYCLES by then fails: 30 s up to 8 CPUs, grown past that
// (torture_guard_ms), since every cycle waits for all CPUs (umount's br_write_lock and
// synchronize_rcu): at 64 vCPUs on 2 host cores 30 s gave 3 cycles.
#define MW_MAX_MS 30000
#define MIN_CYCLES 4       // mount/umount rounds a run must get through
#define MAX_WALKERS 2      // more keep the mounted root referenced nearly all the time
#define HOLD_US 10         // how long a holder keeps the read side
#define UMOUNT_TRIES 10000

static struct {
  struct dentry *mp;   // the mount point, referenced for the whole test
  u64 start_ns, min_ns;
  int stop;
  u64 holds, flips, torn, walks, found, cycles, busy, errors;   // atomic adds
  u64 enomem;   // cycles cut short by fault injection (failslab=, failpage=), undone
} mw;

static void
mw_add(u64 *counter, u64 n)
{
  __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

// Holds its CPU's read side for a while and reads d_mounted at both ends: a writer changes it
// only with every CPU's lock held, so the two reads must agree.
static int
holder(void *arg)
{
  struct vfsmount *last = NULL;
  while(!READ_ONCE(mw.stop)) {
    br_read_lock(&vfsmount_lock);
    struct vfsmount *before = READ_ONCE(mw.mp->d_mounted);
    udelay(HOLD_US);
    struct vfsmount *after = READ_ONCE(mw.mp->d_mounted);
    br_read_unlock(&vfsmount_lock);
    if(before != after) {
      mw_add(&mw.torn, 1);
      WRITE_ONCE(mw.stop, 1);   // one is enough
    }
    mw_add(&mw.flips, before != last);
    mw_add(&mw.holds, 1);
    last = after;
    udelay(HOLD_US);   // as long outside: a writer needs a moment when every CPU is out
    yield();           // turn and turn about with the walker on this CPU, not a tick each
  }
  return 0;
}

// Stats the file inside the mount, by reference (follow_mount's read side) and by RCU-walk in
// turn: it is there, or nothing is (not mounted yet, or not created yet).
static int
walker(void *arg)
{
  struct kstat st;
  for(u64 i = 0; !READ_ONCE(mw.stop); i++) {
    int err = vfs_stat(MW_FILE, i % 2 ? LOOKUP_REF_ONLY : 0, &st);
    if(err == 0 && !S_ISREG(st.mode))
      err = -EINVAL;
    mw_add(&mw.errors, err != 0 && err != -ENOENT);
    mw_add(&mw.found, err == 0);
    mw_add(&mw.walks, 1);
    yield();
  }
  return 0;
}

// A walker holding the mounted root makes umount -EBUSY: it is tried again, now and then
// after a sleep, so walkers that share this CPU can leave.
static bool
umount_busy(void)
{
  for(int i = 0; i < UMOUNT_TRIES; i++) {
    int err = vfs_umount(MW_MNT);
    if(err != -EBUSY)
      return err == 0;
    mw_add(&mw.busy, 1);
    if(i % 10 == 9)
      msleep(1);
    else
      cond_resched();
  }
  return false;
}

// The run's work floors: mounts came and went under the holders, and walks got in.
static bool
floors_met(void)
{
  return mw.cycles >= MIN_CYCLES && READ_ONCE(mw.flips) >= 2 && READ_ONCE(mw.found) >= 1;
}

// Whether the mounter goes on: until the run has lasted min_ns and met its floors, but not
// past the limit.
static bool
mounting(void)
{
  u64 ns = ktime_ns() - mw.start_ns;
  if(READ_ONCE(mw.stop) || ns > torture_guard_ms(MW_MAX_MS) * 1000000UL)
    return false;
  return ns < mw.min_ns || !floors_met();
}

// Mounts, creates the file, removes it and unmounts, while mounting() says so. A mount or
// create that fault injection fails is undone (unmounted) and the cycle tried again.
static int
mounter(void *arg)
{
  static const struct ramfs_opts o = { PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO };
  while(mounting()) {
    int err = vfs_mount(MW_MNT, &o);
    bool mounted = err == 0;
    if(mounted && (err = vfs_create(MW_FILE, 0)) == 0) {
      msleep(1);   // walkers find the file, holders see the mount
      err = vfs_unlink(MW_FILE);
    }
    bool injected = err == -ENOMEM && fault_inject_active();
    if((err && !injected) || (mounted && !umount_busy())) {
      mw_add(&mw.errors, 1);
      break;
    }
    mw_add(injected ? &mw.enomem : &mw.cycles, 1);
    // Unmounted now: the holders and walkers on this CPU must see that too, so they get a
    // turn before the next mount (after a wake-up the scheduler would hand this CPU back to
    // the mounter first, and at 1 vCPU the holder then saw the mount up all 30 s: flips=1).
    yield();
  }
  WRITE_ONCE(mw.stop, 1);
  return 0;
}

// RCU-walk crosses a mount with no lock: it must get through while this CPU holds the whole
// write side (were it to take its CPU's read side, that would be a recursive spin_lock).
static bool
rcu_walk_lockless(void)
{
  static const struct ramfs_opts o = { PC_RADIX_RCU, 64, FREE_RCU, WALK_AUTO };
  struct kstat st;
  if(vfs_mount(MW_MNT, &o) || vfs_create(MW_FILE, 0))
    return false;
  br_write_lock(&vfsmount_lock);
  int err = vfs_stat(MW_FILE, LOOKUP_RCU_ONLY, &st);
  br_write_unlock(&vfsmount_lock);
  return err == 0 && vfs_unlink(MW_FILE) == 0 && vfs_umount(MW_MNT) == 0;
}

// One mounter on CPU 0, a holder on every other CPU and a walker on the first MAX_WALKERS
// of them (all on CPU 0 if it is the only one): nothing preempts here, so threads sharing
// the mounter's CPU would hand it the CPU only at ticks.
static bool
mount_walk_run(u64 min_ms)
{
  struct thread *t[2 * NR_CPUS + 1];
  struct fault_rates rates;
  int n = 0, cpu;
  // Its subject is RCU-walk from the root into a mount: a root that frees inodes at once
  // (ramfs.free=now) is never RCU-walked, so there is nothing to test.
  if(!root_mnt->mnt_sb->s_rcu_walk)
    return selftest_skip("root-ref-walk");
  // The fixture is made with the boot's injection paused; the threads run under it.
  fault_inject_pause(&rates);
  if(vfs_mkdir(MW_DIR) || vfs_mkdir(MW_MNT) || path_lookup(MW_MNT, LOOKUP_REF_ONLY, &mw.mp)) {
    fault_inject_restore(&rates);
    return false;
  }
  bool ok = rcu_walk_lockless();
  fault_inject_restore(&rates);
  mw.holds = mw.flips = mw.torn = mw.walks = mw.found = mw.cycles = mw.busy = mw.errors = 0;
  mw.enomem = 0;
  mw.stop = 0;
  mw.start_ns = ktime_ns();
  mw.min_ns = min_ms * 1000000UL;
  int walkers = 0;
  for_each_online_cpu(cpu) {
    if(cpu == 0 && num_online_cpus() > 1)
      continue;
    t[n++] = kthread_create(holder, NULL, cpu, "mw/hold/%d", cpu);
    if(walkers++ < MAX_WALKERS)
      t[n++] = kthread_create(walker, NULL, cpu, "mw/walk/%d", cpu);
  }
  t[n++] = kthread_create(mounter, NULL, 0, "mw/mount");
  bool created = true;
  for(int i = 0; i < n; i++)
    if(!t[i]) {
      created = false;
      WRITE_ONCE(mw.stop, 1);   // a thread that did not start ends the run
    }
  for(int i = 0; i < n; i++)
    if(t[i])
      kthread_join(t[i]);
  if(READ_ONCE(mw.mp->d_mounted)) {   // the mounter stopped between mount and umount
    vfs_unlink(MW_FILE);
    ok &= vfs_umount(MW_MNT) == 0;
  }
  dput(mw.mp);
  ok &= vfs_rmdir(MW_MNT) == 0 && vfs_rmdir(MW_DIR) == 0;
  if(!created)   // kthread_create fails under failslab=
    return ok && selftest_skip("enomem");
  selftest_extra("cpus=%d cycles=%lu umount_busy=%lu holds=%lu flips=%lu torn=%lu walks=%lu "
                 "found=%lu errors=%lu enomem=%lu", num_online_cpus(), mw.cycles, mw.busy,
                 mw.holds, mw.flips, mw.torn, mw.walks, mw.found, mw.errors, mw.enomem);
  if(mw.torn == 0 && !floors_met())
    pr_err("mount-walk: too little work for its verdict to mean anything in %lu ms: cycles=%lu "
           "(floor %d), flips=%lu (floor 2), found=%lu (floor 1)\n", torture_guard_ms(MW_MAX_MS),
           mw.cycles, MIN_CYCLES, mw.flips, mw.found);
  return ok && mw.errors == 0 && mw.torn == 0 && floors_met();
}

static bool
mount_walk_test(void)
{
  return mount_walk_run(MW_MS);
}
SELFTEST("mount-walk", mount_walk_test);

// The write side leaves the last CPU's lock alone: a holder there sees a mount come or go
// under its read lock, so the run must fail with torn > 0. Needs two CPUs.
static bool
planted_brlock_skip(void)
{
  if(num_online_cpus() < 2) {
    pr_err("planted-brlock-skip: needs two CPUs\n");
    return false;
  }
  WRITE_ONCE(br_write_skip_last_cpu, true);
  bool ok = mount_walk_run(MW_PLANTED_MS);
  WRITE_ONCE(br_write_skip_last_cpu, false);
  return ok;
}
SELFTEST("planted-brlock-skip", planted_brlock_skip);
