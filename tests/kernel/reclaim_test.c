// Self-test of the reclaim core: a test shrinker and test-owned LRU pages under real memory
// pressure, which must wake kswapd, start direct reclaim and evict only what owners allow.
#include "fault_inject.h"
#include "fs.h"
#include "mm.h"
#include "printk.h"
#include "reclaim.h"
#include "sched.h"
#include "selftest.h"
#include "spinlock.h"

#define NR_CACHE 4096       // pages the test shrinker owns (16 MiB)
#define NR_EVICT 4096       // clean LRU pages the owner lets go
#define NR_ACTIVE 1024      // of those, accessed twice: they start on the active list
#define NR_REFUSE 64        // LRU pages "in use": the owner never lets them go
#define NR_LAZY 32          // MADV_FREE-like pages; the odd ones are "written again"
#define NR_OWNED (NR_EVICT + NR_REFUSE + NR_LAZY)
#define ROUNDS 3            // times memory is driven below min
#define DIRECT_PER_ROUND 32 // direct reclaim passes each round must cause
// Pages the free count may end below where it started. Nothing the test allocates is kept,
// but the pressure makes other subsystems' GFP_ATOMIC allocations and slab growth land
// while memory is short, and a slab cache keeps one empty slab (up to 8 pages) of those.
#define FREE_TOLERANCE 64

// The test's page owner: page->mapping points here, page->index is the slot in pages[].
static struct test_owner {
  const struct lru_ops *ops;   // first, as reclaim.h requires
  spinlock_t lock;
  struct page *pages[NR_OWNED];   // NULL once evicted or taken back
  unsigned long evicted, refused, lazy_freed, lazy_kept;
} owner;

static bool
refused(unsigned long i)
{
  return i >= NR_EVICT && (i < NR_EVICT + NR_REFUSE || (i - NR_EVICT - NR_REFUSE) % 2);
}

static bool
test_evict(struct page *page)
{
  unsigned long i = page->index;
  bool lazy = i >= NR_EVICT + NR_REFUSE;
  u64 irq;
  spin_lock_irqsave(&owner.lock, irq);
  if(i >= NR_OWNED || owner.pages[i] != page) {   // taken back meanwhile: not ours
    spin_unlock_irqrestore(&owner.lock, irq);
    return true;
  }
  if(refused(i)) {
    if(lazy)
      owner.lazy_kept++;
    else
      owner.refused++;
    spin_unlock_irqrestore(&owner.lock, irq);
    return false;
  }
  owner.pages[i] = NULL;
  page->mapping = NULL;
  if(lazy)
    owner.lazy_freed++;
  else
    owner.evicted++;
  spin_unlock_irqrestore(&owner.lock, irq);
  put_page(page);   // the owner's reference; reclaim's put_page frees the page
  return true;
}

static const struct lru_ops test_lru_ops = { .name = "reclaim-test", .evict = test_evict };

// The shrinker's cache: whole pages, so that every object freed is a page back.
static struct {
  spinlock_t lock;
  struct list_head pages;
  unsigned long nr, scans, freed;
} cache;

static unsigned long
cache_count(struct shrinker *s, struct shrink_control *sc)
{
  return READ_ONCE(cache.nr);
}

static unsigned long
cache_scan(struct shrinker *s, struct shrink_control *sc)
{
  unsigned long freed = 0;
  u64 irq;
  spin_lock_irqsave(&cache.lock, irq);
  cache.scans++;
  for(; freed < sc->nr_to_scan && !list_empty(&cache.pages); freed++) {
    struct page *p = list_first_entry(&cache.pages, struct page, lru);
    list_del(&p->lru);
    __free_page(p);
  }
  cache.nr -= freed;
  cache.freed += freed;
  spin_unlock_irqrestore(&cache.lock, irq);
  return freed;
}

static struct shrinker test_shrinker = {
  .count_objects = cache_count, .scan_objects = cache_scan, .seeks = DEFAULT_SEEKS,
};

static u64
pattern(unsigned long i, unsigned long word)
{
  return i * 0x9e3779b97f4a7c15ULL + word;
}

