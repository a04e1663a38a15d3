// Demand paging of the lower half: page-table walks, the fault handler that maps a zeroed page
// on first touch or a file's page-cache page (copied on write in a private mapping, made
// writable through page_mkwrite in a shared one), moving PTEs for mremap, and zapping a range
// with its TLB flush batched in an mmu_gather.
#include "errno.h"
#include "fs.h"
#include "mm.h"
#include "pagemap.h"
#include "rwsem.h"
#include "sched.h"
#include "smp.h"
#include "string.h"
#include "vm.h"
#include <asm/paging.h>

u64 nr_page_faults;            // calls of handle_mm_fault since boot (Linux's PGFAULT event)
u64 nr_mmap_sem_faults;        // of them, those that took mmap_sem (include/vm.h)

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

// Anonymous pages have no mapping, or the lazy-free owner once MADV_FREE handed them over;
// a page-cache page has its file's address_space (until truncation takes it out).
bool
page_is_file(struct page *page)
{
  void *m = READ_ONCE(page->mapping);
  return m && m != (void *)&anon_owner;
}

// Linux's vma_wants_writenotify (mm/mmap.c): a shared mapping of a file whose vm_ops has
// page_mkwrite wants to hear of the first write to each page, so its pages are mapped
// read-only until a write fault has gone through page_mkwrite. Every file mmap(2) takes here
// without f_op is a ramfs file, Linux's generic_file_vm_ops with filemap_page_mkwrite; the
// shared anonymous memory of mm/shmem.c has shmem_fops, and Linux's shmem_vm_ops has no
// page_mkwrite (and shmem no writeback), so its stores never fault after the first touch.
// Read-only mappings are included: mprotect may add PROT_WRITE later, and the page's first
// write must still fault (Linux computes it again in mprotect_fixup; here it is the VMA's
// file alone, which mprotect does not change).
bool
vma_wants_writenotify(struct vma *v)
{
  return (v->flags & VM_SHARED) && v->file && !v->file->f_op;
}

u64
vma_page_prot(struct mm *mm, struct vma *v, struct page *page)
{
  u64 prot = vma_pte_prot(mm, v->flags);
  if(page_is_file(page) && (!(v->flags & VM_SHARED) || vma_wants_writenotify(v)))
    prot &= ~PTE_W;
  return prot;
}

// The rights of a present PTE (its entry pte) when its VMA's change (mprotect, a fault that
// meets a racing one): vma_page_prot, except that a write-notified page already made
// writable by page_mkwrite stays so while the VMA allows writes, since it is dirty and the
// file's times were updated (Linux's can_change_pte_writable: a dirty MAP_SHARED PTE may be
// writable). The caller never adds PTE_W to an entry that lacks it.
u64
vma_present_prot(struct mm *mm, struct vma *v, u64 pte)
{
  u64 prot = vma_page_prot(mm, v, pfn_to_page((pte & PTE_ADDR) >> PAGE_SHIFT));
  if(vma_wants_writenotify(v) && (v->flags & VM_WRITE))
    prot |= pte & PTE_W;
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
  p->private = 0;
  mm->pgd = page_address(p);
  memcpy(mm->pgd + 256, kernel_pml4 + 256, 256 * sizeof(u64));
  if(percore_pgd_alloc(mm) < 0) {   // vm.pt=percore: each CPU's top level too
    __free_page(p);
    return -ENOMEM;
  }
  pt_pages_add(&pt_pages_shared, 1);
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
  if(level == 0)
    ptlock_free(pfn_to_page(pa >> PAGE_SHIFT));
  __free_page(pfn_to_page(pa >> PAGE_SHIFT));
  pt_pages_add(&pt_pages_shared, -1);
}

// Page tables stay until the mm goes (Linux frees them at munmap; an mm here is short-lived),
// so a PTE pointer found under mmap_sem stays valid while it is held. lazyfree_evict walks
// them holding page_table_lock once it has seen a page still linked to this mm; the zap that
// came first unlinked every page, so once the lock has been taken here no walk is left.
void
free_pgtables(struct mm *mm)
{
  spin_lock(&mm->page_table_lock);
  spin_unlock(&mm->page_table_lock);
  for(int i = 0; i < 256; i++)
    if(mm->pgd[i] & PTE_P)
      free_table(mm->pgd[i] & PTE_ADDR, 2);
  __free_page(virt_to_page(mm->pgd));
  pt_pages_add(&pt_pages_shared, -1);
  percore_free(mm);
}

