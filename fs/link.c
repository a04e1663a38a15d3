// The system calls that make and remove names: mkdir, rmdir, unlink, rename, symlink and link
// in their path and *at forms, on paths and their start from user_path (fs/open.c); the VFS work is
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
path_op(u64 dirfd, u64 upath, int (*op)(struct dentry *, const char *))
{
  long err;
  struct dentry *dir;
  char *path = user_path((int)dirfd, upath, false, &dir, &err);
  if(!path)
    return err;
  err = op(dir, path);
  user_path_put(path, dir);
  return err;
}

// mkdir(2): mode & ~umask & 01777 (the permission bits and the sticky bit).
long
sys_mkdirat(u64 dirfd, u64 upath, u64 mode)
{
  long err;
  struct dentry *dir;
  char *path = user_path((int)dirfd, upath, false, &dir, &err);
  if(!path)
    return err;
  u32 m = mode & (S_ISVTX | 0777) & ~READ_ONCE(current->proc->umask);
  err = vfs_mknod_at(dir, path, S_IFDIR | m, 0);
  user_path_put(path, dir);
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
  return path_op(AT_FDCWD, path, vfs_rmdir_at);
}

long
sys_unlinkat(u64 dirfd, u64 path, u64 flags)
{
  if(flags & ~(u64)AT_REMOVEDIR)
    return -EINVAL;
  return path_op(dirfd, path, flags & AT_REMOVEDIR ? vfs_rmdir_at : vfs_unlink_at);
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
  struct dentry *from_dir, *to_dir;
  char *from = user_path((int)olddirfd, uold, false, &from_dir, &err);
  if(!from)
    return err;
  char *to = user_path((int)newdirfd, unew, false, &to_dir, &err);
  if(to)
    err = vfs_rename_at(from_dir, from, to_dir, to, flags);
  user_path_put(to, to_dir);
  user_path_put(from, from_dir);
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
  struct dentry *dir = NULL;
  char *path = err < 0 ? NULL : user_path((int)dirfd, upath, false, &dir, &err);
  if(path)
    err = vfs_symlink_at(target, dir, path);
  user_path_put(path, dir);
  kfree(target);
  return err;
}

long
sys_symlink(u64 target, u64 path)
{
  return sys_symlinkat(target, AT_FDCWD, path);
}

// linkat(2): the source as fstatat finds it, but a last symbolic link followed only with
// AT_SYMLINK_FOLLOW; "" with AT_EMPTY_PATH is olddirfd's own file (Linux asks for
// CAP_DAC_READ_SEARCH, which every process here has: all are root). A file with no dentry (a
// pipe, the console) is another file system's: EXDEV.
long
sys_linkat(u64 olddirfd, u64 uold, u64 newdirfd, u64 unew, u64 flags)
{
  if(flags & ~(u64)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
    return -EINVAL;
  struct ufile *uf;
  struct dentry *old;
  u64 how = (flags & AT_EMPTY_PATH) | (flags & AT_SYMLINK_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW);
  long err = resolve_at(olddirfd, uold, how, &uf, &old, NULL);
  if(err)
    return err;
  if(uf) {
    old = uf->file && uf->file->f_dentry ? dget(uf->file->f_dentry) : NULL;
    fput(uf);
    if(!old)
      return -EXDEV;
  }
  struct dentry *dir;
  char *path = user_path((int)newdirfd, unew, false, &dir, &err);
  if(path)
    err = vfs_link_at(old, dir, path);
  user_path_put(path, dir);
  dput(old);
  return err;
}

long
sys_link(u64 uold, u64 unew)
{
  return sys_linkat(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
