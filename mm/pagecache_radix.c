// The page-cache index as a radix tree per mapping (Momchil Velikov's 2002 patch): radix-lock
// looks up under the mapping's tree_lock, radix-rcu without any lock under RCU.
#include "compiler.h"
#include "errno.h"
#include "pagemap.h"
#include "radix-tree.h"
#include "rcupdate.h"
#include "spinlock.h"

// Fanout 2^shift: the 2002 thread compares 16-way (rat-4) with 128-way (rat-7).
static int
radix_init(struct address_space *m)
{
  unsigned shift = 0;
  while((1u << shift) < m->fanout)
    shift++;
  if((1u << shift) != m->fanout)
    return -EINVAL;
  return INIT_RADIX_TREE(&m->page_tree, shift);
}

// The node an insert may need is allocated before tree_lock is taken: preload fills this
// CPU's stash, and keeps us on this CPU until preload_end.
static int
radix_insert(struct address_space *m, struct page *page, unsigned long index, gfp_t gfp)
{
  int err = radix_tree_preload(gfp);
  if(err)
    return err;
  spin_lock(&m->tree_lock);
  page->mapping = m;
  page->index = index;
  err = radix_tree_insert(&m->page_tree, index, page);
  if(err)
    page->mapping = NULL;
  else
    m->nrpages++;
  spin_unlock(&m->tree_lock);
  radix_tree_preload_end();
  return err;
}

static bool
radix_remove(struct address_space *m, struct page *page, int refs)
{
  bool found = false;
  spin_lock(&m->tree_lock);
  if(radix_tree_lookup(&m->page_tree, page->index) == page &&
     (refs == 0 || page_ref_freeze(page, refs))) {
    radix_tree_delete(&m->page_tree, page->index);
    page->mapping = NULL;
    m->nrpages--;
    if(refs)
      page_ref_unfreeze(page, refs);
    found = true;
  }
  spin_unlock(&m->tree_lock);
  return found;
}

// radix-lock: the reference is taken under the lock, so no page in the tree can be
// freed meanwhile (remove takes the same lock).
static struct page *
radix_lock_lookup(struct address_space *m, unsigned long index)
{
  spin_lock(&m->tree_lock);
  struct page *page = radix_tree_lookup(&m->page_tree, index);
  if(page)
    get_page(page);
  spin_unlock(&m->tree_lock);
  return page;
}

static unsigned
radix_lock_gang(struct address_space *m, unsigned long start, unsigned nr, struct page **pages)
{
  spin_lock(&m->tree_lock);
  unsigned n = radix_tree_gang_lookup(&m->page_tree, (void **)pages, start, nr);
  for(unsigned i = 0; i < n; i++)
    get_page(pages[i]);
  spin_unlock(&m->tree_lock);
  return n;
}

// radix-rcu: the speculative page reference (Nick Piggin's lockless page cache, "mm: lockless
// pagecache", Linux 2.6.27, 2008; its find_get_page). Under RCU the tree's nodes stay readable,
// but the page found may be removed, freed and even reused for something else before we hold
// it. That is safe because struct page is never unmapped (mem_map is permanent), and
//  - get_page_unless_zero will not resurrect a free page (count 0), nor one that remove()
//    has frozen at zero;
//  - once we hold a reference the page can no longer be freed, so if the slot still holds
//    it, it is the page at that index; if not, we raced: drop it and look again.
// The recheck re-reads the slot the walk found rather than walking the tree again, as
// Piggin's does: a leaf leaves the tree only once empty, its slots cleared first, and under
// RCU its memory is not reused, so the slot holds the page at index for as long as the leaf
// is in the tree and NULL after (radix-tree.c: delete, shrink).
// A page reused in between gets our reference for a moment, and its new owner's last
// put_page may then be ours. For an order-0 page that frees it all the same; a page reused
// as the head of a larger block would be freed as order 0 by us: Linux's compound pages
// cover that case, which this kernel leaves open (the window is a few instructions wide).
//
// planted selects the copy that planted-pagecache-recheck runs (pagecache_plant_norecheck):
// no recheck, and planted_window called between reading the slot and taking the reference.
// A constant at both call sites, so the lookup every mapping uses has neither.
static void (*planted_window)(void);

