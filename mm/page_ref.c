// Page reference counts: taking and dropping references, and the checks that catch a page
// used while free. Apart from the allocator, so the host page-cache test builds it as it is.
#include "mm.h"
#include "panic.h"

// Flags that must be clear when a page is freed: still locked, on an LRU list or in a
// slab means its owner forgot it (Linux's PAGE_FLAGS_CHECK_AT_FREE).
#define FLAGS_CHECK_AT_FREE \
  (1UL << PG_locked | 1UL << PG_lru | 1UL << PG_active | 1UL << PG_reserved | \
   1UL << PG_slab | 1UL << PG_buddy | 1UL << PG_large_kmalloc)

static void
bad_page(struct page *p, const char *why)
{
  panic("page: pfn %#lx %s (flags %#lx refcount %d mapping %p)", page_to_pfn(p), why,
        p->flags, p->refcount, p->mapping);
}

void
prep_new_page(struct page *p)
{
  // PG_unscrubbed stays on a page taken with __GFP_NOSCRUB (mm/page_alloc.c).
  if((p->flags & ~(1UL << PG_unscrubbed)) || p->refcount || p->mapping)
    bad_page(p, "was corrupted while free");
  p->refcount = 1;
  p->index = 0;
}

// Drops a reference; the last one frees. A count already at zero is a double free.
void
__free_pages(struct page *p, unsigned order)
{
  int old = __atomic_fetch_sub(&p->refcount, 1, __ATOMIC_ACQ_REL);
  if(old <= 0)
    bad_page(p, "freed while already free (double free)");
  if(old > 1)
    return;
  if(p->flags & FLAGS_CHECK_AT_FREE)
    bad_page(p, "freed with flags its owner should have cleared");
  if(p->mapping)
    bad_page(p, "freed while still in an address space");
  p->flags &= 1UL << PG_unscrubbed;   // never written: its next owner scrubs it
  p->private = 0;
  free_pages_ok(p, order);
}

void
get_page(struct page *p)
{
  if(__atomic_fetch_add(&p->refcount, 1, __ATOMIC_RELAXED) <= 0)
    bad_page(p, "referenced while free");
}

// A lookup without a lock may find a page that is being freed; it may keep it only if the
// count was not already zero (Piggin's lockless page cache, LWN 2006 "lockless pagecache").
bool
get_page_unless_zero(struct page *p)
{
  int c = READ_ONCE(p->refcount);
  while(c > 0)
    if(__atomic_compare_exchange_n(&p->refcount, &c, c + 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

void
put_page(struct page *p)
{
  __free_pages(p, 0);
}
