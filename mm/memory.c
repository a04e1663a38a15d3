// Demand paging of the lower half: page-table walks, the fault handler that maps a zeroed page
// on first touch, and zapping a range with its TLB flush batched in an mmu_gather.
#include "errno.h"
#include "mm.h"
#include "rwsem.h"
#include "string.h"
#include "vm.h"
#include <asm/paging.h>

#define PMD_SIZE (2UL << 20)   // the span of one page table

u64 nr_page_faults;            // calls of handle_mm_fault since boot (Linux's PGFAULT event)

// Upper-level entries are present, writable and user: the PTE alone decides. Only a
// process's mm (mm->user) has PTE_U on its pages; a kernel thread's adopted mm is reached by
// kernel code alone, through uaccess.h, and SMAP leaves such supervisor pages alone.
#define PT_FLAGS (PTE_P | PTE_W | PTE_U)

// PROT_NONE keeps the page (and its data) but leaves out PTE_U, so ring 3 cannot reach it.
u64
vma_pte_prot(struct mm *mm, unsigned long vm_flags)
{
  u64 prot = PTE_P;
  if(vm_flags & VM_WRITE)
    prot |= PTE_W;
  if(mm->user && (vm_flags & (VM_READ | VM_EXEC)))
    prot |= PTE_U;
  if(!(vm_flags & VM_EXEC))
    prot |= pte_nx;
  return prot;
}

static int
pt_index(unsigned long va, int level)
{
  return (va >> (12 + 9 * level)) & 511;
}

static struct page *
pte_page(u64 pte)
{
  return pfn_to_page((pte & PTE_ADDR) >> PAGE_SHIFT);
}

// The kernel half is shared: its PML4 entries point at the kernel's own lower-level tables,
// which every kernel mapping made after boot extends in place.
int
pgd_alloc(struct mm *mm)
{
  struct page *p = alloc_page(GFP_KERNEL | __GFP_ZERO);
  if(!p)
    return -ENOMEM;
  mm->pgd = page_address(p);
  memcpy(mm->pgd + 256, kernel_pml4 + 256, 256 * sizeof(u64));
  return 0;
}

// level 2: a page-directory-pointer table, 1: a page directory, 0: a page table.
static void
free_table(u64 pa, int level)
{
  u64 *t = __va(pa);
  for(int i = 0; level > 0 && i < 512; i++)
    if(t[i] & PTE_P)
      free_table(t[i] & PTE_ADDR, level - 1);
  __free_page(pfn_to_page(pa >> PAGE_SHIFT));
}

// Page tables stay until the mm goes (Linux frees them at munmap; an mm here is short-lived),
// so a PTE pointer found under mmap_sem stays valid while it is held.
void
free_pgtables(struct mm *mm)
{
  for(int i = 0; i < 256; i++)
    if(mm->pgd[i] & PTE_P)
      free_table(mm->pgd[i] & PTE_ADDR, 2);
  __free_page(virt_to_page(mm->pgd));
}

u64 *
pte_lookup(struct mm *mm, unsigned long addr)
{
  u64 *t = mm->pgd;
  for(int level = 3; level > 0; level--) {
    u64 e = READ_ONCE(t[pt_index(addr, level)]);
    if(!(e & PTE_P))
      return NULL;
    t = __va(e & PTE_ADDR);
  }
  return &t[pt_index(addr, 0)];
}

// The next present PTE at or after *addr and below end, with *addr moved to its address;
// NULL when there is none. A missing page table skips its whole span; within a table the
// entries are scanned in place, not walked to from the top each. Under the lock.
static u64 *
next_present_pte(struct mm *mm, unsigned long *addr, unsigned long end)
{
  unsigned long a = *addr;
  while(a < end) {
    unsigned long table_end = MIN(end, ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE);
    u64 *pte = pte_lookup(mm, a);
    for(; pte && a < table_end; a += PAGE_SIZE, pte++) {
      if(*pte & PTE_P) {
        *addr = a;
        return pte;
      }
    }
    a = table_end;
  }
  return NULL;
}

// Allocates the missing tables on the way to addr's PTE. The allocation may reclaim, and
// reclaim takes page-table locks, so it happens before this mm's lock is taken.
u64 *
pte_alloc(struct mm *mm, unsigned long addr)
{
  u64 *t = mm->pgd;
  for(int level = 3; level > 0; level--) {
    u64 *e = &t[pt_index(addr, level)];
    if(!(READ_ONCE(*e) & PTE_P)) {
      struct page *p = alloc_page(GFP_KERNEL | __GFP_ZERO);
      if(!p)
        return NULL;
      spin_lock(&mm->page_table_lock);
      if(!(*e & PTE_P)) {
        WRITE_ONCE(*e, page_to_phys(p) | PT_FLAGS);
        p = NULL;
      }
      spin_unlock(&mm->page_table_lock);
      if(p)   // another CPU installed the table first
        __free_page(p);
    }
    t = __va(READ_ONCE(*e) & PTE_ADDR);
  }
  return &t[pt_index(addr, 0)];
}

