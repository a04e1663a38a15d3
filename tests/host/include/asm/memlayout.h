// Host stand-in for the memory layout: the kernel's, except that the direct map starts at the
// host page pool's memory (tests/host/lib/page_alloc.c), so page_address() can be used.
#pragma once
#include_next <asm/memlayout.h>

#ifndef __ASSEMBLER__
extern char host_page_memory[];   // the memory of every page frame in mem_map, pfn 0 first
#undef PAGE_OFFSET
#define PAGE_OFFSET ((u64)host_page_memory)
#endif
