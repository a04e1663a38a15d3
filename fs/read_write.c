// The file system calls: open, read, write, seek, stat and friends on a process's fd table
// (fs/file.c), with Linux's flags and errnos (man 2 open, read, getdents64, fcntl...).
// Paths are made absolute against the working directory or a dirfd before the VFS sees them.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "mm.h"
#include "namei.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "tty.h"
#include <asm/uaccess.h>

// Linux's values (asm-generic/fcntl.h): not the VFS's O_CREAT etc., translated at open.
#define L_O_ACCMODE   03
#define L_O_WRONLY    01
#define L_O_RDWR      02
#define L_O_CREAT     0100
#define L_O_EXCL      0200
#define L_O_TRUNC     01000
#define L_O_APPEND    02000
#define L_O_NONBLOCK  04000
#define L_O_DIRECTORY 0200000
#define L_O_NOFOLLOW  0400000
#define L_O_CLOEXEC   02000000
#define L_O_TMPFILE   020000000
#define AT_FDCWD      -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR  0x200
#define AT_EACCESS    0x200
#define AT_EMPTY_PATH 0x1000
#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
#define FD_CLOEXEC 1
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define PATH_MAX 4096
#define IOV_MAX 1024
#define CHUNK 4096
#define MAX_RW_COUNT 0x7ffff000L   // INT_MAX & PAGE_MASK: the most one read or write moves

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
  if((flags & L_O_TMPFILE) == L_O_TMPFILE)
    return -EOPNOTSUPP;   // no unnamed files in ramfs
  if((flags & L_O_ACCMODE) == L_O_ACCMODE)
    return -EINVAL;
  long err;
  char *path = user_path((int)dirfd, upath, false, &err);
  if(!path)
    return err;
  unsigned of = (flags & L_O_CREAT ? O_CREAT : 0) | (flags & L_O_EXCL ? O_EXCL : 0);
  struct file *f;
  // open(2): the new file's mode is mode & ~umask.
  u32 m = mode & S_IALLUGO & ~READ_ONCE(current->proc->umask);
  err = vfs_open_mode(path, of, m, flags & L_O_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &f);
  if(err) {
    kfree(path);
    return err;
  }
  struct kstat st;
  vfs_fstat(f, &st);
  bool wr = (flags & L_O_ACCMODE) != 0;
  if(S_ISDIR(st.mode) && (wr || (flags & L_O_CREAT)))
    err = -EISDIR;
  else if(!S_ISDIR(st.mode) && (flags & L_O_DIRECTORY))
    err = -ENOTDIR;
  else if(S_ISLNK(st.mode))
    err = -ELOOP;   // O_NOFOLLOW on a symbolic link
  else if((flags & L_O_TRUNC) && wr && S_ISREG(st.mode) && !f->f_created)
    err = vfs_ftruncate(f, 0);
  struct ufile *uf = err ? NULL : ufile_alloc(f, flags & (L_O_ACCMODE | L_O_APPEND | L_O_NONBLOCK),
                                              path);
  kfree(path);
  if(!uf) {
    vfs_close(f);
    return err ? err : -ENOMEM;
  }
  int fd = fd_install(uf, 0, flags & L_O_CLOEXEC);
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
  return sys_openat(AT_FDCWD, path, L_O_CREAT | L_O_WRONLY | L_O_TRUNC, mode);
}

long
sys_close(u64 fd)
{
  return fd_close((int)fd);
}

// One transfer between user memory and uf at *pos (the file's offset, or pread's): a read of
// a page-cache file copied once (vfs_pread_user), anything else through a kernel bounce
// buffer; a short count when a later chunk faults.
static long
file_rw(struct ufile *uf, u64 ubuf, u64 n, u64 *pos, bool write)
{
  if((s64)n < 0)
    return -EINVAL;
  if((uf->flags & L_O_ACCMODE) == (write ? 0 : L_O_WRONLY))
    return -EBADF;
  if(!uf->file && write) {
    long r = tty_check_write();   // TOSTOP: a background job's write stops it
    return r ? r : console_write((const char *)ubuf, n);
  }
  if(!uf->file)
    return console_read((char *)ubuf, n, uf->flags & L_O_NONBLOCK);
  if(!write && !uf->file->f_op) {
    long r = vfs_pread_user(uf->file, (char *)ubuf, n, *pos);
    if(r > 0)
      *pos += r;
    return r;
  }
  char *k = kmalloc(CHUNK, GFP_KERNEL);
  if(!k)
    return -ENOMEM;
  long done = 0;
  while((u64)done < n) {
    size_t c = MIN(n - done, CHUNK);
    long r;
    if(write) {
      if(copy_from_user(k, (char *)ubuf + done, c)) {
        r = -EFAULT;
      } else {
        r = vfs_pwrite(uf->file, k, c, *pos);
      }
    } else {
      r = vfs_pread(uf->file, k, c, *pos);
      if(r > 0 && copy_to_user((char *)ubuf + done, k, r))
        r = -EFAULT;
    }
    if(r <= 0) {
      if(!done)
        done = r;
      break;
    }
    *pos += r;
    done += r;
    if((size_t)r < c || tty_is_console(uf->file))   // a terminal read ends with its line
      break;
    cond_resched();
  }
  kfree(k);
  return done;
}

