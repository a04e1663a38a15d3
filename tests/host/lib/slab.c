// The slab allocator on the host: malloc underneath, plus a count of live objects for leak
// checks and injected failures so tests reach the out-of-memory paths (controls in host.h).
// Thread-safe: RCU callbacks free objects on liburcu's call_rcu thread while tests allocate.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"
#include "host.h"

struct kmem_cache {
  const char *name;
  size_t size;
  size_t align;
  void (*ctor)(void *);
};

static long live;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long fail_countdown;   // under fail_lock, as the two below
static unsigned int fail_pct;
static unsigned long fail_rng = 1;

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
  bool fail = false;
  pthread_mutex_lock(&fail_lock);
  if(fail_countdown > 0 && --fail_countdown == 0)
    fail = true;
  if(fail_pct > 0) {
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
  struct kmem_cache *c = malloc(sizeof(*c));
  (void)flags;
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
kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp)
{
  void *p;
  (void)gfp;
  if(inject_failure())
    return NULL;
  if(cache->align > sizeof(void *) * 2)
    p = aligned_alloc(cache->align, (cache->size + cache->align - 1) / cache->align * cache->align);
  else
    p = malloc(cache->size);
  if(!p)
    return NULL;
  if(cache->ctor)
    cache->ctor(p);
  __atomic_add_fetch(&live, 1, __ATOMIC_SEQ_CST);
  return p;
}

void
kmem_cache_free(struct kmem_cache *cache, void *obj)
{
  (void)cache;
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

void *
kzalloc(size_t size, gfp_t gfp)
{
  void *p = kmalloc(size, gfp);
  if(p)
    memset(p, 0, size);
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
