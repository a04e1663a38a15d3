// Page reclaim: the active and inactive LRU lists, the scan that evicts pages through their
// owners, shrinkers for other caches, direct reclaim, and kswapd with the watermarks that wake it.
#include "compiler.h"
#include "errno.h"
#include "mm.h"
#include "panic.h"
#include "printk.h"
#include "reclaim.h"
#include "rwsem.h"
#include "sched.h"
#include "spinlock.h"
#include "stats.h"
#include "wait.h"

// A reclaim pass scans 1/2^priority of the LRU and of every cache, from DEF_PRIORITY down
// to 0 (all of it), until it has freed what it was asked for (Linux 2.6's
// do_try_to_free_pages).
#define DEF_PRIORITY 12
// Objects handed to one scan_objects call (Linux's SHRINK_BATCH).
#define SHRINK_BATCH 128
// After a pass that freed nothing kswapd sleeps this long rather than spin while every
// allocation below low wakes it again (Linux waits in congestion_wait).
#define KSWAPD_BACKOFF_MS 10

struct watermarks wmark;   // zero until reclaim_init: nothing reclaims before then

// One zone, so one pair of lists; pages go on at the head and are scanned from the tail.
// irq-safe: pages are added and freed from any context.
static struct {
  spinlock_t lock;
  struct list_head active, inactive;
  unsigned long nr_active, nr_inactive, nr_lazyfree;
} lru = { SPINLOCK_INIT(lru.lock), LIST_HEAD_INIT(lru.active), LIST_HEAD_INIT(lru.inactive), 0, 0, 0 };

static struct {
  u64 scanned, reclaimed, lazyfree_freed, lazyfree_kept, shrinker_freed;
  u64 direct_runs, kswapd_runs;
} count;

static LIST_HEAD(shrinkers);
static DECLARE_RWSEM(shrinker_rwsem);

// Threads now reclaiming: reclaim may allocate, and such an allocation takes from the
// reserve instead of reclaiming again (Linux's PF_MEMALLOC). kswapd is always marked.
static bool in_reclaim[MAX_THREADS];

static DECLARE_WAIT_QUEUE_HEAD(kswapd_wait);
static bool kswapd_wanted;
static bool ready;

