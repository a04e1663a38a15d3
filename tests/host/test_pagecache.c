// Host test of the page cache (mm/filemap.c and both index files), all four variants, under
// ASan and UBSan: the API, allocation failure, the eviction rules, and RCU lookups racing reuse.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "check.h"
#include "errno.h"
#include "pagemap.h"
#include "rcupdate.h"
#include "lib/host.h"
#include "../common/pagecache.h"

static const struct config configs[] = {
  { PC_HASH_GLOBAL, 0 }, { PC_HASH_BUCKET, 0 },
  { PC_RADIX_LOCK, 16 }, { PC_RADIX_LOCK, 128 }, { PC_RADIX_RCU, 16 }, { PC_RADIX_RCU, 64 },
};

static void
test_basic(const struct config *c)
{
  struct address_space m;
  struct page *page, *pages[16];
  int free0 = pages_free();
  CHECK(address_space_init(&m, c->v, c->fanout, NULL, false) == 0);
  for(unsigned i = 0; i < ARRAY_SIZE(odd_indices); i++)
    CHECK(add_index(&m, odd_indices[i], GFP_KERNEL) == 0);
  CHECK(m.nrpages == ARRAY_SIZE(odd_indices));
  CHECK(add_index(&m, 1UL << 32, GFP_KERNEL) == -EEXIST);
  CHECK(m.nrpages == ARRAY_SIZE(odd_indices));

  for(unsigned i = 0; i < ARRAY_SIZE(odd_indices); i++) {
    page = find_get_page(&m, odd_indices[i]);
    CHECK(page && page->index == odd_indices[i] && content(page) == odd_indices[i] &&
          page_count(page) == 3);
    if(page)
      put_page(page);
  }
  CHECK(find_get_page(&m, 2) == NULL && find_get_page(&m, ~0UL - 2) == NULL);

  // Gang lookups from odd starts: the indices >= start, in order.
  static const unsigned long starts[] = { 0, 2, 4096, 1UL << 32, ~0UL };
  for(unsigned s = 0; s < ARRAY_SIZE(starts); s++) {
    unsigned n = find_get_pages(&m, starts[s], 3, pages), want = 0;
    for(unsigned i = 0; i < ARRAY_SIZE(odd_indices) && want < 3; i++)
      if(odd_indices[i] >= starts[s]) {
        CHECK(want < n && pages[want]->index == odd_indices[i]);
        want++;
      }
    CHECK(n == want);
    for(unsigned i = 0; i < n; i++)
      put_page(pages[i]);
  }

  page = find_lock_page(&m, 17);
  CHECK(page && page_flag(page, PG_locked));
  delete_from_page_cache(page);
  CHECK(page->mapping == NULL && !page_flag(page, PG_lru) && page_count(page) == 1);
  unlock_page(page);
  put_page(page);
  CHECK(find_get_page(&m, 17) == NULL && m.nrpages == ARRAY_SIZE(odd_indices) - 1);

  for(unsigned long i = 1000; i < 1100; i++)
    CHECK(add_index(&m, i, GFP_KERNEL) == 0);
  truncate_inode_pages(&m, 1050);   // leaves 0 1 3 255 256 and 1000..1049
  CHECK(m.nrpages == 5 + 50);
  CHECK(find_get_page(&m, 1050) == NULL && find_get_page(&m, ~0UL) == NULL);
  address_space_destroy(&m);
  CHECK(m.nrpages == 0 && find_get_pages(&m, 0, 16, pages) == 0);
  CHECK(pages_free() == free0);
}

