// open, creat, close and ftruncate, access, chdir, chmod and chown in their path, fd and *at
// forms (man 2 open, access, chdir, chmod, chown; Linux's fs/open.c). A relative path's walk
// starts at the working directory or a dirfd's directory (user_path), dentries both, as
// Linux's struct path: a rename of them or above them is followed, a removal leaves them
// with no names.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// upath copied in, in a buffer the caller frees with user_path_put, and in *dir the
// directory a relative one starts from (Linux's path_init): the working directory for
// AT_FDCWD, else dirfd's, referenced; NULL for an absolute path. NULL with *err set
// (-EFAULT, -ENOENT for "" unless empty_ok, -EBADF, -ENOTDIR). With empty_ok, "" names dirfd
// itself: "." from it when it is a directory, else "" with no dir (the caller uses the fd).
// PATH_MAX bytes is the one limit: a path's depth below where it starts has none.
char *
user_path(int dirfd, u64 upath, bool empty_ok, struct dentry **dir, long *err)
{
  _Static_assert(PATH_MAX + 1 <= NAMES_CACHE_SIZE, "user_path's buffer");
  *dir = NULL;
  char *buf = kmem_cache_alloc(names_cachep, GFP_KERNEL);
  if(!buf) {
    *err = -ENOMEM;
    return NULL;
  }
  long n = strncpy_from_user(buf, (const char *)upath, PATH_MAX);
  if(n < 0 || (n == 0 && !empty_ok)) {
    *err = n < 0 ? n : -ENOENT;   // -ENAMETOOLONG: no NUL in PATH_MAX bytes
    kfree(buf);
    return NULL;
  }
  if(buf[0] == '/')
    return buf;
  if(dirfd == AT_FDCWD) {
    *dir = files_pwd(current->proc->files);
  } else {
    struct ufile *uf = fget(dirfd);
    if(!uf) {
      *err = -EBADF;
      kfree(buf);
      return NULL;
    }
    struct file *f = uf->file;
    if(!f || !f->f_dentry || !S_ISDIR(f->f_inode->i_mode)) {
      fput(uf);
      if(n == 0)   // AT_EMPTY_PATH on a non-directory: the caller uses the fd
        return buf;
      *err = -ENOTDIR;
      kfree(buf);
      return NULL;
    }
    *dir = dget(f->f_dentry);   // the file's, which follows the directory where it goes
    fput(uf);
  }
  if(n == 0)
    strlcpy(buf, ".", PATH_MAX);
  return buf;
}

void
user_path_put(char *path, struct dentry *dir)
{
  kfree(path);
  dput(dir);
}