static void
count_add(u64 *c, u64 n)
{
  __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

// Caller holds lru.lock; the page is on no list and the LRU's reference is already taken.
static void
link_page(struct page *page, bool active, bool tail)
{
  struct list_head *list = active ? &lru.active : &lru.inactive;
  if(tail)
    list_add_tail(&page->lru, list);
  else
    list_add(&page->lru, list);
  set_page_flag(page, PG_lru);
  if(active) {
    set_page_flag(page, PG_active);
    lru.nr_active++;
  } else
    lru.nr_inactive++;
  if(page_flag(page, PG_lazyfree))
    lru.nr_lazyfree++;
}

// Caller holds lru.lock. The LRU's reference goes to the caller.
static void
unlink_page(struct page *page)
{
  list_del_init(&page->lru);
  clear_page_flag(page, PG_lru);
  if(test_and_clear_page_flag(page, PG_active))
    lru.nr_active--;
  else
    lru.nr_inactive--;
  if(page_flag(page, PG_lazyfree))
    lru.nr_lazyfree--;
}

void
lru_cache_add(struct page *page)
{
  get_page(page);
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  if(page_flag(page, PG_lru))
    panic("lru_cache_add: pfn %#lx is already on the LRU", page_to_pfn(page));
  link_page(page, false, false);
  spin_unlock_irqrestore(&lru.lock, irq);
}

void
lru_cache_del(struct page *page)
{
  bool was_on = false;
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  if(page_flag(page, PG_lru)) {
    unlink_page(page);
    clear_page_flag(page, PG_lazyfree);
    was_on = true;
  }
  spin_unlock_irqrestore(&lru.lock, irq);
  if(was_on)
    put_page(page);
}

// The first access marks the page referenced; a second one, while it is still inactive,
// activates it (Linux's mark_page_accessed).
void
mark_page_accessed(struct page *page)
{
  if(!page_flag(page, PG_referenced)) {
    set_page_flag(page, PG_referenced);
    return;
  }
  if(page_flag(page, PG_active) || !page_flag(page, PG_lru))
    return;
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  if(page_flag(page, PG_lru) && !page_flag(page, PG_active)) {
    unlink_page(page);
    clear_page_flag(page, PG_referenced);
    link_page(page, true, false);
  }
  spin_unlock_irqrestore(&lru.lock, irq);
}

// A lazily freed page is clean: dropping it costs nothing, so it goes to the inactive
// tail, the next to be scanned (Minchan Kim's MADV_FREE, Linux 4.5). Lazyfree pages are on
// the LRU only through this call, so one off the lists but still PG_lazyfree is one that
// reclaim holds now: reclaim asks its owner about it, and the owner sees the new state.
// Caller holds lru.lock.
static void
link_lazyfree(struct page *page)
{
  if(page_flag(page, PG_lru))
    unlink_page(page);
  else if(page_flag(page, PG_lazyfree))
    return;
  else
    get_page(page);
  clear_page_flag(page, PG_referenced);
  set_page_flag(page, PG_lazyfree);
  link_page(page, false, true);
}

void
lru_add_lazyfree(struct page *page)
{
  lru_add_lazyfree_many(&page, 1);
}

// n pages under one acquisition of the lock: MADV_FREE hands a range's pages over together,
// and eight threads advising their own memory took the one LRU lock once a page (ubench's
// umadvise at 8 threads on 8 vCPUs: 1.4 million acquisitions, 3.9 s of waiting in 6 s).
// Linux batches LRU moves in per-CPU pagevecs (Andrew Morton, 2.5.32), MADV_FREE's in
// lru_lazyfree_pvecs (Shaohua Li, 4.12), 15 pages at a time; n is the caller's batch,
// LRU_BATCH at most, so interrupts stay off as briefly.
void
lru_add_lazyfree_many(struct page **pages, int n)
{
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  for(int i = 0; i < n; i++)
    link_lazyfree(pages[i]);
  spin_unlock_irqrestore(&lru.lock, irq);
}

// A page taken off the LRU for a decision, with its owner's operations.
struct isolated {
  struct page *page;
  const struct lru_ops *ops;   // NULL: the owner is taking the page back
};

// Takes up to n pages off the inactive tail; their LRU references become the caller's.
// The owner's ops are read under the lock: an owner frees the object page->mapping points
// to only after lru_cache_del, which waits for this lock. page->mapping is read once: the
// owner may be clearing it now.
static int
isolate_inactive(struct isolated *batch, int n)
{
  int got = 0;
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  for(; got < n && !list_empty(&lru.inactive); got++) {
    struct page *page = list_entry(lru.inactive.prev, struct page, lru);
    unlink_page(page);
    void *owner = READ_ONCE(page->mapping);
    batch[got].page = page;
    batch[got].ops = owner ? *(const struct lru_ops *const *)owner : NULL;
  }
  spin_unlock_irqrestore(&lru.lock, irq);
  return got;
}

// Returns an isolated page to a list, unless its owner cleared page->mapping meanwhile:
// then lru_cache_del found nothing to do, and the LRU's reference is dropped here.
static void
putback(struct page *page, bool active)
{
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  bool owned = READ_ONCE(page->mapping) != NULL;
  if(owned)
    link_page(page, active, false);
  spin_unlock_irqrestore(&lru.lock, irq);
  if(!owned)
    put_page(page);
}

// Keeps the inactive list at least as long as the active one by moving up to n pages from
// the active tail; a page referenced since its activation goes round the active list again
// (Linux 2.6's refill_inactive_zone, with the 1:1 ratio of its inactive_is_low).
static void
refill_inactive(unsigned long n)
{
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  for(; n > 0 && lru.nr_inactive < lru.nr_active; n--) {
    struct page *page = list_entry(lru.active.prev, struct page, lru);
    unlink_page(page);
    link_page(page, test_and_clear_page_flag(page, PG_referenced), false);
  }
  spin_unlock_irqrestore(&lru.lock, irq);
}

// Decides one isolated page: a second chance if it was referenced, else its owner is asked
// to drop it. A lazyfree page its owner keeps (written again) is an ordinary anonymous page
// once more, and those are not on the LRU. Returns 1 if the page was reclaimed.
static int
shrink_page(struct page *page, const struct lru_ops *ops)
{
  if(!ops) {
    put_page(page);
    return 0;
  }
  if(test_and_clear_page_flag(page, PG_referenced)) {
    putback(page, true);
    return 0;
  }
  bool lazy = page_flag(page, PG_lazyfree);
  if(!ops->evict(page)) {
    if(!lazy) {
      putback(page, false);
      return 0;
    }
    put_page(page);   // the owner cleared PG_lazyfree under its lock (mm/lazyfree.c)
    count_add(&count.lazyfree_kept, 1);
    return 0;
  }
  count_add(&count.reclaimed, 1);
  if(lazy)
    count_add(&count.lazyfree_freed, 1);
  return 1;   // the caller's put_page frees it, after the owners' finish hooks
}

// One batch: evict what can go, let each owner finish deferred work once (one TLB
// shootdown for the whole batch instead of one per page, like Linux's
// try_to_unmap_flush), and only then free the pages.
static unsigned long
shrink_batch(struct isolated *batch, int n)
{
  struct page *freed[SWAP_CLUSTER_MAX];
  const struct lru_ops *owners[SWAP_CLUSTER_MAX];
  int nfreed = 0, nowners = 0;
  for(int i = 0; i < n; i++) {
    const struct lru_ops *ops = batch[i].ops;
    if(!shrink_page(batch[i].page, ops))
      continue;
    freed[nfreed++] = batch[i].page;
    int k = 0;
    while(k < nowners && owners[k] != ops)
      k++;
    if(k == nowners)
      owners[nowners++] = ops;
  }
  for(int k = 0; k < nowners; k++)
    if(owners[k]->finish)
      owners[k]->finish();
  for(int i = 0; i < nfreed; i++)
    put_page(freed[i]);   // the owner's reference is gone: this frees the page
  return nfreed;
}

unsigned long
shrink_lru(unsigned long nr_to_scan)
{
  unsigned long reclaimed = 0;
  while(nr_to_scan > 0) {
    struct isolated batch[SWAP_CLUSTER_MAX];
    refill_inactive(SWAP_CLUSTER_MAX);
    int n = isolate_inactive(batch, MIN(nr_to_scan, SWAP_CLUSTER_MAX));
    if(n == 0)
      break;
    count_add(&count.scanned, n);
    nr_to_scan -= n;
    reclaimed += shrink_batch(batch, n);
  }
  return reclaimed;
}

int
register_shrinker(struct shrinker *s)
{
  if(s->seeks <= 0)
    return -EINVAL;
  down_write(&shrinker_rwsem);
  list_add_tail(&s->list, &shrinkers);
  up_write(&shrinker_rwsem);
  return 0;
}

void
unregister_shrinker(struct shrinker *s)
{
  down_write(&shrinker_rwsem);
  list_del(&s->list);
  up_write(&shrinker_rwsem);
}

// Every cache is scanned for the share of its objects that the LRU pass takes of the pages,
// 1/2^priority, times 4/seeks: objects that are dear to rebuild are scanned less (Linux
// 2.6's shrink_slab: delta = 4 * scanned / seeks * objects / lru_pages). The lock is only
// tried: a register_shrinker that allocates must not wait for its own reclaim.
static unsigned long
shrink_slab(gfp_t gfp, int priority)
{
  if(!down_read_trylock(&shrinker_rwsem))
    return 0;
  unsigned long freed = 0;
  struct shrinker *s;
  list_for_each_entry(s, &shrinkers, list) {
    struct shrink_control sc = { .gfp_mask = gfp };
    unsigned long objects = s->count_objects(s, &sc);
    unsigned long todo = MIN((objects * 4 / s->seeks) >> priority, objects);
    while(todo > 0) {
      sc.nr_to_scan = MIN(todo, SHRINK_BATCH);
      freed += s->scan_objects(s, &sc);
      todo -= sc.nr_to_scan;
      cond_resched();
    }
  }
  up_read(&shrinker_rwsem);
  count_add(&count.shrinker_freed, freed);
  return freed;
}

// Passes of rising priority over the LRU and the caches until nr are freed. A shrinker's
// objects count as pages here: the caches that register one hold page-sized or larger
// objects, or many small ones whose slabs empty as a batch goes. Reclaimed pages land on
// this CPU's free list; they are drained so that the watermark checks see them.
static unsigned long
do_try_to_free_pages(gfp_t gfp, unsigned long nr)
{
  unsigned long freed = 0;
  for(int priority = DEF_PRIORITY; priority >= 0 && freed < nr; priority--) {
    unsigned long lru_pages = READ_ONCE(lru.nr_active) + READ_ONCE(lru.nr_inactive);
    unsigned long quota = MAX(lru_pages >> priority, SWAP_CLUSTER_MAX);
    for(; quota > 0 && freed < nr; quota -= MIN(quota, SWAP_CLUSTER_MAX))
      freed += shrink_lru(MIN(quota, SWAP_CLUSTER_MAX));
    freed += shrink_slab(gfp, priority);
    cond_resched();
  }
  if(freed > 0)
    drain_local_pages();
  return freed;
}

// Direct reclaim: the allocating thread frees memory itself (called from alloc_pages).
unsigned long
try_to_free_pages(gfp_t gfp, unsigned long nr_pages)
{
  if(!READ_ONCE(ready))
    return 0;
  bool *busy = &in_reclaim[current - threads];
  if(*busy)
    return 0;
  *busy = true;
  count_add(&count.direct_runs, 1);
  unsigned long freed = do_try_to_free_pages(gfp, nr_pages);
  *busy = false;
  return freed;
}

// The background reclaimer: woken below low, it frees until high and sleeps again, so
// most allocations never reach min and never reclaim themselves (Linux's kswapd).
static int
kswapd(void *arg)
{
  in_reclaim[current - threads] = true;
  for(;;) {
    wait_event_idle(kswapd_wait, READ_ONCE(kswapd_wanted));
    WRITE_ONCE(kswapd_wanted, false);
    count_add(&count.kswapd_runs, 1);
    unsigned long free;
    while((free = nr_free_pages()) < wmark.high)
      if(do_try_to_free_pages(GFP_KERNEL, wmark.high - free) == 0) {
        msleep(KSWAPD_BACKOFF_MS);
        break;
      }
  }
  return 0;
}

// From any context, interrupts included: the flag makes all but the first waker cheap.
void
wakeup_kswapd(void)
{
  if(!READ_ONCE(ready) || READ_ONCE(kswapd_wanted))
    return;
  WRITE_ONCE(kswapd_wanted, true);
  wake_up(&kswapd_wait);
}

// Watermarks from the memory the allocator manages: min_free_kbytes = sqrt(16 * KiB),
// clamped to [128 KiB, 64 MiB], low = 5/4 min, high = 3/2 min (Linux's
// init_per_zone_wmark_min and __setup_per_zone_wmarks).
void
reclaim_init(void)
{
  unsigned long managed = 0;
  for(unsigned long pfn = 0; pfn < max_pfn; pfn++)
    if(!page_flag(pfn_to_page(pfn), PG_reserved))
      managed++;
  unsigned long kb = managed * (PAGE_SIZE / 1024);
  unsigned long min_kb = isqrt_u128((unsigned __int128)kb * 16);
  min_kb = MIN(MAX(min_kb, 128UL), 65536UL);
  wmark.min = min_kb / (PAGE_SIZE / 1024);
  wmark.low = wmark.min * 5 / 4;
  wmark.high = wmark.min * 3 / 2;
  pr_info("reclaim: %lu pages managed, watermarks min %lu low %lu high %lu (min_free_kbytes %lu)\n",
          managed, wmark.min, wmark.low, wmark.high, min_kb);
  if(!kthread_create(kswapd, NULL, 0, "kswapd0"))
    panic("reclaim: cannot start kswapd");
  WRITE_ONCE(ready, true);
}

void
reclaim_get_stats(struct reclaim_stats *st)
{
  u64 irq;
  spin_lock_irqsave(&lru.lock, irq);
  st->lru_active = lru.nr_active;
  st->lru_inactive = lru.nr_inactive;
  st->lazyfree = lru.nr_lazyfree;
  spin_unlock_irqrestore(&lru.lock, irq);
  st->scanned = READ_ONCE(count.scanned);
  st->reclaimed = READ_ONCE(count.reclaimed);
  st->lazyfree_freed = READ_ONCE(count.lazyfree_freed);
  st->lazyfree_kept = READ_ONCE(count.lazyfree_kept);
  st->shrinker_freed = READ_ONCE(count.shrinker_freed);
  st->direct_runs = READ_ONCE(count.direct_runs);
  st->kswapd_runs = READ_ONCE(count.kswapd_runs);
}
