// fsync, fdatasync, sync and syncfs (man 2 fsync, sync): ramfs has no backing store, so each
// checks its fd as Linux does and returns (Linux's fs/sync.c).
#include "errno.h"
#include "fdtable.h"
#include "syscalls.h"
#include <asm/uaccess.h>

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

// sync(2) and syncfs(2) write the page cache back to the devices under it; ramfs has none,
// its page cache is the files themselves, so there is nothing to write (as msync).
long
sys_sync(void)
{
  return 0;
}

long
sys_syncfs(u64 fd)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  fput(uf);
  return 0;
}
