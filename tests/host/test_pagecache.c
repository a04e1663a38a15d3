// Host test of the page cache (mm/filemap.c and both index files), all four variants, under
// ASan and UBSan: the API, allocation failure, the eviction rules, RCU lookups racing reuse,
// radix-rcu's recheck, and that making a mapping stores to nothing shared.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

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
    // The cache's reference and ours: a ramfs-like file's pages stay off the LRU.
    CHECK(page && page->index == odd_indices[i] && content(page) == odd_indices[i] &&
          page_count(page) == 2 && !page_flag(page, PG_lru));
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
  page = find_get_page(&pinned, 3);   // opted out: never on the LRU, so reclaim never sees it
  put_page(page);
  CHECK(!page_flag(page, PG_lru));
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

// -------- Making a mapping stores to nothing shared --------
// Every file created makes a mapping: a store there to anything all CPUs share (a lock, a flag)
// takes that cache line from every other CPU creating files. The first mapping of a kind may
// make its shared state (the hash tables); every later one must only read it. A child process
// makes mappings with the program's data and bss read-only (the per-CPU copies aside): a store
// there faults, and ASan names it and its stack on the way out.
extern char __data_start[], _end[], __per_cpu_start[], __per_cpu_end[];

static void
test_init_private(void)
{
  enum { N = 16 };
  struct address_space *maps = calloc(N * ARRAY_SIZE(configs), sizeof(*maps));
  CHECK(maps != NULL);
  if(!maps)
    return;
  for(unsigned c = 0; c < ARRAY_SIZE(configs); c++) {
    CHECK(address_space_init(&maps[0], configs[c].v, configs[c].fanout, NULL, false) == 0);
    address_space_destroy(&maps[0]);
  }
  char *data = (char *)ALIGN_DOWN((unsigned long)__data_start, PAGE_SIZE);
  char *end = (char *)ALIGN_UP((unsigned long)_end, PAGE_SIZE);
  char *pcpu = __per_cpu_start, *pcpu_end = __per_cpu_end;
  CHECK(data < pcpu && pcpu <= pcpu_end && pcpu_end <= end);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if(pid == 0) {
    if(mprotect(data, pcpu - data, PROT_READ) != 0 ||
       mprotect(pcpu_end, end - pcpu_end, PROT_READ) != 0)
      _exit(2);
    int bad = 0;
    for(unsigned i = 0; i < N; i++)
      for(unsigned c = 0; c < ARRAY_SIZE(configs); c++)
        bad += address_space_init(&maps[i * ARRAY_SIZE(configs) + c], configs[c].v,
                                  configs[c].fanout, NULL, false) != 0;
    mprotect(data, pcpu - data, PROT_READ | PROT_WRITE);
    mprotect(pcpu_end, end - pcpu_end, PROT_READ | PROT_WRITE);
    _exit(bad ? 3 : 0);
  }
  int status = -1;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  if(!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "init_private: making %d mappings stored to shared memory (status %#x)\n",
            N * (int)ARRAY_SIZE(configs), status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  free(maps);   // the child's mappings hold nothing: nothing to destroy here
}

// -------- radix-rcu's recheck re-reads its slot --------
// Its lookup compiled a second time, here, with the tree's lookups counted and, once, a
// replacement made between the speculative reference and the recheck (what a remover on
// another CPU may do then). The lookup must return the new page, having walked the tree once
// per attempt (Piggin's find_get_page re-reads the slot it found), and drop the old page.
static struct address_space *plant_m;
static struct page *plant_old, *plant_new;
static unsigned long plant_index;
static int slot_walks, item_walks;
static bool counting;

static void **
counted_lookup_slot(struct radix_tree_root *root, unsigned long index)
{
  slot_walks += counting;
  return radix_tree_lookup_slot(root, index);
}

static void *
counted_lookup(struct radix_tree_root *root, unsigned long index)
{
  item_walks += counting;
  return radix_tree_lookup(root, index);
}

// Replaces through the real radix-rcu operations, uncounted.
static bool
replacing_get_page_unless_zero(struct page *page)
{
  if(!get_page_unless_zero(page))
    return false;
  if(page == plant_old) {
    const struct pagecache_ops *ops = plant_m->ops;
    plant_old = NULL;
    counting = false;
    plant_m->ops = &radix_rcu_ops;
    struct page *old = find_lock_page(plant_m, plant_index);
    CHECK(old == page);
    delete_from_page_cache(old);
    unlock_page(old);
    put_page(old);
    lock_page(plant_new);
    CHECK(add_to_page_cache(plant_new, plant_m, plant_index, GFP_KERNEL) == 0);
    unlock_page(plant_new);
    plant_m->ops = ops;
    counting = true;
  }
  return true;
}

#define radix_tree_lookup_slot counted_lookup_slot
#define radix_tree_lookup counted_lookup
#define get_page_unless_zero replacing_get_page_unless_zero
#define radix_lock_ops counted_radix_lock_ops
#define radix_rcu_ops counted_radix_rcu_ops
#define pagecache_rcu_races counted_rcu_races
#define pagecache_plant_norecheck counted_plant_norecheck
void counted_plant_norecheck(struct address_space *m, void (*window)(void));
#include "../../mm/pagecache_radix.c"
#undef radix_tree_lookup_slot
#undef radix_tree_lookup
#undef get_page_unless_zero
#undef radix_lock_ops
#undef radix_rcu_ops
#undef pagecache_rcu_races
#undef pagecache_plant_norecheck

static u64
counted_moved(void)
{
  u64 n = 0;
  for(int cpu = 0; cpu < NR_CPUS; cpu++)
    n += per_cpu(counted_rcu_races, cpu).moved;
  return n;
}

// alone: the page is the only one in its leaf, which the replacement frees and makes anew.
static void
test_recheck(bool alone)
{
  struct address_space m;
  int free0 = pages_free();
  CHECK(address_space_init(&m, PC_RADIX_RCU, 16, NULL, false) == 0);
  m.ops = &counted_radix_rcu_ops;
  plant_index = 37;   // a leaf of 16 holds 32..47
  for(unsigned long i = 32; !alone && i < 48; i++)
    if(i != plant_index)
      CHECK(add_index(&m, i, GFP_KERNEL) == 0);
  CHECK(add_index(&m, plant_index, GFP_KERNEL) == 0);
  struct page *old = find_get_page(&m, plant_index);   // held throughout: never freed
  plant_new = alloc_page(GFP_KERNEL);
  set_content(plant_new, plant_index);
  plant_m = &m;
  plant_old = old;
  u64 moved0 = counted_moved();
  slot_walks = item_walks = 0;
  counting = true;
  struct page *got = find_get_page(&m, plant_index);
  counting = false;
  if(got != plant_new || slot_walks != 2 || item_walks != 0)
    fprintf(stderr, "recheck%s: %s page, %d slot walks, %d item walks\n", alone ? " alone" : "",
            got == old ? "the old" : got == plant_new ? "the new" : "another", slot_walks,
            item_walks);
  CHECK(plant_old == NULL);          // the replacement was made, inside the lookup
  CHECK(got == plant_new && content(got) == plant_index);
  CHECK(slot_walks == 2 && item_walks == 0);
  CHECK(counted_moved() - moved0 == 1);
  CHECK(page_count(old) == 1);       // ours alone: the lookup dropped its reference
  put_page(old);
  if(got)
    put_page(got);
  put_page(plant_new);               // the cache's references remain
  address_space_destroy(&m);
  rcu_barrier();
  CHECK(pages_free() == free0);
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
  test_recheck(false);
  test_recheck(true);
  test_init_private();
  printf("recheck, init: done\n");
  rcu_barrier();
  rcu_unregister_thread();
  return check_summary("pagecache");
}
