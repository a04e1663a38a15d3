// dup, dup2, dup3 and fcntl (man 2 dup, fcntl) on the process's fd table (fs/file.c): copies of
// fds, the close-on-exec bit, the status flags, a pipe's size and record locks (fs/locks.c)
// (Linux's fs/fcntl.c, fs/file.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "syscalls.h"
#include <asm/uaccess.h>

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
  int fd = fd_install(uf, (int)from, cloexec);   // from < RLIMIT_NOFILE <= NR_OPEN_MAX
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
  if(flags & ~(u64)O_CLOEXEC)
    return -EINVAL;
  if(oldfd == newfd)
    return -EINVAL;
  struct ufile *uf = fget((int)oldfd);
  if(!uf)
    return -EBADF;
  if(newfd >= rlimit(RLIMIT_NOFILE)) {   // dup2(2): EBADF; or negative as an int
    fput(uf);
    return -EBADF;
  }
  return fd_replace((int)newfd, uf, flags & O_CLOEXEC);
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
      uf->flags = (uf->flags & ~(O_APPEND | O_NONBLOCK)) | (arg & (O_APPEND | O_NONBLOCK));
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
  case F_GETLK:
  case F_SETLK:
  case F_SETLKW:
  case F_OFD_GETLK:
  case F_OFD_SETLK:
  case F_OFD_SETLKW:
    return fcntl_lock(fd, cmd, arg);
  default: {
    struct ufile *uf = fget((int)fd);
    if(!uf)
      return -EBADF;
    fput(uf);
    return -EINVAL;
  }
  }
}
