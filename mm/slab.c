// The slab allocator: each cache carves equal objects from slabs of 1-8 pages (Bonwick,
// "The Slab Allocator", USENIX 1994); per-CPU magazines serve most calls without a lock.
#include "cmdline.h"
#include "fault_inject.h"
#include "mm.h"
#include "panic.h"
#include "printk.h"
#include "rcupdate.h"
#include "slab.h"
#include "smp.h"
#include "spinlock.h"
#include "string.h"
#include <asm/cpu.h>
#include <asm/irqflags.h>

#define MAX_CACHES KMEM_CACHE_INDEX_MAX
// A CPU keeps up to MAG_SIZE free objects per cache and trades MAG_BATCH at a time with the
// slabs (Bonwick and Adams, "Magazines and Vmem", USENIX 2001; Linux's SLAB array_cache).
#define MAG_SIZE 30
#define MAG_BATCH 15
#define MAX_SLAB_ORDER 3
#define REDZONE 8             // bytes of redzone on each side of an object, when debugging
#define POISON_FREE 0x6b      // Linux's POISON_FREE: freed objects are filled with it
#define REDZONE_BYTE 0xbb

// One state byte per object, kept in the slab: it makes a double free certain to be caught,
// in any mode, where comparing with a free-list head catches only back-to-back frees.
enum { OBJ_FREE, OBJ_POISONED, OBJ_ALLOCATED };

// At the end of the slab's own memory, after the objects.
struct slab {
  struct kmem_cache *cache;
  char *base;               // the first object's slot, the start of the slab
  unsigned order;
  unsigned nfree;
  struct list_head list;    // on the cache's partial or full list
  struct rcu_head rcu;      // SLAB_TYPESAFE_BY_RCU: the pages go back after a grace period
  u16 free[];               // a stack of free objects' indexes; then one state byte each
};

struct kmem_cache {
  char name[32];
  int index;                // in caches[] and in every CPU's magazine table
  size_t size;              // as asked
  size_t align;
  size_t offset;            // where the object starts in its slot: after the left redzone
  size_t stride;            // from one slot to the next
  unsigned long flags;
  void (*ctor)(void *);
  unsigned order;           // pages per slab: 1 << order
  unsigned nobjs;           // objects per slab
  size_t mgmt;              // where struct slab sits in the slab
  bool redzone;             // created while debugging was on: the layout has redzones
  bool poison;              // freed objects may be overwritten (no ctor, not RCU)
  bool in_use;
  spinlock_t lock;          // the lists and every slab's free stack
  struct list_head partial; // slabs with free objects; empty ones at the tail
  struct list_head full;
  unsigned long nr_slabs;
  unsigned long nr_empty;   // slabs with every object free; one is kept, more are freed
};

struct magazine {
  unsigned avail;
  void *objs[MAG_SIZE];
};

static struct kmem_cache caches[MAX_CACHES];
static DEFINE_SPINLOCK(caches_lock);
// Each CPU's magazines for every cache, allocated on its first slab call: indexed by CPU
// id rather than in .percpu, whose AP copies are taken from the boot CPU's live area.
static struct magazine *cpu_magazines[NR_CPUS];
static struct kmem_cache *kmalloc_caches[13];   // by log2 of the size, 3..12
static bool debug;

void
slab_debug_enable(bool on)
{
  WRITE_ONCE(debug, on);
}

static u8 *
obj_state(struct kmem_cache *c, struct slab *s, unsigned idx)
{
  return (u8 *)&s->free[c->nobjs] + idx;
}

// The page under a pointer handed to kfree or kmem_cache_free, which must be in the
// direct map.
static struct page *
heap_page(const void *obj)
{
  u64 a = (u64)obj;
  if(a < PAGE_OFFSET || __pa(a) >> PAGE_SHIFT >= max_pfn)
    panic("slab: freeing %p, which is not a kernel heap address", obj);
  return virt_to_page(obj);
}

