// fadvise64 (man 2 posix_fadvise): advice on how a file will be read. Every file here lives in
// its page cache for good (ramfs), so, as Linux for a file with no backing device
// (mm/fadvise.c generic_fadvise, noop_backing_dev_info), the advice is checked and dropped.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "syscalls.h"
#include "uapi/fcntl.h"

long
sys_fadvise64(u64 fd, u64 offset, u64 len, u64 advice)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  bool pipe = uf->file && uf->file->f_inode && S_ISFIFO(uf->file->f_inode->i_mode);
  fput(uf);
  if(pipe)
    return -ESPIPE;
  if((s64)len < 0)
    return -EINVAL;
  switch((int)advice) {
  case POSIX_FADV_NORMAL: case POSIX_FADV_RANDOM: case POSIX_FADV_SEQUENTIAL:
  case POSIX_FADV_WILLNEED: case POSIX_FADV_DONTNEED: case POSIX_FADV_NOREUSE:
    return 0;
  default:
    return -EINVAL;
  }
}