u64 *
pte_lookup(struct mm *mm, unsigned long addr)
{
  return pt_walk(mm->pgd, addr);
}

u64 *
pt_walk(u64 *pgd, unsigned long addr)
{
  u64 *t = pgd;
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
// entries are scanned in place, not walked to from the top each. Under the lock of the
// page table of [*addr, end), which the caller keeps within one.
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

// Allocates the missing tables on the way to addr's PTE, a page table with its lock
// (vm.ptl=split). The allocation may reclaim, and reclaim takes page-table locks, so it
// happens before this mm's lock is taken.
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
      p->private = 0;   // a page table's: the CPUs whose per-core tables copy it (percore.c)
      if(level == 1 && ptlock_alloc(p) < 0) {
        __free_page(p);
        return NULL;
      }
      spin_lock(&mm->page_table_lock);
      if(!(*e & PTE_P)) {
        WRITE_ONCE(*e, page_to_phys(p) | PT_FLAGS);
        pt_pages_add(&pt_pages_shared, 1);
        p = NULL;
      }
      spin_unlock(&mm->page_table_lock);
      if(p) {   // another CPU installed the table first
        if(level == 1)
          ptlock_free(p);
        __free_page(p);
      }
    }
    t = __va(READ_ONCE(*e) & PTE_ADDR);
  }
  return &t[pt_index(addr, 0)];
}

// Under the lock: a present PTE with other rights than its VMA now gives (a racing
// mprotect) gets them. The fault itself dropped this CPU's stale entry (SDM vol. 3A, 4.10.4.1).
static void
fix_pte_prot(u64 *pte, u64 prot)
{
  if((*pte & PTE_P) && (*pte & (PTE_W | PTE_U | PTE_NX)) != (prot & (PTE_W | PTE_U | PTE_NX)))
    WRITE_ONCE(*pte, (*pte & (PTE_ADDR | PTE_A | PTE_D)) | prot);
}

// Under the lock: a present anonymous page gets its VMA's rights, except write access while
// it is still shared copy-on-write since a fork (mm/cow.c); true when this write fault must
// copy it (do_wp_page, after the unlock).
static bool
anon_present(struct mm *mm, u64 *pte, u64 prot, unsigned long addr, bool write)
{
  if(!(*pte & PTE_P))   // unmapped meanwhile (MADV_DONTNEED): fault again if need be
    return false;
  if(!(*pte & PTE_W) && (prot & PTE_W) && !cow_reuse(mm, pte_page(*pte), addr)) {
    if(write)
      return true;
    prot &= ~PTE_W;
  }
  fix_pte_prot(pte, prot);
  return false;
}

// The copy-on-write decision, in one place: a write fault on a present page of v copies it
// into a private anonymous page when v is a private mapping and the page is its file's
// page-cache page (Linux's do_wp_page for a private file mapping). Any other page (anonymous,
// or a shared mapping's) is written in place.
static bool
cow_needed(struct vma *v, struct page *page)
{
  return !(v->flags & VM_SHARED) && page_is_file(page);
}

// Installs page with the rights prot (the caller's reference moves to the PTE) if the PTE is
// still empty, as an anonymous page of mm when anon; false if another fault got there first.
static bool
set_pte_page(struct mm *mm, unsigned long addr, u64 *pte, struct page *page, bool anon,
             u64 prot)
{
  spinlock_t *ptl = pte_lockptr(mm, pte);
  spin_lock(ptl);
  bool empty = !(*pte & PTE_P);
  if(empty) {
    if(anon)
      anon_page_init(page, mm, addr);
    WRITE_ONCE(*pte, page_to_phys(page) | prot);
    mm_rss_add(mm, 1);
  }
  spin_unlock(ptl);
  return empty;
}

