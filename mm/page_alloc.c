// The page allocator: a binary buddy system over all free memory (Knowlton 1965; Knuth
// vol. 1, 2.5), one zone, with per-CPU lists of single pages so the common case takes no lock.
#include "bootmem.h"
#include <asm/cpu.h>
#include "fault_inject.h"
#include <asm/irqflags.h>
#include "mm.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "radix-tree.h"
#include "reclaim.h"
#include "sched.h"
#include "slab.h"
#include "smp.h"
#include "spinlock.h"
#include "string.h"

// Per-CPU lists take and give pages to the buddy lists PCP_BATCH at a time and hold at
// most PCP_HIGH (Linux's old pageset_set_batch: high = 6 * batch).
#define PCP_BATCH 32
#define PCP_HIGH (6 * PCP_BATCH)
// Reclaim passes a failing allocation may try before it gives up.
#define MAX_RECLAIM_RETRIES 16

struct page *mem_map;
unsigned long max_pfn;

struct free_area {
  struct list_head list;    // first pages of free blocks of this order
  unsigned long nr;         // blocks on the list
};

static struct {
  spinlock_t lock;
  struct free_area area[MAX_ORDER + 1];
  unsigned long nr_free;    // pages on the free lists
} zone = { .lock = SPINLOCK_INIT(zone.lock) };

// Indexed by CPU id, not in the .percpu section: the APs' areas are copied from the boot
// CPU's after mm_init, which would copy its list too. One cache line each.
struct per_cpu_pages {
  struct list_head list;    // free order-0 pages, the most recently freed first
  int count;
} __aligned(64);

static struct per_cpu_pages pcp[NR_CPUS];
static bool ready;

bool
page_alloc_ready(void)
{
  return ready;
}

// The buddy of a block is the block of the same order whose pfn differs in bit `order`.
static struct page *
buddy_of(unsigned long pfn, unsigned order)
{
  unsigned long b = pfn ^ (1UL << order);
  if(b + (1UL << order) > max_pfn)
    return NULL;
  struct page *buddy = pfn_to_page(b);
  if(!page_flag(buddy, PG_buddy) || buddy->private != order)
    return NULL;
  return buddy;
}

static void
add_free(struct page *p, unsigned order)
{
  p->private = order;
  set_page_flag(p, PG_buddy);
  list_add(&p->lru, &zone.area[order].list);
  zone.area[order].nr++;
}

static void
del_free(struct page *p, unsigned order)
{
  list_del(&p->lru);
  clear_page_flag(p, PG_buddy);
  p->private = 0;
  zone.area[order].nr--;
}

// Puts a block back, merging it with its buddy as long as the buddy is free and whole.
// Caller holds zone.lock.
static void
free_block(struct page *p, unsigned order)
{
  unsigned long pfn = page_to_pfn(p);
  zone.nr_free += 1UL << order;
  while(order < MAX_ORDER) {
    struct page *buddy = buddy_of(pfn, order);
    if(!buddy)
      break;
    del_free(buddy, order);
    pfn &= ~(1UL << order);
    order++;
  }
  add_free(pfn_to_page(pfn), order);
}

// Takes a block of this order, splitting a bigger one if needed; the unused halves go back
// on the lists below. Caller holds zone.lock.
static struct page *
take_block(unsigned order)
{
  unsigned o = order;
  while(o <= MAX_ORDER && list_empty(&zone.area[o].list))
    o++;
  if(o > MAX_ORDER)
    return NULL;
  struct page *p = list_first_entry(&zone.area[o].list, struct page, lru);
  del_free(p, o);
  while(o > order) {
    o--;
    add_free(p + (1UL << o), o);
  }
  zone.nr_free -= 1UL << order;
  return p;
}

// Moves up to n single pages from the buddy lists to a per-CPU list.
static int
refill_pcp(struct per_cpu_pages *pc, int n)
{
  int got = 0;
  spin_lock(&zone.lock);
  for(; got < n; got++) {
    struct page *p = take_block(0);
    if(!p)
      break;
    list_add_tail(&p->lru, &pc->list);
  }
  spin_unlock(&zone.lock);
  pc->count += got;
  return got;
}

// Gives the n least recently freed pages of a per-CPU list back to the buddy lists.
static void
drain_pcp(struct per_cpu_pages *pc, int n)
{
  spin_lock(&zone.lock);
  for(; n > 0 && pc->count > 0; n--, pc->count--) {
    struct page *p = list_entry(pc->list.prev, struct page, lru);
    list_del(&p->lru);
    free_block(p, 0);
  }
  spin_unlock(&zone.lock);
}

static struct page *
take_pages(unsigned order)
{
  struct page *p = NULL;
  u64 irq = local_irq_save();   // the per-CPU list is also used by interrupt handlers
  if(order == 0) {
    struct per_cpu_pages *pc = &pcp[smp_processor_id()];
    if(pc->count > 0 || refill_pcp(pc, PCP_BATCH) > 0) {
      p = list_first_entry(&pc->list, struct page, lru);
      list_del(&p->lru);
      pc->count--;
    }
  } else {
    spin_lock(&zone.lock);
    p = take_block(order);
    spin_unlock(&zone.lock);
  }
  local_irq_restore(irq);
  return p;
}

