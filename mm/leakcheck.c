// The leak check: the free pages and every slab cache's allocated objects once boot is done,
// against the same at the end of the run, each time after every deferred free has run.
#include "leakcheck.h"
#include "mm.h"
#include "printk.h"
#include "radix-tree.h"
#include "rcupdate.h"
#include "slab.h"
#include "smp.h"
#include "string.h"

// What the allocators hold at a quiescent moment. Pages: free, kept for good by design
// (account_permanent_pages), or in slabs, so that only pages that went missing outside the
// slab allocator make a difference. Slabs are checked by their objects instead: the same
// objects may be spread over more slabs after a run than after boot (a mempool's reserve,
// drawn and refilled), which is fragmentation, not a leak.
struct mm_usage {
  unsigned long pages;
  bool present[KMEM_CACHE_INDEX_MAX];
  struct kmem_cache_usage cache[KMEM_CACHE_INDEX_MAX];
};

static struct mm_usage at_boot, at_end;

// Everything freed but not yet given back is given back: RCU callbacks (dentries, inodes,
// radix-tree nodes) run, the radix-tree preload stashes go back to their pools, the CPUs'
// magazines and the empty slabs go back (those of SLAB_TYPESAFE_BY_RCU caches through one
// more grace period), and every CPU's per-CPU page list goes back to the buddy lists. What
// is then allocated is what something still holds. The benchmark harness settles between
// runs with it too, so every run starts from the same allocator state.
void
mm_quiesce(void)
{
  rcu_barrier();
  on_each_cpu(radix_tree_drain_preloads, NULL, true);
  kmem_cache_shrink_all();
  rcu_barrier();
  drain_all_pages();
}

static void
measure(struct mm_usage *u)
{
  mm_quiesce();
  u->pages = nr_free_pages() + nr_permanent_pages();
  for(int i = 0; i < KMEM_CACHE_INDEX_MAX; i++)
    if((u->present[i] = kmem_cache_usage(i, &u->cache[i])))
      u->pages += u->cache[i].pages;
}

void
leak_check_snapshot(void)
{
  measure(&at_boot);
}

// A cache that did not exist at boot (or was destroyed and its slot reused) started at 0.
static unsigned long
boot_objects(int i)
{
  if(!at_boot.present[i] || strcmp(at_boot.cache[i].name, at_end.cache[i].name) != 0)
    return 0;
  return at_boot.cache[i].objects;
}

bool
leak_check(void)
{
  unsigned long objects = 0, before;
  long pages;

  measure(&at_end);
  for(int i = 0; i < KMEM_CACHE_INDEX_MAX; i++) {
    if(!at_end.present[i] || at_end.cache[i].objects <= (before = boot_objects(i)))
      continue;
    pr_err("leakcheck: cache '%s' has %lu objects allocated, %lu after boot\n",
           at_end.cache[i].name, at_end.cache[i].objects, before);
    objects += at_end.cache[i].objects - before;
  }
  pages = (long)at_boot.pages - (long)at_end.pages;
  if(pages > 0)
    pr_err("leakcheck: %ld pages are missing: %lu free or accounted after boot, %lu now\n", pages,
           at_boot.pages, at_end.pages);
  printk("LEAK-CHECK result=%s pages=%ld objects=%lu\n", pages > 0 || objects ? "fail" : "pass",
         pages, objects);
  return pages <= 0 && objects == 0;
}
