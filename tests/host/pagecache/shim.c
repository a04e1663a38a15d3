// Host stand-ins for what the page cache uses of the kernel: a page allocator over a fixed
// mem_map with the kernel's reference rules and bad-page checks, spinlocks, the LRU, sched.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "mutex.h"
#include "reclaim.h"
#include "sched.h"
#include "spinlock.h"
#include "shim.h"

#define NPAGES 4096

struct page *mem_map;
unsigned long max_pfn = NPAGES;
unsigned long page_data[NPAGES];

static struct page *free_list[NPAGES];
static int nr_free;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fail_pct;
static unsigned long fail_rng = 1;

static void
bad_page(struct page *p, const char *why)
{
  fprintf(stderr, "bad page: pfn %lu %s (flags %#lx refcount %d mapping %p)\n",
          page_to_pfn(p), why, p->flags, p->refcount, p->mapping);
  abort();
}

void
pages_init(void)
{
  mem_map = calloc(NPAGES, sizeof(struct page));
  for(int i = NPAGES - 1; i >= 0; i--)
    free_list[nr_free++] = &mem_map[i];
}

void
pages_fail_percent(unsigned pct)
{
  pthread_mutex_lock(&alloc_lock);
  fail_pct = pct;
  pthread_mutex_unlock(&alloc_lock);
}

int
pages_free(void)
{
  pthread_mutex_lock(&alloc_lock);
  int n = nr_free;
  pthread_mutex_unlock(&alloc_lock);
  return n;
}

// Order 0 only: the page cache allocates nothing bigger from mem_map.
struct page *
alloc_pages(gfp_t gfp, unsigned order)
{
  struct page *p = NULL;
  if(order != 0)
    abort();
  pthread_mutex_lock(&alloc_lock);
  fail_rng = fail_rng * 6364136223846793005UL + 1442695040888963407UL;
  if(nr_free > 0 && (fail_rng >> 33) % 100 >= fail_pct)
    p = free_list[--nr_free];
  pthread_mutex_unlock(&alloc_lock);
  if(!p)
    return NULL;
  if(p->flags || p->refcount || p->mapping)
    bad_page(p, "was corrupted while free");
  p->refcount = 1;
  p->index = 0;
  if(gfp & __GFP_ZERO)
    page_data[page_to_pfn(p)] = 0;
  return p;
}

// Bigger blocks (the hash tables) come from malloc: they never reach mem_map.
unsigned long
__get_free_pages(gfp_t gfp, unsigned order)
{
  void *v = aligned_alloc(PAGE_SIZE, PAGE_SIZE << order);
  if(v && (gfp & __GFP_ZERO))
    memset(v, 0, PAGE_SIZE << order);
  return (unsigned long)v;
}

void
free_pages(unsigned long addr, unsigned order)
{
  (void)order;
  free((void *)addr);
}

void
__free_pages(struct page *p, unsigned order)
{
  int old = __atomic_fetch_sub(&p->refcount, 1, __ATOMIC_ACQ_REL);
  if(order != 0 || old <= 0)
    bad_page(p, "freed while already free (double free)");
  if(old > 1)
    return;
  if(p->flags & (1UL << PG_locked | 1UL << PG_lru | 1UL << PG_active))
    bad_page(p, "freed with flags its owner should have cleared");
  if(p->mapping)
    bad_page(p, "freed while still in an address space");
  p->flags = 0;
  pthread_mutex_lock(&alloc_lock);
  free_list[nr_free++] = p;
  pthread_mutex_unlock(&alloc_lock);
}

void
get_page(struct page *p)
{
  if(__atomic_fetch_add(&p->refcount, 1, __ATOMIC_RELAXED) <= 0)
    bad_page(p, "referenced while free");
}

bool
get_page_unless_zero(struct page *p)
{
  int c = __atomic_load_n(&p->refcount, __ATOMIC_RELAXED);
  while(c > 0)
    if(__atomic_compare_exchange_n(&p->refcount, &c, c + 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

void
put_page(struct page *p)
{
  __free_pages(p, 0);
}

// The LRU as the reclaim core keeps it, without lists: only PG_lru and its reference.
void
lru_cache_add(struct page *page)
{
  get_page(page);
  if(test_and_set_page_flag(page, PG_lru))
    bad_page(page, "added to the LRU twice");
}

void
lru_cache_del(struct page *page)
{
  if(test_and_clear_page_flag(page, PG_lru))
    put_page(page);
}

// Ticket lock: the real one is in kernel/locking; this one yields while it waits.
void
ticket_lock(struct ticket_lock *l)
{
  u32 me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
  while(__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
    sched_yield();
}

void
ticket_unlock(struct ticket_lock *l)
{
  __atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

bool
ticket_trylock(struct ticket_lock *l)
{
  u32 owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
  u32 next = owner;
  return __atomic_compare_exchange_n(&l->next, &next, owner + 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

bool
ticket_is_locked(struct ticket_lock *l)
{
  return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
         __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

void
mutex_lock(struct mutex *m)
{
  spin_lock(&m->wait_lock);
}

void
mutex_unlock(struct mutex *m)
{
  spin_unlock(&m->wait_lock);
}

void
yield(void)
{
  sched_yield();
}

void
cond_resched(void)
{
}
