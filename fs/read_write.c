// read, write, readv, writev, pread64, pwrite64, lseek and sendfile on a process's fds (fs/file.c),
// with Linux's errnos (man 2 read, write, readv, lseek, sendfile; Linux's fs/read_write.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "mm.h"
#include "net.h"
#include "namei.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "tty.h"
#include "uapi/uio.h"
#include <asm/uaccess.h>

#define CHUNK 4096

// One transfer between user memory and uf at *pos (the file's offset, or pread's): a read of
// a page-cache file copied once (vfs_pread_user), anything else through a kernel bounce
// buffer; a short count when a later chunk faults.
static long
file_rw(struct ufile *uf, u64 ubuf, u64 n, u64 *pos, bool write, unsigned more)
{
  if((s64)n < 0)
    return -EINVAL;
  if((uf->flags & O_ACCMODE) == (write ? 0 : O_WRONLY))
    return -EBADF;
  if(!uf->file && write) {
    long r = tty_check_write();   // TOSTOP: a background job's write stops it
    return r ? r : console_write((const char *)ubuf, n);
  }
  if(!uf->file)
    return console_read((char *)ubuf, n, (uf->flags | more) & O_NONBLOCK);
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
rw_user(struct ufile *uf, u64 buf, u64 n, bool write, unsigned more)
{
  const struct file_operations *op = uf->file->f_op;
  unsigned flags = uf->flags | more;
  if((uf->flags & O_ACCMODE) == (write ? 0 : O_WRONLY))
    return -EBADF;
  if((s64)n < 0)
    return -EINVAL;
  if(write)
    return op->write_user ? op->write_user(uf->file, (const char *)buf, n, flags) : -EINVAL;
  return op->read_user ? op->read_user(uf->file, (char *)buf, n, flags) : -EINVAL;
}

// At the file's offset: O_APPEND moves it to the end first (serialized by nothing but the
// VFS's i_mutex per write: appends by two fds may interleave, as on NFS). more: flags added
// to the description's for this transfer (O_NONBLOCK for a vector's later segments).
static long
rw_at_pos(u64 fd, u64 buf, u64 n, bool write, unsigned more)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(copies_itself(uf)) {
    r = rw_user(uf, buf, n, write, more);
  } else if(uf->file && S_ISDIR(uf->file->f_inode->i_mode)) {
    r = -EISDIR;
  } else if(uf->file) {
    if(write && (uf->flags & O_APPEND)) {
      struct kstat st;
      vfs_fstat(uf->file, &st);
      uf->file->f_pos = st.size;
    }
    u64 pos = uf->file->f_pos;
    r = file_rw(uf, buf, n, &pos, write, more);
    if(r > 0)
      uf->file->f_pos = pos;
  } else {
    u64 pos = 0;
    r = file_rw(uf, buf, n, &pos, write, more);
  }
  fput(uf);
  return r;
}

long
sys_read(u64 fd, u64 buf, u64 n)
{
  return rw_at_pos(fd, buf, n, false, 0);
}

long
sys_write(u64 fd, u64 buf, u64 n)
{
  return rw_at_pos(fd, buf, n, true, 0);
}

// A pipe write of at most PIPE_BUF bytes goes in whole, whether from one buffer or a vector
// (pipe(7)): the segments gathered into one kernel buffer and written at once. 1 if fd is not
// a pipe (the caller writes segment by segment), else the count or -errno.
static long
pipe_writev(u64 fd, const struct iovec *iov, u64 cnt)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r = 1;
  if(uf->file && is_pipe(uf->file) && (uf->flags & O_ACCMODE) != 0) {
    char *k = kmalloc(PIPE_BUF, GFP_KERNEL);
    r = -ENOMEM;
    if(k) {
      u64 got = 0;
      for(u64 i = 0; i < cnt; i++) {
        if(copy_from_user(k + got, (void *)iov[i].iov_base, iov[i].iov_len))
          break;   // a fault: what came before it is written, as a short write
        got += iov[i].iov_len;
      }
      r = got ? pipe_write_kernel(uf->file, k, got, uf->flags) : -EFAULT;
      kfree(k);
    }
  }
  fput(uf);
  return r;
}

