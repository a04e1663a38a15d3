// ioctl(2) on an fd: the terminal's requests go to the console (drivers/tty/), everything else
// is ENOTTY, as Linux answers for a file without an ioctl (fs/ioctl.c).
#include "errno.h"
#include "fdtable.h"
#include "syscalls.h"
#include "tty.h"
#include <asm/uaccess.h>

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
