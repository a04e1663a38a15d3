// Self-tests of the initramfs: the built-in archive's tree as the kernel unpacked it at boot,
// and archives made here (plain and gzip, back to back, a later name replacing an earlier
// one, directories merged, a device node, damage) unpacked as Linux would.
#include "bootinfo.h"
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "expect.h"
#include "selftest.h"
#include "slab.h"
#include "string.h"
#include "vsprintf.h"

static struct expect_tally tally = { .test = "initramfs-test" };
#define EXPECT(call, want) expect_eq(&tally, #call, (call), (want))

// The first len bytes of the file at path, compared with want: 0 if the same.
static long
compare_file(const char *path, const void *want, size_t len)
{
  char buf[64];
  struct file *f;
  int err = vfs_open(path, 0, 0, &f);
  if(err)
    return err;
  ssize_t n = vfs_read(f, buf, MIN(len, sizeof(buf)));
  vfs_close(f);
  return n == (ssize_t)len ? memcmp(buf, want, len) != 0 : -EIO;
}

static long
link_is(const char *path, const char *want)
{
  char buf[64];
  int n = vfs_readlink(path, buf, sizeof(buf));
  return n < 0 ? n : (size_t)n != strlen(want) || memcmp(buf, want, n) != 0;
}

// What tools/mkinitramfs.sh puts in the built-in archive.
static bool
initramfs_tree_test(void)
{
  struct kstat st = { 0 };
  if(bootinfo.nmodules == 0)
    return selftest_skip("no-initramfs");
  tally.mismatches = tally.checks = 0;
  EXPECT(initramfs_stats.failed, 0);
  EXPECT(initramfs_stats.errors, 0);
  EXPECT(initramfs_stats.freed_pages > 0, 1);
  EXPECT(vfs_stat("/bin/hello", 0, &st), 0);
  EXPECT(st.mode, S_IFREG | 0755);
  EXPECT(st.uid, 0);
  EXPECT(st.size > 4096, 1);
  EXPECT(compare_file("/bin/hello", "\177ELF\2\1\1", 7), 0);   // ELF64, little-endian
  EXPECT(compare_file("/etc/initramfs", "built-in initramfs\n", 19), 0);
  EXPECT(expect_stat_mode("/etc/initramfs", 0), S_IFREG | 0644);
  EXPECT(link_is("/etc/hello-link", "../bin/hello"), 0);
  EXPECT(expect_stat_mode("/etc/hello-link", 0), S_IFREG | 0755);
  EXPECT(link_is("/usr/bin", "/bin"), 0);
  EXPECT(expect_stat_mode("/usr/bin/hello", 0), S_IFREG | 0755);
  EXPECT(expect_stat_mode("/tmp", 0), S_IFDIR | 01777);
  EXPECT(expect_stat_mode("/root", 0), S_IFDIR | 0700);
  EXPECT(expect_stat_mode("/", 0), S_IFDIR | 0755);
  selftest_extra("archives=%lu entries=%lu freed_pages=%lu checks=%d mismatches=%d",
                 initramfs_stats.archives, initramfs_stats.entries,
                 initramfs_stats.freed_pages, tally.checks, tally.mismatches);
  return tally.mismatches == 0 && initramfs_stats.entries >= 10;
}
SELFTEST("initramfs-tree", initramfs_tree_test);

// A newc entry at *off: header, name, data, each padded to 4 bytes.
static void
put_entry(char *buf, size_t *off, const char *name, u32 mode, u32 uid, u32 rmaj, u32 rmin,
          const char *data)
{
  size_t nlen = strlen(name) + 1, dlen = data ? strlen(data) : 0;
  *off += scnprintf(buf + *off, 111, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
                    1, mode, uid, uid + 1, 1, 0, (u32)dlen, 0, 0, rmaj, rmin, (u32)nlen, 0);
  memcpy(buf + *off, name, nlen);
  *off = ALIGN_UP(*off + nlen, 4);
  memcpy(buf + *off, data ? data : "", dlen);
  *off = ALIGN_UP(*off + dlen, 4);
}

// find irt | cpio -o -H newc -R 0:0 | gzip -9n: irt/, irt/g/ and irt/g/z ("from gzip\n", 0640).
static const u8 gz_archive[] = {
#include "initramfs_test_gz.inc"
};

