// Host stand-in for the kernel's mempool: allocations fall back on a preallocated
// reserve, and frees refill it first. The host version returns NULL where the
// kernel's would wait for an element to come back.
#pragma once
#include "gfp.h"
#include "slab.h"

typedef struct mempool mempool_t;

mempool_t *mempool_create_slab_pool(int min_nr, struct kmem_cache *cachep);
void *mempool_alloc(mempool_t *pool, gfp_t gfp);
void mempool_free(void *element, mempool_t *pool);

long mempool_nr_reserved(void);   // elements held in the reserves of all pools
