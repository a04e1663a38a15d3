// Self-tests of the VFS's node types: modes and owners, symbolic links (relative, absolute,
// through "..", dangling, ELOOP at MAXSYMLINKS), the character devices, /sys and /proc.
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "expect.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "tty.h"
#include "vsprintf.h"

static struct expect_tally tally = { .test = "vfs-nodes" };
#define EXPECT(call, want) expect_eq(&tally, #call, (call), (want))

static void
modes_and_owners(void)
{
  struct kstat st = { 0 };
  EXPECT(vfs_mkdir("/fsn"), 0);
  EXPECT(expect_stat_mode("/fsn", 0), S_IFDIR | 0755);
  EXPECT(vfs_create("/fsn/f", 0), 0);
  EXPECT(expect_stat_mode("/fsn/f", 0), S_IFREG | 0644);
  EXPECT(vfs_mknod("/fsn/g", S_IFREG | 04711, 0), 0);
  EXPECT(expect_stat_mode("/fsn/g", 0), S_IFREG | 04711);
  EXPECT(vfs_chmod("/fsn/g", S_IFDIR | 0640), 0);   // the type never changes
  EXPECT(expect_stat_mode("/fsn/g", 0), S_IFREG | 0640);
  EXPECT(vfs_chown("/fsn/g", 12, 34), 0);
  EXPECT(vfs_chown("/fsn/g", (u32)-1, 56), 0);
  EXPECT(vfs_stat("/fsn/g", 0, &st), 0);
  EXPECT(st.uid, 12);
  EXPECT(st.gid, 56);
  EXPECT(vfs_mknod("/fsn/fifo", S_IFIFO | 0600, 0), 0);
  EXPECT(expect_stat_mode("/fsn/fifo", 0), S_IFIFO | 0600);
  EXPECT(vfs_mknod("/fsn/bad", 0777, 0), -EINVAL);
  EXPECT(vfs_mknod("/fsn/bad", S_IFLNK | 0777, 0), -EINVAL);
  EXPECT(vfs_mkdir_p("/fsn/d/e/", 0700), 0);
  EXPECT(vfs_mkdir_p("/fsn/d/e", 0700), 0);   // existing directories are kept
  EXPECT(vfs_mkdir_p("/fsn/f/x", 0700), -ENOTDIR);
  EXPECT(expect_stat_mode("/fsn/d/e", 0), S_IFDIR | 0700);
}

