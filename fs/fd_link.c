// /dev/fd/N, /dev/stdin, /dev/stdout, /dev/stderr and /proc/self/fd/N (and /proc/<own pid>/fd/N):
// Linux's "magic links" (proc_fd_link), whose open reaches the file fd N has rather than a name:
// bash's process substitution passes /dev/fd/63, scripts read /dev/stdin. No name exists under
// these directories to walk to here: open and stat match the whole absolute path, so a path
// that reaches them through another link, or from a relative start, is not one of them.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "uapi/fcntl.h"

// Whether path names fd N of the caller that way: true with *fd set. Another process's fds
// (/proc/<pid>/fd/N) are not reached: -EACCES in *fd's stead, as for a process that may not.
bool
fd_link_parse(const char *path, int *fd)
{
  static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
  for(int i = 0; i < 3; i++)
    if(!strcmp(path, std[i])) {
      *fd = i;
      return true;
    }
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
    pid = n == pid ? pid : -1;
  }
  if(!p || *p < '0' || *p > '9')
    return false;
  long n = 0;
  for(; *p >= '0' && *p <= '9' && n < (1 << 30); p++)
    n = n * 10 + (*p - '0');
  if(*p)
    return false;   // "/dev/fd/3x", "/dev/fd/3/": no such name
  *fd = pid < 0 ? -EACCES : (int)n;
  return true;
}

// open(2) of such a path (flags as open's): a new description of what fd has. The console
// again for the console; a new end of the same pipe, of the asked direction, for a pipe; the
// same file opened by its path for a file with one (the path from d_path: an unlinked file
// is ENOENT here, where Linux opens it all the same); ENXIO for anything else (an epoll fd).
// *f is the file for the caller to finish as open does (NULL for the console: *console set).
int
fd_link_open(int fd, u32 flags, struct file **f, bool *console)
{
  *f = NULL;
  *console = false;
  if(fd < 0)
    return fd;
  struct ufile *uf = fget(fd);
  if(!uf)
    return -ENOENT;   // Linux: no such name in /proc/self/fd
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
fd_link_stat(int fd, struct kstat *k)
{
  if(fd < 0)
    return fd;
  struct ufile *uf = fget(fd);
  if(!uf)
    return -ENOENT;
  memset(k, 0, sizeof(*k));
  if(uf->file)
    vfs_fstat(uf->file, k);
  else
    k->mode = S_IFCHR | 0620;
  fput(uf);
  return 0;
}
