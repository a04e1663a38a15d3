// Split page-table locks (vm.ptl=split|mm): a lock for each page table's 512 entries instead
// of one for the whole address space: made and freed with the page table.
//
// Why: with every PTE of an mm under mm->page_table_lock, threads that fault or advise
// their own memory still meet on one lock, and under overcommitted vCPUs its holder is
// descheduled for a host time slice while the others spin (ubench's ufault and umadvise at 8
// threads on 8 vCPUs: 4.7 s of waiting on it in 0.3 s runs, 74 ms at most for one
// acquisition). Linux split the lock in 2.6.15 (Hugh Dickins, "mm: split page table lock",
// 2005, after Christoph Lameter's page-fault scalability work): the lock sits in the page
// table's struct page, or, where a spinlock is too big for it (lockdep, as here), in an object
// of its own that page->ptl points at (Linux's ALLOC_SPLIT_PTLOCKS, ptlock_alloc).
//
// What each lock covers: the entries of its page table, the copies of them in per-core
// tables and the record of which CPUs copied it (mm/percore.c). Installing a missing upper
// level and freeing the tables stay under mm->page_table_lock (Linux's pmd_alloc does too).
// A page table made while vm.ptl=mm held has no lock of its own (page->ptl NULL) and uses
// the mm's for its whole life, so the choice is a page table's, fixed when it is made.
#include "cmdline.h"
#include "errno.h"
#include "mm.h"
#include "printk.h"
#include "slab.h"
#include "vm.h"

bool vm_ptl_split;
bool ptlock_planted_shared;   // planted bug: every page table made gets the same lock
static DEFINE_SPINLOCK(planted_lock);

static struct kmem_cache *ptlock_cache;

// Every page table's lock is one lockdep class: two are held together only in mremap's
// move, the second nested (mm/memory.c, move_page_tables).
static struct lock_class_key ptlock_key = { .name = "ptlock" };

int
ptlock_alloc(struct page *pt)
{
  pt->ptl = NULL;
  if(!READ_ONCE(vm_ptl_split) || !ptlock_cache)
    return 0;
  if(READ_ONCE(ptlock_planted_shared)) {
    pt->ptl = &planted_lock;
    return 0;
  }
  spinlock_t *l = kmem_cache_alloc(ptlock_cache, GFP_KERNEL);
  if(!l)
    return -ENOMEM;
  __spin_lock_init(l, &ptlock_key);
  pt->ptl = l;
  return 0;
}

void
ptlock_free(struct page *pt)
{
  if(pt->ptl && pt->ptl != &planted_lock)
    kmem_cache_free(ptlock_cache, pt->ptl);
  pt->ptl = NULL;
}

// vm.ptl=: page tables made from here on get locks of their own, or not.
void
ptlock_init(void)
{
  vm_ptl_split = !kcmdline.vm_ptl_mm;
  // Made under vm.ptl=mm too: the ptlock self-test makes split tables in any boot.
  ptlock_cache = kmem_cache_create("ptlock", sizeof(spinlock_t), 0, 0, NULL);
  if(vm_ptl_split && !ptlock_cache) {
    pr_err("vm: vm.ptl=split: no memory for the locks' cache: vm.ptl=mm\n");
    vm_ptl_split = false;
  }
  if(vm_ptl_split)
    printk("vm: vm.ptl=split: each page table has its own lock (Linux 2.6.15)\n");
  else
    printk("vm: vm.ptl=mm: one lock for every page table of an address space (Linux before"
           " 2.6.15)\n");
}
