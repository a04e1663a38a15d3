// Host stand-in for the kernel slab allocator: malloc underneath, plus a live-object
// count for leak checks and injected failures so tests reach the out-of-memory paths.
#pragma once
#include <stddef.h>
#include "gfp.h"

struct kmem_cache;

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
                                     unsigned long flags, void (*ctor)(void *));
void *kmem_cache_alloc(struct kmem_cache *cachep, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *cachep, void *obj);
void *kmalloc(size_t size, gfp_t gfp);
void kfree(void *p);

// Test controls. Failures apply to kmem_cache_alloc and kmalloc alike.
void slab_fail_nth(unsigned long n);       // the nth allocation from now fails; 1: the next
void slab_fail_percent(unsigned int pct);  // each fails with this chance in 100; 0: none
void slab_fail_seed(unsigned long seed);   // makes the percent failures repeatable
long slab_nr_live(void);                   // objects allocated and not yet freed
