// The owner of anonymous pages on the reclaim core's lists: MADV_FREE hands pages over, and
// evict() drops those still clean when reclaim reaches them; redirtied ones stay as ordinary memory.
#include "mm.h"
#include "reclaim.h"
#include "vm.h"
#include <asm/paging.h>

// An anonymous page names its mm in page->private and its address in page->index. The mm
// link is cleared under its page table's lock whenever the PTE goes (zap_page_range), and the
// mm is freed a grace period after its teardown, so evict can follow the link under RCU.
// page->mapping points at anon_owner from MADV_FREE on: the reclaim core reads it for
// every page it holds, so it must never point into an mm that may be freed.

bool lazyfree_ignore_dirty;
void (*lazyfree_keep_hook)(struct page *page);
u64 lazyfree_freed;

static bool lazyfree_evict(struct page *page);
static void lazyfree_finish(void);

static const struct lru_ops lazyfree_ops = {
  .name = "anon",
  .evict = lazyfree_evict,
  .finish = lazyfree_finish,
};

// The TLB flush evict owes, deferred to the end of reclaim's batch: the CPUs of every mm
// whose PTEs it cleared. Reclaim runs in a thread, which never migrates and does not sleep
// between evict and finish, so the batch can be this CPU's.
struct flush_batch {
  struct cpumask cpus;
  bool pending;
};
DEFINE_PER_CPU(struct flush_batch, lazyfree_batch);
const struct lru_ops *const anon_owner = &lazyfree_ops;

void
anon_page_init(struct page *page, struct mm *mm, unsigned long addr)
{
  page->private = (unsigned long)mm;
  page->index = addr;
  set_page_flag(page, PG_swapbacked);
}

// Drops the mapping's reference to an unmapped page, after the flush. A page handed to
// reclaim leaves the LRU first. If reclaim holds it right now, it has already read its
// owner: its evict finds the mm link cleared, and the reclaim core's put_page frees it.
// A file mapping's page-cache page (its mapping is the file's) only loses the reference.
void
anon_page_release(struct page *page)
{
  if(page->mapping == (void *)&anon_owner) {
    lru_cache_del(page);
    page->mapping = NULL;
  }
  put_page(page);
}

// MADV_FREE, after its TLB flush and under the page-table lock, for n pages still mapped
// in mm: no CPU can hold a dirty TLB entry for them any more, so a store from here on sets
// the PTE's dirty bit again and evict will see it. Handing a page over earlier would let
// reclaim drop a page that a stale TLB entry is still writing to. n is LRU_BATCH at most.
void
anon_pages_lazyfree(struct page **pages, int n)
{
  if(n == 0)
    return;
  for(int i = 0; i < n; i++) {
    clear_page_flag(pages[i], PG_swapbacked);
    pages[i]->mapping = (void *)&anon_owner;
  }
  lru_add_lazyfree_many(pages, n);
}

// Called by the reclaim core with its own reference held. Under the page-table lock the
// PTE is taken away atomically, so a store racing with us either set the dirty bit first
// or faults on the cleared PTE and waits for the lock (Minchan Kim's MADV_FREE, Linux 4.5:
// "If memory pressure happens, VM checks dirty bit ... if ... still clean, it's a lazyfree
// page so VM could discard").
static bool
lazyfree_evict(struct page *page)
{
  bool dropped = true;
  rcu_read_lock();
  struct mm *mm = (struct mm *)READ_ONCE(page->private);
  if(mm) {
    // page_table_lock keeps the tables from being freed under the walk (free_pgtables waits
    // for it); the lock of the page's page table keeps its PTE and its link (page->private,
    // page->index, which mremap moves holding the old and the new table's locks).
    spin_lock(&mm->page_table_lock);
    u64 *pte = READ_ONCE(page->private) == (unsigned long)mm ?
               pte_lookup(mm, READ_ONCE(page->index)) : NULL;
    spinlock_t *ptl = pte ? pte_lockptr(mm, pte) : &mm->page_table_lock;
    if(ptl != &mm->page_table_lock)
      spin_lock(ptl);
    if(!pte || page->private != (unsigned long)mm) {
      // unmapped since we looked: the zap dropped the mapping's reference
    } else if(!page_flag(page, PG_lazyfree)) {
      dropped = false;   // ordinary anonymous memory: there is no swap to write it to
    } else if(pte != pte_lookup(mm, page->index)) {
      // Moved by mremap since we looked: kept, as ordinary memory (as below), rather than
      // looked for again; a new MADV_FREE hands it over anew.
      set_page_flag(page, PG_swapbacked);
      clear_page_flag(page, PG_lazyfree);
      dropped = false;
    } else {
      u64 old = __atomic_exchange_n(pte, 0, __ATOMIC_RELAXED);
      struct flush_batch *b = this_cpu_ptr(&lazyfree_batch);
      bool dirty = old & PTE_D;
      if(mm->pcpu_pgd)   // vm.pt=percore: a store may have gone through a CPU's own copy
        dirty |= percore_clear_page_locked(mm, pte, page->index, &b->cpus);
      if(dirty && !READ_ONCE(lazyfree_ignore_dirty)) {
        // Written after MADV_FREE: the data stays, as ordinary anonymous memory, and the
        // page leaves reclaim here, under the lock MADV_FREE hands pages over under. Once
        // this lock is dropped the page is clean to a new MADV_FREE, which must find it
        // free to hand over again: were PG_lazyfree and page->mapping cleared after the
        // unlock (as the reclaim core used to), lru_add_lazyfree would take the still-set
        // flag for "reclaim holds it and will see the new state" and drop the hand-over,
        // leaving the page clean, mapped and on no list. Linux's MADV_FREE of a page
        // reclaim has isolated (!PageLRU) is dropped too, but that page goes back to the
        // anon LRU as swap-backed; without swap, ordinary anon pages here are on no list.
        WRITE_ONCE(*pte, old | PTE_D);
        set_page_flag(page, PG_swapbacked);
        clear_page_flag(page, PG_lazyfree);
        dropped = false;
      } else {
        // The PTE is gone, so no CPU can start using the page again; the ones that may
        // still hold it in their TLBs are flushed before the page is freed (finish).
        cpumask_or(&b->cpus, &mm->cpu_mask);
        b->pending = true;
        page->private = 0;
        mm_rss_add(mm, -1);
        __atomic_fetch_add(&lazyfree_freed, 1, __ATOMIC_RELAXED);
        put_page(page);   // the mapping's reference; the reclaim core holds its own
      }
    }
    // Kept or dropped, the page has left the reclaim core's lists: said under the lock a
    // new MADV_FREE takes to hand it over again, which sets page->mapping anew.
    page->mapping = NULL;
    if(ptl != &mm->page_table_lock)
      spin_unlock(ptl);
    spin_unlock(&mm->page_table_lock);
  } else {
    page->mapping = NULL;   // unmapped: no MADV_FREE can reach it
  }
  rcu_read_unlock();
  void (*hook)(struct page *) = READ_ONCE(lazyfree_keep_hook);
  if(hook && !dropped)
    hook(page);
  return dropped;
}

// One shootdown for the batch, before the reclaim core frees its pages: a stale TLB entry
// must never reach a page that has been handed to someone else.
static void
lazyfree_finish(void)
{
  struct flush_batch *b = this_cpu_ptr(&lazyfree_batch);
  if(!b->pending)
    return;
  flush_tlb_mask(&b->cpus);
  cpumask_clear(&b->cpus);
  b->pending = false;
}
