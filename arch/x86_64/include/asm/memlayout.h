// The kernel's virtual address layout (x86-64, 4-level paging, 48-bit addresses).
// Linux's choices where there was one to copy, so addresses look familiar in gdb.
#pragma once

#define KERNEL_VMA   0xffffffff80000000   // the image, linked here (-mcmodel=kernel)
#define KERNEL_PHYS  0x100000             // where GRUB loads it
#define PAGE_OFFSET  0xffff888000000000   // direct map of all RAM (Linux's)
#define VMAP_BASE    0xffffc90000000000   // guarded kernel stacks and other mappings
#define VMAP_SIZE    0x0000010000000000   // 1 TiB
#define BOOT_STACK_SIZE 16384

#ifndef __ASSEMBLER__
#include "types.h"
#define PAGE_SIZE    4096UL
#define PAGE_SHIFT   12
#define __va(pa) ((void *)((u64)(pa) + PAGE_OFFSET))
#define __pa(va) ((u64)(va) - PAGE_OFFSET)
// Physical address of a symbol in the kernel image.
#define __pa_symbol(va) ((u64)(va) - KERNEL_VMA)
#endif
