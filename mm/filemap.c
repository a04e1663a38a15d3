// The page cache's API (Linux's mm/filemap.c): what holds the page lock, the cache's and the
// LRU's references, and truncation, alike for the four indexing variants behind m->ops.
#include "compiler.h"
#include "errno.h"
#include "pagemap.h"
#include "reclaim.h"
#include "sched.h"

const char *const pagecache_variant_names[NR_PC_VARIANTS] = {
  [PC_HASH_GLOBAL] = "hash-global",
  [PC_HASH_BUCKET] = "hash-bucket",
  [PC_RADIX_LOCK] = "radix-lock",
  [PC_RADIX_RCU] = "radix-rcu",
};

static const struct pagecache_ops *const variant_ops[NR_PC_VARIANTS] = {
  [PC_HASH_GLOBAL] = &hash_global_ops,
  [PC_HASH_BUCKET] = &hash_bucket_ops,
  [PC_RADIX_LOCK] = &radix_lock_ops,
  [PC_RADIX_RCU] = &radix_rcu_ops,
};

// The page lock serializes a page's owners (truncate, reclaim, the file system) but is
// held only briefly here, so a waiter yields its CPU rather than sleeping on a wait queue
// as Linux's does.
bool
trylock_page(struct page *page)
{
  return !test_and_set_page_flag(page, PG_locked);
}

void
lock_page(struct page *page)
{
  while(!trylock_page(page))
    yield();
}

void
unlock_page(struct page *page)
{
  test_and_clear_page_flag(page, PG_locked);
}

// Reclaim's way in: a clean page of an unused, reclaimable file that nobody but the cache
// and the caller holds leaves the cache. The caller holds the LRU's reference and has
// cleared PG_lru, so once we drop the cache's, its put_page frees the page. A page deleted
// since reclaim picked it is no longer ours to keep: true (reclaim.h).
static bool
pagecache_evict(struct page *page)
{
  struct address_space *m;
  bool dropped = false;
  if(!trylock_page(page))
    return READ_ONCE(page->mapping) == NULL;
  m = page->mapping;
  if(!m) {
    dropped = true;
  } else if(READ_ONCE(m->reclaimable) && READ_ONCE(m->users) == 0 &&
            !page_flag(page, PG_dirty) && m->ops->remove(m, page, 2)) {
    put_page(page);
    dropped = true;
  }
  unlock_page(page);
  return dropped;
}

static const struct lru_ops pagecache_lru_ops = {
  .name = "pagecache",
  .evict = pagecache_evict,
};

int
address_space_init(struct address_space *m, enum pagecache_variant v, unsigned fanout,
                   void *host, bool reclaimable)
{
  if(v >= NR_PC_VARIANTS)
    return -EINVAL;
  m->lru_ops = &pagecache_lru_ops;
  m->ops = variant_ops[v];
  m->variant = v;
  m->fanout = fanout;
  spin_lock_init(&m->tree_lock);
  m->page_tree.rnode = NULL;
  m->nrpages = 0;
  m->host = host;
  m->reclaimable = reclaimable;
  m->users = 0;
  INIT_LIST_HEAD(&m->hash_nodes);
  return m->ops->init(m);
}

void
address_space_destroy(struct address_space *m)
{
  truncate_inode_pages(m, 0);
}

struct page *
find_get_page(struct address_space *m, unsigned long index)
{
  return m->ops->lookup(m, index);
}

unsigned
find_get_pages(struct address_space *m, unsigned long start, unsigned nr, struct page **pages)
{
  return m->ops->gang_lookup(m, start, nr, pages);
}

// The page may leave the cache while we wait for its lock: then look again.
struct page *
find_lock_page(struct address_space *m, unsigned long index)
{
  struct page *page;
  while((page = find_get_page(m, index)) != NULL) {
    lock_page(page);
    if(page->mapping == m && page->index == index)
      return page;
    unlock_page(page);
    put_page(page);
  }
  return NULL;
}