// The copy: a new anonymous page with src's data, installed where the PTE is empty. A
// private write fault copies before anything is mapped (Linux's do_cow_fault) or replaces
// the read-only page-cache page it mapped (old: that PTE). The old entry is cleared and
// flushed from every CPU before the copy is mapped, so no thread can still read the file's
// page through a stale TLB entry once another has written its copy. A fault that maps the
// address meanwhile wins; this one returns and the CPU faults again if it must.
static int
cow_fault(struct mm *mm, struct vma *v, unsigned long addr, u64 *pte, struct page *src, u64 old)
{
  struct page *copy = alloc_page(GFP_KERNEL);
  if(!copy)
    return -ENOMEM;
  memcpy(page_address(copy), page_address(src), PAGE_SIZE);
  if(old) {
    spinlock_t *ptl = pte_lockptr(mm, pte);
    spin_lock(ptl);
    bool same = (*pte & (PTE_ADDR | PTE_P)) == (old & (PTE_ADDR | PTE_P));
    if(same) {
      WRITE_ONCE(*pte, 0);
      mm_rss_add(mm, -1);
    }
    spin_unlock(ptl);
    if(!same) {
      __free_page(copy);
      return 0;
    }
    flush_tlb_range(mm, addr, addr + PAGE_SIZE);
    put_page(src);   // the old PTE's reference
  }
  if(!set_pte_page(mm, addr, pte, copy, true, vma_pte_prot(mm, v->flags)))
    __free_page(copy);
  return 0;
}

// A write-notified page made writable (page_mkwrite's page half, after the fault updated the
// file's times): dirty, then mapped writable and dirty (Linux's maybe_mkwrite(pte_mkdirty())).
// The page lock (caller's, or taken here) holds off truncation meanwhile.
static u64
mkwrite_prot(struct mm *mm, struct vma *v)
{
  return vma_pte_prot(mm, v->flags) | PTE_A | PTE_D;
}

// A write fault on the read-only PTE old of a write-notified page (Linux's wp_page_shared
// with do_page_mkwrite): the caller's reference on page is dropped here. If truncation took
// the page meanwhile, or another fault changed the PTE, nothing is done: the CPU faults
// again if it must. Growing rights needs no flush: other CPUs still holding the read-only
// entry fault and find it writable (SDM vol. 3A, 4.10.4.3).
static int
wp_page_shared(struct mm *mm, struct vma *v, u64 *pte, struct page *page, u64 old)
{
  lock_page(page);
  if(filemap_page_mkwrite(&v->file->f_inode->i_data, page)) {
    spinlock_t *ptl = pte_lockptr(mm, pte);
    spin_lock(ptl);
    if((*pte & (PTE_ADDR | PTE_P | PTE_W)) == (old & (PTE_ADDR | PTE_P | PTE_W)))
      WRITE_ONCE(*pte, (*pte & (PTE_ADDR | PTE_A | PTE_D)) | mkwrite_prot(mm, v));
    spin_unlock(ptl);
  }
  unlock_page(page);
  put_page(page);
  return 0;
}

// do_file_fault's answer when the write needs page_mkwrite and the file's times are not yet
// updated by this fault: handle_mm_fault updates them and calls it again.
#define FAULT_NEED_TIMES 1
// do_fault's, when it made this CPU's per-core copy itself: handle_mm_fault's fill is done.
#define FAULT_COPIED 2

