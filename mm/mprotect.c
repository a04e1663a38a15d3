// mprotect: new rights for a range of VMAs (split at its ends, merged again afterwards) and
// for the PTEs already present in it, flushed from every CPU of the mm (Linux's mm/mprotect.c).
#include "errno.h"
#include <asm/memlayout.h>
#include "mm.h"
#include <asm/paging.h>
#include "sched.h"
#include "slab.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "vm.h"

// Linux's mprotect(2): ENOMEM when part of the range is unmapped (nothing is changed then),
// EINVAL for a misaligned start or unknown bits, EACCES for write access to a shared mapping
// of a file opened read-only (no VM_MAYWRITE; nothing is changed then either).
int
vm_mprotect(struct mm *mm, unsigned long start, size_t len, int prot)
{
  if(start % PAGE_SIZE || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
    return -EINVAL;
  len = ALIGN_UP(len, PAGE_SIZE);
  unsigned long end = start + len;
  if(end < start || end > USER_END)
    return -ENOMEM;
  if(len == 0)
    return 0;
  struct vma *spare[2] = { vma_alloc(), vma_alloc() };
  int err = 0;
  if(!spare[0] || !spare[1]) {
    err = -ENOMEM;
    goto out_free;
  }
  mmap_write_lock(mm);
  // The VMAs cut at start and end: past MAX_MAP_COUNT nothing is changed (Linux's split_vma).
  struct vma *first = find_vma(mm, start), *last = find_vma(mm, end - 1);
  int cuts = (first && first->start < start) + (last && last->start < end && last->end > end);
  if(mm->nr_vmas + cuts > MAX_MAP_COUNT) {
    mmap_write_unlock(mm);
    err = -ENOMEM;
    goto out_free;
  }
  unsigned long a = start;
  unsigned long vm = vm_flags_from_prot(prot);
  for(struct vma *v = find_vma(mm, start); v && v->start < end && a < end; v = vma_next(mm, v)) {
    if(v->start > a)
      break;
    if((vm & VM_WRITE) && !(v->flags & VM_MAYWRITE))
      err = -EACCES;
    a = v->end;
  }
  if(a < end)
    err = -ENOMEM;
  if(err)
    goto out;
  vma_split_at(mm, start, &spare[0]);
  vma_split_at(mm, end, &spare[1]);
  // Each page gets its VMA's rights as vma_present_prot gives them: a private file mapping's
  // page-cache pages stay read-only, so that a write still copies them, and so do a shared
  // file mapping's pages not yet written (Linux: vma_wants_writenotify), so that the first
  // write still goes through page_mkwrite.
  for(struct vma *v = find_vma(mm, start); v && v->start < end; v = vma_next(mm, v)) {
    vma_start_write(mm, v);
    v->flags = (v->flags & ~VM_PROT) | vm;
    // A page table at a time, under its lock; one without a table is skipped whole.
    for(unsigned long p = v->start; p < v->end;) {
      unsigned long span_end = MIN(v->end, ALIGN_DOWN(p, PMD_SIZE) + PMD_SIZE);
      spinlock_t *ptl;
      u64 *pte = pte_offset_map_lock(mm, p, &ptl);
      if(!pte) {
        p = span_end;
        continue;
      }
      for(; p < span_end; p += PAGE_SIZE, pte++)
        if(*pte & PTE_P)   // write access is added by the next write fault, which copies
                           // a page still shared since a fork (mm/cow.c) or goes through
                           // page_mkwrite (mm/memory.c)
          WRITE_ONCE(*pte, (*pte & (PTE_ADDR | PTE_A | PTE_D)) |
                           (vma_present_prot(mm, v, *pte) &
                            (~PTE_W | (*pte & PTE_W))));
      spin_unlock(ptl);
    }
  }
  flush_tlb_range(mm, start, end);
  vma_merge_range(mm, start, end);
out:
  mmap_write_unlock(mm);
out_free:
  kfree(spare[0]);
  kfree(spare[1]);
  return err;
}

long
sys_mprotect(u64 addr, u64 len, u64 prot)
{
  if(addr % PAGE_SIZE == 0 && len && len <= USER_END && beyond_task_size(addr, len))
    return -ENOMEM;
  return vm_mprotect(current->mm, addr, len, (int)prot);
}
