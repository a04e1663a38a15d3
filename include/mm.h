// Physical pages: struct page for every page frame, the buddy page allocator with per-CPU
// lists in front, and the conversions between pages, frame numbers and addresses.
#pragma once
#include "compiler.h"
#include "gfp.h"
#include "list.h"
#include "types.h"
#include <asm/memlayout.h>

// Page flags: bit numbers in page->flags. gdb's kpage decodes them by these names.
enum pageflags {
  PG_locked,         // someone holds the page lock (I/O, truncation)
  PG_dirty,          // must be written back before it can be dropped: set by a write
                     // fault's page_mkwrite (set_page_dirty); ramfs has no writeback, so
                     // only truncation clears it (delete_from_page_cache), as on Linux
  PG_lru,            // on an LRU list
  PG_active,         // on the active LRU list
  PG_referenced,     // accessed since the LRU last looked
  PG_reserved,       // never handed to the allocator: firmware, kernel image, boot allocations
  PG_slab,           // part of a slab; private points to its struct slab
  PG_buddy,          // the first page of a free block on a buddy list; private is its order
  PG_swapbacked,     // anonymous or tmpfs/ramfs memory, not backed by a file
  PG_lazyfree,       // MADV_FREE: may be dropped instead of written back
  PG_large_kmalloc,  // the first page of a kmalloc bigger than a slab size; private is its order
  PG_unscrubbed,     // never written since boot (free, or taken with __GFP_NOSCRUB): may hold
                     // code the boot loader ran (scrub_first_use, mm/page_alloc.c)
  NR_PAGEFLAGS
};

struct page {
  unsigned long flags;       // enum pageflags bits
  int refcount;              // atomic; 0: free
  void *mapping;             // page cache: the address space it belongs to
  unsigned long index;       // page cache: its offset in the file, in pages
  union {
    struct list_head lru;    // free lists and per-CPU lists while free; the owner's after
    struct spinlock *ptl;    // a page table's, under vm.ptl=split: the lock of its entries
                             // (include/vm.h, pte_lockptr); a page table is on no list
  };
  unsigned long private;     // free: the block's order; slab: its struct slab; owner's use
};

#define MAX_ORDER 10         // largest block: 2^10 pages (4 MiB), as in Linux

extern struct page *mem_map;   // struct page of every pfn below max_pfn
extern unsigned long max_pfn;

static inline unsigned long page_to_pfn(struct page *p) { return p - mem_map; }
static inline struct page *pfn_to_page(unsigned long pfn) { return mem_map + pfn; }
static inline u64 page_to_phys(struct page *p) { return (u64)page_to_pfn(p) << PAGE_SHIFT; }
static inline void *page_address(struct page *p) { return __va(page_to_phys(p)); }
static inline struct page *
virt_to_page(const void *v)
{
  return pfn_to_page(__pa(v) >> PAGE_SHIFT);
}

// The smallest order whose block holds size bytes.
static inline unsigned
get_order(size_t size)
{
  unsigned order = 0;
  while((PAGE_SIZE << order) < size)
    order++;
  return order;
}

// Flags of a page others may look at are changed atomically: a page-cache lookup can read
// PG_locked while the owner sets PG_dirty.
static inline bool
page_flag(struct page *p, int bit)
{
  return (READ_ONCE(p->flags) >> bit) & 1;
}

static inline void
set_page_flag(struct page *p, int bit)
{
  __atomic_fetch_or(&p->flags, 1UL << bit, __ATOMIC_RELAXED);
}

static inline void
clear_page_flag(struct page *p, int bit)
{
  __atomic_fetch_and(&p->flags, ~(1UL << bit), __ATOMIC_RELAXED);
}

// Returns the old value. Acquire on set, release on clear: the pair makes a lock (PG_locked).
static inline bool
test_and_set_page_flag(struct page *p, int bit)
{
  return (__atomic_fetch_or(&p->flags, 1UL << bit, __ATOMIC_ACQUIRE) >> bit) & 1;
}

static inline bool
test_and_clear_page_flag(struct page *p, int bit)
{
  return (__atomic_fetch_and(&p->flags, ~(1UL << bit), __ATOMIC_RELEASE) >> bit) & 1;
}

// Allocation. gfp as in gfp.h; the page comes back with refcount 1. NULL when out of memory
// or when fault injection (failpage=) says so.
struct page *alloc_pages(gfp_t gfp, unsigned order);
static inline struct page *alloc_page(gfp_t gfp) { return alloc_pages(gfp, 0); }
unsigned long __get_free_pages(gfp_t gfp, unsigned order);   // direct-map address, or 0
static inline unsigned long __get_free_page(gfp_t gfp) { return __get_free_pages(gfp, 0); }

// Dropping a reference: the last one frees the block. Freeing a free page panics.
void __free_pages(struct page *p, unsigned order);
static inline void __free_page(struct page *p) { __free_pages(p, 0); }
void free_pages(unsigned long addr, unsigned order);
static inline void free_page(unsigned long addr) { free_pages(addr, 0); }

static inline int
page_count(struct page *p)
{
  return READ_ONCE(p->refcount);
}
void get_page(struct page *p);               // the caller already holds a reference
bool get_page_unless_zero(struct page *p);   // for lockless lookups that may race with a free
void put_page(struct page *p);               // an order-0 page

// Between the reference counts (mm/page_ref.c) and the allocator under them (mm/page_alloc.c,
// or the host tests' page pool): a page taken off the free lists is checked and given its
// first reference; one whose last reference is dropped is checked and handed back.
void prep_new_page(struct page *p);
void free_pages_ok(struct page *p, unsigned order);

unsigned long nr_free_pages(void);   // on the buddy lists, not counting per-CPU lists
// Pages allocated after boot that are kept for good by design, never freed (a thread slot's
// stack, kernel page tables, the page-cache hash tables, a CPU's slab magazines): their
// owners count them here, so that the leak check (mm/leakcheck.c) can tell them from a leak.
void account_permanent_pages(unsigned long n);
unsigned long nr_permanent_pages(void);
void drain_local_pages(void);        // this CPU's per-CPU list back to the buddy lists
void drain_all_pages(void);          // every CPU's (call with interrupts enabled)
// Gives back all that is freed but kept for later (RCU callbacks, preload stashes, slab
// magazines and empty slabs, per-CPU page lists): mm/leakcheck.c.
void mm_quiesce(void);
void show_free_areas(void);          // the free counts on the console
bool page_alloc_ready(void);         // true once mm_init has taken over from the boot allocator

// Pages the boot allocator kept reserved, given to the page allocator: how many.
unsigned long free_reserved_range(u64 start, u64 end);
void mm_init(void);   // the page allocator over all free memory, then slab and fault injection