static void
symlinks(void)
{
  char buf[64], name[32], target[32];
  struct kstat st = { 0 };
  struct dentry *d;
  EXPECT(vfs_symlink("f", "/fsn/rel"), 0);
  EXPECT(expect_stat_mode("/fsn/rel", 0), S_IFREG | 0644);
  EXPECT(expect_stat_mode("/fsn/rel", LOOKUP_NOFOLLOW), S_IFLNK | 0777);
  EXPECT(vfs_stat("/fsn/rel", LOOKUP_NOFOLLOW, &st), 0);
  EXPECT(st.size, 1);
  EXPECT(vfs_readlink("/fsn/rel", buf, sizeof(buf)), 1);
  EXPECT(buf[0], 'f');
  EXPECT(vfs_readlink("/fsn/f", buf, sizeof(buf)), -EINVAL);
  EXPECT(vfs_symlink("/fsn/d", "/fsn/abs"), 0);
  EXPECT(expect_stat_mode("/fsn/abs/e", 0), S_IFDIR | 0700);
  EXPECT(expect_stat_mode("/fsn/abs/", LOOKUP_NOFOLLOW), S_IFDIR | 0700);   // a slash follows
  EXPECT(expect_stat_mode("/fsn/rel/", 0), -ENOTDIR);
  EXPECT(vfs_symlink("../../f", "/fsn/d/e/up"), 0);
  EXPECT(expect_stat_mode("/fsn/d/e/up", 0), S_IFREG | 0644);
  EXPECT(expect_stat_mode("/fsn/abs/e/up", 0), S_IFREG | 0644);
  EXPECT(expect_stat_mode("/fsn/d/./e/../../f", 0), S_IFREG | 0644);
  EXPECT(expect_stat_mode("/../../fsn/./f", 0), S_IFREG | 0644);
  EXPECT(vfs_mkdir("/fsn/d/.."), -EEXIST);
  EXPECT(vfs_symlink("nothing", "/fsn/dangling"), 0);
  EXPECT(expect_stat_mode("/fsn/dangling", 0), -ENOENT);
  EXPECT(expect_stat_mode("/fsn/dangling", LOOKUP_NOFOLLOW), S_IFLNK | 0777);
  EXPECT(vfs_symlink("", "/fsn/empty"), -ENOENT);
  EXPECT(vfs_symlink("x", "/fsn/rel"), -EEXIST);
  // RCU-walk hands a link over: alone it cannot finish; a link not followed it can, where the
  // root is RCU-walked at all (not under ramfs.free=now).
  EXPECT(path_lookup("/fsn/rel", LOOKUP_RCU_ONLY, &d), -EAGAIN);
  EXPECT(path_lookup("/fsn/d/../f", LOOKUP_RCU_ONLY, &d), -EAGAIN);
  if(path_lookup("/fsn/rel", LOOKUP_RCU_ONLY | LOOKUP_NOFOLLOW, &d) == 0) {
    EXPECT(S_ISLNK(d->d_inode->i_mode), 1);
    dput(d);
  } else
    EXPECT(root_mnt->mnt_sb->s_rcu_walk, false);
  // A chain of MAXSYMLINKS links resolves; one more is -ELOOP, as is a loop.
  for(int i = 0; i <= MAXSYMLINKS; i++) {
    snprintf(name, sizeof(name), "/fsn/c%d", i);
    snprintf(target, sizeof(target), i ? "c%d" : "f", i - 1);
    EXPECT(vfs_symlink(target, name), 0);
  }
  snprintf(name, sizeof(name), "/fsn/c%d", MAXSYMLINKS - 1);
  EXPECT(expect_stat_mode(name, 0), S_IFREG | 0644);
  snprintf(name, sizeof(name), "/fsn/c%d", MAXSYMLINKS);
  EXPECT(expect_stat_mode(name, 0), -ELOOP);
  EXPECT(expect_stat_mode(name, LOOKUP_NOFOLLOW), S_IFLNK | 0777);
  EXPECT(vfs_symlink("loop", "/fsn/loop"), 0);
  EXPECT(expect_stat_mode("/fsn/loop", 0), -ELOOP);
  EXPECT(expect_stat_mode("/fsn/loop/x", 0), -ELOOP);
  // O_CREAT opens a link's existing target; unlink removes the link, not the target.
  struct file *f;
  if(vfs_open("/fsn/rel", O_CREAT, 0, &f) == 0) {
    EXPECT(vfs_write(f, "abc", 3), 3);
    vfs_close(f);
  } else
    EXPECT(1, 0);
  EXPECT(vfs_stat("/fsn/f", 0, &st), 0);
  EXPECT(st.size, 3);
  // O_CREAT through a dangling link makes its target beside the link (open(2), as Linux);
  // O_EXCL does not follow it: EEXIST.
  EXPECT(vfs_open("/fsn/dangling", O_CREAT | O_EXCL, 0, &f), -EEXIST);
  EXPECT(expect_stat_mode("/fsn/nothing", 0), -ENOENT);
  if(vfs_open("/fsn/dangling", O_CREAT, 0, &f) == 0)
    vfs_close(f);
  else
    EXPECT(1, 0);
  EXPECT(expect_stat_mode("/fsn/nothing", 0), S_IFREG | 0644);
  EXPECT(vfs_unlink("/fsn/nothing"), 0);
  EXPECT(vfs_unlink("/fsn/rel"), 0);
  EXPECT(expect_stat_mode("/fsn/f", 0), S_IFREG | 0644);
  EXPECT(vfs_rename("/fsn/abs", "/fsn/abs2"), 0);
  EXPECT(expect_stat_mode("/fsn/abs2/e", 0), S_IFDIR | 0700);
}

static long
read_all(const char *path, char *buf, size_t len)
{
  struct file *f;
  int err = vfs_open(path, 0, 0, &f);
  if(err)
    return err;
  ssize_t n = vfs_read(f, buf, len);
  vfs_close(f);
  return n;
}

