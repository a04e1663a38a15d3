// utimensat, futimesat, utimes and utime (man 2 utimensat): a node's access and modification
// times, UTIME_NOW and UTIME_OMIT, with Linux's errnos (Linux's fs/utimes.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "syscalls.h"
#include <asm/uaccess.h>

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
    if((err = resolve_at(dirfd, upath, flags, &uf, &d, NULL)))
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
