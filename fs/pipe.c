// Pipes (man 7 pipe): a 64 KiB ring of pages between a read end and a write end. Reads and
// writes block on wait queues; a write of at most PIPE_BUF bytes goes in whole or waits;
// reads see end-of-file once the last writer has closed, writes get EPIPE and SIGPIPE once
// the last reader has. Linux's fs/pipe.c, with a byte ring instead of its page buffers.
#include "errno.h"
#include "uapi/fcntl.h"
#include "fdtable.h"
#include "fs.h"
#include "uapi/limits.h"
#include "mm.h"
#include "mutex.h"
#include "poll.h"
#include "process.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "vsprintf.h"
#include <asm/uaccess.h>

#define PIPE_DEF_BUFFERS 16                       // Linux's default: 16 pages
#define PIPE_SIZE (PIPE_DEF_BUFFERS * PAGE_SIZE)  // what F_GETPIPE_SZ reports

struct pipe_inode_info {
  struct mutex mutex;               // the ring's contents, head, tail, readers and writers
  struct wait_queue_head rd_wait;   // readers and pollers of the read end: data, or no writers
  struct wait_queue_head wr_wait;   // writers and pollers of the write end: room, or no readers
  // Bytes ever written and read (they wrap at 2^32, a multiple of PIPE_SIZE): head - tail are
  // in the ring. Written under mutex, then the other side's queue is woken; poll and the
  // wait conditions read them without it (a waker changes them before it wakes).
  u32 head, tail;
  int readers, writers;             // open ends; as head and tail
  int files;                        // atomic: ends not yet released; the last frees the pipe
  void *pages[PIPE_DEF_BUFFERS];    // the ring, each page allocated when first written
  struct inode *inode;              // fstat's: S_IFIFO, on pipefs
};

// pipefs: the superblock of every pipe's inode, never mounted (Linux's pipe_mnt). No path
// walk reaches its inodes, so they are freed at once.
static struct super_block pipe_sb = { .s_free = FREE_NOW };

static const struct file_operations pipe_read_fops, pipe_write_fops;

bool
is_pipe(struct file *f)
{
  return f && (f->f_op == &pipe_read_fops || f->f_op == &pipe_write_fops);
}

static u32
pipe_used(struct pipe_inode_info *pipe)
{
  u32 tail = READ_ONCE(pipe->tail);   // first: head only grows past it
  u32 used = READ_ONCE(pipe->head) - tail;
  return MIN(used, (u32)PIPE_SIZE);   // lockless: a read and a write between the two loads
}

static bool
can_read(struct pipe_inode_info *pipe, size_t need)
{
  return pipe_used(pipe) || !READ_ONCE(pipe->writers);
}

static bool
can_write(struct pipe_inode_info *pipe, size_t need)
{
  return PIPE_SIZE - pipe_used(pipe) >= need || !READ_ONCE(pipe->readers);
}

// Sleeps on wq, the mutex released, until ready: 0, or -ERESTARTSYS when a signal comes first
// (restarted under SA_RESTART, else EINTR; Linux's pipe_read and pipe_write) or the process
// is ending. A pipe may stay empty for ever by design: the hung-task check leaves it alone.
static int
pipe_wait(struct pipe_inode_info *pipe, struct wait_queue_head *wq,
          bool (*ready)(struct pipe_inode_info *, size_t), size_t need)
{
  return wait_event_interruptible_mutex(*wq, pipe->mutex, ready(pipe, need));
}

// SIGPIPE to the writing thread (pipe(7); Linux's send_sig(SIGPIPE, current, 0)): its
// default action ends the process on the way back to ring 3; ignored, only EPIPE remains.
static void
send_sigpipe(void)
{
  send_signal_thread(current, SIGPIPE);
}

// Copies n bytes of user memory (kernel memory for sendfile) in at head, allocating pages:
// the count copied (short at a fault or when no page is left), or -EFAULT/-ENOMEM when it is
// none. Under mutex.
static long
ring_fill(struct pipe_inode_info *pipe, const char *ubuf, size_t n, bool kernel)
{
  size_t done = 0;
  long err = 0;
  while(done < n) {
    u32 at = (pipe->head + (u32)done) % PIPE_SIZE;
    void **pg = &pipe->pages[at / PAGE_SIZE];
    if(!*pg && !(*pg = (void *)__get_free_page(GFP_KERNEL))) {
      err = -ENOMEM;
      break;
    }
    size_t off = at % PAGE_SIZE, c = MIN(PAGE_SIZE - off, n - done);
    size_t left = 0;
    if(kernel)
      memcpy((char *)*pg + off, ubuf + done, c);
    else
      left = copy_from_user((char *)*pg + off, ubuf + done, c);
    done += c - left;
    if(left) {
      err = -EFAULT;
      break;
    }
  }
  return done ? (long)done : err;
}