// Inserts fail with -ENOMEM only, and leave the file as if never tried.
static void
test_nomem(const struct config *c, unsigned long *failures)
{
  enum { N = 300 };
  static bool present[N];
  struct address_space m;
  struct page *pages[16];
  unsigned long nr = 0, start = 0, seen = 0;
  unsigned n;
  CHECK(address_space_init(&m, c->v, c->fanout, NULL, false) == 0);
  slab_fail_percent(25);
  pages_fail_percent(10);
  for(int i = 0; i < N; i++) {
    int err = add_index(&m, (unsigned long)i * 4099, GFP_ATOMIC);
    CHECK(err == 0 || err == -ENOMEM);
    present[i] = err == 0;
    nr += present[i];
  }
  slab_fail_percent(0);
  pages_fail_percent(0);
  *failures += N - nr;
  CHECK(m.nrpages == nr);
  for(int i = 0; i < N; i++) {
    struct page *page = find_get_page(&m, (unsigned long)i * 4099);
    CHECK((page != NULL) == present[i]);
    if(page) {
      CHECK(content(page) == (unsigned long)i * 4099);
      put_page(page);
    }
  }
  while((n = find_get_pages(&m, start, ARRAY_SIZE(pages), pages)) > 0) {
    start = pages[n - 1]->index + 1;
    for(unsigned i = 0; i < n; i++) {
      CHECK(pages[i]->index % 4099 == 0 && present[pages[i]->index / 4099]);
      put_page(pages[i]);
    }
    seen += n;
  }
  CHECK(seen == nr);
  address_space_destroy(&m);
}

// Reclaim's side, as the core does it: PG_lru cleared, the LRU's reference the caller's.
static bool
reclaim(struct page *page)
{
  CHECK(test_and_clear_page_flag(page, PG_lru));
  bool gone = page_lru_ops(page)->evict(page);
  if(!gone)
    set_page_flag(page, PG_lru);
  else
    put_page(page);
  return gone;
}

static void
test_evict(const struct config *c)
{
  struct address_space m, pinned;
  struct page *page;
  CHECK(address_space_init(&m, c->v, c->fanout, NULL, true) == 0);
  CHECK(address_space_init(&pinned, c->v, c->fanout, NULL, false) == 0);
  for(unsigned long i = 0; i < 8; i++) {
    CHECK(add_index(&m, i, GFP_KERNEL) == 0);
    CHECK(add_index(&pinned, i, GFP_KERNEL) == 0);
  }
  // Held, dirty, locked, in a file that is open or opted out: kept.
  page = find_get_page(&m, 0);
  struct page *held = find_get_page(&m, 0);
  put_page(page);
  CHECK(!reclaim(held));
  page = find_get_page(&m, 1);
  set_page_flag(page, PG_dirty);
  put_page(page);
  CHECK(!reclaim(page));
  page = find_lock_page(&m, 2);
  put_page(page);
  CHECK(!reclaim(page));
  unlock_page(page);
  page = find_get_page(&pinned, 3);
  put_page(page);
  CHECK(!reclaim(page));
  m.users = 1;
  page = find_get_page(&m, 3);
  put_page(page);
  CHECK(!reclaim(page));
  m.users = 0;
  CHECK(m.nrpages == 8);
  // Clean, unlocked, unheld: dropped.
  CHECK(reclaim(page));
  CHECK(m.nrpages == 7 && find_get_page(&m, 3) == NULL);
  // Deleted while reclaim held it: no longer the cache's to keep.
  page = find_lock_page(&m, 4);
  CHECK(test_and_clear_page_flag(page, PG_lru));
  delete_from_page_cache(page);
  unlock_page(page);
  put_page(page);
  CHECK(page->mapping == NULL);
  CHECK(m.lru_ops->evict(page));
  put_page(page);
  put_page(held);
  address_space_destroy(&m);
  address_space_destroy(&pinned);
}

// Readers look up while a remover replaces pages with others from a pool, reused only
// once nobody holds them: a lookup that skipped its recheck would see a page's new content.
enum { RACE_NIDX = 64, RACE_SPARE = 4, RACE_READERS = 3 };
static struct address_space race_m;
static struct page *spare[RACE_SPARE];
static volatile bool race_stop;
static long race_bad, race_checked;