static struct slab *
obj_slab(struct kmem_cache *c, const void *obj)
{
  struct page *p = heap_page(obj);
  if(!page_flag(p, PG_slab))
    panic("slab: %p given to cache '%s' is not a slab object", obj, c->name);
  struct slab *s = (struct slab *)p->private;
  if(s->cache != c)
    panic("slab: %p given to cache '%s' belongs to '%s'", obj, c->name, s->cache->name);
  return s;
}

static unsigned
obj_index(struct kmem_cache *c, struct slab *s, const void *obj)
{
  size_t off = (const char *)obj - s->base - c->offset;
  if(off % c->stride || off / c->stride >= c->nobjs)
    panic("slab: %p is not the start of an object of cache '%s'", obj, c->name);
  return off / c->stride;
}

static void
paint_redzones(struct kmem_cache *c, char *obj)
{
  memset(obj - c->offset, REDZONE_BYTE, c->offset);
  memset(obj + c->size, REDZONE_BYTE, c->stride - c->offset - c->size);
}

static void
check_redzones(struct kmem_cache *c, char *obj, const char *when)
{
  char *slot = obj - c->offset;
  for(size_t i = 0; i < c->stride; i++) {
    if(i == c->offset)
      i += c->size;
    if(i < c->stride && (u8)slot[i] != REDZONE_BYTE)
      panic("slab: redzone of object %p in cache '%s' overwritten at byte %ld (%#x), found "
            "when %s it", obj, c->name, (long)i - (long)c->offset, (u8)slot[i], when);
  }
}

static void
check_poison(struct kmem_cache *c, char *obj)
{
  for(size_t i = 0; i < c->size; i++)
    if((u8)obj[i] != POISON_FREE)
      panic("slab: write after free in cache '%s': object %p byte %zu is %#x, not %#x",
            c->name, obj, i, (u8)obj[i], POISON_FREE);
}

// The allocation and free checks run outside the magazine code, with interrupts as the
// caller had them; the state byte is exchanged atomically, so two CPUs freeing one object
// at once cannot both succeed.
static void
object_allocated(struct kmem_cache *c, void *obj)
{
  struct slab *s = obj_slab(c, obj);
  u8 old = __atomic_exchange_n(obj_state(c, s, obj_index(c, s, obj)), OBJ_ALLOCATED,
                               __ATOMIC_RELAXED);
  if(old == OBJ_ALLOCATED)
    panic("slab: cache '%s' handed out %p twice: its free objects are corrupt", c->name, obj);
  if(old == OBJ_POISONED)
    check_poison(c, obj);
  if(c->redzone)
    check_redzones(c, obj, "allocating");
}

static void
object_freed(struct kmem_cache *c, void *obj)
{
  struct slab *s = obj_slab(c, obj);
  bool poison = c->poison && READ_ONCE(debug);
  u8 old = __atomic_exchange_n(obj_state(c, s, obj_index(c, s, obj)),
                               poison ? OBJ_POISONED : OBJ_FREE, __ATOMIC_RELAXED);
  if(old != OBJ_ALLOCATED)
    panic("slab: double free of object %p in cache '%s'", obj, c->name);
  if(c->redzone)
    check_redzones(c, obj, "freeing");
  if(poison)
    memset(obj, POISON_FREE, c->size);
}

// Chooses the smallest slab order that wastes at most an eighth of the slab (Linux SLUB's
// calculate_order uses the same fraction), and places struct slab after the objects.
static void
calculate_layout(struct kmem_cache *c)
{
  c->offset = c->redzone ? ALIGN_UP(REDZONE, c->align) : 0;
  c->stride = ALIGN_UP(c->offset + c->size + (c->redzone ? REDZONE : 0), c->align);
  for(c->order = 0;; c->order++) {
    size_t total = PAGE_SIZE << c->order;
    size_t n = total / (c->stride + 3);   // 3: a free-stack entry and a state byte
    while(n > 0 && ALIGN_UP(n * c->stride, 8) + sizeof(struct slab) + 3 * n > total)
      n--;
    c->nobjs = n;
    c->mgmt = ALIGN_UP(n * c->stride, 8);
    size_t waste = total - c->mgmt - sizeof(struct slab) - 3 * n;
    if((n > 0 && waste * 8 <= total) || c->order == MAX_SLAB_ORDER)
      break;
  }
  if(c->nobjs == 0)
    panic("kmem_cache_create: objects of cache '%s' (%zu bytes) do not fit in a slab", c->name,
          c->size);
}