// A fault in a file mapping. Not present: the page-cache page (filemap_fault), mapped
// read-only for a read, or copied at once for a private write; a shared mapping's write
// (Linux's do_shared_fault) marks it dirty and maps it writable. Present: copy-on-write,
// page_mkwrite for a write-notified page still read-only (Linux's wp_page_shared), or a
// racing mprotect's rights. A page_mkwrite comes after the file's times are updated
// (timed: this fault did it), as Linux's file_update_time comes first in
// filemap_page_mkwrite; otherwise FAULT_NEED_TIMES, with nothing held or changed.
static int
do_file_fault(struct mm *mm, struct vma *v, unsigned long addr, u64 *pte, bool write,
              bool timed)
{
  u64 old = READ_ONCE(*pte);
  if(old & PTE_P) {
    struct page *page = pte_page(old);
    spinlock_t *ptl = pte_lockptr(mm, pte);
    spin_lock(ptl);
    bool same = (*pte & (PTE_ADDR | PTE_P)) == (old & (PTE_ADDR | PTE_P));
    if(same && !page_is_file(page)) {   // a private copy, maybe shared since a fork
      u64 prot = vma_page_prot(mm, v, page);
      bool copy = anon_present(mm, pte, prot, addr, write);
      spin_unlock(ptl);
      return copy ? do_wp_page(mm, addr, pte, prot) : 0;
    }
    bool cow = same && write && cow_needed(v, page);
    bool mkwrite = same && write && vma_wants_writenotify(v) && !(*pte & PTE_W);
    if(mkwrite && !timed) {
      spin_unlock(ptl);
      return FAULT_NEED_TIMES;
    }
    if(cow || mkwrite)
      get_page(page);   // kept while it is copied: a racing MADV_DONTNEED may unmap it
    else
      fix_pte_prot(pte, vma_present_prot(mm, v, *pte));
    spin_unlock(ptl);
    if(mkwrite)
      return wp_page_shared(mm, v, pte, page, old);
    if(!cow)
      return 0;
    int err = cow_fault(mm, v, addr, pte, page, old);
    put_page(page);
    return err;
  }
  struct inode *inode = v->file->f_inode;
  if(write && vma_wants_writenotify(v) && !timed)
    return FAULT_NEED_TIMES;
  unsigned long index = v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
  struct page *page;
  int err = filemap_fault(&inode->i_data, index, &inode->i_size, &page);
  if(err)
    return err;
  if(write && !(v->flags & VM_SHARED)) {
    err = cow_fault(mm, v, addr, pte, page, 0);
    unlock_page(page);
    put_page(page);
    return err;
  }
  // Mapped under the page lock, so a truncation that drops this page comes after; locked
  // and found in the cache by filemap_fault, it is still the file's for page_mkwrite.
  u64 prot = vma_page_prot(mm, v, page);
  if(write && vma_wants_writenotify(v) && filemap_page_mkwrite(&inode->i_data, page))
    prot = mkwrite_prot(mm, v);
  bool mapped = set_pte_page(mm, addr, pte, page, false, prot);
  unlock_page(page);
  if(!mapped)
    put_page(page);
  return 0;
}

// Demand-zero: the first touch of an anonymous page maps a zeroed frame; file mappings go to
// do_file_fault. A fault on a PTE that is already present (another CPU won the race) just
// returns: the CPU walks again. The accessed and dirty bits are left to the hardware (SDM
// vol. 3A, 4.8). Called with v locked (its lock or mmap_sem, for reading); v may be NULL.
// 0, FAULT_COPIED, FAULT_NEED_TIMES or a negative errno.
static int
do_fault(struct mm *mm, struct vma *v, unsigned long addr, unsigned flags, bool timed)
{
  bool write = flags & FAULT_WRITE;
  if(!v || v->start > addr || (write && !(v->flags & VM_WRITE)))
    return -EFAULT;
  if((flags & FAULT_INSTR) ? !(v->flags & VM_EXEC) : !(v->flags & VM_READ))
    return -EFAULT;
  u64 *pte = pte_alloc(mm, addr);
  if(!pte)
    return -ENOMEM;
  if(v->file) {
    int err = do_file_fault(mm, v, addr, pte, write, timed);
    if(err == FAULT_NEED_TIMES && file_update_time(v->file, true))
      err = do_file_fault(mm, v, addr, pte, write, true);
    return err;
  }
  struct page *page = NULL;
  if(!(READ_ONCE(*pte) & PTE_P) && !(page = alloc_page(GFP_KERNEL | __GFP_ZERO)))
    return -ENOMEM;
  // vm.pt=percore: this CPU's copy is made under the lock the PTE is installed with, not
  // under a second acquisition after it: at 8 threads on 8 vCPUs the page-table lock was
  // the most waited-for lock of vmscale's per-core runs, half its acquisitions the fill's.
  int cpu = smp_processor_id();
  u64 *copy = mm->pcpu_pgd ? percore_slot(mm, cpu, addr) : NULL;
  u64 prot = vma_pte_prot(mm, v->flags);
  spinlock_t *ptl = pte_lockptr(mm, pte);
  spin_lock(ptl);
  if(page && !(*pte & PTE_P)) {
    anon_page_init(page, mm, addr);
    WRITE_ONCE(*pte, page_to_phys(page) | prot);
    mm_rss_add(mm, 1);
    page = NULL;
  } else if(anon_present(mm, pte, prot, addr, write)) {
    spin_unlock(ptl);
    if(page)
      __free_page(page);
    return do_wp_page(mm, addr, pte, prot);
  }
  if(copy)
    percore_copy(cpu, copy, pte);
  spin_unlock(ptl);
  if(page)
    __free_page(page);
  return copy ? FAULT_COPIED : 0;
}

