// Host test for mm/radix-tree.c: random operations against a sorted-array model at
// several fanouts, minimal height, preload under allocation failure, RCU races, leaks.

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../lib/host.h"
#include "compiler.h"
#include "errno.h"
#include "gfp.h"
#include "mempool.h"
#include "rcupdate.h"
#include "slab.h"
#include "radix-tree.h"
#include "clock.h"
#include "model.h"

#define GANG_MAX 48

static unsigned long seed;
static bool long_run;
static unsigned long opno;      // operation being checked, for failure reports
static long bad;                // mismatches seen by expect()

// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
// generators", 2016).
static unsigned long
rnd(unsigned long *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DUL;
}

// Like CHECK, but for checks made millions of times: counts a mismatch and reports
// only the first few, with what is needed to replay them.
#define expect(cond) \
  do { if(!(cond)) mismatch(__LINE__, #cond); } while(0)

static void
mismatch(int line, const char *what)
{
  if(bad++ < 10)
    fprintf(stderr, "test_radix.c:%d: %s (seed %lu, op %lu)\n", line, what, seed, opno);
}

// Compares a gang lookup from first against the model.
static void
check_gang(struct radix_tree_root *root, struct model *m, unsigned long first,
           unsigned int max)
{
  void *got[GANG_MAX];
  unsigned int n, k;
  size_t i;

  n = radix_tree_gang_lookup(root, got, first, max);
  k = 0;
  for(i = lower_bound(m, first); i < m->n && k < max; i++) {
    expect(k < n && got[k] == m->e[i].item);
    k++;
  }
  expect(n == k);
}

// Everything observable about the tree against the model.
static void
check_tree(struct radix_tree_root *root, struct model *m)
{
  void **all;
  unsigned int n;
  size_t i;

  expect(radix_tree_height(root) == model_height(m, root->shift));
  expect(radix_tree_nr_nodes(root) == model_nodes(m, root->shift));
  all = malloc((m->n + 1) * sizeof(void *));
  n = radix_tree_gang_lookup(root, all, 0, m->n + 1);
  expect(n == m->n);
  for(i = 0; i < m->n && i < n; i++)
    expect(all[i] == m->e[i].item);
  free(all);
  for(i = 0; i < m->n; i++)
    expect(radix_tree_lookup(root, m->e[i].index) == m->e[i].item);
}

static void
empty_tree(struct radix_tree_root *root, struct model *m)
{
  while(m->n > 0) {
    expect(radix_tree_delete(root, m->e[m->n - 1].index) == m->e[m->n - 1].item);
    m->n--;
  }
  expect(radix_tree_height(root) == 0);
  expect(radix_tree_nr_nodes(root) == 0);
}

// Keys cluster in five regions, so they collide, share nodes, and reach the top of
// the index space: near 0, 2^32, 2^63, ULONG_MAX, and 64 keys spread at random.
static unsigned long
pick_key(unsigned long *rs, unsigned int regions, const unsigned long *far)
{
  static const unsigned long base[4] = {
    0, (1UL << 32) - 128, (1UL << 63) - 128, ~0UL - 255,
  };
  unsigned int r;

  do
    r = rnd(rs) % 5;
  while(!(regions >> r & 1));
  if(r == 4)
    return far[rnd(rs) % 64];
  return base[r] + rnd(rs) % 256;
}

// Phase settings of a random sequence.
struct phase {
  unsigned int insert_pct;    // inserts among inserts and deletes
  unsigned int preload_pct;   // inserts made after radix_tree_preload
  unsigned int regions;       // pick_key's regions
};

static void
random_insert(struct radix_tree_root *root, struct model *m, unsigned long *rs,
              struct phase *ph, unsigned long key)
{
  void *item;
  bool preloaded;
  int ret;

  item = (void *)(rnd(rs) | 1);
  preloaded = rnd(rs) % 100 < ph->preload_pct && radix_tree_preload(GFP_KERNEL) == 0;
  ret = radix_tree_insert(root, key, item);
  if(preloaded)
    radix_tree_preload_end();
  if(model_get(m, key))
    expect(ret == -EEXIST);
  else if(ret == 0)
    model_add(m, key, item);
  else
    expect(ret == -ENOMEM && !preloaded);
}

// One random operation on a key from the regions, checked against the model.
static void
random_op(struct radix_tree_root *root, struct model *m, unsigned long *rs,
          struct phase *ph, unsigned long key)
{
  struct ent *e;
  void **slot;
  unsigned int r;

  if(m->n > 0 && rnd(rs) % 4)
    key = m->e[rnd(rs) % m->n].index;
  e = model_get(m, key);
  r = rnd(rs) % 100;
  if(r < 58) {
    if(rnd(rs) % 100 < ph->insert_pct) {
      random_insert(root, m, rs, ph, key);
    } else {
      expect(radix_tree_delete(root, key) == (e ? e->item : NULL));
      if(e)
        model_del(m, key);
    }
    expect(radix_tree_height(root) == model_height(m, root->shift));
  } else if(r < 80) {
    expect(radix_tree_lookup(root, key) == (e ? e->item : NULL));
  } else if(r < 88) {
    slot = radix_tree_lookup_slot(root, key);
    expect(e ? slot && *slot == e->item : !slot);
  } else {
    check_gang(root, m, key + rnd(rs) % 7 - 3, 1 + rnd(rs) % GANG_MAX);
  }
}

// Test 1: random sequences against the model. Phases change the insert/delete balance
// and the regions used, so heights rise and fall, and how often allocations fail and
// inserts preload, so that both the stash and -ENOMEM come into play.
static void
test_random(unsigned int shift, unsigned long nops)
{
  struct radix_tree_root root;
  struct model m = { 0 };
  static const unsigned int fail_pct[] = { 0, 2, 30 };
  unsigned long rs, far[64];
  struct phase ph;
  unsigned int i;
  long before;

  before = bad;
  rs = seed ^ (0x9E3779B97F4A7C15UL * shift);
  CHECK(INIT_RADIX_TREE(&root, shift) == 0);
  for(i = 0; i < 64; i++)
    far[i] = rnd(&rs);
  slab_fail_seed(rs);
  for(opno = 0; opno < nops; opno++) {
    if(opno % 5000 == 0) {
      ph.insert_pct = 20 + rnd(&rs) % 61;
      ph.preload_pct = rnd(&rs) % 3 * 50;
      ph.regions = 1 + rnd(&rs) % 31;
      slab_fail_percent(fail_pct[rnd(&rs) % 3]);
    }
    random_op(&root, &m, &rs, &ph, pick_key(&rs, ph.regions, far));
    if(opno % 4096 == 0)
      check_tree(&root, &m);
  }
  slab_fail_percent(0);
  check_tree(&root, &m);
  empty_tree(&root, &m);
  free(m.e);
  printf("random shift %u: %lu ops\n", shift, nops);
  CHECK(bad == before);
}

// Test 2: the height is the minimum after each insert and delete, from one level to
// the full 64 bits and back (check_tree also counts the nodes), and the worst insert
// takes RADIX_TREE_PRELOAD_SIZE nodes.
static void
test_height(unsigned int shift)
{
  struct radix_tree_root root;
  struct model m = { 0 };
  unsigned int full, h;
  unsigned long index;
  long before;

  before = bad;
  full = RADIX_TREE_MAX_PATH(shift);
  CHECK(INIT_RADIX_TREE(&root, shift) == 0);
  CHECK(radix_tree_height(&root) == 0);
  for(h = 1; h <= full; h++) {
    index = h == 1 ? 0 : 1UL << (shift * (h - 1));
    CHECK(radix_tree_insert(&root, index, (void *)(index | 1)) == 0);
    model_add(&m, index, (void *)(index | 1));
    CHECK(radix_tree_height(&root) == h);
    check_tree(&root, &m);
  }
  CHECK(radix_tree_insert(&root, ~0UL, (void *)3) == 0);
  CHECK(radix_tree_insert(&root, ~0UL, (void *)5) == -EEXIST);
  CHECK(radix_tree_height(&root) == full);
  CHECK(radix_tree_delete(&root, ~0UL) == (void *)3);
  for(h = full; h >= 1; h--) {
    CHECK(radix_tree_height(&root) == h);
    index = m.e[m.n - 1].index;
    CHECK(radix_tree_delete(&root, index) == (void *)(index | 1));
    model_del(&m, index);
    CHECK(radix_tree_height(&root) == h - 1);
    check_tree(&root, &m);
  }

  CHECK(radix_tree_insert(&root, ~0UL, (void *)3) == 0);
  CHECK(radix_tree_nr_nodes(&root) == full);
  CHECK(radix_tree_delete(&root, ~0UL) == (void *)3);
  CHECK(radix_tree_insert(&root, 0, (void *)1) == 0);
  CHECK(radix_tree_insert(&root, ~0UL, (void *)3) == 0);
  CHECK(radix_tree_nr_nodes(&root) == 1 + RADIX_TREE_PRELOAD_SIZE(shift));
  CHECK(radix_tree_delete(&root, 0) == (void *)1);
  CHECK(radix_tree_nr_nodes(&root) == full);
  CHECK(radix_tree_delete(&root, ~0UL) == (void *)3);
  CHECK(radix_tree_nr_nodes(&root) == 0);
  free(m.e);
  CHECK(bad == before);
}

static void
test_args(void)
{
  struct radix_tree_root root;
  void *got[4];

  CHECK(INIT_RADIX_TREE(&root, RADIX_TREE_MIN_SHIFT - 1) == -EINVAL);
  CHECK(INIT_RADIX_TREE(&root, RADIX_TREE_MAX_SHIFT + 1) == -EINVAL);
  CHECK(INIT_RADIX_TREE(&root, 6) == 0);
  CHECK(radix_tree_insert(&root, 5, NULL) == -EINVAL);
  CHECK(radix_tree_lookup(&root, 5) == NULL);
  CHECK(radix_tree_delete(&root, 5) == NULL);
  CHECK(radix_tree_gang_lookup(&root, got, 0, 4) == 0);
  // A gang lookup that reaches ULONG_MAX stops instead of wrapping to index 0.
  CHECK(radix_tree_insert(&root, 1, (void *)1) == 0);
  CHECK(radix_tree_insert(&root, ~0UL, (void *)3) == 0);
  CHECK(radix_tree_gang_lookup(&root, got, ~0UL - 1, 4) == 1 && got[0] == (void *)3);
  CHECK(radix_tree_gang_lookup(&root, got, 0, 4) == 2 && got[1] == (void *)3);
  CHECK(radix_tree_delete(&root, 1) == (void *)1);
  CHECK(radix_tree_delete(&root, ~0UL) == (void *)3);
}

// Test 3a: with every allocation failing, preload still serves inserts from the
// mempool's reserve until the reserve is spent; then inserts fail cleanly. Runs
// before anything else draws on the reserves, so they start full.
static void
test_preload(void)
{
  struct radix_tree_root root;
  struct model m = { 0 };
  unsigned long rs, key, size;
  long reserved;
  int ret, i, ok, failed;

  rs = seed + 3;
  size = RADIX_TREE_PRELOAD_SIZE(4);
  CHECK(INIT_RADIX_TREE(&root, 4) == 0);
  CHECK(radix_tree_preload(GFP_KERNEL) == 0);
  radix_tree_preload_end();
  reserved = mempool_nr_reserved();
  slab_fail_percent(100);
  ok = failed = 0;
  for(i = 0; i < 1000; i++) {
    key = rnd(&rs);
    if(radix_tree_preload(GFP_KERNEL) != 0)
      break;
    ret = radix_tree_insert(&root, key, (void *)(key | 1));
    radix_tree_preload_end();
    if(ret == 0)
      model_add(&m, key, (void *)(key | 1));
    else
      failed++;
    ok++;
  }
  CHECK(ok > 0 && i < 1000);
  CHECK(failed == 0);
  // Only the shift-4 reserve was spent, all of it, so the tree holds more than a stash.
  CHECK(reserved - mempool_nr_reserved() == (long)size);
  CHECK(radix_tree_nr_nodes(&root) > size);
  for(i = 0; i < 100; i++) {
    key = rnd(&rs);
    ret = radix_tree_insert(&root, key, (void *)(key | 1));
    if(ret != 0)
      break;
    model_add(&m, key, (void *)(key | 1));
  }
  CHECK(ret == -ENOMEM);
  CHECK(radix_tree_lookup(&root, key) == NULL);
  slab_fail_percent(0);
  check_tree(&root, &m);
  CHECK(radix_tree_insert(&root, key, (void *)(key | 1)) == 0);
  model_add(&m, key, (void *)(key | 1));
  check_tree(&root, &m);
  empty_tree(&root, &m);
  free(m.e);
  rcu_barrier();
  CHECK(mempool_nr_reserved() == reserved);
}

// Test 3b, on a thread of its own so its stash is empty: an insert fails with -ENOMEM
// whichever of its allocations fails, and leaves no trace.
static void *
no_preload_thread(void *arg)
{
  struct radix_tree_root root;
  struct model m = { 0 };
  unsigned long key, nodes, need;
  long live;
  unsigned int j;

  (void)arg;
  rcu_register_thread();
  CHECK(INIT_RADIX_TREE(&root, 3) == 0);
  slab_fail_percent(100);
  CHECK(radix_tree_insert(&root, 7, (void *)7) == -ENOMEM);
  CHECK(radix_tree_height(&root) == 0);
  slab_fail_percent(0);
  CHECK(radix_tree_insert(&root, 7, (void *)7) == 0);
  model_add(&m, 7, (void *)7);
  slab_fail_percent(100);
  CHECK(radix_tree_insert(&root, 6, (void *)6) == 0);   // needs no node
  model_add(&m, 6, (void *)6);
  slab_fail_percent(0);

  key = (1UL << 40) + 12345;
  model_add(&m, key, (void *)(key | 1));
  need = model_nodes(&m, 3);
  model_del(&m, key);
  nodes = radix_tree_nr_nodes(&root);
  need -= nodes;
  live = slab_nr_live() - mempool_nr_reserved();
  for(j = 1; j <= need; j++) {
    slab_fail_nth(j);
    CHECK(radix_tree_insert(&root, key, (void *)(key | 1)) == -ENOMEM);
    slab_fail_nth(0);
    CHECK(radix_tree_nr_nodes(&root) == nodes);
    CHECK(slab_nr_live() - mempool_nr_reserved() == live);   // none lost
    check_tree(&root, &m);
  }
  slab_fail_nth(need + 1);
  CHECK(radix_tree_insert(&root, key, (void *)(key | 1)) == 0);
  slab_fail_nth(0);
  model_add(&m, key, (void *)(key | 1));
  CHECK(radix_tree_nr_nodes(&root) == nodes + need);
  check_tree(&root, &m);
  empty_tree(&root, &m);
  free(m.e);
  rcu_unregister_thread();
  return NULL;
}

// Test 4: readers under rcu_read_lock() alone while writers churn under a mutex.
// Items encode their index, so a reader can tell a wrong or freed-and-reused value.
#define POOL (1024 + 256 + 64)

static struct radix_tree_root race_root;
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static int race_stop;

struct reader {
  pthread_t tid;
  unsigned long rs, ops;
  long bad;
};

// Keys near 0 mostly, a few near 2^32 and 2^61 so the tree keeps growing and shrinking.
static unsigned long
pool_key(unsigned int i)
{
  if(i < 1024)
    return i;
  if(i < 1024 + 256)
    return (1UL << 32) + i - 1024;
  return (1UL << 61) + i - 1024 - 256;
}

static void *
encode(unsigned long index)
{
  return (void *)(index << 2 | 2);
}

static bool
valid(void *item, unsigned long *index)
{
  *index = (unsigned long)item >> 2;
  return ((unsigned long)item & 3) == 2;
}

// Results of a gang lookup from first: valid, increasing, none below first.
static long
check_race_gang(void **got, unsigned int n, unsigned long first)
{
  unsigned long index, prev;
  unsigned int i;
  long errs;

  errs = 0;
  prev = 0;
  for(i = 0; i < n; i++) {
    if(!valid(got[i], &index) || index < first || (i > 0 && index <= prev))
      errs++;
    prev = index;
  }
  return errs;
}

static void *
reader_thread(void *arg)
{
  struct reader *r;
  unsigned long key, first;
  void *got[16], **slot, *item;
  unsigned int n;

  r = arg;
  rcu_register_thread();
  while(!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
    key = pool_key(rnd(&r->rs) % POOL);
    first = key - rnd(&r->rs) % 5;
    rcu_read_lock();
    item = radix_tree_lookup(&race_root, key);
    if(item && item != encode(key))
      r->bad++;
    slot = radix_tree_lookup_slot(&race_root, key);
    if(slot) {
      item = rcu_dereference(*slot);
      if(item && item != encode(key))
        r->bad++;
    }
    n = radix_tree_gang_lookup(&race_root, got, first, 16);
    r->bad += check_race_gang(got, n, first);
    rcu_read_unlock();
    r->ops++;
  }
  rcu_unregister_thread();
  return NULL;
}

static void
test_race(unsigned int shift, double seconds)
{
  struct reader readers[3];
  static bool present[POOL];
  unsigned long rs, writes, reads;
  unsigned int i, k;
  long errs;
  double end;

  rs = seed ^ (shift * 77);
  CHECK(INIT_RADIX_TREE(&race_root, shift) == 0);
  memset(present, 0, sizeof(present));
  __atomic_store_n(&race_stop, 0, __ATOMIC_RELAXED);
  for(i = 0; i < 3; i++) {
    readers[i] = (struct reader){ .rs = rs + 2 + i };
    pthread_create(&readers[i].tid, NULL, reader_thread, &readers[i]);
  }
  writes = 0;
  end = now() + seconds;
  while(now() < end) {
    for(k = 0; k < 256; k++) {
      // Far keys come and go, changing the height; near ones fill the leaves.
      i = rnd(&rs) % 8 ? rnd(&rs) % 1024 : rnd(&rs) % POOL;
      pthread_mutex_lock(&race_lock);
      if(present[i])
        expect(radix_tree_delete(&race_root, pool_key(i)) == encode(pool_key(i)));
      else
        expect(radix_tree_insert(&race_root, pool_key(i), encode(pool_key(i))) == 0);
      pthread_mutex_unlock(&race_lock);
      present[i] = !present[i];
      writes++;
    }
  }
  __atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
  errs = 0;
  reads = 0;
  for(i = 0; i < 3; i++) {
    pthread_join(readers[i].tid, NULL);
    errs += readers[i].bad;
    reads += readers[i].ops;
  }
  printf("race shift %u: %lu writes, %lu read sections\n", shift, writes, reads);
  CHECK(errs == 0);
  CHECK(reads > 100);
  for(i = 0; i < POOL; i++)
    if(present[i])
      CHECK(radix_tree_delete(&race_root, pool_key(i)) == encode(pool_key(i)));
  CHECK(radix_tree_nr_nodes(&race_root) == 0);
}

// Test 5: once trees are empty and RCU callbacks have run, the only live nodes are the
// mempool reserves and this thread's full stash.
static void
test_leaks(void)
{
  long stash;
  unsigned int shift;

  rcu_barrier();
  CHECK(radix_tree_preload(GFP_KERNEL) == 0);
  radix_tree_preload_end();
  stash = 0;
  for(shift = RADIX_TREE_MIN_SHIFT; shift <= RADIX_TREE_MAX_SHIFT; shift++)
    stash += RADIX_TREE_PRELOAD_SIZE(shift);
  CHECK(slab_nr_live() - mempool_nr_reserved() == stash);
}

int
main(int argc, char **argv)
{
  static const unsigned int shifts[] = { 2, 3, 4, 6, 7 };
  pthread_t tid;
  unsigned long nops;
  unsigned int i;
  int c;

  seed = (unsigned long)(now() * 1e6) ^ ((unsigned long)getpid() << 32);
  while((c = getopt(argc, argv, "s:l")) != -1) {
    if(c == 's')
      seed = strtoul(optarg, NULL, 0);
    else if(c == 'l')
      long_run = true;
    else {
      fprintf(stderr, "usage: %s [-s seed] [-l]\n", argv[0]);
      return 2;
    }
  }
  printf("seed: %lu (replay with -s %lu)\n", seed, seed);
  rcu_register_thread();
  CHECK(radix_tree_init() == 0);

  test_args();
  for(i = RADIX_TREE_MIN_SHIFT; i <= RADIX_TREE_MAX_SHIFT; i++)
    test_height(i);
  // Before the random tests, which leave reserve nodes in this thread's stash.
  test_preload();
  pthread_create(&tid, NULL, no_preload_thread, NULL);
  pthread_join(tid, NULL);
  nops = long_run ? 5000000 : 700000;
  for(i = 0; i < ARRAY_SIZE(shifts); i++)
    test_random(shifts[i], nops);
  test_race(2, long_run ? 20 : 2);
  test_race(6, long_run ? 20 : 2);
  test_leaks();
  CHECK(bad == 0);

  rcu_unregister_thread();
  return check_summary("radix");
}
