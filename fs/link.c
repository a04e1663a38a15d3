// The system calls that make and remove names: mkdir, rmdir, unlink, rename and symlink in
// their path and *at forms, on paths made absolute by user_path (fs/open.c); the VFS work is
// fs/namei.c's (Linux keeps these calls in fs/namei.c beside the walk).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "namei.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// The *at calls that take one path and no flags of their own.
static long
path_op(u64 dirfd, u64 upath, int (*op)(const char *))
{
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  err = op(path);
  kfree(path);
  return err;
}

// mkdir(2): mode & ~umask & 01777 (the permission bits and the sticky bit).
long
sys_mkdirat(u64 dirfd, u64 upath, u64 mode)
{
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  u32 m = mode & (S_ISVTX | 0777) & ~READ_ONCE(current->proc->umask);
  err = vfs_mknod(path, S_IFDIR | m, 0);
  kfree(path);
  return err;
}

long
sys_mkdir(u64 path, u64 mode)
{
  return sys_mkdirat(AT_FDCWD, path, mode);
}

long
sys_rmdir(u64 path)
{
  return path_op(AT_FDCWD, path, vfs_rmdir);
}

long
sys_unlinkat(u64 dirfd, u64 path, u64 flags)
{
  if(flags & ~(u64)AT_REMOVEDIR)
    return -EINVAL;
  return path_op(dirfd, path, flags & AT_REMOVEDIR ? vfs_rmdir : vfs_unlink);
}

long
sys_unlink(u64 path)
{
  return sys_unlinkat(AT_FDCWD, path, 0);
}

// renameat2(2): flags are checked before the paths are read, as Linux's do_renameat2.
long
sys_renameat2(u64 olddirfd, u64 uold, u64 newdirfd, u64 unew, u64 flags)
{
  if(flags & ~(u64)(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT) ||
     ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && (flags & RENAME_EXCHANGE)))
    return -EINVAL;
  long err;
  char *from = user_path((int)olddirfd, uold, false, &err);
  if(!from)
    return err;
  char *to = user_path((int)newdirfd, unew, false, &err);
  if(to)
    err = vfs_rename2(from, to, flags);
  kfree(to);
  kfree(from);
  return err;
}

long
sys_renameat(u64 olddirfd, u64 uold, u64 newdirfd, u64 unew)
{
  return sys_renameat2(olddirfd, uold, newdirfd, unew, 0);
}

long
sys_rename(u64 uold, u64 unew)
{
  return sys_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}

long
sys_symlinkat(u64 utarget, u64 dirfd, u64 upath)
{
  char *target = kmalloc(PATH_MAX, GFP_KERNEL);
  if(!target)
    return -ENOMEM;
  long err = strncpy_from_user(target, (const char *)utarget, PATH_MAX);
  if(err == 0)
    err = -ENOENT;
  char *path = err < 0 ? NULL : user_path((int)dirfd, upath, false, &err);
  if(path)
    err = vfs_symlink(target, path);
  kfree(path);
  kfree(target);
  return err;
}

long
sys_symlink(u64 target, u64 path)
{
  return sys_symlinkat(target, AT_FDCWD, path);
}
