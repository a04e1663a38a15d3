// statfs and fstatfs (man 2 statfs): what df asks of a file system. Every file system here is a
// ramfs (/proc and /sys are nodes of its tree), described as Linux's simple_statfs does ramfs.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "uapi/fcntl.h"
#include "uapi/limits.h"
#include "uapi/statfs.h"

// ramfs counts no blocks and no inodes: it takes pages as it goes (simple_statfs leaves every
// count 0). The fsid is stat's st_dev, 0:1 (fs/stat.c), as Linux's huge_encode_dev gives it.
static long
put_statfs(u64 ubuf)
{
  struct statfs s;
  memset(&s, 0, sizeof(s));
  s.f_type = RAMFS_MAGIC;
  s.f_bsize = s.f_frsize = PAGE_SIZE;
  s.f_namelen = NAME_MAX;
  s.f_fsid[0] = 1;
  s.f_flags = ST_VALID | ST_RELATIME;
  return copy_to_user((void *)ubuf, &s, sizeof(s)) ? -EFAULT : 0;
}

long
sys_statfs(u64 upath, u64 ubuf)
{
  long err;
  struct dentry *dir;
  char *path = user_path(AT_FDCWD, upath, false, &dir, &err);
  if(!path)
    return err;
  struct kstat st;
  err = vfs_stat_at(dir, path, 0, &st);
  user_path_put(path, dir);
  return err ? err : put_statfs(ubuf);
}

long
sys_fstatfs(u64 fd, u64 ubuf)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  fput(uf);
  return put_statfs(ubuf);
}
