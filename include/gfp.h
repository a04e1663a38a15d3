// Allocation flags: what the caller allows the page and slab allocators to do for it.
// Linux's names; one bit says whether the caller may sleep, the others modify the request.
#pragma once

typedef unsigned int gfp_t;

#define __GFP_RECLAIM 0x1u   // may sleep: wait for memory to be freed or reclaimed
#define __GFP_ZERO    0x2u   // return zeroed memory
#define __GFP_NOWARN  0x4u   // a failure is expected: do not print it
// The caller has no way back from a failure (it panics): fault injection passes it by, as
// Linux's should_fail_alloc_page passes __GFP_NOFAIL. Thread stacks and kernel page tables.
#define __GFP_NOFAIL  0x8u
// The caller never writes the memory (madvise's pin): its pages keep PG_unscrubbed, and
// their first owner that writes pays for the scrub (scrub_first_use, mm/page_alloc.c).
#define __GFP_NOSCRUB 0x10u

// GFP_ATOMIC is the absence of __GFP_RECLAIM: interrupt handlers, IPI handlers and
// code holding a spinlock must use it.
#define GFP_ATOMIC 0u
#define GFP_KERNEL __GFP_RECLAIM

static inline int
gfpflags_allow_blocking(gfp_t gfp)
{
  return (gfp & __GFP_RECLAIM) != 0;
}