// readv and writev as one transfer, as Linux's import_iovec and do_iter_readv_writev: the
// vector is checked whole first (EINVAL for more than UIO_MAXIOV segments or a negative
// length, EFAULT for a segment outside user space, the total capped at MAX_RW_COUNT), then
// moved segment by segment. Once bytes have been read, a later segment does not wait: a readv
// of a pipe returns what the pipe held, as one read would.
static long
rw_vec(u64 fd, u64 uiov, u64 cnt, bool write)
{
  if(cnt > UIO_MAXIOV)
    return -EINVAL;
  struct iovec small[8], *iov = small;
  if(cnt > 8 && !(iov = kmalloc(cnt * sizeof(*iov), GFP_KERNEL)))
    return -ENOMEM;
  long r = copy_from_user(iov, (void *)uiov, cnt * sizeof(*iov)) ? -EFAULT : 0;
  u64 total = 0;
  for(u64 i = 0; i < cnt && !r; i++) {
    if((s64)iov[i].iov_len < 0)
      r = -EINVAL;
    else if(!access_ok((void *)iov[i].iov_base, iov[i].iov_len))
      r = -EFAULT;
    iov[i].iov_len = MIN(iov[i].iov_len, (u64)MAX_RW_COUNT - total);
    total += iov[i].iov_len;
  }
  if(!r)   // a socket takes the vector whole: one datagram, one record (net/socket.c)
    r = sock_rw_iovec(fd, iov, cnt, write);
  if(r == 1 && write && cnt > 1 && total && total <= PIPE_BUF)   // one segment is one write anyway
    r = pipe_writev(fd, iov, cnt);
  if(r == 1) {   // segment by segment
    r = 0;
    for(u64 i = 0; i < cnt; i++) {
      if(!iov[i].iov_len)
        continue;
      long k = rw_at_pos(fd, iov[i].iov_base, iov[i].iov_len, write, !write && r ? O_NONBLOCK : 0);
      if(k < 0) {
        r = r ? r : k;
        break;
      }
      r += k;
      if((u64)k < iov[i].iov_len)
        break;
    }
    if(!r && !total) {   // an empty vector still checks fd
      struct ufile *uf = fget((int)fd);
      r = uf ? 0 : -EBADF;
      if(uf)
        fput(uf);
    }
  }
  if(iov != small)
    kfree(iov);
  return r;
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
    r = file_rw(uf, buf, n, &off, write, 0);
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
  if(!uf->file || is_pipe(uf->file) || is_socket(uf->file)) {
    r = -ESPIPE;
  } else {
    struct file *f = uf->file;
    struct kstat st;
    vfs_fstat(f, &st);
    s64 base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (s64)f->f_pos : (s64)st.size;
    if(S_ISDIR(st.mode))   // its places (fs/readdir.c), from its start or its place now only
      base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (s64)dir_pos(uf) : -1;
    s64 to = base + (s64)off;
    if(whence > SEEK_END || base < 0 || to < 0) {
      r = -EINVAL;
    } else if(S_ISDIR(st.mode)) {
      // As Linux's offset_dir_llseek: seekdir to a telldir value finds the same next entry.
      dir_seek(uf, (u64)to);
      r = to;
    } else {
      f->f_pos = to;
      r = to;
    }
  }
  fput(uf);
  return r;
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
  if((in->flags & O_ACCMODE) == O_WRONLY) {
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
  if((out->flags & O_ACCMODE) == 0) {
    r = -EBADF;
    goto out;
  }
  struct file *f = in->file;
  if((out->file && !is_pipe(out->file) && (out->flags & O_APPEND)) || !f || f->f_op ||
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

// copy_file_range(2): len bytes of regular file fd_in from *off_in (or its offset) to regular
// file fd_out at *off_out (or its offset), a page at a time through the page caches; the
// offsets given are advanced, else the files'. Fewer at in's end (0 there); EINVAL for flags,
// a file that is not regular, or two ranges of one file that overlap; EBADF for an fd not
// open for reading or writing, or fd_out O_APPEND.
long
sys_copy_file_range(u64 fd_in, u64 uoff_in, u64 fd_out, u64 uoff_out, u64 len, u64 flags)
{
  s64 off_in = 0, off_out = 0;
  if(flags)
    return -EINVAL;
  if((uoff_in && get_user(off_in, (s64 *)uoff_in)) ||
     (uoff_out && get_user(off_out, (s64 *)uoff_out)))
    return -EFAULT;
  struct ufile *in = fget((int)fd_in), *out = fget((int)fd_out);
  char *buf = NULL;
  long r = -EBADF;
  if(!in || !out || (in->flags & O_ACCMODE) == O_WRONLY || (out->flags & O_ACCMODE) == 0 ||
     (out->flags & O_APPEND))
    goto out;
  struct file *fi = in->file, *fo = out->file;
  r = -EINVAL;
  if(!fi || !fo || fi->f_op || fo->f_op)
    goto out;
  if(S_ISDIR(fi->f_inode->i_mode) || S_ISDIR(fo->f_inode->i_mode)) {
    r = -EISDIR;
    goto out;
  }
  if(!S_ISREG(fi->f_inode->i_mode) || !S_ISREG(fo->f_inode->i_mode))
    goto out;
  u64 pin = uoff_in ? (u64)off_in : fi->f_pos, pout = uoff_out ? (u64)off_out : fo->f_pos;
  len = MIN(len, (u64)MAX_RW_COUNT);
  if((s64)pin < 0 || (s64)pout < 0 || pin + len < pin || pout + len < pout)
    goto out;
  if(fi->f_inode == fo->f_inode && pin < pout + len && pout < pin + len)
    goto out;   // overlapping ranges of one file
  r = 0;
  if(len && !(buf = (char *)__get_free_page(GFP_KERNEL))) {
    r = -ENOMEM;
    goto out;
  }
  u64 done = 0;
  while(done < len) {
    long got = vfs_pread(fi, buf, MIN(len - done, (u64)PAGE_SIZE), pin);
    long put = got > 0 ? vfs_pwrite(fo, buf, got, pout) : got;
    if(put <= 0) {
      r = put;
      break;
    }
    pin += put;
    pout += put;
    done += put;
    if(put < got || signal_pending(current))
      break;
    cond_resched();
  }
  if(done)
    r = done;
  if(done || !r) {   // the offsets move by what was copied
    if(uoff_in)
      r = put_user((s64)pin, (s64 *)uoff_in) ? -EFAULT : r;
    else
      fi->f_pos = pin;
    if(uoff_out)
      r = put_user((s64)pout, (s64 *)uoff_out) ? -EFAULT : r;
    else
      fo->f_pos = pout;
  }
out:
  if(buf)
    free_page((unsigned long)buf);
  if(in)
    fput(in);
  if(out)
    fput(out);
  return r;
}