// A file that copies to and from user memory itself and may block (a pipe end): it gets
// the description's flags (O_NONBLOCK) and no position.
static bool
copies_itself(struct ufile *uf)
{
  const struct file_operations *op = uf->file ? uf->file->f_op : NULL;
  return op && (op->read_user || op->write_user);
}

static long
rw_user(struct ufile *uf, u64 buf, u64 n, bool write)
{
  const struct file_operations *op = uf->file->f_op;
  if((uf->flags & L_O_ACCMODE) == (write ? 0 : L_O_WRONLY))
    return -EBADF;
  if((s64)n < 0)
    return -EINVAL;
  if(write)
    return op->write_user ? op->write_user(uf->file, (const char *)buf, n, uf->flags) : -EINVAL;
  return op->read_user ? op->read_user(uf->file, (char *)buf, n, uf->flags) : -EINVAL;
}

// At the file's offset: O_APPEND moves it to the end first (serialized by nothing but the
// VFS's i_mutex per write: appends by two fds may interleave, as on NFS).
static long
rw_at_pos(u64 fd, u64 buf, u64 n, bool write)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(copies_itself(uf)) {
    r = rw_user(uf, buf, n, write);
  } else if(uf->file && S_ISDIR(uf->file->f_inode->i_mode)) {
    r = -EISDIR;
  } else if(uf->file) {
    if(write && (uf->flags & L_O_APPEND)) {
      struct kstat st;
      vfs_fstat(uf->file, &st);
      uf->file->f_pos = st.size;
    }
    u64 pos = uf->file->f_pos;
    r = file_rw(uf, buf, n, &pos, write);
    if(r > 0)
      uf->file->f_pos = pos;
  } else {
    u64 pos = 0;
    r = file_rw(uf, buf, n, &pos, write);
  }
  fput(uf);
  return r;
}

long
sys_read(u64 fd, u64 buf, u64 n)
{
  return rw_at_pos(fd, buf, n, false);
}

long
sys_write(u64 fd, u64 buf, u64 n)
{
  return rw_at_pos(fd, buf, n, true);
}

static long
rw_vec(u64 fd, u64 iov, u64 cnt, bool write)
{
  if(cnt > IOV_MAX)
    return -EINVAL;
  long total = 0;
  for(u64 i = 0; i < cnt; i++) {
    u64 v[2];
    if(copy_from_user(v, (u64 *)iov + 2 * i, sizeof(v)))
      return total ? total : -EFAULT;
    if(!v[1])
      continue;
    long r = rw_at_pos(fd, v[0], v[1], write);
    if(r < 0)
      return total ? total : r;
    total += r;
    if((u64)r < v[1])
      break;
  }
  if(!cnt || !total) {   // still check fd for an empty vector
    struct ufile *uf = fget((int)fd);
    if(!uf)
      return -EBADF;
    fput(uf);
  }
  return total;
}

long
sys_readv(u64 fd, u64 iov, u64 cnt)
{
  return rw_vec(fd, iov, cnt, false);
}

long
sys_writev(u64 fd, u64 iov, u64 cnt)
{
  return rw_vec(fd, iov, cnt, true);
}

static long
prw(u64 fd, u64 buf, u64 n, u64 off, bool write)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || uf->file->f_op)
    r = -ESPIPE;   // the console and devices: not seekable
  else if((s64)off < 0)
    r = -EINVAL;
  else if(S_ISDIR(uf->file->f_inode->i_mode))
    r = -EISDIR;
  else
    r = file_rw(uf, buf, n, &off, write);
  fput(uf);
  return r;
}