static void
devices(void)
{
  struct file *f;
  struct kstat st = { 0 };
  char buf[100], want[64];
  u8 termios[64];
  EXPECT(vfs_stat("/dev/console", 0, &st), 0);
  EXPECT(st.mode, S_IFCHR | 0600);
  EXPECT(st.rdev, MKDEV(5, 1));
  EXPECT(vfs_stat("/dev/null", 0, &st), 0);
  EXPECT(st.rdev, MKDEV(1, 3));
  EXPECT(read_all("/dev/null", buf, sizeof(buf)), 0);
  memset(buf, 0xff, sizeof(buf));
  EXPECT(read_all("/dev/zero", buf, sizeof(buf)), sizeof(buf));
  long nonzero = 0;
  for(size_t i = 0; i < sizeof(buf); i++)
    nonzero += buf[i] != 0;
  EXPECT(nonzero, 0);
  if(vfs_open("/dev/null", O_TRUNC, 0, &f) == 0) {
    EXPECT(vfs_write(f, "xyz", 3), 3);
    EXPECT(vfs_pwrite(f, "xyz", 3, 1 << 20), 3);
    EXPECT(vfs_ioctl(f, 0x5401, termios), -ENOTTY);
    EXPECT(f->f_pos, 0);
    vfs_close(f);
  } else
    EXPECT(1, 0);
  if(vfs_open("/dev/console", 0, 0, &f) == 0) {
    EXPECT(vfs_write(f, "vfs-nodes: a line ", 18), 18);
    EXPECT(vfs_write(f, "in two writes\n", 14), 14);
    EXPECT(tty_is_console(f), true);   // its ioctls are the terminal's (TCGETS: glibc's isatty)
    EXPECT(sizeof(struct termios), 36);
    EXPECT(vfs_read(f, buf, 10), 0);   // outside a session: end of file
    vfs_close(f);
  } else
    EXPECT(1, 0);
  EXPECT(vfs_mknod("/fsn/nodev", S_IFCHR | 0600, MKDEV(250, 7)), 0);
  EXPECT(vfs_open("/fsn/nodev", 0, 0, &f), -ENXIO);
  EXPECT(vfs_open("/fsn/fifo", 0, 0, &f), -ENXIO);
  // /sys: Linux's cpulist of the online CPUs (all of them here) and the possible ones.
  int n = num_online_cpus();
  snprintf(want, sizeof(want), n > 1 ? "0-%d\n" : "0\n", n - 1);
  memset(buf, 0, sizeof(buf));
  EXPECT(read_all("/sys/devices/system/cpu/online", buf, sizeof(buf)), strlen(want));
  EXPECT(strcmp(buf, want), 0);
  snprintf(want, sizeof(want), nr_cpus_possible > 1 ? "0-%d\n" : "0\n", nr_cpus_possible - 1);
  memset(buf, 0, sizeof(buf));
  EXPECT(read_all("/sys/devices/system/cpu/possible", buf, sizeof(buf)), strlen(want));
  EXPECT(strcmp(buf, want), 0);
  if(vfs_open("/sys/devices/system/cpu/online", O_TRUNC, 0, &f) == 0) {
    EXPECT(vfs_write(f, "1", 1), -EINVAL);   // read-only: no write operation
    vfs_close(f);
  } else
    EXPECT(1, 0);
  selftest_extra("online=%.*s", (int)strlen(buf) - 1, buf);
}

// /proc/self names the reader's pid (a link resolved at each walk: user-procpid reads it), and
// nothing for a kernel thread, which has no process; /dev/fd and /dev/stdin are the links
// into it that udev makes on Linux.
static void
proc_self(void)
{
  char buf[32];
  EXPECT(current->proc == NULL, true);
  EXPECT(vfs_readlink("/proc/self", buf, sizeof(buf)), -ENOENT);
  EXPECT(expect_stat_mode("/proc/self/exe", 0), -ENOENT);
  EXPECT(expect_stat_mode("/proc/self", LOOKUP_NOFOLLOW), S_IFLNK | 0777);
  EXPECT(vfs_readlink("/dev/fd", buf, sizeof(buf)), 13);
  EXPECT(memcmp(buf, "/proc/self/fd", 13), 0);
  EXPECT(vfs_readlink("/dev/stdin", buf, sizeof(buf)), 15);
  EXPECT(memcmp(buf, "/proc/self/fd/0", 15), 0);
}

static const char *const leftovers[] = {
  "/fsn/abs2", "/fsn/d/e/up", "/fsn/dangling", "/fsn/loop", "/fsn/nodev", "/fsn/fifo",
  "/fsn/g", "/fsn/f",
};

static bool
vfs_nodes_test(void)
{
  char name[32];
  tally.mismatches = tally.checks = 0;
  modes_and_owners();
  symlinks();
  devices();
  proc_self();
  for(size_t i = 0; i < sizeof(leftovers) / sizeof(leftovers[0]); i++)
    EXPECT(vfs_unlink(leftovers[i]), 0);
  for(int i = 0; i <= MAXSYMLINKS; i++) {
    snprintf(name, sizeof(name), "/fsn/c%d", i);
    EXPECT(vfs_unlink(name), 0);
  }
  EXPECT(vfs_rmdir("/fsn/d/e"), 0);
  EXPECT(vfs_rmdir("/fsn/d"), 0);
  EXPECT(vfs_rmdir("/fsn"), 0);
  selftest_extra("checks=%d mismatches=%d", tally.checks, tally.mismatches);
  return tally.mismatches == 0 && tally.checks > 100;
}
// Exact errnos, -ENOMEM among those a call could give: the boot's injection is paused for it
// (at failslab=20 a symlink failed with ENOMEM and the steps after it with it).
SELFTEST_NOINJECT("vfs-nodes", vfs_nodes_test);