// Free memory at boot is what SeaBIOS and GRUB left, and they ran code from some of it
// (GRUB's core below 1 MiB, its modules and SeaBIOS's init code near the top of RAM, which
// the LIFO free lists hand out first). Under QEMU's TCG the blocks translated from that
// code stay valid until their own bytes are overwritten, and until then every store to
// their page, to any byte, takes the self-modifying-code slow path, which looks the page's
// blocks up under a lock (QEMU 7.2 accel/tcg/cputlb.c notdirty_write, translate-all.c
// tb_invalidate_phys_page_fast): a few microseconds a store. A kernel stack and slab pages
// there made a 1-vCPU path lookup 100 times slower, and which objects landed there moved
// with the kernel's layout. So each page is overwritten once, the first time it is handed
// out; scrubbing all of memory at boot instead took 7 s under TCG. Real CPUs and KVM pay
// for no store, and nothing but the first allocation of a page pays here.
static void
scrub_first_use(struct page *p, unsigned order, gfp_t gfp)
{
  if(gfp & __GFP_NOSCRUB)   // madvise pins most of memory and never writes it
    return;
  for(unsigned long i = 0; i < 1UL << order; i++) {
    if(!page_flag(p + i, PG_unscrubbed))
      continue;
    clear_page_flag(p + i, PG_unscrubbed);
    if(!(gfp & __GFP_ZERO))   // else alloc_pages clears the whole block anyway
      memset(page_address(p + i), 0, PAGE_SIZE);
  }
}

