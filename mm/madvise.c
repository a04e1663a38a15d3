// madvise: MADV_DONTNEED unmaps and frees at once, MADV_FREE only marks pages clean and lets
// reclaim drop them later (Rik van Riel's 2007 lazy-free patch; merged in Linux 4.5).
#include "cmdline.h"
#include "errno.h"
#include "mm.h"
#include "reclaim.h"
#include <asm/paging.h>
#include "rwsem.h"
#include "sched.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "vm.h"

// Nick Piggin's "mm: madvise avoid exclusive mmap_sem" (2007): madvise needs only the read
// side, since it changes PTEs under the page-table lock and never the VMA tree. The switch
// brings back the exclusive lock to measure the difference in one boot.
bool madvise_exclusive;

// A page unmapped since it was batched (its mm link cleared) is left to the unmapper. The
// hand-over is made under the lock of the page's page table, which lazyfree_evict takes to
// look at the page (mm/lazyfree.c); a page's address (page->index) holds still under
// mmap_sem, which keeps mremap out. Pages of one table, as a batch's mostly are, share one
// lookup and acquisition of its lock, and go to the LRU LRU_BATCH at a time under it.
static void
lazyfree_batch(struct mmu_gather *tlb)
{
  struct mm *mm = tlb->mm;
  if(tlb->start < tlb->end)   // tlb_gather_flush's, with per-core copies cleaned, not cleared
    flush_tlb_range_clean(mm, tlb->start, tlb->end);
  tlb->start = ~0UL;
  tlb->end = 0;
  spinlock_t *held = NULL, *ptl = NULL;
  unsigned long span = 1;   // no span: spans are PMD_SIZE-aligned
  struct page *group[LRU_BATCH];
  int n = 0;
  for(unsigned i = 0; i < tlb->n; i++) {
    struct page *page = tlb->pages[i];
    if(READ_ONCE(page->private) != (unsigned long)mm)
      continue;
    if(ALIGN_DOWN(page->index, PMD_SIZE) != span) {
      span = ALIGN_DOWN(page->index, PMD_SIZE);
      ptl = pte_lockptr(mm, pte_lookup(mm, page->index));
    }
    if(ptl != held || n == LRU_BATCH) {
      anon_pages_lazyfree(group, n);
      n = 0;
    }
    if(ptl != held) {
      if(held)
        spin_unlock(held);
      spin_lock(ptl);
      held = ptl;
    }
    // A page still handed over from an earlier MADV_FREE (redirtied since, or not) needs no
    // second hand-over: its PTE is clean again, which is all reclaim looks at, and under this
    // lock PG_lazyfree is set only while it is on the LRU as lazy or held by reclaim, which
    // asks lazyfree_evict (it clears the flag under this lock). Linux's mark_page_lazyfree
    // skips such a page too (!PageSwapBacked); moving it cost the LRU lock once a page per
    // transaction: 12% of the madvise suite's free-rlock samples at 8 threads spun on it.
    if(page->private == (unsigned long)mm && !page_flag(page, PG_lazyfree))
      group[n++] = page;
  }
  anon_pages_lazyfree(group, n);
  if(held)
    spin_unlock(held);
  for(unsigned i = 0; i < tlb->n; i++)
    put_page(tlb->pages[i]);
  tlb->n = 0;
}

// Clears the dirty and accessed bits of a resident page (atomically: the hardware may set
// them meanwhile). The page is held by a reference while it is in the batch: a concurrent
// MADV_DONTNEED under the shared mmap_sem may unmap it.
static struct page *
lazyfree_pte(struct mm *mm, u64 *pte)
{
  u64 old = __atomic_fetch_and(pte, ~(PTE_A | PTE_D), __ATOMIC_RELAXED);
  struct page *page = pfn_to_page((old & PTE_ADDR) >> PAGE_SHIFT);
  get_page(page);
  return page;
}

// Cleans every resident page, flushes them out of every TLB once per batch, then hands the
// pages to reclaim.
static void
madvise_free(struct mm *mm, unsigned long start, unsigned long end)
{
  walk_present_ptes(mm, start, end, lazyfree_pte, lazyfree_batch);
}

int
madvise(struct mm *mm, unsigned long start, size_t len_in, int advice)
{
  return madvise_locked(mm, start, len_in, advice, READ_ONCE(madvise_exclusive));
}

// The checks and errnos of Linux's madvise(2): EINVAL for an unknown advice, a misaligned
// start or a wrapping range; ENOMEM if part of the range is unmapped (the mapped parts
// are still advised). MADV_FREE is for anonymous memory only: EINVAL on a file mapping,
// where it stops (Linux's madvise_free_single_vma); DONTNEED drops a file mapping's pages
// from it, and the next touch maps the file's again.
int
madvise_locked(struct mm *mm, unsigned long start, size_t len_in, int advice, bool exclusive)
{
  if(advice != MADV_DONTNEED && advice != MADV_FREE)
    return -EINVAL;
  if(start % PAGE_SIZE)
    return -EINVAL;
  size_t len = ALIGN_UP(len_in, PAGE_SIZE);
  if(len_in && !len)
    return -EINVAL;
  unsigned long end = start + len;
  if(end < start)
    return -EINVAL;
  if(end == start)
    return 0;
  if(exclusive)
    mmap_write_lock(mm);
  else
    down_read(&mm->mmap_sem);
  int err = 0;
  unsigned long a = start;
  for(struct vma *v = find_vma(mm, start); v && v->start < end; v = vma_next(mm, v)) {
    if(v->start > a)
      err = -ENOMEM;
    if(advice == MADV_FREE && v->file) {
      err = -EINVAL;
      break;
    }
    unsigned long s = MAX(a, v->start), e = MIN(end, v->end);
    if(advice == MADV_DONTNEED)
      zap_page_range(mm, s, e);
    else
      madvise_free(mm, s, e);
    a = e;
  }
  if(a < end && err != -EINVAL)
    err = -ENOMEM;
  if(exclusive)
    mmap_write_unlock(mm);
  else
    up_read(&mm->mmap_sem);
  return err;
}

// DONTNEED and FREE do their work, under mmap_sem taken as madvise.lock= says (read by
// default, as Linux since 2.6.2x; write as before Nick Piggin's 2007 patch); the hints Linux
// accepts on anonymous memory are accepted and change nothing; the rest are EINVAL.
long
sys_madvise(u64 addr, u64 len, u64 advice)
{
  if(advice == MADV_DONTNEED || advice == MADV_FREE) {
    enter_lazy_tlb();   // no user memory touched: other CPUs' shootdowns may wait for the end
    long err = madvise_locked(current->mm, addr, len, (int)advice, kcmdline.madvise_lock_write);
    leave_lazy_tlb();
    return err;
  }
  if(addr % PAGE_SIZE)
    return -EINVAL;
  if(advice <= MADV_WILLNEED || (advice >= 10 && advice <= 21 && advice != 18))
    return 0;
  return -EINVAL;
}
