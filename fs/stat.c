// The system calls about a node's attributes rather than its name: statx, chmod, chown,
// utimensat and the older utimes, futimesat and utime, their f- and -at forms, umask, and
// sync and syncfs, with Linux's flags and errnos.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "namei.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

#define AT_FDCWD            -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_NO_AUTOMOUNT     0x800
#define AT_EMPTY_PATH       0x1000
#define AT_STATX_SYNC_TYPE  0x6000   // FORCE_SYNC | DONT_SYNC: both at once is EINVAL
#define STATX_BASIC_STATS   0x7ffu   // type, mode, nlink, uid, gid, times, ino, size, blocks
#define STATX_BTIME         0x800u
#define UTIME_NOW           ((1L << 30) - 1)   // include/uapi/linux/stat.h
#define UTIME_OMIT          ((1L << 30) - 2)
#define STATX__RESERVED     0x80000000u

// include/uapi/linux/stat.h: 256 bytes, the same on every architecture.
struct statx_timestamp {
  s64 tv_sec;
  u32 tv_nsec;
  s32 __reserved;
};

struct statx {
  u32 stx_mask;             // what the kernel filled in
  u32 stx_blksize;
  u64 stx_attributes;
  u32 stx_nlink;
  u32 stx_uid;
  u32 stx_gid;
  u16 stx_mode;
  u16 __spare0;
  u64 stx_ino;
  u64 stx_size;
  u64 stx_blocks;           // 512-byte units
  u64 stx_attributes_mask;
  struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
  u32 stx_rdev_major, stx_rdev_minor;
  u32 stx_dev_major, stx_dev_minor;
  u64 __spare2[14];
};
_Static_assert(sizeof(struct statx) == 256, "struct statx is 256 bytes");

// The console behind fds 0-2 has no inode: what console_fstat (drivers/tty/console.c) reports.
static void
console_kstat(struct kstat *k)
{
  memset(k, 0, sizeof(*k));
  k->mode = S_IFCHR | 0620;
  k->nlink = 1;
  k->rdev = MKDEV(5, 1);
}

// The file at dirfd and upath as statx and fchownat see it: AT_EMPTY_PATH and "" name dirfd
// itself (the working directory for AT_FDCWD). On success *uf is the fd's description when
// the fd is meant (the caller fputs it; its file is NULL for the console), else *d is the
// dentry, referenced.
static long
resolve_at(u64 dirfd, u64 upath, u64 flags, struct ufile **uf, struct dentry **d)
{
  long err;
  *uf = NULL;
  *d = NULL;
  char *path = user_path((int)dirfd, upath, flags & AT_EMPTY_PATH, &err);
  if(!path)
    return err;
  if(path[0] == 0) {   // a dirfd that is not a directory, and AT_EMPTY_PATH
    kfree(path);
    *uf = fget((int)dirfd);
    return *uf ? 0 : -EBADF;
  }
  err = path_lookup(path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, d);
  kfree(path);
  return err;
}

