// Memory system calls of a process: brk, mmap (anonymous), munmap, mprotect, madvise, over
// mm/mmap.c and mm/madvise.c with Linux's argument checks.
#include "errno.h"
#include "process.h"
#include "sched.h"
#include "syscalls.h"
#include "vm.h"
#include <asm/memlayout.h>

#define MADV_NORMAL 0
#define MADV_WILLNEED 3
#define MADV_REMOVE 9
#define MADV_HWPOISON 100

// brk(2): the raw call returns the new break, or the old one on any failure (brk(2), "C library/kernel differences").
// The heap grows by MAP_FIXED_NOREPLACE, so it never overwrites another mapping, and the
// mprotect merges the new piece into the heap's VMA.
long
sys_brk(u64 addr)
{
  struct process *p = current->proc;
  struct mm *mm = current->mm;
  if(addr < p->brk_start || addr >= MMAP_BASE)
    return p->brk;
  u64 old = ALIGN_UP(p->brk, PAGE_SIZE), new = ALIGN_UP(addr, PAGE_SIZE);
  if(new > old) {
    long r = vm_mmap(mm, old, new - old, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
    if(r < 0)
      return p->brk;
    if(old > p->brk_start)
      vm_mprotect(mm, old - PAGE_SIZE, new - old + PAGE_SIZE, PROT_READ | PROT_WRITE);
  } else if(new < old) {
    vm_munmap(mm, new, old - new);
  }
  p->brk = addr;
  return addr;
}

// Flags Linux's mmap ignores (MAP_POPULATE, MAP_LOCKED and the rest) are dropped here;
// a file mapping waits for the VFS to give processes file descriptors.
// Linux's TASK_SIZE: the top page below 2^47 is never mapped (so that SYSRET never returns
// to a non-canonical address), and a range reaching into it is refused as Linux refuses it.
static bool
beyond_task_size(u64 addr, u64 len)
{
  return addr >= USER_STACK_TOP || ALIGN_UP(len, PAGE_SIZE) > USER_STACK_TOP - addr;
}

long
sys_mmap(u64 addr, u64 len, u64 prot, u64 flags, u64 fd, u64 off)
{
  if(off % PAGE_SIZE)
    return -EINVAL;
  if((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && len && beyond_task_size(addr, len))
    return -ENOMEM;
  if(!(flags & MAP_ANONYMOUS))
    return (int)fd < 0 ? -EBADF : -ENODEV;
  flags &= MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
  if(flags & MAP_FIXED)
    flags &= ~MAP_FIXED_NOREPLACE;
  return vm_mmap(current->mm, addr, len, (int)prot, (int)flags);
}

long
sys_munmap(u64 addr, u64 len)
{
  if(len && len <= USER_END && beyond_task_size(addr, len))
    return -EINVAL;
  return vm_munmap(current->mm, addr, len);
}

long
sys_mprotect(u64 addr, u64 len, u64 prot)
{
  if(addr % PAGE_SIZE == 0 && len && len <= USER_END && beyond_task_size(addr, len))
    return -ENOMEM;
  return vm_mprotect(current->mm, addr, len, (int)prot);
}

// DONTNEED and FREE do their work; the hints Linux accepts on anonymous memory are accepted
// and change nothing; the rest are EINVAL.
long
sys_madvise(u64 addr, u64 len, u64 advice)
{
  if(advice == MADV_DONTNEED || advice == MADV_FREE)
    return madvise(current->mm, addr, len, (int)advice);
  if(addr % PAGE_SIZE)
    return -EINVAL;
  if(advice <= MADV_WILLNEED || (advice >= 10 && advice <= 21 && advice != 18))
    return 0;
  return -EINVAL;
}
