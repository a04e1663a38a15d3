// /dev/fd/N, /dev/std{in,out,err} and /proc/<pid>/fd/N (/proc/self/fd/N): Linux's "magic links"
// (proc_fd_link), whose open reaches the file the fd has rather than a name: bash's process
// substitution passes /dev/fd/63, scripts read /dev/stdin, ls -l reads the links. No name
// exists under the fd directories to walk to here (they are only listed): open, stat, statx,
// access, readlink and lstat match the whole absolute path, so a path that reaches them
// through another link, or from a relative start, is not one of them.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "proc_internal.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "uapi/fcntl.h"
#include "vsprintf.h"

// Whether path names an fd that way: true with *l set to the process and the fd. /dev/fd,
// /dev/std* and /proc/self/fd name the caller's; /proc/<pid>/fd another process's too, which
// every process here may reach, being root (Linux's ptrace-mode read check).
bool
fd_link_parse(const char *path, struct fd_link *l)
{
  static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
  for(int i = 0; i < 3; i++)
    if(!strcmp(path, std[i])) {
      *l = (struct fd_link){ current->proc->pid, i };
      return true;
    }
  return fd_link_entry(path, l);
}

bool
fd_link_entry(const char *path, struct fd_link *l)
{
  const char *p = NULL;
  int pid = current->proc->pid;
  if(!strncmp(path, "/dev/fd/", 8)) {
    p = path + 8;
  } else if(!strncmp(path, "/proc/self/fd/", 14)) {
    p = path + 14;
  } else if(!strncmp(path, "/proc/", 6) && path[6] >= '1' && path[6] <= '9') {
    const char *q = path + 6;
    int n = 0;
    while(*q >= '0' && *q <= '9' && n < 100000000)
      n = n * 10 + (*q++ - '0');
    if(strncmp(q, "/fd/", 4))
      return false;
    p = q + 4;
    pid = n;
  }
  if(!p || *p < '0' || *p > '9')
    return false;
  long n = 0;
  for(; *p >= '0' && *p <= '9' && n < (1 << 30); p++)
    n = n * 10 + (*p - '0');
  if(*p)
    return false;   // "/dev/fd/3x", "/dev/fd/3/": no such name
  *l = (struct fd_link){ pid, (int)n };
  return true;
}

// The open description l names, referenced: the caller's through fget, another process's
// through its table read under RCU; NULL when the process or the fd is gone.
struct ufile *
fd_link_get(const struct fd_link *l)
{
  if(l->pid == current->proc->pid)
    return fget(l->fd);
  rcu_read_lock();
  struct process *p = pid_process_rcu(l->pid);
  struct files *fs = p ? READ_ONCE(p->files) : NULL;   // freed a grace period after its put
  struct ufile *uf = fs ? files_fget_rcu(fs, l->fd) : NULL;
  rcu_read_unlock();
  return uf;
}

// open(2) of such a path (flags as open's): a new description of what fd has. The console
// again for the console; a new end of the same pipe, of the asked direction, for a pipe; the
// same file opened by its path for a file with one (the path from d_path: an unlinked file
// is ENOENT here, where Linux opens it all the same); ENXIO for anything else (an epoll fd).
// *f is the file for the caller to finish as open does (NULL for the console: *console set).
int
fd_link_open(const struct fd_link *l, u32 flags, struct file **f, bool *console)
{
  *f = NULL;
  *console = false;
  struct ufile *uf = fd_link_get(l);
  if(!uf)
    return -ENOENT;   // Linux: no such name in /proc/<pid>/fd
  int err = 0;
  u32 acc = flags & O_ACCMODE;
  struct file *file = uf->file;
  if(!file) {
    *console = true;
  } else if(is_pipe(file)) {
    if(acc == O_RDWR)
      err = -EINVAL;   // (a FIFO opened for both; not done here)
    else if(!(*f = pipe_reopen(file, acc)))
      err = -ENOMEM;
  } else if(file->f_dentry) {
    char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *path;
    long r = buf ? d_path(file->f_dentry, buf, PATH_MAX, &path) : -ENOMEM;
    if(r == 0)
      err = vfs_open_at(NULL, path, 0, 0, 0, f);
    else
      err = r == 1 ? -ENOENT : (int)r;
    kfree(buf);
  } else {
    err = -ENXIO;
  }
  fput(uf);
  return err;
}

// access(2) and the like of such a path: what fd N has, as fstat gives it (the console a
// character device); -ENOENT when fd is not open.
int
fd_link_stat(const struct fd_link *l, struct kstat *k)
{
  struct ufile *uf = fd_link_get(l);
  if(!uf)
    return -ENOENT;
  memset(k, 0, sizeof(*k));
  if(uf->file) {
    vfs_fstat(uf->file, k);
  } else {   // the console, as console_fstat (drivers/tty/console.c) gives it
    k->mode = S_IFCHR | 0620;
    k->nlink = 1;
    k->rdev = MKDEV(5, 1);
  }
  fput(uf);
  return 0;
}

// readlink(2) of /proc/self/fd/N: what Linux shows. The console by its node, a file by its
// path (" (deleted)" once unlinked, as d_path there), one with no path by its kind (f_op's
// dname: "pipe:[ino]", "anon_inode:[eventpoll]"). The length in buf (no NUL), or -errno.
int
fd_link_readlink(const struct fd_link *l, char *buf, size_t len)
{
  struct ufile *uf = fd_link_get(l);
  if(!uf)
    return -ENOENT;
  struct file *file = uf->file;
  char *tmp = kmalloc(PATH_MAX, GFP_KERNEL), *path = tmp;
  int n;
  if(!tmp) {
    fput(uf);
    return -ENOMEM;
  }
  if(!file) {
    n = scnprintf(tmp, PATH_MAX, "/dev/console");
  } else if(file->f_dentry) {
    long r = d_path(file->f_dentry, tmp, PATH_MAX - 12, &path);
    n = r < 0 ? (int)r : r == 1 ? -ENOENT : (int)strlen(path);   // 1: no mount leads there
    if(n > 0 && d_unlinked(file->f_dentry))
      n += scnprintf(path + n, 12, " (deleted)");
  } else if(file->f_op && file->f_op->dname) {
    n = file->f_op->dname(file, tmp, PATH_MAX);
  } else {
    n = scnprintf(tmp, PATH_MAX, "anon_inode:[%lu]", file->f_inode ? file->f_inode->i_ino : 0);
  }
  if(n > 0) {
    n = MIN((size_t)n, len);
    memcpy(buf, path, n);
  }
  kfree(tmp);
  fput(uf);
  return n;
}

// lstat(2) of such a name: the link itself, as Linux's proc_fd_link inodes: its mode says how
// the fd was opened (lr-x, l-wx, lrwx), its size is 64.
int
fd_link_lstat(const struct fd_link *l, struct kstat *k)
{
  struct ufile *uf = fd_link_get(l);
  if(!uf)
    return -ENOENT;
  u32 acc = uf->file ? uf->flags & O_ACCMODE : O_RDWR;   // the console: fds 0-2, read-write
  fput(uf);
  memset(k, 0, sizeof(*k));
  k->mode = S_IFLNK | (acc != O_WRONLY ? 0500 : 0) | (acc != O_RDONLY ? 0300 : 0);
  k->nlink = 1;
  k->size = 64;
  k->ino = (unsigned long)l->pid * NR_OPEN_MAX + l->fd + 1;   // one of its own
  return 0;
}
