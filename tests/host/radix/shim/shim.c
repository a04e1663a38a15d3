// Host implementation of the slab and mempool stand-ins declared in slab.h and mempool.h.
// Thread-safe: RCU callbacks free nodes on liburcu's call_rcu thread while tests allocate.

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "slab.h"
#include "mempool.h"

struct kmem_cache {
  const char *name;
  size_t size;
  size_t align;
  void (*ctor)(void *);
};

struct mempool {
  pthread_mutex_t lock;
  struct kmem_cache *cache;
  int min_nr;
  int nr;                   // elements now in reserve
  void **reserve;
  struct mempool *next;     // on the list of all pools
};

static long live;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long fail_countdown;
static unsigned int fail_pct;
static unsigned long fail_rng = 1;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mempool *pools;

void
slab_fail_nth(unsigned long n)
{
  pthread_mutex_lock(&fail_lock);
  fail_countdown = n;
  pthread_mutex_unlock(&fail_lock);
}

void
slab_fail_percent(unsigned int pct)
{
  pthread_mutex_lock(&fail_lock);
  fail_pct = pct;
  pthread_mutex_unlock(&fail_lock);
}

void
slab_fail_seed(unsigned long seed)
{
  pthread_mutex_lock(&fail_lock);
  fail_rng = seed | 1;
  pthread_mutex_unlock(&fail_lock);
}

long
slab_nr_live(void)
{
  return __atomic_load_n(&live, __ATOMIC_SEQ_CST);
}

// Whether this allocation is to fail. The percent draw uses Marsaglia's xorshift64
// (J. Stat. Software 8(14), 2003), so a seed replays the same failures.
static bool
inject_failure(void)
{
  bool fail;

  fail = false;
  pthread_mutex_lock(&fail_lock);
  if(fail_countdown > 0 && --fail_countdown == 0)
    fail = true;
  if(fail_pct > 0){
    fail_rng ^= fail_rng << 13;
    fail_rng ^= fail_rng >> 7;
    fail_rng ^= fail_rng << 17;
    if(fail_rng % 100 < fail_pct)
      fail = true;
  }
  pthread_mutex_unlock(&fail_lock);
  return fail;
}

struct kmem_cache *
kmem_cache_create(const char *name, size_t size, size_t align, unsigned long flags,
                  void (*ctor)(void *))
{
  struct kmem_cache *c;

  (void)flags;
  c = malloc(sizeof(*c));
  if(!c)
    return NULL;
  c->name = name;
  c->size = size;
  c->align = align;
  c->ctor = ctor;
  return c;
}

// The host never recycles objects, so the constructor runs on every allocation.
void *
kmem_cache_alloc(struct kmem_cache *cachep, gfp_t gfp)
{
  void *p;

  (void)gfp;
  if(inject_failure())
    return NULL;
  if(cachep->align > sizeof(void *) * 2)
    p = aligned_alloc(cachep->align, (cachep->size + cachep->align - 1) / cachep->align *
                                     cachep->align);
  else
    p = malloc(cachep->size);
  if(!p)
    return NULL;
  if(cachep->ctor)
    cachep->ctor(p);
  __atomic_add_fetch(&live, 1, __ATOMIC_SEQ_CST);
  return p;
}

void
kmem_cache_free(struct kmem_cache *cachep, void *obj)
{
  (void)cachep;
  free(obj);
  __atomic_sub_fetch(&live, 1, __ATOMIC_SEQ_CST);
}

void *
kmalloc(size_t size, gfp_t gfp)
{
  void *p;

  (void)gfp;
  if(inject_failure())
    return NULL;
  p = malloc(size);
  if(p)
    __atomic_add_fetch(&live, 1, __ATOMIC_SEQ_CST);
  return p;
}

void
kfree(void *p)
{
  if(!p)
    return;
  free(p);
  __atomic_sub_fetch(&live, 1, __ATOMIC_SEQ_CST);
}

mempool_t *
mempool_create_slab_pool(int min_nr, struct kmem_cache *cachep)
{
  struct mempool *pool;

  pool = calloc(1, sizeof(*pool));
  if(!pool)
    return NULL;
  pool->reserve = calloc(min_nr, sizeof(void *));
  if(!pool->reserve){
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->lock, NULL);
  pool->cache = cachep;
  pool->min_nr = min_nr;
  for(; pool->nr < min_nr; pool->nr++){
    pool->reserve[pool->nr] = kmem_cache_alloc(cachep, GFP_KERNEL);
    if(!pool->reserve[pool->nr]){
      while(pool->nr-- > 0)
        kmem_cache_free(cachep, pool->reserve[pool->nr]);
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
  void *p;

  p = kmem_cache_alloc(pool->cache, gfp);
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
  if(pool->nr < pool->min_nr){
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
  long n;

  n = 0;
  pthread_mutex_lock(&pools_lock);
  for(pool = pools; pool; pool = pool->next){
    pthread_mutex_lock(&pool->lock);
    n += pool->nr;
    pthread_mutex_unlock(&pool->lock);
  }
  pthread_mutex_unlock(&pools_lock);
  return n;
}
