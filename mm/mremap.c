// mremap(2): grow, shrink or move a mapping, as glibc's realloc of a large block calls it; the
// argument checks here, the VMA work in mm/vma.c (vm_mremap).
#include "errno.h"
#include <asm/memlayout.h>
#include "sched.h"
#include "syscalls.h"
#include <asm/uaccess.h>

long
sys_mremap(u64 addr, u64 old_len, u64 new_len, u64 flags, u64 new_addr)
{
  if(flags & MREMAP_FIXED && new_len && new_len <= USER_END &&
     beyond_task_size(new_addr, new_len))
    return -EINVAL;
  return vm_mremap(current->mm, addr, old_len, new_len, (int)flags, new_addr);
}
