// The page-cache index as one hash table of (mapping, index) for all files: Linux 2.4's, under
// the global pagecache_lock (hash-global), or with a lock per bucket (hash-bucket, the 2001 patch).
#include "compiler.h"
#include "errno.h"
#include "mm.h"
#include "mutex.h"
#include "pagemap.h"
#include "slab.h"
#include "spinlock.h"

// 2.4 chained pages through page->next_hash. Here the chain is of small entries instead,
// so struct page needs no field for a variant that only two of four mappings use; the
// entry carries the key, so a chain walk reads entries only, as 2.4's read pages only.
struct hash_node {
  struct hash_node *next;          // the bucket's chain
  struct address_space *mapping;
  unsigned long index;
  struct page *page;
  struct list_head list;           // the mapping's entries: truncate and gang lookup walk it
};

struct page_hash {
  struct hash_node **buckets;
  spinlock_t *locks;               // hash-bucket: one per bucket; hash-global: NULL
  unsigned bits;
  bool ready;                      // the above and node_cache are made: set once, release
};

// Two tables, so that each variant runs as it did: 2.4 with its single lock, the 2001
// patch with its bucket locks. Both are made when the first mapping of their kind is; from
// then on they are only read, and a new mapping costs one load of ready (2.4 made its table
// at boot, in page_cache_init, and a new file cost nothing).
static struct page_hash global_hash, bucket_hash;
static DEFINE_SPINLOCK(pagecache_lock);   // hash-global: every change and every lookup
static DEFINE_MUTEX(hash_init_lock);      // the first mapping of each kind, making its table
static struct kmem_cache *node_cache;     // set under hash_init_lock, before either ready

// 2.4's page_cache_init: a bucket per page of memory, rounded up to a power of two, in
// one block; if that block cannot be had, halve the table until one can.
static int
page_hash_alloc(struct page_hash *h, bool locked)
{
  unsigned order = MIN(get_order(max_pfn * sizeof(struct hash_node *)), MAX_ORDER);
  for(;; order--) {
    h->bits = PAGE_SHIFT + order - 3;   // 8-byte bucket heads
    size_t n = 1UL << h->bits;
    unsigned lock_order = get_order(n * sizeof(spinlock_t));
    h->buckets = NULL;
    h->locks = NULL;
    if(!locked || lock_order <= MAX_ORDER) {
      h->buckets = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
      if(h->buckets && locked)
        h->locks = (void *)__get_free_pages(GFP_KERNEL | __GFP_NOWARN, lock_order);
    }
    if(h->buckets && (!locked || h->locks)) {
      for(size_t i = 0; locked && i < n; i++)
        spin_lock_init(&h->locks[i]);
      account_permanent_pages((1UL << order) + (locked ? 1UL << lock_order : 0));   // kept
      return 0;
    }
    free_pages((unsigned long)h->buckets, order);
    h->buckets = NULL;
    if(order == 0)
      return -ENOMEM;
  }
}

static int
hash_alloc_once(struct page_hash *h)
{
  int err = 0;
  mutex_lock(&hash_init_lock);
  if(!node_cache)
    node_cache = kmem_cache_create("pagecache_hash", sizeof(struct hash_node), 0, 0, NULL);
  if(!node_cache)
    err = -ENOMEM;
  else if(!h->buckets)
    err = page_hash_alloc(h, h == &bucket_hash);
  if(!err)
    smp_store_release(&h->ready, true);   // pairs with hash_init's acquire
  mutex_unlock(&hash_init_lock);
  return err;
}

// Every file created on a hash mount comes here: after the first, without a lock or a store
// to anything shared. The acquire pairs with hash_alloc_once's release, so a mapping that
// sees ready sees the table's pointers, its zeroed buckets and node_cache.
static int
hash_init(struct address_space *m, struct page_hash *h)
{
  INIT_LIST_HEAD(&m->hash_nodes);
  if(smp_load_acquire(&h->ready))
    return 0;
  return hash_alloc_once(h);
}

static int hash_global_init(struct address_space *m) { return hash_init(m, &global_hash); }
static int hash_bucket_init(struct address_space *m) { return hash_init(m, &bucket_hash); }

// 2.4's _page_hashfn: the mapping's address, divided by the alignment its containing
// objects give it, plus the index; the high bits are folded in once.
static unsigned long
hashfn(struct page_hash *h, struct address_space *m, unsigned long index)
{
  unsigned long s = (unsigned long)m / (sizeof(*m) & -sizeof(*m));
  return (s + index + (s >> h->bits)) & ((1UL << h->bits) - 1);
}

static struct hash_node **
find_node(struct page_hash *h, unsigned long b, struct address_space *m, unsigned long index)
{
  struct hash_node **pp = &h->buckets[b];
  while(*pp && ((*pp)->mapping != m || (*pp)->index != index))
    pp = &(*pp)->next;
  return pp;
}