struct kmem_cache *
kmem_cache_create(const char *name, size_t size, size_t align, unsigned long flags,
                  void (*ctor)(void *))
{
  if(flags & ~SLAB_TYPESAFE_BY_RCU)
    panic("kmem_cache_create: cache '%s': unknown flags %#lx", name, flags);
  if(align == 0)
    align = 8;
  if(size == 0 || (align & (align - 1)) || align > PAGE_SIZE)
    panic("kmem_cache_create: cache '%s': bad size %zu or alignment %zu", name, size, align);
  u64 irq;
  struct kmem_cache *c = NULL;
  spin_lock_irqsave(&caches_lock, irq);
  for(int i = 0; i < MAX_CACHES && !c; i++)
    if(!caches[i].in_use)
      c = &caches[i];
  if(c)
    c->in_use = true;
  spin_unlock_irqrestore(&caches_lock, irq);
  if(!c)
    panic("kmem_cache_create: cache '%s': all %d caches in use", name, MAX_CACHES);

  strlcpy(c->name, name, sizeof(c->name));
  c->index = c - caches;
  c->size = size;
  c->align = align;
  c->flags = flags;
  c->ctor = ctor;
  c->redzone = READ_ONCE(debug);
  c->poison = !ctor && !(flags & SLAB_TYPESAFE_BY_RCU);   // their objects must stay intact
  spin_lock_init(&c->lock);
  INIT_LIST_HEAD(&c->partial);
  INIT_LIST_HEAD(&c->full);
  c->nr_slabs = c->nr_empty = 0;
  calculate_layout(c);
  return c;
}

// A new slab: every object free, constructed, redzones painted. The pages come from the
// page allocator with the caller's gfp, outside any lock.
static bool
grow(struct kmem_cache *c, gfp_t gfp)
{
  struct page *p = alloc_pages(gfp & ~__GFP_ZERO, c->order);
  if(!p)
    return false;
  char *base = page_address(p);
  struct slab *s = (struct slab *)(base + c->mgmt);
  s->cache = c;
  s->base = base;
  s->order = c->order;
  s->nfree = c->nobjs;
  for(unsigned i = 0; i < c->nobjs; i++) {
    s->free[i] = c->nobjs - 1 - i;   // the first object is handed out first
    *obj_state(c, s, i) = OBJ_FREE;
    char *obj = base + i * c->stride + c->offset;
    if(c->redzone)
      paint_redzones(c, obj);
    if(c->ctor)
      c->ctor(obj);
  }
  for(unsigned i = 0; i < 1u << c->order; i++) {
    set_page_flag(p + i, PG_slab);
    p[i].private = (unsigned long)s;
  }
  u64 irq;
  spin_lock_irqsave(&c->lock, irq);
  list_add(&s->list, &c->partial);
  c->nr_slabs++;
  c->nr_empty++;
  spin_unlock_irqrestore(&c->lock, irq);
  return true;
}

static void
free_slab_pages(struct slab *s)
{
  struct page *p = virt_to_page(s->base);
  unsigned order = s->order;
  for(unsigned i = 0; i < 1u << order; i++) {
    clear_page_flag(p + i, PG_slab);
    p[i].private = 0;
  }
  __free_pages(p, order);
}

static void
free_slab_rcu(struct rcu_head *head)
{
  free_slab_pages(container_of(head, struct slab, rcu));
}

// Caller holds c->lock and has taken s off the lists.
static void
release_slab(struct kmem_cache *c, struct slab *s)
{
  c->nr_slabs--;
  if(c->flags & SLAB_TYPESAFE_BY_RCU)
    call_rcu(&s->rcu, free_slab_rcu);
  else
    free_slab_pages(s);
}