// Two callers may race to create the same page: the loser's insert fails with -EEXIST,
// and it takes the winner's.
struct page *
find_or_create_page(struct address_space *m, unsigned long index, gfp_t gfp)
{
  for(;;) {
    struct page *page = find_lock_page(m, index);
    if(page)
      return page;
    page = alloc_page(gfp);
    if(!page)
      return NULL;
    lock_page(page);
    int err = add_to_page_cache(page, m, index, gfp);
    if(err == 0)
      return page;
    unlock_page(page);
    put_page(page);
    if(err != -EEXIST)
      return NULL;
  }
}

// A fault on a mapping of m's file at page index (Linux's filemap_fault): the page, locked
// and referenced, made (zeroed: a hole of a ramfs file) when the file has none there. *size
// is the file's; read again under the page lock, which truncation takes to drop a page, so
// no page is handed out past the end of a file once a truncation has begun: -EIO (SIGBUS)
// past the end, -ENOMEM without memory. A page made just before a racing truncation stays
// past the end, zeroed, as one a pwrite cut short leaves: ramfs's holes read as zeros anyway.
int
filemap_fault(struct address_space *m, unsigned long index, const u64 *size, struct page **pagep)
{
  if(index >= ALIGN_UP(READ_ONCE(*size), PAGE_SIZE) >> PAGE_SHIFT)
    return -EIO;
  struct page *page = find_or_create_page(m, index, GFP_KERNEL | __GFP_ZERO);
  if(!page)
    return -ENOMEM;
  if(index >= ALIGN_UP(READ_ONCE(*size), PAGE_SIZE) >> PAGE_SHIFT) {
    unlock_page(page);
    put_page(page);
    return -EIO;
  }
  *pagep = page;
  return 0;
}

void
set_page_dirty(struct page *page)
{
  if(!page_flag(page, PG_dirty))   // a page written again stays dirty: no store to share
    set_page_flag(page, PG_dirty);
}

// The page lock is what truncation takes to drop the page (truncate_inode_pages), so a page
// found here still in m stays there until the caller has mapped it writable.
bool
filemap_page_mkwrite(struct address_space *m, struct page *page)
{
  if(page->mapping != m)
    return false;
  set_page_dirty(page);
  return true;
}

// The cache holds a reference of its own, and the LRU another (lru_cache_add). The page
// stays locked until the caller has filled it, so nobody reads it half-written. A page no
// reclaim may take (ramfs) stays off the LRU, as Linux keeps such pages on its unevictable
// list (mapping_set_unevictable): scanning them frees nothing, and a full ramfs made every
// allocation near the watermark walk all of them (minutes to fail a write at 1 GiB).
int
add_to_page_cache(struct page *page, struct address_space *m, unsigned long index, gfp_t gfp)
{
  get_page(page);
  int err = m->ops->insert(m, page, index, gfp);
  if(err) {
    put_page(page);
    return err;
  }
  if(READ_ONCE(m->reclaimable))
    lru_cache_add(page);
  return 0;
}

// page->mapping is cleared (by remove) before the page leaves the LRU: reclaim, which
// may hold the page isolated meanwhile, then sees it has no owner and lets it go.
// Truncation discards the data, so a dirty page is dropped as a clean one.
void
delete_from_page_cache(struct page *page)
{
  struct address_space *m = page->mapping;
  if(!m || !m->ops->remove(m, page, 0))
    return;
  clear_page_flag(page, PG_dirty);
  lru_cache_del(page);
  put_page(page);
}

#define TRUNCATE_BATCH 16

void
truncate_inode_pages(struct address_space *m, unsigned long start)
{
  struct page *pages[TRUNCATE_BATCH];
  unsigned n;
  bool more = true;
  unsigned long next = start;
  while(more && (n = find_get_pages(m, next, TRUNCATE_BATCH, pages)) > 0) {
    more = pages[n - 1]->index != ~0UL;
    next = pages[n - 1]->index + 1;
    for(unsigned i = 0; i < n; i++) {
      lock_page(pages[i]);
      if(pages[i]->mapping == m && pages[i]->index >= start)   // not moved meanwhile
        delete_from_page_cache(pages[i]);
      unlock_page(pages[i]);
      put_page(pages[i]);
    }
    cond_resched();
  }
}