// stx_rdev_* and stx_dev_* are the major and minor numbers themselves: unlike st_rdev they
// need no huge_encode_dev (include/fs.h), so MAJOR() and MINOR() of the kernel's dev_t.
long
sys_statx(u64 dirfd, u64 upath, u64 flags, u64 mask, u64 ubuf)
{
  if(mask & STATX__RESERVED)
    return -EINVAL;
  if((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
    return -EINVAL;
  if(flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
    return -EINVAL;
  struct ufile *uf;
  struct dentry *d;
  long err = resolve_at(dirfd, upath, flags, &uf, &d);
  if(err)
    return err;
  struct kstat k;
  bool console = uf && !uf->file;
  if(console)
    console_kstat(&k);
  else if(uf)
    vfs_fstat(uf->file, &k);
  else
    inode_stat(d->d_inode, &k);
  if(uf)
    fput(uf);
  else
    dput(d);
  struct statx sx;
  memset(&sx, 0, sizeof(sx));
  // Every basic field and the birth time, whatever was asked (statx(2)); the console has
  // no times to give.
  sx.stx_mask = STATX_BASIC_STATS | (console ? 0 : STATX_BTIME);
  sx.stx_blksize = console ? 1024 : 4096;
  sx.stx_nlink = k.nlink;
  sx.stx_uid = k.uid;
  sx.stx_gid = k.gid;
  sx.stx_mode = k.mode;
  sx.stx_ino = k.ino;
  sx.stx_size = k.size;
  sx.stx_blocks = k.nrpages * 8;
  sx.stx_rdev_major = MAJOR(k.rdev);
  sx.stx_rdev_minor = MINOR(k.rdev);
  sx.stx_atime = (struct statx_timestamp){ k.atime.tv_sec, k.atime.tv_nsec, 0 };
  sx.stx_btime = (struct statx_timestamp){ k.btime.tv_sec, k.btime.tv_nsec, 0 };
  sx.stx_ctime = (struct statx_timestamp){ k.ctime.tv_sec, k.ctime.tv_nsec, 0 };
  sx.stx_mtime = (struct statx_timestamp){ k.mtime.tv_sec, k.mtime.tv_nsec, 0 };
  sx.stx_dev_minor = console ? 5 : 1;   // stat's st_dev: 0:5 for the console, 0:1 for ramfs
  return copy_to_user((void *)ubuf, &sx, sizeof(sx)) ? -EFAULT : 0;
}

// umask(2): the old mask; only the permission bits are kept ("umask & 0777").
long
sys_umask(u64 mask)
{
  return __atomic_exchange_n(&current->proc->umask, (u32)mask & 0777, __ATOMIC_RELAXED);
}

// chmod and chown through a path; follow: the last name's symbolic link is followed.
static long
attr_path(u64 dirfd, u64 upath, bool follow, bool chown, u32 mode, u32 uid, u32 gid)
{
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  struct dentry *d;
  err = path_lookup(path, follow ? 0 : LOOKUP_NOFOLLOW, &d);
  kfree(path);
  if(err)
    return err;
  if(chown)
    inode_chown(d->d_inode, uid, gid, true);
  else
    inode_chmod(d->d_inode, mode);
  dput(d);
  return 0;
}

// The same through an open file. The console's fds have no inode behind them (its mode is
// console_fstat's, fixed): they succeed and change nothing, as root's would on Linux's tty.
static long
attr_fd(struct ufile *uf, bool chown, u32 mode, u32 uid, u32 gid)
{
  if(uf->file && chown)
    inode_chown(uf->file->f_inode, uid, gid, true);
  else if(uf->file)
    inode_chmod(uf->file->f_inode, mode);
  fput(uf);
  return 0;
}

long
sys_fchmodat(u64 dirfd, u64 path, u64 mode)
{
  return attr_path(dirfd, path, true, false, mode, 0, 0);
}

long
sys_chmod(u64 path, u64 mode)
{
  return sys_fchmodat(AT_FDCWD, path, mode);
}

long
sys_fchmod(u64 fd, u64 mode)
{
  struct ufile *uf = fget((int)fd);
  return uf ? attr_fd(uf, false, mode, 0, 0) : -EBADF;
}

long
sys_fchownat(u64 dirfd, u64 upath, u64 uid, u64 gid, u64 flags)
{
  if(flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
    return -EINVAL;
  struct ufile *uf;
  struct dentry *d;
  long err = resolve_at(dirfd, upath, flags, &uf, &d);
  if(err)
    return err;
  if(uf)
    return attr_fd(uf, true, 0, uid, gid);
  inode_chown(d->d_inode, uid, gid, true);
  dput(d);
  return 0;
}

long
sys_chown(u64 path, u64 uid, u64 gid)
{
  return attr_path(AT_FDCWD, path, true, true, 0, uid, gid);
}

long
sys_lchown(u64 path, u64 uid, u64 gid)
{
  return attr_path(AT_FDCWD, path, false, true, 0, uid, gid);
}

long
sys_fchown(u64 fd, u64 uid, u64 gid)
{
  struct ufile *uf = fget((int)fd);
  return uf ? attr_fd(uf, true, 0, uid, gid) : -EBADF;
}

static bool
nsec_valid(long nsec)
{
  return nsec == UTIME_NOW || nsec == UTIME_OMIT || (nsec >= 0 && nsec <= 999999999);
}

// Linux's vfs_utimes: ts NULL is "now" for both; UTIME_NOW and UTIME_OMIT per time.
static long
set_times(struct inode *inode, struct timespec64 *ts)
{
  struct timespec64 now = current_time();
  if(!ts) {
    inode_set_times(inode, &now, &now);
    return 0;
  }
  if(!nsec_valid(ts[0].tv_nsec) || !nsec_valid(ts[1].tv_nsec))
    return -EINVAL;
  for(int i = 0; i < 2; i++)
    if(ts[i].tv_nsec == UTIME_NOW)
      ts[i] = now;
  inode_set_times(inode, ts[0].tv_nsec == UTIME_OMIT ? NULL : &ts[0],
                  ts[1].tv_nsec == UTIME_OMIT ? NULL : &ts[1]);
  return 0;
}

// Linux's do_utimes: a NULL path names dirfd itself (futimens), which then takes no flags;
// the console's fds have no inode and keep no times.
static long
do_utimes(u64 dirfd, u64 upath, struct timespec64 *ts, u64 flags)
{
  struct ufile *uf;
  struct dentry *d;
  long err;
  if(!upath && (int)dirfd != AT_FDCWD) {
    if(flags)
      return -EINVAL;
    if(!(uf = fget((int)dirfd)))
      return -EBADF;
  } else {
    if(flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
      return -EINVAL;
    if((err = resolve_at(dirfd, upath, flags, &uf, &d)))
      return err;
  }
  if(uf) {
    err = uf->file ? set_times(uf->file->f_inode, ts) : 0;
    fput(uf);
  } else {
    err = set_times(d->d_inode, ts);
    dput(d);
  }
  return err;
}

// utimensat(2) and futimens(3): both times UTIME_OMIT is 0 before the path is even looked at.
long
sys_utimensat(u64 dirfd, u64 upath, u64 utimes, u64 flags)
{
  struct timespec64 ts[2];
  if(utimes) {
    s64 t[4];
    if(copy_from_user(t, (void *)utimes, sizeof(t)))
      return -EFAULT;
    ts[0] = (struct timespec64){ t[0], t[1] };
    ts[1] = (struct timespec64){ t[2], t[3] };
    if(ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
      return 0;
  }
  return do_utimes(dirfd, upath, utimes ? ts : NULL, flags);
}

// futimesat(2) and utimes(2): struct timeval, microseconds in [0, 1000000).
long
sys_futimesat(u64 dirfd, u64 upath, u64 utimes)
{
  struct timespec64 ts[2];
  if(utimes) {
    s64 t[4];
    if(copy_from_user(t, (void *)utimes, sizeof(t)))
      return -EFAULT;
    if(t[1] < 0 || t[1] >= 1000000 || t[3] < 0 || t[3] >= 1000000)
      return -EINVAL;
    ts[0] = (struct timespec64){ t[0], t[1] * 1000 };
    ts[1] = (struct timespec64){ t[2], t[3] * 1000 };
  }
  return do_utimes(dirfd, upath, utimes ? ts : NULL, 0);
}

long
sys_utimes(u64 upath, u64 utimes)
{
  return sys_futimesat(AT_FDCWD, upath, utimes);
}

// utime(2): struct utimbuf, whole seconds.
long
sys_utime(u64 upath, u64 ubuf)
{
  struct timespec64 ts[2];
  if(ubuf) {
    s64 t[2];
    if(copy_from_user(t, (void *)ubuf, sizeof(t)))
      return -EFAULT;
    ts[0] = (struct timespec64){ t[0], 0 };
    ts[1] = (struct timespec64){ t[1], 0 };
  }
  return do_utimes(AT_FDCWD, upath, ubuf ? ts : NULL, 0);
}

// sync(2) and syncfs(2) write the page cache back to the devices under it; ramfs has none,
// its page cache is the files themselves, so there is nothing to write (as msync).
long
sys_sync(void)
{
  return 0;
}

long
sys_syncfs(u64 fd)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  fput(uf);
  return 0;
}
