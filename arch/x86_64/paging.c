// Kernel page tables: build the direct map and the image's protections, then switch to them.
// Text is read-only+executable, rodata read-only+NX, data/bss NX, page 0 unmapped.
#include "bootinfo.h"
#include "bootmem.h"
#include "mm.h"
#include "panic.h"
#include "printk.h"
#include "sections.h"
#include "spinlock.h"
#include "string.h"
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/x86.h>

#define LARGE_PAGE (2UL << 20)

u64 pte_nx;
u64 *kernel_pml4;
u64 kernel_cr3;
static bool direct_map_live;
static DEFINE_SPINLOCK(kernel_pt_lock);
static u64 vmap_next = VMAP_BASE;

// Before the switch, page-table pages are reached through the boot tables'
// KERNEL_VMA window onto the first GiB; after it, through the direct map.
u64 *
pt_va(u64 pa)
{
  return direct_map_live ? (u64 *)__va(pa) : (u64 *)(KERNEL_VMA + pa);
}

// Page-table pages come from the boot allocator, below 1 GiB so the boot
// window reaches them, until the page allocator takes over (mm_init). Callers hold
// kernel_pt_lock, so they may not sleep.
u64
pt_alloc(void)
{
  if(page_alloc_ready()) {
    // Kernel page tables are never freed: the vmap area's stacks only grow.
    struct page *p = alloc_page(GFP_ATOMIC | __GFP_ZERO | __GFP_NOFAIL);
    if(!p)
      panic("pt_alloc: out of memory");
    account_permanent_pages(1);
    return page_to_phys(p);
  }
  u64 pa = bootmem_alloc(PAGE_SIZE, PAGE_SIZE, 1UL << 30);
  memset(pt_va(pa), 0, PAGE_SIZE);
  return pa;
}

static int
pt_index(u64 va, int level)
{
  return (va >> (12 + 9 * level)) & 511;
}

// Returns the level-0 (4 KiB) entry for va, or NULL if a table is missing
// and !create, or a 2 MiB page is in the way.
u64 *
pte_walk(u64 *pml4, u64 va, bool create)
{
  u64 *table = pml4;
  for(int level = 3; level > 0; level--) {
    u64 *e = &table[pt_index(va, level)];
    if(!(*e & PTE_P)) {
      if(!create)
        return NULL;
      *e = pt_alloc() | PTE_P | PTE_W;
    } else if(*e & PTE_PS) {
      return NULL;
    }
    table = pt_va(*e & PTE_ADDR);
  }
  return &table[pt_index(va, 0)];
}

static void
map_large(u64 *pml4, u64 va, u64 pa, u64 flags)
{
  u64 *table = pml4;
  for(int level = 3; level > 1; level--) {
    u64 *e = &table[pt_index(va, level)];
    if(!(*e & PTE_P))
      *e = pt_alloc() | PTE_P | PTE_W;
    table = pt_va(*e & PTE_ADDR);
  }
  table[pt_index(va, 1)] = pa | flags | PTE_PS;
}

int
kernel_map(u64 va, u64 pa, u64 size, u64 flags)
{
  u64 irq;
  spin_lock_irqsave(&kernel_pt_lock, irq);
  for(u64 off = 0; off < size; off += PAGE_SIZE) {
    u64 *pte = pte_walk(kernel_pml4, va + off, true);
    if(!pte) {
      spin_unlock_irqrestore(&kernel_pt_lock, irq);
      return -1;
    }
    *pte = (pa + off) | flags | PTE_P;
    invlpg(va + off);
  }
  spin_unlock_irqrestore(&kernel_pt_lock, irq);
  return 0;
}

void
kernel_unmap(u64 va, u64 size)
{
  u64 irq;
  spin_lock_irqsave(&kernel_pt_lock, irq);
  for(u64 off = 0; off < size; off += PAGE_SIZE) {
    u64 *pte = pte_walk(kernel_pml4, va + off, false);
    if(pte) {
      *pte = 0;
      invlpg(va + off);
    }
  }
  spin_unlock_irqrestore(&kernel_pt_lock, irq);
}

// True if reading va would not fault: used by the backtrace, which must not
// fault while printing a panic.
bool
kernel_addr_mapped(u64 va)
{
  if(!kernel_pml4)
    return va >= KERNEL_VMA;
  u64 *table = kernel_pml4;
  for(int level = 3; level >= 0; level--) {
    u64 e = table[pt_index(va, level)];
    if(!(e & PTE_P))
      return false;
    if(level == 0 || (e & PTE_PS))
      return true;
    table = pt_va(e & PTE_ADDR);
  }
  return false;
}