struct page *
alloc_pages(gfp_t gfp, unsigned order)
{
  // A block past the largest the buddy lists hold is the caller's bad argument, often a size
  // from user space (poll's nfds): NULL, as Linux's __alloc_pages answers it (with one
  // warning, unless __GFP_NOWARN), never a panic.
  if(order > MAX_ORDER) {
    static bool warned;
    if(!(gfp & __GFP_NOWARN) && !__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
      pr_warn("alloc_pages: order %u is above MAX_ORDER %d: NULL for %s\n", order, MAX_ORDER,
              current ? current->name : "boot");
    return NULL;
  }
  if(!(gfp & __GFP_NOFAIL) && should_fail_page())
    return NULL;
  // A caller that may sleep frees memory itself before it takes free memory below
  // wmark.min, the reserve GFP_ATOMIC may use; if the allocation still fails it retries
  // while reclaim makes progress (Linux's __alloc_pages_slowpath and its
  // MAX_RECLAIM_RETRIES). Whatever reclaim freed, the page is then taken if one is free:
  // with no OOM killer to make room, failing while pages are free would help nobody.
  // The bound: at most 1 + MAX_RECLAIM_RETRIES reclaim passes, each scanning at most the
  // LRU twice over (priorities 12 to 0) and stopping at the first that frees nothing, so a
  // failing allocation costs a few scans of the reclaimable pages only; pages nothing may
  // reclaim (ramfs) are not on the LRU (mm/filemap.c), so a full ramfs fails fast.
  bool may_reclaim = gfpflags_allow_blocking(gfp);
  unsigned long batch = MAX(SWAP_CLUSTER_MAX, 1UL << order);
  if(may_reclaim && nr_free_pages() < wmark.min + (1UL << order))
    try_to_free_pages(gfp, batch);
  struct page *p = take_pages(order);
  for(int retry = 0; !p && may_reclaim && retry < MAX_RECLAIM_RETRIES; retry++) {
    if(try_to_free_pages(gfp, batch) == 0)
      break;
    p = take_pages(order);
  }
  if(nr_free_pages() < wmark.low)
    wakeup_kswapd();
  if(!p) {
    if(!(gfp & __GFP_NOWARN))
      pr_warn("mm: order-%u allocation failed (gfp %#x), %lu pages free\n", order, gfp,
              nr_free_pages());
    return NULL;
  }
  scrub_first_use(p, order, gfp);
  prep_new_page(p);
  if(gfp & __GFP_ZERO)
    memset(page_address(p), 0, PAGE_SIZE << order);
  return p;
}

unsigned long
__get_free_pages(gfp_t gfp, unsigned order)
{
  struct page *p = alloc_pages(gfp, order);
  return p ? (unsigned long)page_address(p) : 0;
}

// The last reference is gone (mm/page_ref.c has checked the page): back on the free lists.
void
free_pages_ok(struct page *p, unsigned order)
{
  u64 irq = local_irq_save();
  if(order == 0) {
    struct per_cpu_pages *pc = &pcp[smp_processor_id()];
    list_add(&p->lru, &pc->list);
    if(++pc->count >= PCP_HIGH)
      drain_pcp(pc, PCP_BATCH);
  } else {
    spin_lock(&zone.lock);
    free_block(p, order);
    spin_unlock(&zone.lock);
  }
  local_irq_restore(irq);
}

void
free_pages(unsigned long addr, unsigned order)
{
  if(addr)
    __free_pages(virt_to_page((void *)addr), order);
}

unsigned long
nr_free_pages(void)
{
  return READ_ONCE(zone.nr_free);
}

// Allocations that are never given back, by design: the leak check counts them as free.
static unsigned long permanent;

void
account_permanent_pages(unsigned long n)
{
  __atomic_add_fetch(&permanent, n, __ATOMIC_RELAXED);
}

unsigned long
nr_permanent_pages(void)
{
  return READ_ONCE(permanent);
}

void
drain_local_pages(void)
{
  u64 irq = local_irq_save();
  struct per_cpu_pages *pc = &pcp[smp_processor_id()];
  drain_pcp(pc, pc->count);
  local_irq_restore(irq);
}

static void
drain_local_pages_ipi(void *arg)
{
  drain_local_pages();
}

void
drain_all_pages(void)
{
  on_each_cpu(drain_local_pages_ipi, NULL, true);
}

void
show_free_areas(void)
{
  unsigned long per_order[MAX_ORDER + 1], on_pcp = 0;
  u64 irq;
  spin_lock_irqsave(&zone.lock, irq);
  for(int o = 0; o <= MAX_ORDER; o++)
    per_order[o] = zone.area[o].nr;
  spin_unlock_irqrestore(&zone.lock, irq);
  for(int cpu = 0; cpu < NR_CPUS; cpu++)
    on_pcp += READ_ONCE(pcp[cpu].count);
  unsigned long n = nr_free_pages();
  pr_info("mm: %lu pages free (%lu MiB), %lu more on per-CPU lists\n", n, n >> (20 - PAGE_SHIFT),
          on_pcp);
  pr_info("mm: free blocks by order: %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu\n",
          per_order[0], per_order[1], per_order[2], per_order[3], per_order[4], per_order[5],
          per_order[6], per_order[7], per_order[8], per_order[9], per_order[10]);
}

// Frees [start, end) in the largest blocks its alignment allows, and reserves it in the
// boot allocator so that a late bootmem_alloc panics instead of handing out a page twice.
static void
take_over_range(u64 start, u64 end)
{
  unsigned long pfn = start >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
  for(unsigned long i = pfn; i < last; i++) {
    mem_map[i].flags = 1UL << PG_unscrubbed;   // scrub_first_use
    mem_map[i].refcount = 0;
  }
  while(pfn < last) {
    unsigned order = 0;
    while(order < MAX_ORDER && pfn % (2UL << order) == 0 && pfn + (2UL << order) <= last)
      order++;
    free_block(pfn_to_page(pfn), order);
    pfn += 1UL << order;
  }
  bootmem_reserve(start, end - start, "page allocator");
}

// Boot memory whose use is over (the initramfs archives, once unpacked): the whole pages of
// [start, end) join the free lists. The boot allocator keeps them reserved: it has retired.
unsigned long
free_reserved_range(u64 start, u64 end)
{
  unsigned long pfn = ALIGN_UP(start, PAGE_SIZE) >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
  unsigned long n = 0;
  for(; pfn < last && pfn < max_pfn; pfn++, n++) {
    struct page *p = pfn_to_page(pfn);
    if(!page_flag(p, PG_reserved))
      panic("free_reserved_range: page %#lx was never reserved", pfn << PAGE_SHIFT);
    p->flags = 0;
    p->refcount = 0;
    u64 irq = local_irq_save();
    spin_lock(&zone.lock);
    free_block(p, 0);
    spin_unlock(&zone.lock);
    local_irq_restore(irq);
  }
  return n;
}

static void
page_alloc_init(void)
{
  max_pfn = bootmem_max_pfn();
  u64 bytes = max_pfn * sizeof(struct page);
  mem_map = __va(bootmem_alloc(bytes, PAGE_SIZE, ~0UL));
  // Every page starts reserved and referenced; only what the boot allocator reports free
  // is handed over.
  for(unsigned long pfn = 0; pfn < max_pfn; pfn++) {
    mem_map[pfn] = (struct page){ .flags = 1UL << PG_reserved, .refcount = 1 };
    INIT_LIST_HEAD(&mem_map[pfn].lru);
  }
  for(int o = 0; o <= MAX_ORDER; o++)
    INIT_LIST_HEAD(&zone.area[o].list);
  for(int cpu = 0; cpu < NR_CPUS; cpu++)
    INIT_LIST_HEAD(&pcp[cpu].list);
  bootmem_for_each_free(take_over_range);
  ready = true;
  pr_info("mm: struct page %lu bytes, mem_map %lu KiB for %lu page frames\n",
          sizeof(struct page), bytes >> 10, max_pfn);
}

void
mm_init(void)
{
  page_alloc_init();
  kmem_cache_init();
  if(radix_tree_init() < 0)   // node caches and their mempools, one per fanout
    panic("mm: no memory for the radix-tree node caches");
  show_free_areas();
}
