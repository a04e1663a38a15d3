// pipe and pipe2 (man 2 pipe): a new pipe's read and write ends (fs/pipe.c) at the two
// lowest free fds, O_RDONLY and O_WRONLY, with O_CLOEXEC and O_NONBLOCK as asked.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// Linux's values (asm-generic/fcntl.h).
#define L_O_WRONLY   01
#define L_O_NONBLOCK 04000
#define L_O_DIRECT   040000
#define L_O_CLOEXEC  02000000

long
sys_pipe2(u64 ufds, u64 flags)
{
  // O_DIRECT's packet mode is not implemented: refused, as Linux before 3.4 refused it.
  if(flags & ~(u64)(L_O_CLOEXEC | L_O_NONBLOCK))
    return -EINVAL;
  struct file *f[2];
  int err = create_pipe_files(f);
  if(err)
    return err;
  u32 nb = flags & L_O_NONBLOCK;
  struct ufile *r = ufile_alloc(f[0], nb, NULL);
  struct ufile *w = r ? ufile_alloc(f[1], L_O_WRONLY | nb, NULL) : NULL;
  if(!w) {
    if(r)
      fput(r);
    else
      vfs_close(f[0]);
    vfs_close(f[1]);
    return -ENOMEM;
  }
  bool cloexec = flags & L_O_CLOEXEC;
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