// The VMA is found and locked without mmap_sem when it can be (mm/vma_lock.c), else under
// mmap_sem for reading; the fault itself is the same under either.
//
// A write that must go through page_mkwrite (a write-notified mapping's page not yet
// writable: FAULT_NEED_TIMES) first updates the file's times (file_update_time), under its
// i_mutex. i_mutex comes before mmap_sem and a VMA's lock (a write(2) faults on its user
// buffer holding it; truncation walks the mappings holding it), so under either the fault
// only tries it; when it is busy the fault drops its lock, takes a reference on the file,
// waits for i_mutex, updates the times and starts again (as Linux's VM_FAULT_RETRY): the VMA
// may have changed meanwhile, and a file other than the one updated is updated in turn.
// Linux's filemap_page_mkwrite calls file_update_time under mmap_lock, but its times take no
// lock; here they are i_mutex's.
int
handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags)
{
  struct inode *updated = NULL;  // the file whose times this fault updated
  struct file *ref = NULL;       // the reference held on it across a retry
  addr = ALIGN_DOWN(addr, PAGE_SIZE);
  __atomic_fetch_add(&nr_page_faults, 1, __ATOMIC_RELAXED);
  int err;
  for(;;) {
    struct vma *v = READ_ONCE(fault_vma_lock) ? lock_vma_under_rcu(mm, addr) : NULL;
    bool vma_locked = v;
    if(!vma_locked) {
      __atomic_fetch_add(&nr_mmap_sem_faults, 1, __ATOMIC_RELAXED);
      down_read(&mm->mmap_sem);
      v = find_vma(mm, addr);
    }
    bool timed = v && v->file && updated == v->file->f_inode;
    err = do_fault(mm, v, addr, flags, timed);
    if(err == 0 && mm->pcpu_pgd)   // vm.pt=percore: this CPU's copy of what it faulted
      percore_fill(mm, addr);
    if(err == FAULT_COPIED)
      err = 0;
    struct file *f = err == FAULT_NEED_TIMES ? get_file(v->file) : NULL;
    if(vma_locked)
      vma_end_read(v);
    else
      up_read(&mm->mmap_sem);
    if(!f)
      break;
    if(ref)
      vfs_close(ref);
    ref = f;
    file_update_time(f, false);
    updated = f->f_inode;
  }
  if(ref)
    vfs_close(ref);
  return err;
}

// The batch starts in the gather's own array, and only one that outgrows it gets a page of
// pointers (tlb_gather_grow), as Linux's mmu_gather starts on its local batch and allocates
// in tlb_next_batch: most unmaps and MADV_FREEs are of a few pages, and a page allocated for
// each (and scrubbed on first use) was 3% of the madvise suite's samples at 8 threads.
void
tlb_gather_init(struct mmu_gather *tlb, struct mm *mm)
{
  tlb->mm = mm;
  tlb->start = ~0UL;
  tlb->end = 0;
  tlb->n = 0;
  tlb->pages = tlb->local;
  tlb->max = GATHER_LOCAL;
}

