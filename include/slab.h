// The slab allocator: caches of equal-sized objects carved from pages, with per-CPU magazines
// in front (Bonwick 1994 and 2001), and kmalloc's power-of-two size classes on top.
#pragma once
#include "gfp.h"
#include "types.h"

// The object's memory is not given back to the page allocator until an RCU grace period
// has passed, so a reader under rcu_read_lock may still look at a freed object (it may
// already be reused for another object of the same type: readers must recheck identity).
#define SLAB_TYPESAFE_BY_RCU 0x1UL

struct kmem_cache;

// align 0 means 8 bytes. ctor runs once per object when its slab is created, not on
// every allocation: a freed object must be returned in its constructed state.
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
                                     unsigned long flags, void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *cache);   // panics if objects are still out
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *cache, void *obj);
// Give back every free object held by the CPUs and every empty slab. Call with interrupts
// enabled: it asks every CPU to empty its magazines.
void kmem_cache_shrink(struct kmem_cache *cache);
void kmem_cache_shrink_all(void);
// Cache i (0 up to a fixed bound) if it exists: its name, the objects allocated from it
// (counting those in the CPUs' magazines unless kmem_cache_shrink_all ran just before), and
// the pages of its slabs.
#define KMEM_CACHE_INDEX_MAX 64
struct kmem_cache_usage {
  char name[32];
  unsigned long objects;
  unsigned long pages;
};
bool kmem_cache_usage(int i, struct kmem_cache_usage *u);

// Sizes up to KMALLOC_MAX_CACHE_SIZE come from caches of powers of two (aligned to their
// size); bigger ones are whole pages.
#define KMALLOC_MAX_CACHE_SIZE 4096
void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void kfree(void *p);

// Debugging, switched at run time: freed objects are poisoned and checked when reused,
// and caches created while it is on get redzones checked on free. Double frees are
// caught always.
void slab_debug_enable(bool on);
void kmem_cache_init(void);   // the kmalloc caches; from mm_init