// Which locks guard what: hash-global takes pagecache_lock for everything. hash-bucket
// looks up under the bucket's lock alone; a change takes the mapping's tree_lock (for its
// list and nrpages) and then the bucket's.
static struct page_hash *
table_of(struct address_space *m)
{
  return m->ops == &hash_global_ops ? &global_hash : &bucket_hash;
}

static spinlock_t *
bucket_lock(struct page_hash *h, unsigned long b)
{
  return h->locks ? &h->locks[b] : &pagecache_lock;
}

static spinlock_t *
list_lock(struct address_space *m, struct page_hash *h)
{
  return h->locks ? &m->tree_lock : &pagecache_lock;
}

static void
lock_change(struct address_space *m, struct page_hash *h, unsigned long b)
{
  spin_lock(list_lock(m, h));
  if(h->locks)
    spin_lock(&h->locks[b]);
}

static void
unlock_change(struct address_space *m, struct page_hash *h, unsigned long b)
{
  if(h->locks)
    spin_unlock(&h->locks[b]);
  spin_unlock(list_lock(m, h));
}

// The reference is taken under the lock that remove() also needs, so the page cannot be
// freed between finding it and holding it.
static struct page *
hash_lookup(struct address_space *m, unsigned long index)
{
  struct page_hash *h = table_of(m);
  unsigned long b = hashfn(h, m, index);
  struct page *page = NULL;

  spin_lock(bucket_lock(h, b));
  struct hash_node *node = *find_node(h, b, m, index);
  if(node) {
    page = node->page;
    get_page(page);
  }
  spin_unlock(bucket_lock(h, b));
  return page;
}

static int
hash_insert(struct address_space *m, struct page *page, unsigned long index, gfp_t gfp)
{
  struct page_hash *h = table_of(m);
  unsigned long b = hashfn(h, m, index);
  struct hash_node **pp, *node = kmem_cache_alloc(node_cache, gfp);
  int err = -EEXIST;
  if(!node)
    return -ENOMEM;
  node->next = NULL;
  node->mapping = m;
  node->index = index;
  node->page = page;

  lock_change(m, h, b);
  pp = find_node(h, b, m, index);
  if(!*pp) {
    page->mapping = m;
    page->index = index;
    *pp = node;
    list_add_tail(&node->list, &m->hash_nodes);
    m->nrpages++;
    err = 0;
  }
  unlock_change(m, h, b);
  if(err)
    kmem_cache_free(node_cache, node);
  return err;
}

static bool
hash_remove(struct address_space *m, struct page *page, int refs)
{
  struct page_hash *h = table_of(m);
  unsigned long b = hashfn(h, m, page->index);
  struct hash_node **pp, *node = NULL;

  lock_change(m, h, b);
  pp = find_node(h, b, m, page->index);
  if(*pp && (*pp)->page == page && (refs == 0 || page_ref_freeze(page, refs))) {
    node = *pp;
    *pp = node->next;
    list_del(&node->list);
    page->mapping = NULL;
    m->nrpages--;
    if(refs)
      page_ref_unfreeze(page, refs);
  }
  unlock_change(m, h, b);
  if(node)
    kmem_cache_free(node_cache, node);
  return node != NULL;
}

// A hash keeps no order, so the mapping's list is walked for the nr lowest indices from
// start, kept sorted by insertion: O(pages x nr), where a radix tree walks only what it
// returns. 2.4 had no such call: its truncate walked the mapping's lists in any order.
static unsigned
hash_gang(struct address_space *m, unsigned long start, unsigned nr, struct page **pages)
{
  struct page_hash *h = table_of(m);
  struct hash_node *node;
  unsigned n = 0;

  if(nr == 0)
    return 0;
  spin_lock(list_lock(m, h));
  list_for_each_entry(node, &m->hash_nodes, list) {
    if(node->index < start || (n == nr && node->index > pages[n - 1]->index))
      continue;
    unsigned i = n < nr ? n++ : n - 1;
    for(; i > 0 && pages[i - 1]->index > node->index; i--)
      pages[i] = pages[i - 1];
    pages[i] = node->page;
  }
  for(unsigned i = 0; i < n; i++)
    get_page(pages[i]);
  spin_unlock(list_lock(m, h));
  return n;
}

const struct pagecache_ops hash_global_ops = {
  .init = hash_global_init,
  .lookup = hash_lookup,
  .insert = hash_insert,
  .remove = hash_remove,
  .gang_lookup = hash_gang,
};

const struct pagecache_ops hash_bucket_ops = {
  .init = hash_bucket_init,
  .lookup = hash_lookup,
  .insert = hash_insert,
  .remove = hash_remove,
  .gang_lookup = hash_gang,
};