// A full local batch moves to a page of pointers, so the walk goes on without a flush; false
// when it already has one, or none can be had (the caller flushes then). May sleep.
bool
tlb_gather_grow(struct mmu_gather *tlb)
{
  if(tlb->pages != tlb->local)
    return false;
  struct page **p = (struct page **)__get_free_page(GFP_KERNEL | __GFP_NOWARN);
  if(!p)
    return false;
  memcpy(p, tlb->local, tlb->n * sizeof(*p));
  tlb->pages = p;
  tlb->max = PAGE_SIZE / sizeof(*p);
  return true;
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
// through a stale TLB entry. A page-cache page just loses the mapping's reference.
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
// its page table's lock and returns its page for the batch; batch_fn takes a full batch
// with the lock dropped, since its flush waits for other CPUs, and at the end the last one.
// A page table at a time (Linux's zap_pte_range): a span without one is skipped whole.
void
walk_present_ptes(struct mm *mm, unsigned long start, unsigned long end,
                  struct page *(*pte_fn)(struct mm *mm, u64 *pte),
                  void (*batch_fn)(struct mmu_gather *tlb))
{
  struct mmu_gather tlb;
  tlb_gather_init(&tlb, mm);
  for(unsigned long a = start; a < end;) {
    unsigned long span_end = MIN(end, ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE);
    spinlock_t *ptl;
    if(!pte_offset_map_lock(mm, a, &ptl)) {
      a = span_end;
      continue;
    }
    u64 *pte;
    for(; (pte = next_present_pte(mm, &a, span_end)); a += PAGE_SIZE) {
      if(tlb_gather_page(&tlb, pte_fn(mm, pte), a)) {
        spin_unlock(ptl);
        if(!tlb_gather_grow(&tlb))
          batch_fn(&tlb);
        spin_lock(ptl);
      }
    }
    spin_unlock(ptl);
    a = span_end;
  }
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
  mm_rss_add(mm, -1);
  return page;
}

// Unmaps every page in [start, end): PTEs cleared under the lock, one flush per batch, then
// the frames freed.
void
zap_page_range(struct mm *mm, unsigned long start, unsigned long end)
{
  walk_present_ptes(mm, start, end, zap_pte, tlb_gather_release);
}

// mremap's move. The new range's page tables are made first, where the old one has any, so
// that running out of memory changes nothing; a PTE cannot appear meanwhile (faults need
// mmap_sem, or the VMA's lock, which the caller has write-locked). Each entry moves under the
// page-table lock with its accessed and dirty bits; an anonymous page's address (page->index)
// follows it, since lazyfree_evict looks its PTE up there. One flush of the old range at the
// end: until then a CPU may still reach the pages through it, which are the same pages.
// Under vm.pt=percore the copies of the old range go first, their dirty bits folded into the
// PTEs before these move (mm/percore.c); none comes back, as no fault can reach the range.
int
move_page_tables(struct mm *mm, unsigned long old, unsigned long new, unsigned long len)
{
  if(mm->pcpu_pgd)
    flush_tlb_range(mm, old, old + len);
  for(unsigned long a = old; a < old + len; a += PAGE_SIZE) {
    if(!pte_lookup(mm, a))
      a = ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE - PAGE_SIZE;   // no page table: skip its span
    else if(!pte_alloc(mm, new + (a - old)))
      return -ENOMEM;
  }
  for(unsigned long a = old; a < old + len; a += PAGE_SIZE) {
    unsigned long span_end = MIN(old + len, ALIGN_DOWN(a, PMD_SIZE) + PMD_SIZE);
    // Both tables' locks: lazyfree_evict finds an anonymous page's PTE through page->index
    // under the lock of the table it names, the old one's or, once moved, the new one's. The
    // old one's first, the new one's nested (Linux's move_ptes); no other path holds two page
    // tables' locks, and mmap_sem for write keeps a second mremap of this mm out.
    spinlock_t *ptl;
    if(!pte_offset_map_lock(mm, a, &ptl)) {
      a = span_end - PAGE_SIZE;
      continue;
    }
    spinlock_t *new_ptl = ptl;
    unsigned long from = a;
    u64 *pte = next_present_pte(mm, &from, span_end);
    if(pte) {
      u64 *dst = pte_lookup(mm, new + (from - old));
      new_ptl = pte_lockptr(mm, dst);
      if(new_ptl != ptl)
        spin_lock_nested(new_ptl, 1);
      u64 e = __atomic_exchange_n(pte, 0, __ATOMIC_RELAXED);
      struct page *page = pte_page(e);
      if(!page_is_file(page) && page->private == (unsigned long)mm)
        page->index = new + (from - old);
      WRITE_ONCE(*dst, e);
      a = from;
    } else {
      a = span_end - PAGE_SIZE;
    }
    if(new_ptl != ptl)
      spin_unlock(new_ptl);
    spin_unlock(ptl);
    cond_resched();
  }
  if(!mm->pcpu_pgd)   // per-core: the copies went first, and none came back
    flush_tlb_range(mm, old, old + len);
  return 0;
}
