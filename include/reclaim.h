// The reclaim core: free-page watermarks, the active/inactive LRU lists, shrinkers, direct
// reclaim and the background reclaim thread (kswapd). Page owners plug in through lru_ops.
#pragma once
#include "gfp.h"
#include "list.h"
#include "mm.h"
#include "types.h"

// A page on the LRU has an owner: page->mapping points at an object whose FIRST member is a
// `const struct lru_ops *`. The page cache's struct address_space starts with one; anonymous
// memory (MADV_FREE) has its own. evict() is called with the page's reference held by the
// caller (refcount >= 2 then: the owner's and the caller's) and PG_lru already cleared; it
// returns true if it dropped the page from its owner (the owner's reference is gone, the
// caller's put_page then frees it), false to keep it (the core puts it back on the LRU).
struct lru_ops {
  const char *name;
  bool (*evict)(struct page *page);
  // Optional: called after each batch of evictions, before the core drops its references
  // to the pages evict() let go of. An owner that deferred work, such as a TLB flush,
  // finishes it here: until then no page it dropped can be freed and reused.
  void (*finish)(void);
};

// Taking a page back: the owner clears page->mapping, then calls lru_cache_del. Reclaim may
// hold the page off the lists at that moment (PG_lru clear); it then sees the NULL mapping
// and drops the page instead of putting it back. So evict() must recheck that the page is
// still its own (it may have been deleted since reclaim picked it), and answer true if not.
static inline const struct lru_ops *
page_lru_ops(struct page *page)
{
  return *(const struct lru_ops *const *)page->mapping;
}

// LRU lists (one zone): new pages go on the inactive list; a second access (or
// mark_page_accessed on a referenced page) moves them to the active list; reclaim scans the
// inactive tail, giving referenced pages a second chance (Linux 2.6's two-list LRU).
void lru_cache_add(struct page *page);       // takes a reference; sets PG_lru
void lru_cache_del(struct page *page);       // if on the LRU: off it, reference dropped
void mark_page_accessed(struct page *page);
void lru_add_lazyfree(struct page *page);    // MADV_FREE: to the inactive tail, first to go
#define LRU_BATCH 32                            // pages lru_add_lazyfree_many takes at most
void lru_add_lazyfree_many(struct page **pages, int n);   // those n, one lock acquisition
// (a page not yet on the LRU is added, with a reference, as by lru_cache_add). PG_lazyfree is
// the core's while the page is on the LRU: an owner that finds the page written again
// refuses evict() and clears the flag itself, under the lock its MADV_FREE hands pages over
// under, so that a new MADV_FREE right after finds the page free to hand over again.

// Reclaim works in batches of this many pages (Linux's SWAP_CLUSTER_MAX).
#define SWAP_CLUSTER_MAX 32
unsigned long shrink_lru(unsigned long nr_to_scan);   // the inactive tail; returns reclaimed

struct shrink_control {
  gfp_t gfp_mask;
  unsigned long nr_to_scan;   // objects to scan in this call
};

// Caches that are not LRU pages (dentries, inodes, test caches) register a shrinker.
struct shrinker {
  unsigned long (*count_objects)(struct shrinker *s, struct shrink_control *sc);
  unsigned long (*scan_objects)(struct shrinker *s, struct shrink_control *sc);   // freed
  int seeks;                  // cost to recreate an object (DEFAULT_SEEKS = 2)
  struct list_head list;
};
#define DEFAULT_SEEKS 2
int register_shrinker(struct shrinker *s);
void unregister_shrinker(struct shrinker *s);

// Watermarks in pages. Below low, kswapd is woken; an allocation that would take free
// memory below min reclaims first itself (direct reclaim), if its gfp allows sleeping.
struct watermarks {
  unsigned long min, low, high;
};
extern struct watermarks wmark;
void reclaim_init(void);                     // watermarks, kswapd; after the scheduler
unsigned long try_to_free_pages(gfp_t gfp, unsigned long nr_pages);   // returns freed
void wakeup_kswapd(void);

struct reclaim_stats {
  unsigned long lru_active, lru_inactive, lazyfree;
  u64 scanned, reclaimed, lazyfree_freed, lazyfree_kept, shrinker_freed;
  u64 direct_runs, kswapd_runs;
};
void reclaim_get_stats(struct reclaim_stats *st);
