// msync(2): ramfs pages have no backing store, so msync checks its flags and range as Linux
// does (MS_ASYNC and MS_SYNC exclusive, ENOMEM on a hole) and writes nothing (Linux's mm/msync.c).
#include "errno.h"
#include <asm/memlayout.h>
#include "sched.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// msync(2) checks its arguments and the range as Linux does (EINVAL, ENOMEM for a hole), and
// has nothing to write: a ramfs file's page cache is the file itself, with no backing store
// behind it, and a MAP_SHARED mapping maps those very pages, so a store through it is
// already what read(2) sees. msync(2): "msync() flushes changes made to the in-core copy of
// a file that was mapped into memory ... back to the filesystem"; here there is no other copy.
long
sys_msync(u64 addr, u64 len, u64 flags)
{
  if(addr % PAGE_SIZE || (flags & ~(u64)(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
     ((flags & MS_ASYNC) && (flags & MS_SYNC)))
    return -EINVAL;
  u64 end = addr + ALIGN_UP(len, PAGE_SIZE);
  if(end < addr)
    return -ENOMEM;
  struct mm *mm = current->mm;
  long err = 0;
  down_read(&mm->mmap_sem);
  u64 a = addr;
  for(struct vma *v = find_vma(mm, addr); a < end; v = vma_next(mm, v)) {
    if(!v || v->start > a) {
      err = -ENOMEM;   // Linux goes on past a hole, and reports it at the end
      if(!v)
        break;
    }
    a = v->end;
  }
  up_read(&mm->mmap_sem);
  return err;
}
