// open, creat, close and ftruncate, access, chdir, chmod and chown in their path, fd and *at
// forms (man 2 open, access, chdir, chmod, chown; Linux's fs/open.c). Paths are made absolute
// against the working directory or a dirfd (user_path) before the VFS sees them. A
// directory's path is remembered as a string (the working directory, a dirfd's path): a
// rename of it or of a directory above it is not followed there, unlike Linux.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// The absolute path of upath relative to dirfd, in a PATH_MAX buffer the caller frees:
// NULL with *err set (-EFAULT, -ENAMETOOLONG, -ENOENT for "", -EBADF, -ENOTDIR).
char *
user_path(int dirfd, u64 upath, bool empty_ok, long *err)
{
  _Static_assert(2 * PATH_MAX <= NAMES_CACHE_SIZE, "user_path's buffer");
  char *buf = kmem_cache_alloc(names_cachep, GFP_KERNEL);
  if(!buf) {
    *err = -ENOMEM;
    return NULL;
  }
  char *name = buf + PATH_MAX;
  long n = strncpy_from_user(name, (const char *)upath, PATH_MAX);
  if(n < 0 || (n == 0 && !empty_ok)) {
    *err = n < 0 ? n : -ENOENT;
    kfree(buf);
    return NULL;
  }
  struct files *fs = current->proc->files;
  if(name[0] == '/') {
    memmove(buf, name, n + 1);
    return buf;
  }
  size_t at;
  if(dirfd == AT_FDCWD) {
    spin_lock(&fs->lock);
    at = strlcpy(buf, fs->cwd, PATH_MAX);
    spin_unlock(&fs->lock);
  } else {
    struct ufile *uf = fget(dirfd);
    if(!uf) {
      *err = -EBADF;
      kfree(buf);
      return NULL;
    }
    struct kstat st;
    if(!uf->file || vfs_fstat(uf->file, &st) || !S_ISDIR(st.mode) || !uf->path) {
      if(n == 0) {   // AT_EMPTY_PATH on a non-directory: the caller uses the fd
        fput(uf);
        buf[0] = 0;
        return buf;
      }
      fput(uf);
      *err = -ENOTDIR;
      kfree(buf);
      return NULL;
    }
    at = strlcpy(buf, uf->path, PATH_MAX);
    fput(uf);
  }
  if(n == 0)
    return buf;
  if(at + 1 + n >= PATH_MAX) {
    *err = -ENAMETOOLONG;
    kfree(buf);
    return NULL;
  }
  if(at > 1)
    buf[at++] = '/';
  else
    at = 1;   // "/": no second slash
  memmove(buf + at, name, n + 1);
  return buf;
}

long
sys_openat(u64 dirfd, u64 upath, u64 flags, u64 mode)
{
  if((flags & O_TMPFILE) == O_TMPFILE)
    return -EOPNOTSUPP;   // no unnamed files in ramfs
  if((flags & O_ACCMODE) == O_ACCMODE)
    return -EINVAL;
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  unsigned of = flags & (O_CREAT | O_EXCL);   // vfs_open takes open(2)'s own bits
  struct file *f;
  // open(2): the new file's mode is mode & ~umask.
  u32 m = mode & S_IALLUGO & ~READ_ONCE(current->proc->umask);
  err = vfs_open_mode(path, of, m, flags & O_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &f);
  if(err) {
    kfree(path);
    return err;
  }
  struct kstat st;
  vfs_fstat(f, &st);
  bool wr = (flags & O_ACCMODE) != 0;
  if(S_ISDIR(st.mode) && (wr || (flags & O_CREAT)))
    err = -EISDIR;
  else if(!S_ISDIR(st.mode) && (flags & O_DIRECTORY))
    err = -ENOTDIR;
  else if(S_ISLNK(st.mode))
    err = -ELOOP;   // O_NOFOLLOW on a symbolic link
  else if((flags & O_TRUNC) && wr && S_ISREG(st.mode) && !f->f_created)
    err = vfs_ftruncate(f, 0);
  struct ufile *uf = err ? NULL : ufile_alloc(f, flags & (O_ACCMODE | O_APPEND | O_NONBLOCK),
                                              path);
  kfree(path);
  if(!uf) {
    vfs_close(f);
    return err ? err : -ENOMEM;
  }
  int fd = fd_install(uf, 0, flags & O_CLOEXEC);
  if(fd < 0)
    fput(uf);
  return fd;
}

long
sys_open(u64 path, u64 flags, u64 mode)
{
  return sys_openat(AT_FDCWD, path, flags, mode);
}

long
sys_creat(u64 path, u64 mode)
{
  return sys_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

long
sys_close(u64 fd)
{
  return fd_close((int)fd);
}

long
sys_ftruncate(u64 fd, u64 len)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || (uf->flags & O_ACCMODE) == 0 || S_ISDIR(uf->file->f_inode->i_mode))
    r = -EINVAL;   // ftruncate(2): fd not open for writing, or not a regular file
  else if((s64)len < 0)
    r = -EINVAL;
  else
    r = vfs_ftruncate(uf->file, len);
  fput(uf);
  return r;
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