long
sys_pread64(u64 fd, u64 buf, u64 n, u64 off)
{
  return prw(fd, buf, n, off, false);
}

long
sys_pwrite64(u64 fd, u64 buf, u64 n, u64 off)
{
  return prw(fd, buf, n, off, true);
}

long
sys_lseek(u64 fd, u64 off, u64 whence)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || is_pipe(uf->file)) {
    r = -ESPIPE;
  } else {
    struct file *f = uf->file;
    struct kstat st;
    vfs_fstat(f, &st);
    s64 base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (s64)f->f_pos : (s64)st.size;
    s64 to = base + (s64)off;
    if(whence > SEEK_END || to < 0) {
      r = -EINVAL;
    } else if(S_ISDIR(st.mode)) {
      r = to == 0 && whence == SEEK_SET ? 0 : -EINVAL;   // rewinddir only
      if(!r)
        f->f_pos = uf->dots = 0;
    } else {
      f->f_pos = to;
      r = to;
    }
  }
  fput(uf);
  return r;
}

long
sys_ftruncate(u64 fd, u64 len)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || (uf->flags & L_O_ACCMODE) == 0 || S_ISDIR(uf->file->f_inode->i_mode))
    r = -EINVAL;   // ftruncate(2): fd not open for writing, or not a regular file
  else if((s64)len < 0)
    r = -EINVAL;
  else
    r = vfs_ftruncate(uf->file, len);
  fput(uf);
  return r;
}

// ramfs has nothing to write back.
long
sys_fsync(u64 fd)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  fput(uf);
  return 0;
}

long
sys_ioctl(u64 fd, u64 cmd, u64 arg)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || tty_is_console(uf->file))   // fds 0-2, or /dev/console opened by name
    r = console_ioctl(cmd, arg);
  else
    r = -ENOTTY;
  fput(uf);
  return r;
}

// fcntl's F_DUPFD: a lowest fd at or past RLIMIT_NOFILE is EINVAL (fcntl(2)), after EBADF;
// dup's from is 0.
static long
do_dup(u64 oldfd, u64 from, bool cloexec)
{
  struct ufile *uf = fget((int)oldfd);
  if(!uf)
    return -EBADF;
  if(from && from >= rlimit(RLIMIT_NOFILE)) {
    fput(uf);
    return -EINVAL;
  }
  int fd = fd_install(uf, (int)MIN(from, (u64)NR_OPEN), cloexec);
  if(fd < 0)
    fput(uf);
  return fd;
}

long
sys_dup(u64 fd)
{
  return do_dup(fd, 0, false);
}

long
sys_dup3(u64 oldfd, u64 newfd, u64 flags)
{
  if(flags & ~(u64)L_O_CLOEXEC)
    return -EINVAL;
  if(oldfd == newfd)
    return -EINVAL;
  struct ufile *uf = fget((int)oldfd);
  if(!uf)
    return -EBADF;
  if(newfd >= NR_OPEN) {   // past the table, or negative as an int
    fput(uf);
    return -EBADF;
  }
  return fd_replace((int)newfd, uf, flags & L_O_CLOEXEC);
}

long
sys_dup2(u64 oldfd, u64 newfd)
{
  if(oldfd == newfd) {   // dup2(2): newfd back if oldfd is valid
    struct ufile *uf = fget((int)oldfd);
    if(!uf)
      return -EBADF;
    fput(uf);
    return newfd;
  }
  return sys_dup3(oldfd, newfd, 0);
}

long
sys_fcntl(u64 fd, u64 cmd, u64 arg)
{
  switch(cmd) {
  case F_DUPFD:
  case F_DUPFD_CLOEXEC:   // the lowest fd is an int (glibc passes it so): its low half only,
                          // as Linux's do_fcntl takes argi = (int)arg
    return do_dup(fd, (u32)arg, cmd == F_DUPFD_CLOEXEC);
  case F_GETFD:
    return fd_cloexec((int)fd, -1);
  case F_SETFD:
    return MIN(fd_cloexec((int)fd, arg & FD_CLOEXEC), 0);
  case F_GETFL:
  case F_SETFL: {
    struct ufile *uf = fget((int)fd);
    if(!uf)
      return -EBADF;
    long r = 0;
    if(cmd == F_GETFL)
      r = uf->flags;
    else   // fcntl(2): only O_APPEND and O_NONBLOCK (of what this kernel has) change
      uf->flags = (uf->flags & ~(L_O_APPEND | L_O_NONBLOCK)) | (arg & (L_O_APPEND | L_O_NONBLOCK));
    fput(uf);
    return r;
  }
  case F_GETPIPE_SZ:
  case F_SETPIPE_SZ: {   // F_SETPIPE_SZ: a pipe's size is fixed here (EINVAL)
    struct ufile *uf = fget((int)fd);
    if(!uf)
      return -EBADF;
    long r = pipe_fcntl(uf->file, cmd, arg);
    fput(uf);
    return r;
  }
  default: {
    struct ufile *uf = fget((int)fd);
    if(!uf)
      return -EBADF;
    fput(uf);
    return -EINVAL;
  }
  }
}

