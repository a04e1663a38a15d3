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

// madvise.lock=vma, the default: a range that lies in one VMA is advised under that VMA's
// lock alone, found as a fault finds its own, and mmap_sem is left to the threads that map
// and unmap (Barry Song's per-VMA locking of MADV_DONTNEED and MADV_FREE, linux-mm 2025;
// Linux's MADVISE_VMA_READ_LOCK). vmscale at 8 threads: 4x the operations of mmap_sem's
// read side (doc/notebook/2026-12-07-madvise-vma.md). A VMA's read lock keeps out what a
// read mmap_sem did: a writer changes a VMA, moves its PTEs (mremap), copies them (fork) or
// unmaps it only after vma_start_write, which waits for the lock's readers. Only while
// faults lock their VMA too (vm.fault_lock=vma): the madvise suite turns that off to fault
// under mmap_sem as the seed's kernels did, and madvise goes back to mmap_sem with it.
bool madvise_vma_lock;
bool madvise_planted_span;   // planted bug: a range past the VMA's end is advised under its lock

// A page unmapped since it was batched (its mm link cleared) is left to the unmapper. The
// hand-over is made under the lock of the page's page table, which lazyfree_evict takes to
// look at the page (mm/lazyfree.c); a page's address (page->index) holds still under
// mmap_sem or its VMA's lock, either of which keeps mremap out. Pages of one table, as a
// batch's mostly are, share one lookup and acquisition of its lock, and go to the LRU
// LRU_BATCH at a time under it.
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

// Under the lock of the VMA holding [start, end), if one does: -EAGAIN if none was found
// (or the walk missed it), and the caller takes mmap_sem and walks the tree.
static int
madvise_one_vma(struct mm *mm, unsigned long start, unsigned long end, int advice)
{
  struct vma *v = lock_vma_under_rcu(mm, start);
  if(!v)
    return -EAGAIN;
  int err = 0;
  if(end > v->end && !madvise_planted_span)
    err = -EAGAIN;
  else if(advice == MADV_FREE && v->file)
    err = -EINVAL;
  else if(advice == MADV_DONTNEED)
    zap_page_range(mm, start, end);
  else
    madvise_free(mm, start, end);
  vma_end_read(v);
  return err;
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
  if(!exclusive && READ_ONCE(madvise_vma_lock) && READ_ONCE(fault_vma_lock)) {
    int err = madvise_one_vma(mm, start, end, advice);
    if(err != -EAGAIN)
      return err;
  }
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

// DONTNEED and FREE do their work, locked as madvise.lock= says (vma by default: a VMA's lock
// where the range fits one, else mmap_sem for reading, as Linux since 2007 throughout; write
// as before Nick Piggin's 2007 patch); the hints Linux accepts on anonymous memory are
// accepted and change nothing; the rest are EINVAL.
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