// Takes up to n free objects from the slabs; returns how many.
static int
get_objects(struct kmem_cache *c, void **objs, int n)
{
  int got = 0;
  spin_lock(&c->lock);
  while(got < n && !list_empty(&c->partial)) {
    struct slab *s = list_first_entry(&c->partial, struct slab, list);
    if(s->nfree == c->nobjs)
      c->nr_empty--;
    while(got < n && s->nfree > 0)
      objs[got++] = s->base + s->free[--s->nfree] * c->stride + c->offset;
    if(s->nfree == 0)
      list_move_tail(&s->list, &c->full);
  }
  spin_unlock(&c->lock);
  return got;
}

// Gives n objects back to their slabs, freeing a slab that becomes empty if the cache
// already keeps one.
static void
put_objects(struct kmem_cache *c, void **objs, int n)
{
  spin_lock(&c->lock);
  for(int i = 0; i < n; i++) {
    struct slab *s = obj_slab(c, objs[i]);
    if(s->nfree == 0) {   // was full
      list_del(&s->list);
      list_add(&s->list, &c->partial);
    }
    s->free[s->nfree++] = obj_index(c, s, objs[i]);
    if(s->nfree < c->nobjs)
      continue;
    if(c->nr_empty > 0) {
      list_del(&s->list);
      release_slab(c, s);
    } else {
      c->nr_empty++;
      list_move_tail(&s->list, &c->partial);
    }
  }
  spin_unlock(&c->lock);
}

// This CPU's magazine for c, or NULL if its table cannot be allocated now (the caller
// then goes to the slabs directly). Called with interrupts off.
static struct magazine *
this_magazine(struct kmem_cache *c)
{
  int cpu = smp_processor_id();
  if(!cpu_magazines[cpu]) {
    unsigned order = get_order(MAX_CACHES * sizeof(struct magazine));
    struct page *p = alloc_pages(GFP_ATOMIC | __GFP_ZERO | __GFP_NOWARN, order);
    if(!p)
      return NULL;
    account_permanent_pages(1UL << order);   // a CPU keeps its table for good
    cpu_magazines[cpu] = page_address(p);
  }
  return &cpu_magazines[cpu][c->index];
}

static void *
take_object(struct kmem_cache *c)
{
  void *obj = NULL;
  u64 irq = local_irq_save();   // the magazine is shared with this CPU's interrupt handlers
  struct magazine *m = this_magazine(c);
  if(!m)
    get_objects(c, &obj, 1);
  else {
    if(m->avail == 0)
      m->avail = get_objects(c, m->objs, MAG_BATCH);
    if(m->avail > 0)
      obj = m->objs[--m->avail];
  }
  local_irq_restore(irq);
  return obj;
}

void *
kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
  if(should_fail_slab())
    return NULL;
  void *obj;
  while(!(obj = take_object(c)))
    if(!grow(c, gfp))
      return NULL;
  object_allocated(c, obj);
  if(gfp & __GFP_ZERO)
    memset(obj, 0, c->size);
  return obj;
}

void
kmem_cache_free(struct kmem_cache *c, void *obj)
{
  object_freed(c, obj);
  u64 irq = local_irq_save();
  struct magazine *m = this_magazine(c);
  if(!m)
    put_objects(c, &obj, 1);
  else {
    if(m->avail == MAG_SIZE) {   // the oldest half goes back: the newest are cache-hot
      put_objects(c, m->objs, MAG_BATCH);
      m->avail -= MAG_BATCH;
      memmove(m->objs, m->objs + MAG_BATCH, m->avail * sizeof(void *));
    }
    m->objs[m->avail++] = obj;
  }
  local_irq_restore(irq);
}

// IPI handler: empties this CPU's magazine of one cache (arg), or of all (arg NULL).
static void
drain_magazines(void *arg)
{
  struct magazine *table = cpu_magazines[smp_processor_id()];
  if(!table)
    return;
  for(int i = 0; i < MAX_CACHES; i++) {
    struct kmem_cache *c = &caches[i];
    if((arg && arg != c) || !READ_ONCE(c->in_use) || table[i].avail == 0)
      continue;
    put_objects(c, table[i].objs, table[i].avail);
    table[i].avail = 0;
  }
}