static bool
intact(struct page *p, unsigned long i)
{
  u64 *w = page_address(p);
  for(unsigned long j = 0; j < PAGE_SIZE / 8; j++)
    if(w[j] != pattern(i, j))
      return false;
  return true;
}

// Fills the shrinker's cache and the owner's pages; false if memory ran out.
static bool
populate(void)
{
  cache.nr = cache.scans = cache.freed = 0;
  spin_lock_init(&cache.lock);
  INIT_LIST_HEAD(&cache.pages);
  owner = (struct test_owner){ .ops = &test_lru_ops };
  spin_lock_init(&owner.lock);
  register_shrinker(&test_shrinker);   // first: teardown unregisters it whatever failed
  for(int i = 0; i < NR_CACHE; i++) {
    struct page *p = alloc_page(GFP_KERNEL | __GFP_NOWARN);
    if(!p)
      return false;
    list_add(&p->lru, &cache.pages);
    cache.nr++;
  }

  for(unsigned long i = 0; i < NR_OWNED; i++) {
    struct page *p = alloc_page(GFP_KERNEL | __GFP_NOWARN);
    if(!p)
      return false;
    u64 *w = page_address(p);
    for(unsigned long j = 0; j < PAGE_SIZE / 8; j++)
      w[j] = pattern(i, j);
    p->mapping = &owner;
    p->index = i;
    owner.pages[i] = p;
    if(i < NR_EVICT + NR_REFUSE)
      lru_cache_add(p);
    else
      lru_add_lazyfree(p);
    if(i < NR_ACTIVE) {
      mark_page_accessed(p);
      mark_page_accessed(p);
    }
  }
  return true;
}

// Allocates until direct reclaim has run DIRECT_PER_ROUND more times (or memory is gone),
// keeping every page, then frees them all. Returns the pages it held at the peak.
static unsigned long
pressure_round(unsigned long *lowest, int *failures)
{
  struct reclaim_stats st;
  reclaim_get_stats(&st);
  u64 target = st.direct_runs + DIRECT_PER_ROUND;
  LIST_HEAD(held);
  unsigned long n = 0;
  while(st.direct_runs < target) {
    struct page *p = alloc_page(GFP_KERNEL | __GFP_NOWARN);
    if(!p) {
      (*failures)++;
      break;
    }
    list_add(&p->lru, &held);
    if(++n % 64 == 0) {
      *lowest = MIN(*lowest, nr_free_pages());
      reclaim_get_stats(&st);
      cond_resched();   // kswapd shares CPU 0 with the self-tests
    }
  }
  while(!list_empty(&held)) {
    struct page *p = list_first_entry(&held, struct page, lru);
    list_del(&p->lru);
    __free_page(p);
  }
  return n;
}

// Gives back whatever reclaim left: the owner's pages, then the cache.
static void
teardown(void)
{
  unregister_shrinker(&test_shrinker);
  while(!list_empty(&cache.pages)) {
    struct page *p = list_first_entry(&cache.pages, struct page, lru);
    list_del(&p->lru);
    __free_page(p);
  }
  for(unsigned long i = 0; i < NR_OWNED; i++) {
    u64 irq;
    spin_lock_irqsave(&owner.lock, irq);
    struct page *p = owner.pages[i];
    owner.pages[i] = NULL;
    if(p)
      p->mapping = NULL;   // before lru_cache_del, as reclaim.h asks
    spin_unlock_irqrestore(&owner.lock, irq);
    if(p) {
      lru_cache_del(p);
      put_page(p);
    }
  }
}

