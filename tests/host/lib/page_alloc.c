// The page allocator on the host: a fixed pool of order-0 pages behind mem_map, with memory
// of their own (the host's direct map, asm/memlayout.h); mm/page_ref.c counts references.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "panic.h"
#include "host.h"

#define NPAGES 4096

struct page *mem_map;
unsigned long max_pfn = NPAGES;
char host_page_memory[NPAGES * PAGE_SIZE] __aligned(PAGE_SIZE);

static struct page pages[NPAGES];
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct page *free_list[NPAGES];   // under alloc_lock, as the three below
static int nr_free;
static unsigned fail_pct;
static unsigned long fail_rng = 1;

void
pages_init(void)
{
  mem_map = pages;
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

// Order 0 only: the page cache allocates nothing bigger from mem_map. The failure draw is
// Knuth's MMIX linear congruential generator.
struct page *
alloc_pages(gfp_t gfp, unsigned order)
{
  struct page *p = NULL;
  if(order != 0)
    panic("host alloc_pages: order %u; the pool has single pages only", order);
  pthread_mutex_lock(&alloc_lock);
  fail_rng = fail_rng * 6364136223846793005UL + 1442695040888963407UL;
  if(nr_free > 0 && (fail_rng >> 33) % 100 >= fail_pct)
    p = free_list[--nr_free];
  pthread_mutex_unlock(&alloc_lock);
  if(!p)
    return NULL;
  prep_new_page(p);
  if(gfp & __GFP_ZERO)
    memset(page_address(p), 0, PAGE_SIZE);
  return p;
}

void
free_pages_ok(struct page *p, unsigned order)
{
  if(order != 0)
    panic("host free_pages_ok: order %u; the pool has single pages only", order);
  pthread_mutex_lock(&alloc_lock);
  free_list[nr_free++] = p;
  pthread_mutex_unlock(&alloc_lock);
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

// The pool keeps no account of pages kept for good: only the kernel's leak check reads it.
void
account_permanent_pages(unsigned long n)
{
}
