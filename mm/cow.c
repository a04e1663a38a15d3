// Copy-on-write for fork: the child gets the parent's pages write-protected on both sides
// (copy_page_range), and a write fault copies the page or, when the writer's mapping holds
// the only reference, reuses it (do_wp_page).
#include "errno.h"
#include "fs.h"
#include "mm.h"
#include "slab.h"
#include "string.h"
#include "vm.h"
#include <asm/paging.h>

bool cow_planted_shared;   // planted-cow-shared: fork leaves the pages writable on both sides

static struct page *
pte_page(u64 pte)
{
  return pfn_to_page((pte & PTE_ADDR) >> PAGE_SHIFT);
}

// Under the PTE's page-table lock: whether mm's mapping at addr is the page's only reference,
// so a write may take the page over instead of copying it. Linux decides the same way
// since 5.9 ("mm: do_wp_page() simplification", Linus Torvalds: reuse only when
// page_count() is 1). A page reclaim holds (MADV_FREE, or isolated) has a second reference
// and is copied. The lazyfree owner link (page->private, mm/lazyfree.c) is claimed when
// the mm that owned the page has let go of it (it cleared the link when it unmapped it).
bool
cow_reuse(struct mm *mm, struct page *page, unsigned long addr)
{
  if(page_count(page) != 1)
    return false;
  if(page->private != (unsigned long)mm) {
    if(page->private)
      return false;
    anon_page_init(page, mm, addr);
  }
  return true;
}

// A write to a present, write-protected page of a writable VMA (Linux's do_wp_page): reuse
// it, or copy it into a page of this mm's own. The copy is made with the lock dropped,
// holding a reference, and installed only if the PTE still maps the same page. The old
// PTE was read-only, so CPUs still caching it only read the old page, which keeps the same
// bytes until the flush has reached them all and the mapping's reference is dropped.
int
do_wp_page(struct mm *mm, unsigned long addr, u64 *pte, u64 prot)
{
  spinlock_t *ptl = pte_lockptr(mm, pte);
  spin_lock(ptl);
  u64 old = *pte;
  if(!(old & PTE_P) || (old & PTE_W)) {   // another thread of mm got here first
    spin_unlock(ptl);
    return 0;
  }
  struct page *page = pte_page(old);
  if(cow_reuse(mm, page, addr)) {
    WRITE_ONCE(*pte, (old & (PTE_ADDR | PTE_A | PTE_D)) | prot);
    spin_unlock(ptl);
    return 0;
  }
  get_page(page);
  spin_unlock(ptl);
  struct page *copy = alloc_page(GFP_KERNEL);
  if(!copy) {
    put_page(page);
    return -ENOMEM;
  }
  memcpy(page_address(copy), page_address(page), PAGE_SIZE);
  spin_lock(ptl);
  const u64 same = PTE_ADDR | PTE_P | PTE_W;
  if((*pte & same) != (old & same)) {   // zapped or copied meanwhile: fault again if needed
    spin_unlock(ptl);
    __free_page(copy);
    put_page(page);
    return 0;
  }
  anon_page_init(copy, mm, addr);
  WRITE_ONCE(*pte, page_to_phys(copy) | prot | PTE_A | PTE_D);
  if(page->private == (unsigned long)mm)
    page->private = 0;   // mm no longer maps it: lazyfree_evict must not follow the link here
  spin_unlock(ptl);
  flush_tlb_range(mm, addr, addr + PAGE_SIZE);
  anon_page_release(page);   // the mapping's reference, after the flush
  put_page(page);            // ours
  return 0;
}