// Copies n bytes from tail out to user memory: the count, or -EFAULT when it is none.
static long
ring_drain(struct pipe_inode_info *pipe, char *ubuf, size_t n)
{
  size_t done = 0;
  while(done < n) {
    u32 at = (pipe->tail + (u32)done) % PIPE_SIZE;
    size_t off = at % PAGE_SIZE, c = MIN(PAGE_SIZE - off, n - done);
    size_t left = copy_to_user(ubuf + done, (char *)pipe->pages[at / PAGE_SIZE] + off, c);
    done += c - left;
    if(left)
      break;
  }
  return done ? (long)done : -EFAULT;
}

// What is there, up to len; waits only while the pipe is empty and has a writer.
static ssize_t
pipe_read(struct file *f, char *ubuf, size_t len, unsigned flags)
{
  struct pipe_inode_info *pipe = f->private_data;
  if(!len)
    return 0;
  long r;
  mutex_lock(&pipe->mutex);
  for(;;) {
    u32 used = pipe->head - pipe->tail;
    if(used) {
      r = ring_drain(pipe, ubuf, MIN(len, used));
      if(r > 0) {
        WRITE_ONCE(pipe->tail, pipe->tail + (u32)r);
        wake_up_all(&pipe->wr_wait);
      }
      break;
    }
    if(!pipe->writers) {
      r = 0;   // end of file
      break;
    }
    if(flags & O_NONBLOCK) {
      r = -EAGAIN;
      break;
    }
    if((r = pipe_wait(pipe, &pipe->rd_wait, can_read, 0)))
      break;
  }
  mutex_unlock(&pipe->mutex);
  return r;
}

bool pipe_planted_torn;   // planted-pipe-torn: writes split in halves, another writer between

// pipe(7): with O_NONBLOCK a write of at most PIPE_BUF bytes goes in whole or fails with
// EAGAIN, a longer one writes what fits (EAGAIN if nothing does); without it, a short write
// waits for room for all of it at once, a longer one for any room, until all is written.
static ssize_t
do_pipe_write(struct file *f, const char *ubuf, size_t len, unsigned flags, bool kernel)
{
  struct pipe_inode_info *pipe = f->private_data;
  if(!len)
    return 0;
  bool torn = READ_ONCE(pipe_planted_torn);
  size_t need = len <= PIPE_BUF && !torn ? len : 1;
  size_t done = 0;
  long err = 0;
  mutex_lock(&pipe->mutex);
  for(;;) {
    if(!pipe->readers) {
      send_sigpipe();
      err = -EPIPE;
      break;
    }
    u32 room = PIPE_SIZE - (pipe->head - pipe->tail);
    if(room >= need) {
      size_t want = MIN(room, len - done);
      if(torn && !done && want > 1)
        want /= 2;
      long r = ring_fill(pipe, ubuf + done, want, kernel);
      if(r < 0) {
        err = r;
        break;
      }
      WRITE_ONCE(pipe->head, pipe->head + (u32)r);
      wake_up_all(&pipe->rd_wait);
      done += r;
      if(done == len || (size_t)r < want)
        break;
      if(torn) {   // the bug: another writer may go between the halves
        mutex_unlock(&pipe->mutex);
        yield();
        mutex_lock(&pipe->mutex);
      }
      continue;
    }
    if(flags & O_NONBLOCK) {
      err = -EAGAIN;
      break;
    }
    if((err = pipe_wait(pipe, &pipe->wr_wait, can_write, need)))
      break;
  }
  mutex_unlock(&pipe->mutex);
  return done ? (ssize_t)done : err;
}

static ssize_t
pipe_write(struct file *f, const char *ubuf, size_t len, unsigned flags)
{
  return do_pipe_write(f, ubuf, len, flags, false);
}

ssize_t
pipe_write_kernel(struct file *f, const void *buf, size_t len, unsigned flags)
{
  return do_pipe_write(f, buf, len, flags, true);
}

// Linux's pipe_poll: the read end is readable with data and hung up with no writer; the
// write end is writable with room for PIPE_BUF bytes (Linux: a free page buffer) and in
// error with no reader.
static unsigned
pipe_poll(struct file *f, struct poll_table *pt)
{
  struct pipe_inode_info *pipe = f->private_data;
  unsigned mask = 0;
  if(f->f_op == &pipe_read_fops) {
    poll_wait(f, &pipe->rd_wait, pt);
    if(pipe_used(pipe))
      mask |= POLLIN | POLLRDNORM;
    if(!READ_ONCE(pipe->writers))
      mask |= POLLHUP;
  } else {
    poll_wait(f, &pipe->wr_wait, pt);
    if(PIPE_SIZE - pipe_used(pipe) >= PIPE_BUF)
      mask |= POLLOUT | POLLWRNORM;
    if(!READ_ONCE(pipe->readers))
      mask |= POLLERR;
  }
  return mask;
}

static void
free_pipe(struct pipe_inode_info *pipe)
{
  for(int i = 0; i < PIPE_DEF_BUFFERS; i++)
    if(pipe->pages[i])
      free_page((unsigned long)pipe->pages[i]);
  iput(pipe->inode);
  kfree(pipe);
}