// upath as an absolute path, for what keeps a path as a string (execve's program path,
// /proc/self/exe): a relative one joined to its directory's d_path. NULL with *err set.
char *
user_path_abs(int dirfd, u64 upath, long *err)
{
  struct dentry *dir;
  char *path = user_path(dirfd, upath, false, &dir, err);
  if(!path || !dir)
    return path;
  char *buf = kmem_cache_alloc(names_cachep, GFP_KERNEL);
  char *p = NULL;
  long r = buf ? d_path(dir, buf, PATH_MAX, &p) : -ENOMEM;
  if(r == 1)
    r = -ENOENT;   // not reachable from "/": no path names it
  size_t at = r ? 0 : strlen(p), n = strlen(path);
  if(!r && at + 1 + n >= PATH_MAX)
    r = -ENAMETOOLONG;
  if(!r) {
    memmove(buf, p, at);
    if(at > 1)
      buf[at++] = '/';
    memcpy(buf + at, path, n + 1);
  }
  user_path_put(path, dir);
  if(r) {
    kfree(buf);
    *err = r;
    return NULL;
  }
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
  struct dentry *dir;
  char *path = user_path((int)dirfd, upath, false, &dir, &err);
  if(!path)
    return err;
  unsigned of = flags & (O_CREAT | O_EXCL);   // vfs_open takes open(2)'s own bits
  struct file *f;
  // open(2): the new file's mode is mode & ~umask.
  u32 m = mode & S_IALLUGO & ~READ_ONCE(current->proc->umask);
  struct fd_link link;
  bool console = false;
  if(path[0] == '/' && fd_link_parse(path, &link))   // /dev/fd/N and the like (fs/fd_link.c)
    err = fd_link_open(&link, (u32)flags, &f, &console);
  else
    err = vfs_open_at(dir, path, of, m, flags & O_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &f);
  user_path_put(path, dir);
  if(err)
    return err;
  if(console) {   // the console again: a description of its own, as Linux's reopen of the tty
    struct ufile *cuf = ufile_alloc(NULL, flags & (O_ACCMODE | O_APPEND | O_NONBLOCK));
    int fd = cuf ? fd_install(cuf, 0, flags & O_CLOEXEC) : -ENOMEM;
    if(cuf && fd < 0)
      fput(cuf);
    return fd;
  }
  struct kstat st;
  vfs_fstat(f, &st);
  bool wr = (flags & O_ACCMODE) != 0;
  if(S_ISDIR(st.mode) && (wr || (flags & O_CREAT)))
    err = -EISDIR;
  else if(!S_ISDIR(st.mode) && (flags & O_DIRECTORY))
    err = -ENOTDIR;
  else if((flags & O_TRUNC) && wr && S_ISREG(st.mode) && !f->f_created)
    err = vfs_ftruncate(f, 0);
  struct ufile *uf = err ? NULL : ufile_alloc(f, flags & (O_ACCMODE | O_APPEND | O_NONBLOCK));
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

// close_range(2): every open fd from first to last closed, or with CLOSE_RANGE_CLOEXEC marked
// close-on-exec. CLOSE_RANGE_UNSHARE first gives the process a table of its own when another
// shares it (clone's CLONE_FILES); Linux gives the calling thread one, which a table per
// process cannot: here only a single-threaded caller gets it, others close in the shared one.
long
sys_close_range(u64 ufirst, u64 ulast, u64 flags)
{
  unsigned first = (unsigned)ufirst, last = (unsigned)ulast;
  if((flags & ~(u64)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) || first > last)
    return -EINVAL;
  struct process *p = current->proc;
  if((flags & CLOSE_RANGE_UNSHARE) && READ_ONCE(p->nr_live) == 1) {
    int err = files_unshare(&p->files);
    if(err)
      return err;
  }
  for(int fd = files_next_fd(p->files, first); fd >= 0 && (unsigned)fd <= last;
      fd = files_next_fd(p->files, (unsigned)fd + 1)) {
    if(flags & CLOSE_RANGE_CLOEXEC)
      fd_cloexec(fd, 1);
    else
      fd_close(fd);
  }
  return 0;
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
// wants some execute bit, or a directory), and the real and effective ids are the same, so
// faccessat2's AT_EACCESS changes nothing. AT_SYMLINK_NOFOLLOW checks a last link itself;
// AT_EMPTY_PATH with "" checks dirfd's file (EBADF when it is not open).
static long
do_faccessat(int dirfd, u64 upath, u64 mode, u64 flags)
{
  if(mode & ~7UL || flags & ~(u64)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
    return -EINVAL;
  long err;
  struct dentry *dir;
  char *path = user_path(dirfd, upath, flags & AT_EMPTY_PATH, &dir, &err);
  if(!path)
    return err;
  struct kstat k;
  struct fd_link link = { current->proc->pid, dirfd };   // /dev/fd/N and the like (fs/fd_link.c)
  if(path[0] == 0)
    err = (err = fd_link_stat(&link, &k)) == -ENOENT ? -EBADF : err;
  else if(path[0] == '/' && !(flags & AT_SYMLINK_NOFOLLOW) && fd_link_parse(path, &link))
    err = fd_link_stat(&link, &k);
  else
    err = vfs_stat_at(dir, path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &k);
  user_path_put(path, dir);
  if(!err && (mode & 1) && !S_ISDIR(k.mode) && !(k.mode & 0111))
    err = -EACCES;
  return err;
}

long
sys_faccessat(u64 dirfd, u64 path, u64 mode)
{
  return do_faccessat((int)dirfd, path, mode, 0);
}

long
sys_faccessat2(u64 dirfd, u64 path, u64 mode, u64 flags)
{
  return do_faccessat((int)dirfd, path, mode, flags);
}

long
sys_access(u64 path, u64 mode)
{
  return do_faccessat(AT_FDCWD, path, mode, 0);
}

// chdir(2): the directory itself becomes the working directory (a reference), not its path.
long
sys_chdir(u64 upath)
{
  long err;
  struct dentry *dir, *d;
  char *path = user_path(AT_FDCWD, upath, false, &dir, &err);
  if(!path)
    return err;
  err = path_lookup_at(dir, path, 0, &d);
  user_path_put(path, dir);
  if(err)
    return err;
  if(!S_ISDIR(d->d_inode->i_mode)) {
    dput(d);
    return -ENOTDIR;
  }
  files_set_pwd(current->proc->files, d);
  return 0;
}

// fchdir(2): the directory an open fd names, wherever it is now.
long
sys_fchdir(u64 fd)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  struct file *f = uf->file;
  struct dentry *d = f && f->f_dentry && S_ISDIR(f->f_inode->i_mode) ? dget(f->f_dentry) : NULL;
  fput(uf);
  if(!d)
    return -ENOTDIR;
  files_set_pwd(current->proc->files, d);
  return 0;
}

// chmod and chown through a path; follow: the last name's symbolic link is followed.
static long
attr_path(u64 dirfd, u64 upath, bool follow, bool chown, u32 mode, u32 uid, u32 gid)
{
  long err;
  struct dentry *dir, *d;
  char *path = user_path((int)dirfd, upath, false, &dir, &err);
  if(!path)
    return err;
  err = path_lookup_at(dir, path, follow ? 0 : LOOKUP_NOFOLLOW, &d);
  user_path_put(path, dir);
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
  long err = resolve_at(dirfd, upath, flags, &uf, &d, NULL);
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