// Where sendfile's bytes go, from a kernel buffer: the console behind fds 0-2 (a background
// job stopped by TOSTOP as write(2) would be), a pipe (blocking unless O_NONBLOCK), a regular
// file at its offset, or a device.
static long
sendfile_write(struct ufile *out, const void *buf, size_t n)
{
  struct file *f = out->file;
  if(!f) {
    long r = tty_check_write();
    return r ? r : console_write_kernel(buf, n);
  }
  if(is_pipe(f))
    return pipe_write_kernel(f, buf, n, out->flags);
  if(!f->f_op) {
    long r = vfs_pwrite(f, buf, n, f->f_pos);
    if(r > 0)
      f->f_pos += r;
    return r;
  }
  return f->f_op->write ? f->f_op->write(f, buf, n, &f->f_pos) : -EINVAL;
}

// Linux's do_sendfile (fs/read_write.c), with its errnos: in must be a regular file read
// from *ppos (left in place) or from its offset (advanced); out anything writable but an
// O_APPEND file. A page at a time through a bounce page; a signal, a short write or the end
// of in ends the call early with what it moved.
static long
do_sendfile(int out_fd, int in_fd, s64 *ppos, u64 count)
{
  struct ufile *in = fget(in_fd), *out = NULL;
  char *buf = NULL;
  long r = 0;
  if(!in)
    return -EBADF;
  if((in->flags & L_O_ACCMODE) == L_O_WRONLY) {
    r = -EBADF;
    goto out;
  }
  if(ppos && (!in->file || is_pipe(in->file))) {
    r = -ESPIPE;   // no pread on a pipe or the console
    goto out;
  }
  u64 pos = ppos ? (u64)*ppos : in->file ? in->file->f_pos : 0;
  if((s64)pos < 0 || (s64)count < 0) {
    r = -EINVAL;
    goto out;
  }
  count = MIN(count, (u64)MAX_RW_COUNT);
  if(!(out = fget(out_fd))) {
    r = -EBADF;
    goto out;
  }
  if((out->flags & L_O_ACCMODE) == 0) {
    r = -EBADF;
    goto out;
  }
  struct file *f = in->file;
  if((out->file && !is_pipe(out->file) && (out->flags & L_O_APPEND)) || !f || f->f_op ||
     !S_ISREG(f->f_inode->i_mode)) {
    r = -EINVAL;
    goto out;
  }
  if(count && !(buf = (char *)__get_free_page(GFP_KERNEL))) {
    r = -ENOMEM;
    goto out;
  }
  u64 done = 0;
  while(done < count) {
    long got = vfs_pread(f, buf, MIN(count - done, (u64)PAGE_SIZE), pos);
    long put = got > 0 ? sendfile_write(out, buf, got) : got;
    if(put <= 0) {
      r = put;
      break;
    }
    pos += put;
    done += put;
    if(put < got || signal_pending(current))
      break;
    cond_resched();
  }
  if(done)
    r = done;
  if(ppos)
    *ppos = pos;
  else
    f->f_pos = pos;
out:
  if(buf)
    free_page((unsigned long)buf);
  if(out)
    fput(out);
  fput(in);
  return r;
}

// sendfile(2): *offset is read first (EFAULT before any fd is looked at) and written back
// whatever happened, as Linux's sendfile64.
long
sys_sendfile(u64 out_fd, u64 in_fd, u64 uoff, u64 count)
{
  s64 off;
  if(!uoff)
    return do_sendfile((int)out_fd, (int)in_fd, NULL, count);
  if(get_user(off, (s64 *)uoff))
    return -EFAULT;
  long r = do_sendfile((int)out_fd, (int)in_fd, &off, count);
  if(put_user(off, (s64 *)uoff))
    return -EFAULT;
  return r;
}
