// Fault injection: make a chosen fraction of page or slab allocations fail, so that the
// failure paths run (Linux's failslab and fail_page_alloc, Documentation/fault-injection/).
#pragma once
#include "types.h"

enum fault_kind {
  FAULT_PAGE,   // alloc_pages and everything built on it
  FAULT_SLAB,   // kmem_cache_alloc and kmalloc
  NR_FAULT_KINDS
};

bool should_fail_page(void);
bool should_fail_slab(void);

// Fails permille out of every 1000 allocations of this kind (0: none, 1000: all).
void fault_inject_set(enum fault_kind kind, unsigned permille);
unsigned fault_inject_get(enum fault_kind kind);
u64 fault_inject_count(enum fault_kind kind);   // failures injected since boot
void fault_inject_init(void);                   // failslab= and failpage= from the command line
