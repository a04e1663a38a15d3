// Truncating a mapped file: every VMA that maps a file is on its inode's i_mmap list, and
// unmap_mapping_range zaps their pages past the new end (Linux's mm/truncate.c and i_mmap).
#include "fs.h"
#include "vm.h"

void
vma_link_file(struct mm *mm, struct vma *v)
{
  struct inode *inode = v->file->f_inode;
  v->mm = mm;
  spin_lock(&inode->i_mmap_lock);
  list_add_tail(&v->i_mmap_link, &inode->i_mmap);
  spin_unlock(&inode->i_mmap_lock);
}

void
vma_unlink_file(struct vma *v)
{
  struct inode *inode = v->file->f_inode;
  spin_lock(&inode->i_mmap_lock);
  list_del(&v->i_mmap_link);
  spin_unlock(&inode->i_mmap_lock);
}

// Every page that inode's mappings map at file page from or beyond, in every mm, anonymous
// copies of private mappings included (Linux's unmap_mapping_range with even_cows, as
// truncate_pagecache calls it). The zap sleeps (its flush waits for other CPUs), so one mm
// at a time is taken, with a reference, under the list's lock, and walked under its own
// mmap_sem for reading, where its VMAs cannot change; each VMA done is marked with this
// call's number, until no VMA of a live mm is left unmarked. A VMA made meanwhile faults only
// after the caller's new i_size, so it maps nothing past it anyway. The caller holds i_mutex
// (before mmap_sem, as a write that faults on its user buffer takes them).
void
unmap_mapping_range(struct inode *inode, unsigned long from)
{
  unsigned long gen = ++inode->i_mmap_gen;
  for(;;) {
    struct mm *mm = NULL;
    struct vma *v;
    spin_lock(&inode->i_mmap_lock);
    list_for_each_entry(v, &inode->i_mmap, i_mmap_link) {
      if(v->unmap_gen == gen)
        continue;
      v->unmap_gen = gen;   // an mm being torn down is zapping its pages itself
      if(mmget_not_zero(v->mm)) {
        mm = v->mm;
        break;
      }
    }
    spin_unlock(&inode->i_mmap_lock);
    if(!mm)
      return;
    down_read(&mm->mmap_sem);
    // A VMA being unmapped (mm/munmap.c) still maps its pages: zapped here too.
    for(v = __find_vma(mm, 0); v; v = __find_vma(mm, v->end)) {
      if(!v->file || v->file->f_inode != inode)
        continue;
      WRITE_ONCE(v->unmap_gen, gen);
      unsigned long pages = (v->end - v->start) >> PAGE_SHIFT;
      if(v->pgoff + pages > from) {
        unsigned long skip = from > v->pgoff ? from - v->pgoff : 0;
        zap_page_range(mm, v->start + (skip << PAGE_SHIFT), v->end);
      }
    }
    up_read(&mm->mmap_sem);
    mmput(mm);
  }
}
