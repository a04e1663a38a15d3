// getcwd (man 2 getcwd): the working directory's path, kept as a string by chdir (fs/open.c)
// (Linux's fs/d_path.c builds it from the dentries instead).
#include "errno.h"
#include "fdtable.h"
#include "process.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// The raw call returns the length with the NUL (getcwd(2)).
long
sys_getcwd(u64 buf, u64 size)
{
  struct files *fs = current->proc->files;
  char cwd[CWD_MAX];
  spin_lock(&fs->lock);
  memcpy(cwd, fs->cwd, CWD_MAX);
  spin_unlock(&fs->lock);
  u64 n = strlen(cwd) + 1;
  if(size < n)
    return -ERANGE;
  return copy_to_user((void *)buf, cwd, n) ? -EFAULT : (long)n;
}
