// Kernel page tables: the direct map, the image's protections, and a small map/unmap API.
// x86-64 4-level paging (Intel SDM vol. 3A, 4.5).
#pragma once
#include "types.h"

#define PTE_P    (1UL << 0)
#define PTE_W    (1UL << 1)
#define PTE_U    (1UL << 2)
#define PTE_PWT  (1UL << 3)
#define PTE_PCD  (1UL << 4)
#define PTE_A    (1UL << 5)
#define PTE_D    (1UL << 6)
#define PTE_PS   (1UL << 7)
#define PTE_G    (1UL << 8)
#define PTE_NX   (1UL << 63)
#define PTE_ADDR 0x000ffffffffff000UL
#define PMD_SIZE (2UL << 20)   // the span of one page table: 512 pages
// A user address space's upper-level entries are present, writable and user: the PTE alone
// decides. Only a process's mm (mm->user) has PTE_U on its pages; a kernel thread's adopted
// mm is reached by kernel code alone, through uaccess.h, and SMAP leaves such supervisor
// pages alone.
#define PT_FLAGS (PTE_P | PTE_W | PTE_U)

extern u64 pte_nx;          // PTE_NX when the CPU has NX, else 0 (the bit is reserved then)
extern u64 *kernel_pml4;    // the kernel's top-level table (virtual address)
extern u64 kernel_cr3;

void paging_init(void);
u64 pt_alloc(void);
u64 *pt_va(u64 pa);
u64 *pte_walk(u64 *pml4, u64 va, bool create);
int kernel_map(u64 va, u64 pa, u64 size, u64 flags);
void kernel_unmap(u64 va, u64 size);
bool kernel_addr_mapped(u64 va);
void *ioremap(u64 phys, u64 size);
u64 stack_alloc(u64 size);   // returns the top of a stack with an unmapped guard page below
