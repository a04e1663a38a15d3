// The system calls about names: stat, getdents64, mkdir, rmdir, unlink, rename, symlink,
// readlink, access, getcwd and chdir, on paths made absolute by user_path (kernel/sys_file.c).
// A directory's path is remembered as a string (the working directory, a dirfd's path): a
// rename of it or of a directory above it is not followed there, unlike Linux.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "namei.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

#define AT_FDCWD      -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR  0x200
#define AT_EACCESS    0x200
#define AT_EMPTY_PATH 0x1000
#define DT_DIR 4

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
  char *path = user_path((int)dirfd, upath, flags & AT_EMPTY_PATH, &err);
  if(!path)
    return err;
  char c;
  if(get_user(c, (char *)upath) == 0 && c == 0) {   // AT_EMPTY_PATH: dirfd itself
    kfree(path);
    return (int)dirfd == AT_FDCWD ? sys_newfstatat(dirfd, (u64)".", st, 0)
                                  : fstat_fd(dirfd, st);
  }
  struct kstat k;
  err = vfs_stat(path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &k);
  kfree(path);
  return err ? err : put_stat(st, &k);
}

struct dirent_buf {
  char *ubuf;
  u64 size, used;
  long err;
};

// struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name (NUL), 8-byte aligned.
static bool
fill_dirent(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  struct dirent_buf *b = arg;
  u64 reclen = (19 + len + 1 + 7) & ~7UL;
  if(b->used + reclen > b->size) {
    if(!b->used)
      b->err = -EINVAL;   // getdents64(2): result buffer is too small
    return false;
  }
  char rec[19 + NAME_MAX + 1 + 8];
  memset(rec, 0, reclen);
  u64 off = b->used + reclen;
  u16 rl = reclen;
  memcpy(rec, &ino, 8);
  memcpy(rec + 8, &off, 8);
  memcpy(rec + 16, &rl, 2);
  rec[18] = (mode >> 12) & 017;   // DT_* is S_IFMT >> 12
  memcpy(rec + 19, name, len);
  if(copy_to_user(b->ubuf + b->used, rec, reclen)) {
    b->err = -EFAULT;
    return false;
  }
  b->used += reclen;
  return true;
}

long
sys_getdents64(u64 fd, u64 dirp, u64 count)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  struct dirent_buf b = { (char *)dirp, count, 0, 0 };
  long r = 0;
  if(!uf->file) {
    r = -ENOTDIR;
    goto out;
  }
  struct kstat k;
  vfs_fstat(uf->file, &k);
  if(!S_ISDIR(k.mode)) {
    r = -ENOTDIR;
    goto out;
  }
  // "." and ".." first: ramfs lists only the names a directory holds.
  while(uf->dots < 2) {
    if(!fill_dirent(&b, "..", uf->dots + 1, k.ino, S_IFDIR))
      goto done;
    uf->dots++;
  }
  r = vfs_readdir(uf->file, fill_dirent, &b);
done:
  if(b.err && !b.used)
    r = b.err;
  else if(r >= 0)
    r = b.used;
out:
  fput(uf);
  return r;
}

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
  char *target = kmalloc(PATH_MAX_LEN, GFP_KERNEL);
  if(!target)
    return -ENOMEM;
  long err = strncpy_from_user(target, (const char *)utarget, PATH_MAX_LEN);
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

long
sys_readlinkat(u64 dirfd, u64 upath, u64 buf, u64 size)
{
  if((s64)size <= 0)
    return -EINVAL;
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  u64 n = MIN(size, PATH_MAX_LEN);
  char *k = kmalloc(n, GFP_KERNEL);
  if(!k) {
    kfree(path);
    return -ENOMEM;
  }
  struct process *p = current->proc;
  if(strcmp(path, "/proc/self/exe") == 0) {   // the program as it was started
    err = MIN(strlen(p->path), n);
    memcpy(k, p->path, err);
  } else {
    err = vfs_readlink(path, k, n);
  }
  if(err > 0 && copy_to_user((void *)buf, k, err))
    err = -EFAULT;
  kfree(k);
  kfree(path);
  return err;
}

long
sys_readlink(u64 path, u64 buf, u64 size)
{
  return sys_readlinkat(AT_FDCWD, path, buf, size);
}

// Every process is root here: existence is the whole check (access(2) for uid 0, but X_OK
// wants some execute bit, or a directory).
long
sys_faccessat(u64 dirfd, u64 upath, u64 mode)
{
  if(mode & ~7UL)
    return -EINVAL;
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  struct kstat k;
  err = vfs_stat(path, 0, &k);
  kfree(path);
  if(!err && (mode & 1) && !S_ISDIR(k.mode) && !(k.mode & 0111))
    err = -EACCES;
  return err;
}

long
sys_access(u64 path, u64 mode)
{
  return sys_faccessat(AT_FDCWD, path, mode);
}

// The raw call returns the length with the NUL (getcwd(2)).
long
sys_getcwd(u64 buf, u64 size)
{
  struct files *fs = current->proc->files;
  char cwd[CWD_MAX];
  spin_lock(&fs->lock);
  memcpy(cwd, fs->cwd, CWD_MAX);
  spin_unlock(&fs->lock);
  u64 n = strlen(cwd) + 1;
  if(size < n)
    return -ERANGE;
  return copy_to_user((void *)buf, cwd, n) ? -EFAULT : (long)n;
}

// path, absolute, without "." and ".." names or doubled slashes (lexically: no symbolic
// link is resolved), in place.
static void
normalise(char *path)
{
  char *out = path;
  const char *in = path;
  while(*in) {
    while(*in == '/')
      in++;
    const char *end = in;
    while(*end && *end != '/')
      end++;
    size_t len = end - in;
    if(len == 0 || (len == 1 && in[0] == '.')) {
      // nothing
    } else if(len == 2 && in[0] == '.' && in[1] == '.') {
      while(out > path && *--out != '/')
        ;
    } else {
      *out++ = '/';
      memmove(out, in, len);
      out += len;
    }
    in = end;
  }
  if(out == path)
    *out++ = '/';
  *out = 0;
}

long
sys_chdir(u64 upath)
{
  long err;
  char *path = user_path(AT_FDCWD, upath, false, &err);
  if(!path)
    return err;
  struct kstat k;
  err = vfs_stat(path, 0, &k);
  if(!err && !S_ISDIR(k.mode))
    err = -ENOTDIR;
  normalise(path);
  if(!err && strlen(path) >= CWD_MAX)
    err = -ENAMETOOLONG;
  if(!err) {
    struct files *fs = current->proc->files;
    spin_lock(&fs->lock);
    strlcpy(fs->cwd, path, CWD_MAX);
    spin_unlock(&fs->lock);
  }
  kfree(path);
  return err;
}
