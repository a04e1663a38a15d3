// mincore(2): which pages of a range are resident: a present PTE, or for a file mapping a
// page in the file's page cache, as Linux answers (mm/mincore.c).
#include "errno.h"
#include "fs.h"
#include "mm.h"
#include <asm/paging.h>
#include "rwsem.h"
#include "sched.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "vm.h"

// Fills vec[0..n) for the pages from start, stopping at the end of the VMA that holds
// start: how many it filled, or -ENOMEM if no VMA holds start. The caller copies vec out
// with mmap_sem dropped, since a fault on the user's buffer takes it again.
long
vm_mincore(struct mm *mm, unsigned long start, unsigned long n, u8 *vec)
{
  down_read(&mm->mmap_sem);
  struct vma *v = find_vma(mm, start);
  if(!v || v->start > start) {
    up_read(&mm->mmap_sem);
    return -ENOMEM;
  }
  n = MIN(n, (v->end - start) >> PAGE_SHIFT);
  for(unsigned long i = 0; i < n; i++) {
    unsigned long a = start + i * PAGE_SIZE;
    spinlock_t *ptl;
    u64 *pte = pte_offset_map_lock(mm, a, &ptl);
    vec[i] = pte && (*pte & PTE_P);
    if(pte)
      spin_unlock(ptl);
    if(!vec[i] && v->file) {
      unsigned long index = v->pgoff + ((a - v->start) >> PAGE_SHIFT);
      struct page *page = find_get_page(&v->file->f_inode->i_data, index);
      if(page) {
        vec[i] = 1;
        put_page(page);
      }
    }
  }
  up_read(&mm->mmap_sem);
  return n;
}

// mincore(2): ENOMEM for a range past user space or with an unmapped page, EFAULT for vec,
// one byte per page (bit 0: resident). A chunk at a time, copied out with mmap_sem dropped.
long
sys_mincore(u64 start, u64 len, u64 vec)
{
  if(start % PAGE_SIZE)
    return -EINVAL;
  if(len > USER_END || start > USER_END - len)
    return -ENOMEM;
  u64 pages = ALIGN_UP(len, PAGE_SIZE) >> PAGE_SHIFT;
  if(vec >= USER_END || pages > USER_END - vec)
    return -EFAULT;
  u8 *buf = (u8 *)__get_free_page(GFP_KERNEL);
  if(!buf)
    return -EAGAIN;   // Linux's answer when its buffer page cannot be had
  long err = 0;
  while(pages) {
    long n = vm_mincore(current->mm, start, MIN(pages, PAGE_SIZE), buf);
    if(n < 0) {
      err = n;
      break;
    }
    if(copy_to_user((void *)vec, buf, n)) {
      err = -EFAULT;
      break;
    }
    vec += n;
    start += n * PAGE_SIZE;
    pages -= n;
  }
  free_page((unsigned long)buf);
  return err;
}