static void
release_empty_slabs(struct kmem_cache *c)
{
  struct slab *s, *n;
  u64 irq;
  spin_lock_irqsave(&c->lock, irq);
  list_for_each_entry_safe(s, n, &c->partial, list) {
    if(s->nfree == c->nobjs) {
      list_del(&s->list);
      c->nr_empty--;
      release_slab(c, s);
    }
  }
  spin_unlock_irqrestore(&c->lock, irq);
}

void
kmem_cache_shrink(struct kmem_cache *c)
{
  on_each_cpu(drain_magazines, c, true);
  release_empty_slabs(c);
}

void
kmem_cache_shrink_all(void)
{
  on_each_cpu(drain_magazines, NULL, true);
  for(int i = 0; i < MAX_CACHES; i++)
    if(READ_ONCE(caches[i].in_use))
      release_empty_slabs(&caches[i]);
}

// Objects handed out and not freed: every slab's, less its free ones. Objects in the
// CPUs' magazines are free but count here, so the caller drains them first.
static unsigned long
objects_out(struct kmem_cache *c)
{
  unsigned long out = 0;
  struct slab *s;
  u64 irq;
  spin_lock_irqsave(&c->lock, irq);
  list_for_each_entry(s, &c->partial, list)
    out += c->nobjs - s->nfree;
  list_for_each_entry(s, &c->full, list)
    out += c->nobjs;
  spin_unlock_irqrestore(&c->lock, irq);
  return out;
}

bool
kmem_cache_usage(int i, struct kmem_cache_usage *u)
{
  if(i < 0 || i >= MAX_CACHES || !READ_ONCE(caches[i].in_use))
    return false;
  strlcpy(u->name, caches[i].name, sizeof(u->name));
  u->objects = objects_out(&caches[i]);
  u->pages = READ_ONCE(caches[i].nr_slabs) << caches[i].order;
  return true;
}

void
kmem_cache_destroy(struct kmem_cache *c)
{
  kmem_cache_shrink(c);
  if(c->nr_slabs)
    panic("kmem_cache_destroy: cache '%s' still has %lu objects allocated", c->name,
          objects_out(c));
  u64 irq;
  spin_lock_irqsave(&caches_lock, irq);
  c->in_use = false;
  spin_unlock_irqrestore(&caches_lock, irq);
}

static int
kmalloc_index(size_t size)
{
  int i = 3;
  while(((size_t)1 << i) < size)
    i++;
  return i;
}

// Bigger than the largest size class: whole pages, the order kept in the first one.
void *
kmalloc(size_t size, gfp_t gfp)
{
  if(size <= KMALLOC_MAX_CACHE_SIZE)
    return kmem_cache_alloc(kmalloc_caches[kmalloc_index(size)], gfp);
  if(should_fail_slab())
    return NULL;
  unsigned order = get_order(size);
  struct page *p = alloc_pages(gfp, order);
  if(!p)
    return NULL;
  p->private = order;
  set_page_flag(p, PG_large_kmalloc);
  return page_address(p);
}

void *
kzalloc(size_t size, gfp_t gfp)
{
  return kmalloc(size, gfp | __GFP_ZERO);
}

void
kfree(void *obj)
{
  if(!obj)
    return;
  struct page *p = heap_page(obj);
  if(page_flag(p, PG_slab)) {
    kmem_cache_free(((struct slab *)p->private)->cache, obj);
    return;
  }
  if(obj != page_address(p) || !test_and_clear_page_flag(p, PG_large_kmalloc))
    panic("kfree: %p was not allocated by kmalloc, or is freed twice", obj);
  unsigned order = p->private;
  p->private = 0;
  __free_pages(p, order);
}

void
kmem_cache_init(void)
{
  static const char *const names[] = {
    "kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
    "kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048", "kmalloc-4096",
  };
  slab_debug_enable(kcmdline.debug_slab);
  for(int i = 3; i <= 12; i++)   // aligned to their size, as Linux guarantees since 5.4
    kmalloc_caches[i] = kmem_cache_create(names[i - 3], 1UL << i, 1UL << i, 0, NULL);
  pr_info("slab: kmalloc caches of 8..%d bytes, debugging %s\n", KMALLOC_MAX_CACHE_SIZE,
          debug ? "on (poison and redzones)" : "off");
}
