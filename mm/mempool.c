// Memory pools: an allocator with a reserve of min_nr preallocated elements in front, used
// when it fails and refilled first by frees, so that callers always make progress.
#include "gfp.h"
#include "mempool.h"
#include "slab.h"
#include "spinlock.h"
#include "time.h"
#include "wait.h"

struct mempool {
  spinlock_t lock;
  int min_nr;               // the reserve's size
  int curr_nr;              // elements in it now
  void **elements;
  mempool_alloc_t *alloc;
  mempool_free_t *free;
  void *pool_data;
  struct wait_queue_head wait;   // GFP_KERNEL callers waiting for the reserve to refill
};

// How long a waiter sleeps at most before it tries the allocator again: memory may come
// back to the allocator rather than to this pool (Linux waits 5 s for the same reason;
// this kernel's pools are small and its tests impatient).
#define MEMPOOL_WAIT_NS 10000000ULL

mempool_t *
mempool_create(int min_nr, mempool_alloc_t *alloc_fn, mempool_free_t *free_fn, void *pool_data)
{
  mempool_t *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
  if(!pool)
    return NULL;
  pool->elements = kmalloc(min_nr * sizeof(void *), GFP_KERNEL);
  if(!pool->elements) {
    kfree(pool);
    return NULL;
  }
  spin_lock_init(&pool->lock);
  init_waitqueue_head(&pool->wait);
  pool->min_nr = min_nr;
  pool->alloc = alloc_fn;
  pool->free = free_fn;
  pool->pool_data = pool_data;
  while(pool->curr_nr < min_nr) {
    void *e = alloc_fn(GFP_KERNEL, pool_data);
    if(!e) {
      mempool_destroy(pool);
      return NULL;
    }
    pool->elements[pool->curr_nr++] = e;
  }
  return pool;
}

static void *
mempool_alloc_slab(gfp_t gfp, void *cache)
{
  return kmem_cache_alloc(cache, gfp);
}

static void
mempool_free_slab(void *element, void *cache)
{
  kmem_cache_free(cache, element);
}

mempool_t *
mempool_create_slab_pool(int min_nr, struct kmem_cache *cache)
{
  return mempool_create(min_nr, mempool_alloc_slab, mempool_free_slab, cache);
}

void
mempool_destroy(mempool_t *pool)
{
  if(!pool)
    return;
  while(pool->curr_nr > 0)
    pool->free(pool->elements[--pool->curr_nr], pool->pool_data);
  kfree(pool->elements);
  kfree(pool);
}

// Sleeps until mempool_free puts an element back in the reserve, or the timeout passes.
static void
mempool_wait(mempool_t *pool)
{
  wait_event_timeout(pool->wait, READ_ONCE(pool->curr_nr) > 0, MEMPOOL_WAIT_NS);
}

// The allocator is asked first without waiting, as Linux's mempool_alloc does: the reserve
// is for when memory is short, and waiting on the allocator then could take long.
void *
mempool_alloc(mempool_t *pool, gfp_t gfp)
{
  for(;;) {
    void *e = pool->alloc((gfp & ~__GFP_RECLAIM) | __GFP_NOWARN, pool->pool_data);
    if(e)
      return e;
    u64 irq;
    spin_lock_irqsave(&pool->lock, irq);
    if(pool->curr_nr > 0)
      e = pool->elements[--pool->curr_nr];
    spin_unlock_irqrestore(&pool->lock, irq);
    if(e || !gfpflags_allow_blocking(gfp))
      return e;
    mempool_wait(pool);
  }
}

void
mempool_free(void *element, mempool_t *pool)
{
  if(!element)
    return;
  if(READ_ONCE(pool->curr_nr) < pool->min_nr) {
    u64 irq;
    spin_lock_irqsave(&pool->lock, irq);
    if(pool->curr_nr < pool->min_nr) {
      pool->elements[pool->curr_nr++] = element;
      spin_unlock_irqrestore(&pool->lock, irq);
      wake_up(&pool->wait);
      return;
    }
    spin_unlock_irqrestore(&pool->lock, irq);
  }
  pool->free(element, pool->pool_data);
}