static void *
race_reader(void *arg)
{
  unsigned long seed = (unsigned long)arg * 7919 + 1;
  struct page *pages[8];
  rcu_register_thread();
  while(!race_stop) {
    seed = seed * 6364136223846793005UL + 1;
    unsigned long index = (seed >> 33) % RACE_NIDX * 977;
    struct page *page = find_get_page(&race_m, index);
    if(page) {
      __atomic_fetch_add(&race_bad, content(page) != index, __ATOMIC_RELAXED);
      __atomic_fetch_add(&race_checked, 1, __ATOMIC_RELAXED);
      put_page(page);
    }
    unsigned n = find_get_pages(&race_m, index, 8, pages);
    for(unsigned i = 0; i < n; i++) {
      __atomic_fetch_add(&race_bad, content(pages[i]) != pages[i]->index, __ATOMIC_RELAXED);
      put_page(pages[i]);
    }
  }
  rcu_unregister_thread();
  return NULL;
}

static void
test_race(const struct config *c)
{
  pthread_t t[RACE_READERS];
  struct page *pool[RACE_NIDX + RACE_SPARE];
  race_stop = false;
  race_bad = race_checked = 0;
  CHECK(address_space_init(&race_m, c->v, c->fanout, NULL, false) == 0);
  for(int k = 0; k < RACE_NIDX + RACE_SPARE; k++) {
    pool[k] = alloc_page(GFP_KERNEL);
    if(k < RACE_NIDX) {
      set_content(pool[k], k * 977UL);
      lock_page(pool[k]);
      CHECK(add_to_page_cache(pool[k], &race_m, k * 977UL, GFP_KERNEL) == 0);
      unlock_page(pool[k]);
    } else {
      spare[k - RACE_NIDX] = pool[k];
    }
  }
  for(long i = 0; i < RACE_READERS; i++)
    pthread_create(&t[i], NULL, race_reader, (void *)i);
  // At least so many rounds, and until the readers have run.
  for(int round = 0; round < 3000 || __atomic_load_n(&race_checked, __ATOMIC_RELAXED) < 3000;
      round++) {
    unsigned long index = (unsigned long)(round * 31 % RACE_NIDX) * 977;
    int s = round % RACE_SPARE;
    while(page_count(spare[s]) != 1)
      sched_yield();
    struct page *old = find_lock_page(&race_m, index);
    delete_from_page_cache(old);
    unlock_page(old);
    put_page(old);
    set_content(spare[s], index);
    lock_page(spare[s]);
    CHECK(add_to_page_cache(spare[s], &race_m, index, GFP_KERNEL) == 0);
    unlock_page(spare[s]);
    spare[s] = old;
  }
  race_stop = true;
  for(int i = 0; i < RACE_READERS; i++)
    pthread_join(t[i], NULL);
  if(race_bad)
    fprintf(stderr, "%s: %ld bad of %ld\n", pagecache_variant_names[c->v], race_bad, race_checked);
  CHECK(race_bad == 0 && race_checked > 0);
  address_space_destroy(&race_m);
  for(int k = 0; k < RACE_NIDX + RACE_SPARE; k++) {
    CHECK(page_count(pool[k]) == 1);   // the pool's own: no reference leaked
    put_page(pool[k]);
  }
}

int
main(void)
{
  unsigned long failures = 0;
  rcu_register_thread();
  pages_init();
  CHECK(radix_tree_init() == 0);
  for(unsigned i = 0; i < ARRAY_SIZE(configs); i++) {
    test_basic(&configs[i]);
    test_nomem(&configs[i], &failures);
    test_evict(&configs[i]);
    test_race(&configs[i]);
    printf("%s fanout %u: done\n", pagecache_variant_names[configs[i].v], configs[i].fanout);
  }
  CHECK(failures > 0);
  rcu_barrier();
  rcu_unregister_thread();
  return check_summary("pagecache");
}