// Device registers (local APIC, I/O APIC, HPET) are mapped uncached at their
// direct-map address; they never overlap RAM, so nothing else is mapped there.
void *
ioremap(u64 phys, u64 size)
{
  u64 base = ALIGN_DOWN(phys, PAGE_SIZE);
  u64 end = ALIGN_UP(phys + size, PAGE_SIZE);
  if(kernel_map((u64)__va(base), base, end - base, PTE_W | PTE_PCD | PTE_PWT | pte_nx) < 0)
    panic("ioremap: %#lx is inside a 2 MiB RAM mapping", phys);
  return __va(phys);
}

// Stacks live in the vmap area, each with an unmapped page below it, so an
// overflow faults (and the double-fault handler, on its own stack, reports it).
u64
stack_alloc(u64 size)
{
  size = ALIGN_UP(size, PAGE_SIZE);
  u64 va = __atomic_fetch_add(&vmap_next, size + PAGE_SIZE, __ATOMIC_RELAXED) + PAGE_SIZE;
  if(va + size > VMAP_BASE + VMAP_SIZE)
    panic("stack_alloc: vmap area exhausted");
  for(u64 off = 0; off < size; off += PAGE_SIZE) {
    u64 pa;
    if(page_alloc_ready()) {   // the boot allocator serves only until mm_init
      // A stack is kept for good (a thread slot reuses it), and no caller of
      // kthread_create could do without one: not a target of fault injection.
      struct page *p = alloc_page(GFP_KERNEL | __GFP_NOFAIL);
      if(!p)
        panic("stack_alloc: out of memory");
      account_permanent_pages(1);
      pa = page_to_phys(p);
    } else {
      // Low memory, where GRUB's core ran: overwritten for QEMU's TCG as the page
      // allocator does a page's first use (scrub_first_use, mm/page_alloc.c).
      pa = bootmem_alloc(PAGE_SIZE, PAGE_SIZE, ~0UL);
      memset(pt_va(pa), 0, PAGE_SIZE);
    }
    if(kernel_map(va + off, pa, PAGE_SIZE, PTE_W | pte_nx) < 0)
      panic("stack_alloc: cannot map %#lx", va + off);
  }
  return va + size;
}

static void
map_image(u64 *pml4, char *start, char *end, u64 flags)
{
  for(u64 va = (u64)start; va < (u64)end; va += PAGE_SIZE)
    *pte_walk(pml4, va, true) = __pa_symbol(va) | flags | PTE_P;   // no 2 MiB pages here
}

static void
map_direct(u64 *pml4, u64 start, u64 end)
{
  u64 flags = PTE_P | PTE_W | pte_nx;
  start = ALIGN_DOWN(start, PAGE_SIZE);
  end = ALIGN_UP(end, PAGE_SIZE);
  for(u64 pa = start; pa < end;) {
    if(pa % LARGE_PAGE == 0 && pa + LARGE_PAGE <= end) {
      map_large(pml4, (u64)__va(pa), pa, flags);
      pa += LARGE_PAGE;
    } else {
      *pte_walk(pml4, (u64)__va(pa), true) = pa | flags;
      pa += PAGE_SIZE;
    }
  }
}

void
paging_init(void)
{
  if(rdmsr(MSR_EFER) & EFER_NXE)
    pte_nx = PTE_NX;
  u64 pml4_pa = pt_alloc();
  u64 *pml4 = pt_va(pml4_pa);

  // Every RAM and ACPI range goes into the direct map; firmware-reserved holes do not.
  for(int i = 0; i < bootinfo.nmmap; i++) {
    struct boot_mmap_entry *m = &bootinfo.mmap[i];
    if(m->type == MEM_AVAILABLE || m->type == MEM_ACPI || m->type == MEM_NVS)
      map_direct(pml4, m->base, m->base + m->len);
  }
  map_image(pml4, _text, _etext, 0);
  map_image(pml4, _rodata, _erodata, pte_nx);
  map_image(pml4, _data, _ebss, PTE_W | pte_nx);
  map_image(pml4, _ebss, _end, pte_nx);

  // No identity map: virtual page 0 (and all of the lower half) is unmapped,
  // so a NULL dereference faults.
  write_cr3(pml4_pa);
  kernel_pml4 = __va(pml4_pa);
  kernel_cr3 = pml4_pa;
  direct_map_live = true;
  pr_info("paging: direct map at %#lx, text RX, rodata R%s, data RW%s\n", PAGE_OFFSET,
          pte_nx ? "+NX" : "", pte_nx ? "+NX" : "");
}