DEFINE_PER_CPU(struct pagecache_rcu_stats, pagecache_rcu_races);

static inline __attribute__((always_inline)) struct page *
rcu_find_get(struct address_space *m, unsigned long index, bool planted)
{
  struct page *page;
  void **slot;
  rcu_read_lock();
repeat:
  page = NULL;
  slot = radix_tree_lookup_slot(&m->page_tree, index);
  if(!slot)
    goto out;
  page = rcu_dereference(*slot);
  if(!page)
    goto out;   // deleted since the walk: absent as of now
  if(planted)
    READ_ONCE(planted_window)();
  if(!get_page_unless_zero(page)) {
    this_cpu(pagecache_rcu_races).refused++;   // no preemption: stays this CPU's
    goto repeat;
  }
  // Read after the reference is taken (get_page_unless_zero's acquire), so it pairs with
  // remove()'s unlink, made before the remover's put_page (__free_pages' release).
  if(!planted && unlikely(page != rcu_dereference(*slot))) {
    this_cpu(pagecache_rcu_races).moved++;
    put_page(page);
    goto repeat;
  }
out:
  rcu_read_unlock();
  return page;
}

static struct page *
radix_rcu_lookup(struct address_space *m, unsigned long index)
{
  return rcu_find_get(m, index, false);
}

static struct page *
radix_rcu_planted_lookup(struct address_space *m, unsigned long index)
{
  return rcu_find_get(m, index, true);
}

// The most pages one radix-rcu gang lookup returns: its check needs a second array.
// find_get_pages may return fewer than asked for; only 0 means nothing is left.
#define RCU_GANG_MAX 16

// The tree gives no indices with a gang's pages, and a page held may have moved to another
// index since the walk saw it; so once they are held, a second walk checks the answer: the
// pages it returns in the same places as the first are each the page at its index at one
// moment, in order, with none missed between them. The rest are dropped (a caller asks
// again from the last index it got); if none is left the walk is repeated, as callers take
// an empty answer for the end of the file.
static unsigned
radix_rcu_gang(struct address_space *m, unsigned long start, unsigned nr, struct page **pages)
{
  struct page *again[RCU_GANG_MAX];
  unsigned n, n2, i, kept;
  nr = MIN(nr, RCU_GANG_MAX);
  rcu_read_lock();
  do {
    n = radix_tree_gang_lookup(&m->page_tree, (void **)pages, start, nr);
    for(i = 0; i < n; i++)
      if(!get_page_unless_zero(pages[i]))
        pages[i] = NULL;
    n2 = radix_tree_gang_lookup(&m->page_tree, (void **)again, start, n);
    for(kept = 0; kept < n2 && pages[kept] == again[kept]; kept++)
      ;
    for(i = kept; i < n; i++)
      if(pages[i])
        put_page(pages[i]);
  } while(n > 0 && kept == 0);
  rcu_read_unlock();
  return kept;
}

const struct pagecache_ops radix_lock_ops = {
  .init = radix_init,
  .lookup = radix_lock_lookup,
  .insert = radix_insert,
  .remove = radix_remove,
  .gang_lookup = radix_lock_gang,
};

const struct pagecache_ops radix_rcu_ops = {
  .init = radix_init,
  .lookup = radix_rcu_lookup,
  .insert = radix_insert,
  .remove = radix_remove,
  .gang_lookup = radix_rcu_gang,
};

// radix-rcu without its recheck, for planted-pagecache-recheck alone.
static const struct pagecache_ops radix_rcu_planted_ops = {
  .init = radix_init,
  .lookup = radix_rcu_planted_lookup,
  .insert = radix_insert,
  .remove = radix_remove,
  .gang_lookup = radix_rcu_gang,
};

void
pagecache_plant_norecheck(struct address_space *m, void (*window)(void))
{
  WRITE_ONCE(planted_window, window);
  if(m->ops == &radix_rcu_ops)
    m->ops = &radix_rcu_planted_ops;
}
