// What host tests control and read of the kernel's host stand-ins (tests/host/lib/*.c), beyond
// the kernel's own interfaces: injected failures, leak counts, the page pool, RCU threads.
#pragma once
#include "types.h"

// slab.c: failures apply to kmem_cache_alloc and kmalloc alike.
void slab_fail_nth(unsigned long n);       // the nth allocation from now fails; 1: the next
void slab_fail_percent(unsigned int pct);  // each fails with this chance in 100; 0: none
void slab_fail_seed(unsigned long seed);   // makes the percent failures repeatable
long slab_nr_live(void);                   // objects allocated and not yet freed

// mempool.c
long mempool_nr_reserved(void);            // elements held in the reserves of all pools

// page_alloc.c: a fixed pool of order-0 pages behind mem_map.
void pages_init(void);
void pages_fail_percent(unsigned pct);     // each alloc_pages fails with this chance in 100
int pages_free(void);

// rcu.c: every thread that reads under RCU or calls call_rcu() registers first, and
// unregisters before it exits (liburcu's rule and names).
void rcu_register_thread(void);
void rcu_unregister_thread(void);
