// Memory pools on the host: an allocation falls back on a preallocated reserve, and a free
// refills it first. Where the kernel's GFP_KERNEL allocation would wait for an element to
// come back, the host's returns NULL.
#include <pthread.h>
#include <stdlib.h>

#include "mempool.h"
#include "host.h"

struct mempool {
  pthread_mutex_t lock;
  struct kmem_cache *cache;
  int min_nr;
  int nr;                   // elements now in reserve; under lock
  void **reserve;
  struct mempool *next;     // on the list of all pools; under pools_lock
};

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mempool *pools;

mempool_t *
mempool_create_slab_pool(int min_nr, struct kmem_cache *cache)
{
  struct mempool *pool = calloc(1, sizeof(*pool));
  if(!pool)
    return NULL;
  pool->reserve = calloc(min_nr, sizeof(void *));
  if(!pool->reserve) {
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->lock, NULL);
  pool->cache = cache;
  pool->min_nr = min_nr;
  for(; pool->nr < min_nr; pool->nr++) {
    pool->reserve[pool->nr] = kmem_cache_alloc(cache, GFP_KERNEL);
    if(!pool->reserve[pool->nr]) {
      while(pool->nr-- > 0)
        kmem_cache_free(cache, pool->reserve[pool->nr]);
      free(pool->reserve);
      free(pool);
      return NULL;
    }
  }
  pthread_mutex_lock(&pools_lock);
  pool->next = pools;
  pools = pool;
  pthread_mutex_unlock(&pools_lock);
  return pool;
}

void *
mempool_alloc(mempool_t *pool, gfp_t gfp)
{
  void *p = kmem_cache_alloc(pool->cache, gfp);
  if(p)
    return p;
  pthread_mutex_lock(&pool->lock);
  if(pool->nr > 0)
    p = pool->reserve[--pool->nr];
  pthread_mutex_unlock(&pool->lock);
  return p;
}

void
mempool_free(void *element, mempool_t *pool)
{
  pthread_mutex_lock(&pool->lock);
  if(pool->nr < pool->min_nr) {
    pool->reserve[pool->nr++] = element;
    element = NULL;
  }
  pthread_mutex_unlock(&pool->lock);
  if(element)
    kmem_cache_free(pool->cache, element);
}

long
mempool_nr_reserved(void)
{
  struct mempool *pool;
  long n = 0;
  pthread_mutex_lock(&pools_lock);
  for(pool = pools; pool; pool = pool->next) {
    pthread_mutex_lock(&pool->lock);
    n += pool->nr;
    pthread_mutex_unlock(&pool->lock);
  }
  pthread_mutex_unlock(&pools_lock);
  return n;
}
