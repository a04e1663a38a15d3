// Memory pools: an allocator plus a reserve of preallocated elements, so that a caller that
// must make progress (I/O, a radix-tree preload) still gets memory when the allocator fails.
#pragma once
#include "gfp.h"
#include "slab.h"

typedef void *mempool_alloc_t(gfp_t gfp, void *pool_data);
typedef void mempool_free_t(void *element, void *pool_data);

typedef struct mempool mempool_t;

mempool_t *mempool_create(int min_nr, mempool_alloc_t *alloc_fn, mempool_free_t *free_fn,
                          void *pool_data);
mempool_t *mempool_create_slab_pool(int min_nr, struct kmem_cache *cache);
void mempool_destroy(mempool_t *pool);

// GFP_KERNEL waits until an element comes back when both the allocator and the reserve
// are empty, so it never returns NULL; GFP_ATOMIC returns NULL then.
void *mempool_alloc(mempool_t *pool, gfp_t gfp);
void mempool_free(void *element, mempool_t *pool);
