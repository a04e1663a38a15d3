// The page cache: a file's pages indexed by their offset in an address_space, in one of the
// four variants the 2001 and 2002 threads compare, chosen per address space at creation.
#pragma once
#include "gfp.h"
#include "list.h"
#include "mm.h"
#include "percpu.h"
#include "radix-tree.h"
#include "reclaim.h"
#include "spinlock.h"
#include "types.h"

enum pagecache_variant {
  PC_HASH_GLOBAL,   // 2.4: one hash of (mapping, index) under one pagecache_lock
  PC_HASH_BUCKET,   // the 2001 patch: the same hash table, a lock per bucket
  PC_RADIX_LOCK,    // the 2002 patch: a radix tree per mapping; lookups take its lock
  PC_RADIX_RCU,     // lookups lock-free under RCU; writers under the mapping's lock
  NR_PC_VARIANTS
};
extern const char *const pagecache_variant_names[NR_PC_VARIANTS];  // "hash-global", ...

struct pagecache_ops;

struct address_space {
  const struct lru_ops *lru_ops;     // first: how the reclaim core drops a page (reclaim.h)
  const struct pagecache_ops *ops;   // the variant's index: a small table of operations
  enum pagecache_variant variant;
  unsigned fanout;                   // radix variants: 16, 64 or 128
  spinlock_t tree_lock;              // writers of this mapping (and radix-lock's readers)
  struct radix_tree_root page_tree;  // radix variants
  unsigned long nrpages;
  void *host;                        // the inode or test file whose pages these are
  bool reclaimable;                  // clean pages may be dropped (ramfs opts out)
  int users;                         // opens: pages of a file nobody has open may go
  struct list_head hash_nodes;       // hash variants: this mapping's entries (2.4's page lists)
};

// One indexing variant: lookup and change of the index, each doing its own locking.
// filemap.c does the rest (page lock, LRU, the cache's reference) alike for all four.
struct pagecache_ops {
  int (*init)(struct address_space *m);
  // Returns the page at index with a reference taken, or NULL.
  struct page *(*lookup)(struct address_space *m, unsigned long index);
  // Sets page->mapping and page->index and links the page: 0, -EEXIST or -ENOMEM.
  int (*insert)(struct address_space *m, struct page *page, unsigned long index, gfp_t gfp);
  // Unlinks page and clears page->mapping; false if it was not there. refs > 0: only if
  // exactly refs references are held, checked with the count frozen at zero so that no
  // lookup can take a new one meanwhile (Linux's page_ref_freeze in __remove_mapping).
  bool (*remove)(struct address_space *m, struct page *page, int refs);
  // Up to nr pages at indices >= start, in index order, each with a reference taken.
  unsigned (*gang_lookup)(struct address_space *m, unsigned long start, unsigned nr,
                          struct page **pages);
};
extern const struct pagecache_ops hash_global_ops, hash_bucket_ops;   // pagecache_hash.c
extern const struct pagecache_ops radix_lock_ops, radix_rcu_ops;      // pagecache_radix.c

// How often radix-rcu's lookups lost a race (pagecache_radix.c), per CPU: the benchmark
// prints them so a reader sees its workload reached these paths.
struct pagecache_rcu_stats {
  u64 refused;   // get_page_unless_zero failed: the page was freed or frozen by remove()
  u64 moved;     // the slot no longer held the page once referenced: dropped, looked again
};
DECLARE_PER_CPU(struct pagecache_rcu_stats, pagecache_rcu_races);

// planted-pagecache-recheck only: m, a radix-rcu mapping, looks up without the recheck, and
// calls window between reading the slot and taking the reference (to widen the race).
void pagecache_plant_norecheck(struct address_space *m, void (*window)(void));

int address_space_init(struct address_space *m, enum pagecache_variant v, unsigned fanout,
                       void *host, bool reclaimable);
void address_space_destroy(struct address_space *m);   // truncates every page

// All return pages with a reference held (put_page when done); NULL when absent.
struct page *find_get_page(struct address_space *m, unsigned long index);
struct page *find_lock_page(struct address_space *m, unsigned long index);   // and locked
struct page *find_or_create_page(struct address_space *m, unsigned long index, gfp_t gfp);
// Gang lookup, in index order; it may return fewer than nr pages while more follow
// (radix-rcu returns at most 16), and 0 only when no page is left at or after start.
unsigned find_get_pages(struct address_space *m, unsigned long start, unsigned nr,
                        struct page **pages);
int add_to_page_cache(struct page *page, struct address_space *m, unsigned long index,
                      gfp_t gfp);                      // page locked by the caller; -EEXIST
void delete_from_page_cache(struct page *page);        // page locked by the caller
// A user mapping's fault at index of m, whose file is *size bytes long: the page, locked
// and referenced (made if absent); -EIO at or past the end, -ENOMEM.
int filemap_fault(struct address_space *m, unsigned long index, const u64 *size,
                  struct page **pagep);
void truncate_inode_pages(struct address_space *m, unsigned long start);   // indices >= start
// Linux's set_page_dirty for a mapping without writeback (ramfs's
// __set_page_dirty_no_writeback): PG_dirty, and nothing to schedule. Nothing cleans a ramfs
// page (no writeback, as on Linux); truncation clears the flag as it drops the page.
void set_page_dirty(struct page *page);
// The page half of Linux's filemap_page_mkwrite (the fault did file_update_time first,
// mm/memory.c): page, locked by the caller, is marked dirty if it is still m's; false when a
// truncation took it meanwhile, and the fault must be retried (Linux's VM_FAULT_NOPAGE).
bool filemap_page_mkwrite(struct address_space *m, struct page *page);

// remove(refs) sets the count from refs to zero while it unlinks the page, so that
// get_page_unless_zero fails meanwhile, then gives the references back (release: the
// unlink is seen before the count is).
static inline bool
page_ref_freeze(struct page *page, int refs)
{
  return __atomic_compare_exchange_n(&page->refcount, &refs, 0, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

static inline void
page_ref_unfreeze(struct page *page, int refs)
{
  smp_store_release(&page->refcount, refs);
}

void lock_page(struct page *page);
bool trylock_page(struct page *page);
void unlock_page(struct page *page);