static bool
initramfs_unpack_test(void)
{
  struct initramfs_result r;
  struct kstat st = { 0 };
  size_t off = 0;
  tally.mismatches = tally.checks = 0;
  char *buf = kzalloc(8192, GFP_KERNEL);
  if(!buf)
    return false;
  put_entry(buf, &off, ".", S_IFDIR | 0755, 0, 0, 0, NULL);
  put_entry(buf, &off, "./irt", S_IFDIR | 0750, 0, 0, 0, NULL);
  put_entry(buf, &off, "./irt/f", S_IFREG | 0600, 5, 0, 0, "first");
  put_entry(buf, &off, "irt/l", S_IFLNK | 0777, 0, 0, 0, "f");
  put_entry(buf, &off, "/irt/null", S_IFCHR | 0620, 0, 1, 3, NULL);
  put_entry(buf, &off, "irt/fifo", S_IFIFO | 0600, 0, 0, 0, NULL);
  put_entry(buf, &off, "irt/empty", S_IFREG | 0444, 0, 0, 0, NULL);
  put_entry(buf, &off, "irt/missing/x", S_IFREG | 0644, 0, 0, 0, "no parent");
  put_entry(buf, &off, "TRAILER!!!", 0, 0, 0, 0, NULL);
  off += 512;   // NUL padding, then a second archive: later names win, directories merge
  put_entry(buf, &off, "irt", S_IFDIR | 0755, 0, 0, 0, NULL);
  put_entry(buf, &off, "irt/f", S_IFREG | 0640, 7, 0, 0, "second");
  put_entry(buf, &off, "irt/fifo", S_IFDIR | 0700, 0, 0, 0, NULL);
  put_entry(buf, &off, "TRAILER!!!", 0, 0, 0, 0, NULL);
  memcpy(buf + off, gz_archive, sizeof(gz_archive));
  off += sizeof(gz_archive);
  EXPECT(initramfs_unpack(buf, off, "selftest", &r), 0);
  EXPECT(r.entries, 14);
  EXPECT(r.errors, 1);   // irt/missing/x: as Linux, no parent is made
  EXPECT(r.files, 4);
  EXPECT(r.links, 1);
  EXPECT(r.nodes, 2);
  EXPECT(expect_stat_mode("/irt", 0), S_IFDIR | 0755);
  EXPECT(compare_file("/irt/f", "second", 6), 0);
  EXPECT(vfs_stat("/irt/f", 0, &st), 0);
  EXPECT(st.size, 6);
  EXPECT(st.mode, S_IFREG | 0640);
  EXPECT(st.uid, 7);
  EXPECT(st.gid, 8);
  EXPECT(expect_stat_mode("/irt/l", LOOKUP_NOFOLLOW), S_IFLNK | 0777);
  EXPECT(expect_stat_mode("/irt/l", 0), S_IFREG | 0640);
  EXPECT(vfs_stat("/irt/null", 0, &st), 0);
  EXPECT(st.mode, S_IFCHR | 0620);
  EXPECT(st.rdev, MKDEV(1, 3));
  EXPECT(expect_stat_mode("/irt/fifo", 0), S_IFDIR | 0700);   // a fifo replaced by a directory
  EXPECT(expect_stat_mode("/irt/empty", 0), S_IFREG | 0444);
  EXPECT(expect_stat_mode("/irt/g", 0), S_IFDIR | 0755);
  EXPECT(compare_file("/irt/g/z", "from gzip\n", 10), 0);
  EXPECT(expect_stat_mode("/irt/g/z", 0), S_IFREG | 0640);
  // Damage: a cut archive keeps what came before the cut; bytes of no known format stop it.
  off = 0;
  memset(buf, 0, 8192);
  put_entry(buf, &off, "irt/cut", S_IFREG | 0644, 0, 0, 0, "0123456789");
  EXPECT(initramfs_unpack(buf, off - 4, "selftest-cut", &r), -EINVAL);
  EXPECT(expect_stat_mode("/irt/cut", 0), S_IFREG | 0644);
  EXPECT(initramfs_unpack("\0\0\0\0junk", 8, "selftest-junk", &r), -EINVAL);
  EXPECT(initramfs_unpack(gz_archive, sizeof(gz_archive) - 3, "selftest-gz-cut", &r), -EINVAL);
  static const char *const names[] = { "/irt/g/z", "/irt/f", "/irt/l", "/irt/null",
                                       "/irt/empty", "/irt/cut" };
  for(size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    EXPECT(vfs_unlink(names[i]), 0);
  EXPECT(vfs_rmdir("/irt/g"), 0);
  EXPECT(vfs_rmdir("/irt/fifo"), 0);
  EXPECT(vfs_rmdir("/irt"), 0);
  kfree(buf);
  selftest_extra("checks=%d mismatches=%d", tally.checks, tally.mismatches);
  return tally.mismatches == 0 && tally.checks > 30;
}
// Exact entries and errors counted: the boot's injection is paused for it.
SELFTEST_NOINJECT("initramfs-unpack", initramfs_unpack_test);
