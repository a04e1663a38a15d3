// Host stand-in for the kernel's allocation flags. The host allocator never sleeps,
// so the flags only say what a caller would allow in the kernel.
#pragma once

typedef unsigned int gfp_t;

#define GFP_ATOMIC 0x1u   // must not sleep
#define GFP_KERNEL 0x2u   // may sleep and reclaim