// Demand-zero: the first touch of an anonymous page maps a zeroed frame. A fault on a PTE
// that is already present (another CPU won the race) just returns: the CPU walks again.
// The accessed and dirty bits are left to the hardware (SDM vol. 3A, 4.8).
int
handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags)
{
  bool write = flags & FAULT_WRITE;
  addr = ALIGN_DOWN(addr, PAGE_SIZE);
  __atomic_fetch_add(&nr_page_faults, 1, __ATOMIC_RELAXED);
  int err = -EFAULT;
  down_read(&mm->mmap_sem);
  struct vma *v = find_vma(mm, addr);
  if(!v || v->start > addr || (write && !(v->flags & VM_WRITE)))
    goto out;
  if((flags & FAULT_INSTR) ? !(v->flags & VM_EXEC) : !(v->flags & VM_READ))
    goto out;
  err = -ENOMEM;
  u64 *pte = pte_alloc(mm, addr);
  if(!pte)
    goto out;
  struct page *page = NULL;
  if(!(READ_ONCE(*pte) & PTE_P) && !(page = alloc_page(GFP_KERNEL | __GFP_ZERO)))
    goto out;
  u64 prot = vma_pte_prot(mm, v->flags);
  spin_lock(&mm->page_table_lock);
  if(page && !(*pte & PTE_P)) {
    anon_page_init(page, mm, addr);
    WRITE_ONCE(*pte, page_to_phys(page) | prot);
    mm->rss++;
    page = NULL;
  } else if((*pte & PTE_P) && !(*pte & PTE_W) && (prot & PTE_W) &&
            !cow_reuse(mm, pte_page(*pte), addr)) {
    // Shared copy-on-write since a fork (mm/cow.c): a write copies it, a read leaves it
    // read-only.
    if(write) {
      spin_unlock(&mm->page_table_lock);
      if(page)
        __free_page(page);
      err = do_wp_page(mm, addr, pte, prot);
      goto out;
    }
    WRITE_ONCE(*pte, (*pte & (PTE_ADDR | PTE_A | PTE_D)) | (prot & ~PTE_W));
  } else if((*pte & PTE_P) && (*pte & (PTE_W | PTE_U | PTE_NX)) != (prot & (PTE_W | PTE_U | PTE_NX))) {
    // Present with other rights than the VMA's (a racing mprotect, or a page this mm now
    // holds alone after a fork): the VMA decides. The fault itself dropped this CPU's
    // stale entry (SDM vol. 3A, 4.10.4.1).
    WRITE_ONCE(*pte, (*pte & (PTE_ADDR | PTE_A | PTE_D)) | prot);
  }
  spin_unlock(&mm->page_table_lock);
  if(page)
    __free_page(page);
  err = 0;
out:
  up_read(&mm->mmap_sem);
  return err;
}

void
tlb_gather_init(struct mmu_gather *tlb, struct mm *mm)
{
  tlb->mm = mm;
  tlb->start = ~0UL;
  tlb->end = 0;
  tlb->n = 0;
  tlb->pages = (struct page **)__get_free_page(GFP_KERNEL);
  tlb->max = PAGE_SIZE / sizeof(struct page *);
  if(!tlb->pages) {
    tlb->pages = tlb->local;
    tlb->max = GATHER_LOCAL;
  }
}

bool
tlb_gather_page(struct mmu_gather *tlb, struct page *page, unsigned long addr)
{
  tlb->pages[tlb->n++] = page;
  tlb->start = MIN(tlb->start, addr);
  tlb->end = MAX(tlb->end, addr + PAGE_SIZE);
  return tlb->n == tlb->max;
}

void
tlb_gather_flush(struct mmu_gather *tlb)
{
  if(tlb->start < tlb->end)
    flush_tlb_range(tlb->mm, tlb->start, tlb->end);
  tlb->start = ~0UL;
  tlb->end = 0;
}

// The frames go back only after the flush: until then another CPU may still reach them
// through a stale TLB entry.
void
tlb_gather_release(struct mmu_gather *tlb)
{
  tlb_gather_flush(tlb);
  for(unsigned i = 0; i < tlb->n; i++)
    anon_page_release(tlb->pages[i]);
  tlb->n = 0;
}

void
tlb_gather_done(struct mmu_gather *tlb)
{
  tlb_gather_release(tlb);
  if(tlb->pages != tlb->local)
    free_page((unsigned long)tlb->pages);
}

// The walk zap and MADV_FREE share (Linux's walk_page_range with a pte_entry callback, and
// the mmu_gather of zap_pte_range): pte_fn changes each present PTE of [start, end) under
// the page-table lock and returns its page for the batch; batch_fn takes a full batch with
// the lock dropped, since its flush waits for other CPUs, and at the end the last one.
void
walk_present_ptes(struct mm *mm, unsigned long start, unsigned long end,
                  struct page *(*pte_fn)(struct mm *mm, u64 *pte),
                  void (*batch_fn)(struct mmu_gather *tlb))
{
  struct mmu_gather tlb;
  tlb_gather_init(&tlb, mm);
  spin_lock(&mm->page_table_lock);
  u64 *pte;
  for(unsigned long a = start; (pte = next_present_pte(mm, &a, end)); a += PAGE_SIZE) {
    if(tlb_gather_page(&tlb, pte_fn(mm, pte), a)) {
      spin_unlock(&mm->page_table_lock);
      batch_fn(&tlb);
      spin_lock(&mm->page_table_lock);
    }
  }
  spin_unlock(&mm->page_table_lock);
  batch_fn(&tlb);
  tlb_gather_done(&tlb);
}

// Clearing page->private tells lazyfree_evict the page has left this mm; a page shared
// copy-on-write may name another mm, whose link stays.
static struct page *
zap_pte(struct mm *mm, u64 *pte)
{
  struct page *page = pte_page(__atomic_exchange_n(pte, 0, __ATOMIC_RELAXED));
  if(page->private == (unsigned long)mm)
    page->private = 0;
  mm->rss--;
  return page;
}

// Unmaps every page in [start, end): PTEs cleared under the lock, one flush per batch, then
// the frames freed.
void
zap_page_range(struct mm *mm, unsigned long start, unsigned long end)
{
  walk_present_ptes(mm, start, end, zap_pte, tlb_gather_release);
}
