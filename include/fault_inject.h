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

// A test that sets rates of its own saves the ones it found and puts them back after, so
// that the boot's failslab= and failpage= go on for the tests after it.
struct fault_rates {
  unsigned permille[NR_FAULT_KINDS];
};
void fault_inject_save(struct fault_rates *saved);
void fault_inject_restore(const struct fault_rates *saved);
void fault_inject_pause(struct fault_rates *saved);   // saves them, then fails nothing
// Whether any allocation may fail by injection now: an -ENOMEM is then no bug.
bool fault_inject_active(void);
// The end of the run: in a boot with failslab= or failpage=, the FAULT-INJECT line with
// the failures made since boot; then injection stops for good.
void fault_inject_end(void);
