// The early boot allocator: pages from the firmware memory map, minus every reserved range.
// It serves page tables and stacks until the page allocator takes over what is left.
#pragma once
#include "types.h"

void bootmem_init(void);
void bootmem_reserve(u64 base, u64 size, const char *name);
u64 bootmem_alloc(u64 size, u64 align, u64 limit);   // physical address; panics when out
u64 bootmem_ram_bytes(void);
u64 bootmem_max_pfn(void);
void bootmem_print(void);
// Calls fn on each free range [start, end) (page aligned), for the page allocator.
void bootmem_for_each_free(void (*fn)(u64 start, u64 end));
bool bootmem_in_map(u64 base, u64 size);
