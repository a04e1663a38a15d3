// Page-cache self-tests, each run against all four indexing variants: the API at odd and huge
// indices, lookups racing removal and reuse, reclaim, and allocation failure.
#include "cpumask.h"
#include "errno.h"
#include "fault_inject.h"
#include "pagemap.h"
#include "printk.h"
#include "reclaim.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "torture.h"
#include "../common/pagecache.h"

static const struct config one_each[] = {
  { PC_HASH_GLOBAL, 0 }, { PC_HASH_BUCKET, 0 }, { PC_RADIX_LOCK, 64 }, { PC_RADIX_RCU, 64 },
};

static const struct config every_fanout[] = {
  { PC_HASH_GLOBAL, 0 }, { PC_HASH_BUCKET, 0 },
  { PC_RADIX_LOCK, 16 }, { PC_RADIX_LOCK, 64 }, { PC_RADIX_LOCK, 128 },
  { PC_RADIX_RCU, 16 }, { PC_RADIX_RCU, 64 }, { PC_RADIX_RCU, 128 },
};

#define VARIANTS "variants=hash-global,hash-bucket,radix-lock,radix-rcu"

// The first few failures are named on the console; all are counted.
static int fails;
static const char *testing;

#define expect(cond)                                                           \
  do {                                                                         \
    if(!(cond) && fails++ < 8)                                                 \
      pr_err("pagecache: %s: line %d: %s\n", testing, __LINE__, #cond);        \
  } while(0)

// pagecache-basic, -race and -reclaim check exact contents of files they build, so the boot's
// injection (failslab=, failpage=) is paused for them and put back after; pagecache-nomem
// tests the failures themselves, at a rate of its own.
static struct fault_rates boot_rates;

// The variant's name as a key of the SELFTEST line: radix-rcu gives radix_rcu.
static const char *
key(const struct config *c)
{
  static const char *const keys[NR_PC_VARIANTS] = {
    [PC_HASH_GLOBAL] = "hash_global", [PC_HASH_BUCKET] = "hash_bucket",
    [PC_RADIX_LOCK] = "radix_lock", [PC_RADIX_RCU] = "radix_rcu",
  };
  return keys[c->v];
}

static int
setup(struct address_space *m, const struct config *c, bool reclaimable)
{
  testing = pagecache_variant_names[c->v];
  int err = address_space_init(m, c->v, c->fanout, NULL, reclaimable);
  expect(err == 0);
  return err;
}

// -------- pagecache-basic --------

static const unsigned long absent[] = { 2, 254, 65536, (1UL << 32) + 2, ~0UL - 2 };

// Gang lookups from each start must return the indices >= start, in order.
static void
check_gang(struct address_space *m)
{
  static const unsigned long starts[] = { 0, 2, 18, 4096, 1UL << 32, ~0UL - 1, ~0UL };
  static const unsigned counts[] = { 1, 3, 16 };
  struct page *pages[16];
  for(unsigned s = 0; s < ARRAY_SIZE(starts); s++)
    for(unsigned c = 0; c < ARRAY_SIZE(counts); c++) {
      unsigned n = find_get_pages(m, starts[s], counts[c], pages), want = 0;
      for(unsigned i = 0; i < ARRAY_SIZE(odd_indices); i++)
        if(odd_indices[i] >= starts[s] && want < counts[c]) {
          expect(want < n && pages[want]->index == odd_indices[i]);
          want++;
        }
      expect(n == want);
      for(unsigned i = 0; i < n; i++)
        put_page(pages[i]);
    }
}

static void
basic_one(const struct config *c)
{
  struct address_space m;
  struct page *page;
  const unsigned long nr = ARRAY_SIZE(odd_indices);
  if(setup(&m, c, false))
    return;

  for(unsigned i = 0; i < nr; i++) {
    page = find_or_create_page(&m, odd_indices[i], GFP_KERNEL);
    // Locked until filled; off the LRU, as every page of a file reclaim may not take (ramfs).
    expect(page && page_flag(page, PG_locked) && !page_flag(page, PG_lru));
    set_content(page, odd_indices[i]);
    unlock_page(page);
    put_page(page);
  }
  expect(m.nrpages == nr);

  for(unsigned i = 0; i < nr; i++) {
    page = find_get_page(&m, odd_indices[i]);
    expect(page && page->mapping == &m && page->index == odd_indices[i] &&
           content(page) == odd_indices[i]);
    if(page) {
      int before = page_count(page);
      put_page(page);
      page = find_get_page(&m, odd_indices[i]);   // the same page, no reference gained
      expect(page_count(page) == before);
      put_page(page);
    }
  }
  for(unsigned i = 0; i < ARRAY_SIZE(absent); i++)
    expect(find_get_page(&m, absent[i]) == NULL);

  // A second page at a taken index is refused and left untouched.
  struct page *dup = alloc_page(GFP_KERNEL);
  lock_page(dup);
  expect(add_to_page_cache(dup, &m, 1UL << 32, GFP_KERNEL) == -EEXIST);
  expect(dup->mapping == NULL && page_count(dup) == 1 && m.nrpages == nr);
  unlock_page(dup);
  page = find_or_create_page(&m, 1UL << 32, GFP_KERNEL);   // finds, does not create
  expect(page && content(page) == 1UL << 32);
  unlock_page(page);
  put_page(page);
  put_page(dup);

  check_gang(&m);

  // Deleting leaves the caller the only holder.
  page = find_lock_page(&m, 17);
  delete_from_page_cache(page);
  expect(page->mapping == NULL && !page_flag(page, PG_lru) && page_count(page) == 1);
  unlock_page(page);
  put_page(page);
  expect(find_get_page(&m, 17) == NULL && m.nrpages == nr - 1);

  // More than a truncate batch, then a partial truncate across 2^32.
  for(unsigned long i = 1000; i < 1300; i++)
    expect(add_index(&m, i, GFP_KERNEL) == 0);
  truncate_inode_pages(&m, 1150);
  expect(m.nrpages == 5 + 150);   // 0 1 3 255 256 and 1000..1149; 4095 and up gone
  expect(find_get_page(&m, 1150) == NULL && find_get_page(&m, ~0UL) == NULL);
  page = find_get_page(&m, 1149);
  expect(page && content(page) == 1149);
  put_page(page);

  truncate_inode_pages(&m, 0);
  struct page *left;
  expect(m.nrpages == 0 && find_get_pages(&m, 0, 1, &left) == 0);
  if(c->v >= PC_RADIX_LOCK)
    expect(m.page_tree.rnode == NULL);
  else
    expect(list_empty(&m.hash_nodes));
  address_space_destroy(&m);
}

static bool
pagecache_basic(void)
{
  fault_inject_pause(&boot_rates);
  fails = 0;
  for(unsigned i = 0; i < ARRAY_SIZE(every_fanout); i++)
    basic_one(&every_fanout[i]);
  selftest_extra(VARIANTS " fanouts=16,64,128 indices=%zu fails=%d", ARRAY_SIZE(odd_indices),
                 fails);
  fault_inject_restore(&boot_rates);
  return fails == 0;
}
SELFTEST("pagecache-basic", pagecache_basic);

// -------- pagecache-race --------
// Readers on every CPU look pages up while removers take pages out and put others in. The
// pages come from a fixed pool and are reused as the allocator would reuse them, once
// nobody holds them: so a lookup racing a removal often finds a page that has moved to
// another index, which only the recheck after get_page_unless_zero catches (the content
// check below fails without it). The pool also makes leaks exact: at the end every page's
// count must be what it was at the start.

#define RACE_NIDX 256                  // indices in the file
#define RACE_SPARE 8                   // pool pages each remover keeps out of the file
#define RACE_MS 600                    // the four variants' default; torture.secs= sets it
#define RACE_OPS_PER_CPU_SEC 200       // the work floor (torture.h); 64 vCPUs did 1700 or more

struct remover {
  struct page *spare[RACE_SPARE];      // a queue: the oldest is reused first
  int id;
};

static struct address_space race_m;
static struct page *race_pages[RACE_NIDX];   // the pages in the file at the start
static struct remover removers[NR_CPUS];
static int nr_removers;
static u64 race_deadline;
static u64 race_ops, race_checked;

// The indices straddle 2^32 and are far apart, so radix trees are tall and a removal
// often empties a node, which is then freed under RCU.
static unsigned long
race_index(int k)
{
  return (1UL << 32) - 64 * 4099UL + (unsigned long)k * 4099UL;
}

static int
race_reader(void *arg)
{
  struct torture_rand r;
  struct page *pages[8];
  u64 ops = 0, checked = 0;
  torture_seed(&r, (long)arg);
  while(ktime_ns() < race_deadline) {
    unsigned long index = race_index(torture_random(&r) % RACE_NIDX);
    if(torture_one_in(&r, 16)) {
      unsigned n = find_get_pages(&race_m, index, ARRAY_SIZE(pages), pages);
      for(unsigned i = 0; i < n; i++) {
        expect(content(pages[i]) == pages[i]->index && pages[i]->index >= index);
        put_page(pages[i]);
      }
      checked += n;
    } else {
      struct page *page = find_get_page(&race_m, index);
      if(page) {
        expect(content(page) == index && page->index == index);
        put_page(page);
        checked++;
      }
    }
    if(++ops % 32 == 0)
      cond_resched();
  }
  __atomic_fetch_add(&race_ops, ops, __ATOMIC_RELAXED);
  __atomic_fetch_add(&race_checked, checked, __ATOMIC_RELAXED);
  return 0;
}

// A spare holding only the pool's reference, moved to the back of the queue, or NULL.
static struct page *
take_spare(struct remover *rm)
{
  for(int i = 0; i < RACE_SPARE; i++) {
    struct page *page = rm->spare[i];
    if(page_count(page) == 1) {
      for(; i < RACE_SPARE - 1; i++)
        rm->spare[i] = rm->spare[i + 1];
      return page;
    }
  }
  return NULL;
}

// Remover id owns the indices k with k % nr_removers == id: nobody else changes them.
static int
race_remover(void *arg)
{
  struct remover *rm = arg;
  struct torture_rand r;
  u64 ops = 0;
  torture_seed(&r, 1000 + rm->id);
  while(ktime_ns() < race_deadline) {
    int k = rm->id + nr_removers * (torture_random(&r) % (RACE_NIDX / nr_removers));
    unsigned long index = race_index(k);
    struct page *old = find_lock_page(&race_m, index), *new;
    expect(old != NULL);
    if(!old)
      break;
    while((new = take_spare(rm)) == NULL)
      cond_resched();   // a reader still holds every spare
    delete_from_page_cache(old);
    unlock_page(old);
    put_page(old);
    rm->spare[RACE_SPARE - 1] = old;
    set_content(new, index);
    lock_page(new);
    expect(add_to_page_cache(new, &race_m, index, GFP_KERNEL) == 0);
    unlock_page(new);
    if(++ops % 8 == 0)
      cond_resched();
  }
  __atomic_fetch_add(&race_ops, ops, __ATOMIC_RELAXED);
  return 0;
}

static int
online_cpu(int n)
{
  int cpu, i = 0;
  for_each_online_cpu(cpu)
    if(i++ == n)
      return cpu;
  return 0;
}

static void
race_one(const struct config *c)
{
  struct thread *t[2 * NR_CPUS];
  int ncpu = num_online_cpus(), n = 0, cached_count = 0;
  if(setup(&race_m, c, false))
    return;
  race_ops = race_checked = 0;
  nr_removers = ncpu < 4 ? 1 : ncpu / 4;

  // The pool: a reference of its own on every page, in the file or spare.
  for(int k = 0; k < RACE_NIDX; k++) {
    race_pages[k] = alloc_page(GFP_KERNEL);
    set_content(race_pages[k], race_index(k));
    lock_page(race_pages[k]);
    expect(add_to_page_cache(race_pages[k], &race_m, race_index(k), GFP_KERNEL) == 0);
    unlock_page(race_pages[k]);
  }
  cached_count = page_count(race_pages[0]);
  for(int i = 0; i < nr_removers; i++) {
    removers[i].id = i;
    for(int j = 0; j < RACE_SPARE; j++)
      removers[i].spare[j] = alloc_page(GFP_KERNEL);
  }

  u64 ns = torture_ns(RACE_MS) / 4;
  race_deadline = ktime_ns() + ns;
  for(int i = 0; i < ncpu; i++)
    t[n++] = kthread_create(race_reader, (void *)(long)i, online_cpu(i), "pc-read/%d", i);
  for(int i = 0; i < nr_removers; i++)
    t[n++] = kthread_create(race_remover, &removers[i], online_cpu(i * 4 % ncpu), "pc-rm/%d", i);
  for(int i = 0; i < n; i++)
    expect(t[i] && kthread_join(t[i]) == 0);

  // Every pool page is in the file with the count it started with, or spare with the
  // pool's reference alone.
  expect(race_m.nrpages == RACE_NIDX);
  for(int k = 0; k < RACE_NIDX; k++) {
    race_pages[k] = find_get_page(&race_m, race_index(k));
    expect(race_pages[k] && content(race_pages[k]) == race_index(k));
    if(race_pages[k]) {
      put_page(race_pages[k]);
      expect(page_count(race_pages[k]) == cached_count);
    }
  }
  truncate_inode_pages(&race_m, 0);
  for(int k = 0; k < RACE_NIDX; k++)
    if(race_pages[k]) {
      expect(page_count(race_pages[k]) == 1);
      put_page(race_pages[k]);
    }
  for(int i = 0; i < nr_removers; i++)
    for(int j = 0; j < RACE_SPARE; j++) {
      expect(page_count(removers[i].spare[j]) == 1);
      put_page(removers[i].spare[j]);
    }
  address_space_destroy(&race_m);
  selftest_extra("ops_%s=%llu pages_%s=%llu", key(c), (unsigned long long)race_ops, key(c),
                 (unsigned long long)race_checked);
  fails += !torture_enough("pagecache-race", key(c), race_ops,
                           torture_floor(RACE_OPS_PER_CPU_SEC * ncpu, ns));
  expect(race_checked > 0);
}

static bool
pagecache_race(void)
{
  static const struct config race_configs[] = {
    { PC_HASH_GLOBAL, 0 }, { PC_HASH_BUCKET, 0 }, { PC_RADIX_LOCK, 16 }, { PC_RADIX_RCU, 16 },
  };
  fault_inject_pause(&boot_rates);
  fails = 0;
  selftest_extra(VARIANTS " fanout=16");   // the line holds 256 characters: keys are short
  for(unsigned i = 0; i < ARRAY_SIZE(race_configs); i++)
    race_one(&race_configs[i]);
  fault_inject_restore(&boot_rates);
  return fails == 0;
}
SELFTEST("pagecache-race", pagecache_race);

// -------- pagecache-reclaim --------
// Reclaim may take clean, unlocked, unreferenced pages of a reclaimable file nobody has
// open, and nothing else: not a page someone holds, a dirty or locked one, a page of a file
// that is open, or any page of a file that opted out (ramfs).

#define RECLAIM_PAGES 64
#define RECLAIM_ROUNDS 64

static void
fill(struct address_space *m, unsigned long nr)
{
  for(unsigned long i = 0; i < nr; i++)
    expect(add_index(m, i, GFP_KERNEL) == 0);
}

static void
reclaim_one(const struct config *c, unsigned long *freed)
{
  static struct address_space cache, pinned, inuse;   // reclaimable; ramfs-like; open
  struct page *held, *dirty, *locked;
  if(setup(&cache, c, true) || setup(&pinned, c, false) || setup(&inuse, c, true))
    return;
  inuse.users = 1;
  fill(&cache, RECLAIM_PAGES);
  fill(&pinned, RECLAIM_PAGES);
  fill(&inuse, RECLAIM_PAGES);
  held = find_get_page(&cache, 5);
  dirty = find_get_page(&cache, 6);
  set_page_flag(dirty, PG_dirty);
  locked = find_lock_page(&cache, 7);

  for(int round = 0; round < RECLAIM_ROUNDS && cache.nrpages > 3; round++) {
    *freed += try_to_free_pages(GFP_KERNEL, 4 * RECLAIM_PAGES);
    cond_resched();
  }
  expect(cache.nrpages == 3);
  expect(pinned.nrpages == RECLAIM_PAGES && inuse.nrpages == RECLAIM_PAGES);
  expect(held->mapping == &cache && dirty->mapping == &cache && locked->mapping == &cache);
  struct page *page = find_get_page(&cache, 5);
  expect(page == held && content(page) == 5);
  put_page(page);

  unlock_page(locked);
  put_page(locked);
  clear_page_flag(dirty, PG_dirty);
  put_page(dirty);
  put_page(held);
  address_space_destroy(&cache);
  address_space_destroy(&pinned);
  address_space_destroy(&inuse);
}

static bool
pagecache_reclaim(void)
{
  unsigned long freed = 0;
  fault_inject_pause(&boot_rates);
  fails = 0;
  for(unsigned i = 0; i < ARRAY_SIZE(one_each); i++)
    reclaim_one(&one_each[i], &freed);
  selftest_extra(VARIANTS " fanout=64 pages=%d freed=%lu fails=%d", 3 * RECLAIM_PAGES, freed,
                 fails);
  fault_inject_restore(&boot_rates);
  return fails == 0;
}
SELFTEST("pagecache-reclaim", pagecache_reclaim);

// -------- pagecache-nomem --------
// With one page or slab allocation in five failing, inserts fail with -ENOMEM and nothing
// else, and leave the file as if they had not been tried.

#define NOMEM_PAGES 256
#define NOMEM_PERMILLE 200

static unsigned long
nomem_index(int i)
{
  return (unsigned long)i * 257 + (i & 1 ? 1UL << 32 : 0);
}

static void
nomem_one(const struct config *c)
{
  static bool present[NOMEM_PAGES];
  struct address_space m;
  struct page *pages[16];
  unsigned long nr = 0, failed = 0;
  if(setup(&m, c, false))
    return;

  fault_inject_set(FAULT_PAGE, NOMEM_PERMILLE);
  fault_inject_set(FAULT_SLAB, NOMEM_PERMILLE);
  for(int i = 0; i < NOMEM_PAGES; i++) {
    // Half through find_or_create_page, half through add_to_page_cache without sleeping.
    int err = 0;
    if(i & 1) {
      struct page *page = find_or_create_page(&m, nomem_index(i), GFP_KERNEL | __GFP_NOWARN);
      if(page) {
        set_content(page, nomem_index(i));
        unlock_page(page);
        put_page(page);
      } else {
        err = -ENOMEM;
      }
    } else {
      err = add_index(&m, nomem_index(i), GFP_ATOMIC | __GFP_NOWARN);
    }
    expect(err == 0 || err == -ENOMEM);
    present[i] = err == 0;
    nr += present[i];
    failed += !present[i];
  }
  fault_inject_set(FAULT_PAGE, 0);
  fault_inject_set(FAULT_SLAB, 0);

  expect(m.nrpages == nr);
  for(int i = 0; i < NOMEM_PAGES; i++) {
    struct page *page = find_get_page(&m, nomem_index(i));
    expect((page != NULL) == present[i]);
    if(page) {
      expect(content(page) == nomem_index(i));
      put_page(page);
    }
  }
  unsigned long seen = 0, start = 0;
  unsigned n;
  while((n = find_get_pages(&m, start, ARRAY_SIZE(pages), pages)) > 0) {
    start = pages[n - 1]->index + 1;
    for(unsigned i = 0; i < n; i++) {
      expect(present[pages[i]->index % (1UL << 32) / 257]);
      put_page(pages[i]);
    }
    seen += n;
  }
  expect(seen == nr);
  // What failed can be inserted now.
  for(int i = 0; i < NOMEM_PAGES; i++)
    if(!present[i])
      expect(add_index(&m, nomem_index(i), GFP_KERNEL) == 0);
  expect(m.nrpages == NOMEM_PAGES);
  address_space_destroy(&m);
  expect(m.nrpages == 0);
  selftest_extra("enomem_%s=%lu", key(c), failed);
}

// The test injects at a rate of its own around its inserts only: the boot's rates are
// paused meanwhile and put back after it.
static bool
pagecache_nomem(void)
{
  struct fault_rates rates;
  fault_inject_pause(&rates);
  fails = 0;
  selftest_extra(VARIANTS " fanout=64 permille=%d inserts=%d", NOMEM_PERMILLE, NOMEM_PAGES);
  for(unsigned i = 0; i < ARRAY_SIZE(one_each); i++)
    nomem_one(&one_each[i]);
  selftest_extra("fails=%d", fails);
  fault_inject_restore(&rates);
  return fails == 0;
}
SELFTEST("pagecache-nomem", pagecache_nomem);