// The PTEs of one VMA from src into dst, one page table at a time: dst's tables are made
// with no lock held (their allocation may reclaim, which takes page-table locks), then the
// lock of src's page table covers the copy of its up to 512 entries. Writable pages lose
// PTE_W in src as they are shared; the caller flushes src's TLBs once for the whole fork.
// dst is not yet visible to anyone, so its entries need no lock.
static int
copy_vma_ptes(struct mm *dst, struct mm *src, struct vma *v)
{
  for(unsigned long a = v->start; a < v->end; a = ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE) {
    unsigned long end = MIN(v->end, ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE);
    if(!pte_lookup(src, a))
      continue;
    u64 *dpte = pte_alloc(dst, a);
    if(!dpte)
      return -ENOMEM;
    u64 *spte = pte_lookup(src, a);
    spinlock_t *ptl = pte_lockptr(src, spte);
    spin_lock(ptl);
    for(unsigned long p = a; p < end; p += PAGE_SIZE, spte++, dpte++) {
      u64 e = READ_ONCE(*spte);
      if(!(e & PTE_P))
        continue;
      // A shared file mapping's pages stay writable in src: they are the file's. The
      // child's copy of a write-notified one is read-only, so that its first write goes
      // through page_mkwrite and updates the file's times, as on Linux, whose fork copies no
      // PTE of such a mapping (vma_needs_copy) and the child faults.
      if((e & PTE_W) && !(v->flags & VM_SHARED) && !READ_ONCE(cow_planted_shared))
        e = __atomic_and_fetch(spte, ~PTE_W, __ATOMIC_RELAXED);
      else if(vma_wants_writenotify(v))
        e &= ~PTE_W;
      get_page(pte_page(e));
      WRITE_ONCE(*dpte, e & ~PTE_A);
      mm_rss_add(dst, 1);
    }
    spin_unlock(ptl);
  }
  return 0;
}

// fork's address space (Linux's dup_mmap): the VMAs and their pages, shared copy-on-write
// (a shared file mapping's pages simply shared). src's mmap_sem is held for write
// throughout, so no fault, munmap or madvise of src runs meanwhile; its other threads may
// still write through TLB entries made before the write-protection, until the one flush at
// the end (under vm.pt=percore at the start, before any PTE is copied), which comes before
// the child can run: such a store is ordered before the fork, and both sides see it. The file mappings join their inodes' i_mmap only once dst's tree
// and tables are complete (truncation walks an mm found there under its mmap_sem, which
// dst's builder does not take), and before src's mmap_sem is dropped: a truncation waiting
// for src then finds dst's copies too (mm/truncate.c).
struct mm *
dup_mm(struct mm *src)
{
  struct mm *dst = mm_create();
  if(!dst)
    return NULL;
  dst->user = src->user;
  int err = 0;
  mmap_write_lock(src);
  // No fault under a VMA's lock while the PTEs are copied (Linux 6.4). Under vm.pt=percore
  // the CPUs' copies then go, their dirty bits folded into the PTEs the child copies.
  for(struct vma *v = find_vma(src, 0); v; v = vma_next(src, v))
    vma_start_write(src, v);
  if(src->pcpu_pgd)
    flush_tlb_range(src, 0, USER_END);
  for(struct vma *v = find_vma(src, 0); v && !err; v = vma_next(src, v)) {
    struct vma *nv = vma_dup(v);
    if(!nv) {
      err = -ENOMEM;
      break;
    }
    nv->file = NULL;   // until the tree is complete
    vma_link(dst, nv);
    err = copy_vma_ptes(dst, src, v);
  }
  for(struct vma *v = find_vma(src, 0); v; v = vma_next(src, v)) {
    struct vma *nv = v->file ? find_vma(dst, v->start) : NULL;
    if(nv && nv->start == v->start) {
      nv->file = get_file(v->file);
      vma_link_file(dst, nv);
    }
  }
  if(!src->pcpu_pgd)   // per-core: every copy went before, and no fault could make one since
    flush_tlb_range(src, 0, USER_END);
  vma_end_write_all(dst);   // dst's VMAs were stamped as they went in: none is faulted yet
  mmap_write_unlock(src);
  if(err) {
    mmput(dst);
    return NULL;
  }
  return dst;
}