static bool
reclaim_test(void)
{
  bool ok = true;
  struct reclaim_stats before, st;
  struct fault_rates rates;
  drain_all_pages();
  unsigned long start = nr_free_pages();
  reclaim_get_stats(&before);
  if(!populate()) {   // under the boot's injection (failslab=, failpage=), if any
    teardown();
    return selftest_skip("enomem");
  }
  // The pressure rounds count every allocation and every page reclaim frees: the boot's
  // injection is paused for them and put back at the end.
  fault_inject_pause(&rates);

  reclaim_get_stats(&st);
  ok &= st.lru_active >= before.lru_active + NR_ACTIVE;
  ok &= st.lazyfree >= before.lazyfree + NR_LAZY;
  // Lazyfree pages are at the inactive tail: the first scan takes them and nothing else.
  shrink_lru(NR_LAZY);
  ok &= owner.lazy_freed == NR_LAZY / 2 && owner.lazy_kept == NR_LAZY / 2;
  ok &= owner.evicted == 0;

  unsigned long lowest = start, peak = 0;
  int failures = 0;
  for(int r = 0; r < ROUNDS; r++)
    peak = MAX(peak, pressure_round(&lowest, &failures));
  reclaim_get_stats(&st);
  ok &= lowest < wmark.low && failures == 0;
  ok &= st.direct_runs >= before.direct_runs + ROUNDS * DIRECT_PER_ROUND;
  ok &= st.kswapd_runs > before.kswapd_runs;
  ok &= cache.scans > 0 && cache.freed > 0;
  ok &= st.shrinker_freed >= before.shrinker_freed + cache.freed;
  ok &= owner.evicted > 0 && owner.refused > 0;
  for(unsigned long i = NR_EVICT; i < NR_EVICT + NR_REFUSE; i++)
    ok &= owner.pages[i] && intact(owner.pages[i], i);
  for(unsigned long i = NR_EVICT + NR_REFUSE + 1; i < NR_OWNED; i += 2)
    ok &= owner.pages[i] && intact(owner.pages[i], i);

  teardown();
  msleep(10);   // kswapd may still hold a batch it isolated; it finishes and sleeps
  drain_all_pages();
  unsigned long end = nr_free_pages();
  // Other owners' pages and caches may have been reclaimed too: only those may raise the
  // count above where it started.
  struct reclaim_stats after;
  reclaim_get_stats(&after);
  u64 ours = owner.evicted + owner.lazy_freed + cache.freed;
  u64 others = after.reclaimed - before.reclaimed + after.shrinker_freed -
               before.shrinker_freed - ours;
  ok &= end + FREE_TOLERANCE >= start && end <= start + others + FREE_TOLERANCE;
  selftest_extra("wmark=%lu/%lu/%lu lowest=%lu peak=%lu fail=%d evicted=%lu refused=%lu "
                 "lazy=%lu/%lu shrunk=%lu/%lu direct=%lu kswapd=%lu free=%lu/%lu",
                 wmark.min, wmark.low, wmark.high, lowest, peak, failures, owner.evicted,
                 owner.refused, owner.lazy_freed, owner.lazy_kept, cache.freed, cache.scans,
                 st.direct_runs - before.direct_runs, st.kswapd_runs - before.kswapd_runs,
                 start, end);
  fault_inject_restore(&rates);
  return ok;
}
SELFTEST("reclaim", reclaim_test);

// ramfs's pages stay off the LRU (mm/filemap.c): reclaim cannot take them, and scanning them
// made a full ramfs stall every allocation. A 1 MiB file on the root ramfs must leave the LRU's
// size where it was, give or take what other subsystems add meanwhile. Exact counts: it runs
// with the boot's fault injection paused.
#define RAMFS_PAGES 256
static bool
ramfs_unevictable_test(void)
{
  static char page[4096];
  struct reclaim_stats before, after;
  struct file *f;
  if(vfs_open("/ramfs-unevictable", O_CREAT | O_EXCL, 0, &f))
    return false;
  reclaim_get_stats(&before);
  long written = 0;
  for(int i = 0; i < RAMFS_PAGES; i++)
    written += vfs_pwrite(f, page, sizeof(page), (u64)i * sizeof(page)) == sizeof(page);
  reclaim_get_stats(&after);
  vfs_close(f);
  vfs_unlink("/ramfs-unevictable");
  long grew = (long)(after.lru_active + after.lru_inactive) -
              (long)(before.lru_active + before.lru_inactive);
  selftest_extra("pages=%ld lru_grew=%ld", written, grew);
  return written == RAMFS_PAGES && grew < RAMFS_PAGES / 4;
}
SELFTEST_NOINJECT("ramfs-unevictable", ramfs_unevictable_test);
