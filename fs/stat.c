// stat, lstat, fstat, newfstatat, statx, readlink and readlinkat (man 2 stat, statx,
// readlink): what a node is, in the x86-64 struct stat and struct statx, with Linux's flags and
// errnos (fs/stat.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "namei.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

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
// the fd is meant (the caller fputs it; its file is NULL for the console): dirfd's, or the one
// /dev/fd/N and the like name (fs/fd_link.c), followed; else *d is the dentry, referenced.
// With AT_SYMLINK_NOFOLLOW such a name is the link itself: in *entry for a caller that
// gives one (both *uf and *d NULL), else looked up as any name (ENOENT).
long
resolve_at(u64 dirfd, u64 upath, u64 flags, struct ufile **uf, struct dentry **d,
           struct fd_link *entry)
{
  long err;
  struct dentry *dir;
  *uf = NULL;
  *d = NULL;
  char *path = user_path((int)dirfd, upath, flags & AT_EMPTY_PATH, &dir, &err);
  if(!path)
    return err;
  if(path[0] == 0) {   // a dirfd that is not a directory, and AT_EMPTY_PATH
    kfree(path);
    *uf = fget((int)dirfd);
    return *uf ? 0 : -EBADF;
  }
  struct fd_link link;
  bool follow = !(flags & AT_SYMLINK_NOFOLLOW);
  if(path[0] == '/' && follow && fd_link_parse(path, &link)) {
    *uf = fd_link_get(&link);
    err = *uf ? 0 : -ENOENT;
  } else if(path[0] == '/' && !follow && entry && fd_link_entry(path, entry)) {
    err = 0;
  } else {
    err = path_lookup_at(dir, path, follow ? 0 : LOOKUP_NOFOLLOW, d);
  }
  user_path_put(path, dir);
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
  struct fd_link entry;
  long err = resolve_at(dirfd, upath, flags, &uf, &d, &entry);
  if(err)
    return err;
  struct kstat k;
  bool console = uf && !uf->file;
  if(console)
    console_kstat(&k);
  else if(uf)
    vfs_fstat(uf->file, &k);
  else if(d)
    inode_stat(d->d_inode, &k);
  else if((err = fd_link_lstat(&entry, &k)))   // an fd's link itself
    return err;
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

// x86-64 struct stat (144 bytes, Linux's arch/x86/include/uapi/asm/stat.h).
static long
put_stat(u64 ust, const struct kstat *k)
{
  u64 s[18];
  memset(s, 0, sizeof(s));
  s[0] = 1;                                // st_dev: the one ramfs
  s[1] = k->ino;
  s[2] = k->nlink;
  s[3] = k->mode | ((u64)k->uid << 32);    // st_mode, st_uid
  s[4] = k->gid;
  s[5] = huge_encode_dev(k->rdev);
  s[6] = k->size;
  s[7] = 4096;                             // st_blksize
  s[8] = k->nrpages * 8;                   // st_blocks: 512-byte units
  s[9] = k->atime.tv_sec;
  s[10] = k->atime.tv_nsec;
  s[11] = k->mtime.tv_sec;
  s[12] = k->mtime.tv_nsec;
  s[13] = k->ctime.tv_sec;
  s[14] = k->ctime.tv_nsec;
  return copy_to_user((void *)ust, s, sizeof(s)) ? -EFAULT : 0;
}

static long
fstat_fd(u64 fd, u64 st)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file) {
    r = console_fstat(st);
  } else {
    struct kstat k;
    vfs_fstat(uf->file, &k);
    r = put_stat(st, &k);
  }
  fput(uf);
  return r;
}

long
sys_fstat(u64 fd, u64 st)
{
  return fstat_fd(fd, st);
}

long
sys_newfstatat(u64 dirfd, u64 upath, u64 st, u64 flags)
{
  if(flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
    return -EINVAL;
  long err;
  struct dentry *dir;
  char *path = user_path((int)dirfd, upath, flags & AT_EMPTY_PATH, &dir, &err);
  if(!path)
    return err;
  if(path[0] == 0) {   // AT_EMPTY_PATH on a dirfd that is not a directory: the fd itself
    kfree(path);
    return fstat_fd(dirfd, st);
  }
  // (AT_EMPTY_PATH on a directory or AT_FDCWD is "." from it: user_path)
  struct kstat k;
  struct fd_link link;   // /dev/fd/N and the like (fs/fd_link.c)
  bool follow = !(flags & AT_SYMLINK_NOFOLLOW);
  if(path[0] == '/' && (follow ? fd_link_parse(path, &link) : fd_link_entry(path, &link))) {
    if(follow && link.pid == current->proc->pid) {   // the caller's fd: as fstat gives it
      user_path_put(path, dir);
      long r = fstat_fd(link.fd, st);
      return r == -EBADF ? -ENOENT : r;
    }
    // another process's fd followed, or the fd's link itself
    err = follow ? fd_link_stat(&link, &k) : fd_link_lstat(&link, &k);
  } else {
    err = vfs_stat_at(dir, path, follow ? 0 : LOOKUP_NOFOLLOW, &k);
  }
  user_path_put(path, dir);
  return err ? err : put_stat(st, &k);
}

// stat(2) and lstat(2): newfstatat from the working directory, following a last symbolic link
// or not. glibc makes newfstatat itself; musl and klibc programs make these.
long
sys_stat(u64 upath, u64 st)
{
  return sys_newfstatat((u64)AT_FDCWD, upath, st, 0);
}

long
sys_lstat(u64 upath, u64 st)
{
  return sys_newfstatat((u64)AT_FDCWD, upath, st, AT_SYMLINK_NOFOLLOW);
}

long
sys_readlinkat(u64 dirfd, u64 upath, u64 buf, u64 size)
{
  if((s64)size <= 0)
    return -EINVAL;
  long err;
  struct dentry *dir;
  char *path = user_path((int)dirfd, upath, false, &dir, &err);
  if(!path)
    return err;
  u64 n = MIN(size, PATH_MAX);
  char *k = kmalloc(n, GFP_KERNEL);
  if(!k) {
    user_path_put(path, dir);
    return -ENOMEM;
  }
  struct fd_link link;   // /proc/self/fd/N and the like (fs/fd_link.c): what the fd is
  if(path[0] == '/' && fd_link_entry(path, &link))
    err = fd_link_readlink(&link, k, n);
  else
    err = vfs_readlink_at(dir, path, k, n);
  if(err > 0 && copy_to_user((void *)buf, k, err))
    err = -EFAULT;
  kfree(k);
  user_path_put(path, dir);
  return err;
}

long
sys_readlink(u64 path, u64 buf, u64 size)
{
  return sys_readlinkat(AT_FDCWD, path, buf, size);
}