// The last close of an end: the other side's sleepers and pollers learn of it. The pipe is
// freed by whichever end goes last, after both have let go of its mutex and queues.
static void
pipe_release(struct file *f)
{
  struct pipe_inode_info *pipe = f->private_data;
  mutex_lock(&pipe->mutex);
  if(f->f_op == &pipe_read_fops)
    pipe->readers--;
  else
    pipe->writers--;
  wake_up_all(&pipe->rd_wait);
  wake_up_all(&pipe->wr_wait);
  mutex_unlock(&pipe->mutex);
  if(__atomic_sub_fetch(&pipe->files, 1, __ATOMIC_ACQ_REL) == 0)
    free_pipe(pipe);
}

// Linux's pipefs_dname.
static int
pipe_dname(struct file *f, char *buf, size_t len)
{
  return scnprintf(buf, len, "pipe:[%lu]", f->f_inode->i_ino);
}

static const struct file_operations pipe_read_fops = {
  .dname = pipe_dname,
  .read_user = pipe_read,
  .poll = pipe_poll,
  .release = pipe_release,
};

static const struct file_operations pipe_write_fops = {
  .dname = pipe_dname,
  .write_user = pipe_write,
  .poll = pipe_poll,
  .release = pipe_release,
};

struct file *
pipe_reopen(struct file *end, u32 acc)
{
  struct pipe_inode_info *pipe = end->private_data;
  struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);
  if(!f)
    return NULL;
  mutex_lock(&pipe->mutex);
  if(acc == O_RDONLY)
    pipe->readers++;
  else
    pipe->writers++;
  __atomic_add_fetch(&pipe->files, 1, __ATOMIC_RELAXED);   // end's keeps it above 0
  mutex_unlock(&pipe->mutex);
  f->f_count = 1;
  f->f_inode = pipe->inode;
  f->f_op = acc == O_RDONLY ? &pipe_read_fops : &pipe_write_fops;
  f->private_data = pipe;
  return f;
}

long
pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg)
{
  if(!is_pipe(f))
    return -EBADF;   // as Linux's get_pipe_info fails
  return cmd == F_GETPIPE_SZ ? (long)PIPE_SIZE : -EINVAL;
}

int
create_pipe_files(struct file *res[2])
{
  struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe), GFP_KERNEL);
  struct file *r = kzalloc(sizeof(*r), GFP_KERNEL);
  struct file *w = kzalloc(sizeof(*w), GFP_KERNEL);
  struct inode *inode = new_inode(&pipe_sb, S_IFIFO | 0600);
  if(inode)
    inode->i_nlink = 0;   // no name: the last iput frees it
  if(!pipe || !r || !w || !inode) {
    iput(inode);
    kfree(pipe);
    kfree(r);
    kfree(w);
    return -ENOMEM;
  }
  mutex_init(&pipe->mutex);
  init_waitqueue_head(&pipe->rd_wait);
  init_waitqueue_head(&pipe->wr_wait);
  pipe->readers = pipe->writers = 1;
  pipe->files = 2;
  pipe->inode = inode;
  r->f_count = w->f_count = 1;   // each end's one opener (vfs_close drops it)
  r->f_inode = w->f_inode = inode;
  r->f_op = &pipe_read_fops;
  w->f_op = &pipe_write_fops;
  r->private_data = w->private_data = pipe;
  res[0] = r;
  res[1] = w;
  return 0;
}

// pipe and pipe2 (man 2 pipe): a new pipe's read and write ends at the two lowest free fds,
// O_RDONLY and O_WRONLY, with O_CLOEXEC and O_NONBLOCK as asked.
long
sys_pipe2(u64 ufds, u64 flags)
{
  // O_DIRECT's packet mode is not implemented: refused, as Linux before 3.4 refused it.
  if(flags & ~(u64)(O_CLOEXEC | O_NONBLOCK))
    return -EINVAL;
  struct file *f[2];
  int err = create_pipe_files(f);
  if(err)
    return err;
  u32 nb = flags & O_NONBLOCK;
  struct ufile *r = ufile_alloc(f[0], nb);
  struct ufile *w = r ? ufile_alloc(f[1], O_WRONLY | nb) : NULL;
  if(!w) {
    if(r)
      fput(r);
    else
      vfs_close(f[0]);
    vfs_close(f[1]);
    return -ENOMEM;
  }
  bool cloexec = flags & O_CLOEXEC;
  int fds[2];
  fds[0] = fd_install(r, 0, cloexec);
  if(fds[0] < 0) {
    fput(r);
    fput(w);
    return fds[0];
  }
  fds[1] = fd_install(w, 0, cloexec);
  if(fds[1] < 0) {
    fd_close(fds[0]);
    fput(w);
    return fds[1];
  }
  // Linux copies the fds out before it installs them; here they are closed again, so a
  // bad pointer leaves no fd behind either.
  if(copy_to_user((void *)ufds, fds, sizeof(fds))) {
    fd_close(fds[0]);
    fd_close(fds[1]);
    return -EFAULT;
  }
  return 0;
}

long
sys_pipe(u64 ufds)
{
  return sys_pipe2(ufds, 0);
}
