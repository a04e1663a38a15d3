// The early boot allocator: the memory map's available ranges minus a list of reserved ranges.
// First fit, lowest address first; every allocation becomes a reserved range itself.
#include "bootinfo.h"
#include "bootmem.h"
#include "panic.h"
#include "printk.h"
#include "sections.h"
#include <asm/memlayout.h>
#include <asm/smp_boot.h>

#define MAX_RANGES 128

struct range {
  u64 start, end;
  const char *name;
};

static struct range avail[MAX_RANGES];
static int navail;
static struct range resv[MAX_RANGES];
static int nresv;
static u64 ram_bytes;
static u64 max_addr;


static const char *const mem_type_name[] = {
  [MEM_AVAILABLE] = "available", [MEM_RESERVED] = "reserved",
  [MEM_ACPI] = "ACPI tables", [MEM_NVS] = "ACPI NVS", [MEM_BAD] = "bad",
};

void
bootmem_reserve(u64 base, u64 size, const char *name)
{
  u64 start = ALIGN_DOWN(base, PAGE_SIZE);
  u64 end = ALIGN_UP(base + size, PAGE_SIZE);
  // Merge with a neighbour of the same name, so a run of allocations is one entry.
  for(int i = 0; i < nresv; i++) {
    if(resv[i].name == name && (resv[i].end == start || resv[i].start == end)) {
      resv[i].start = MIN(resv[i].start, start);
      resv[i].end = MAX(resv[i].end, end);
      return;
    }
  }
  if(nresv == MAX_RANGES)
    panic("bootmem: more than %d reserved ranges", MAX_RANGES);
  resv[nresv++] = (struct range){ start, end, name };
}

void
bootmem_init(void)
{
  for(int i = 0; i < bootinfo.nmmap; i++) {
    struct boot_mmap_entry *m = &bootinfo.mmap[i];
    if(m->base + m->len > max_addr && m->type != MEM_RESERVED)
      max_addr = m->base + m->len;
    if(m->type != MEM_AVAILABLE)
      continue;
    u64 start = ALIGN_UP(m->base, PAGE_SIZE);
    u64 end = ALIGN_DOWN(m->base + m->len, PAGE_SIZE);
    if(end <= start || navail == MAX_RANGES)
      continue;
    avail[navail++] = (struct range){ start, end, "available" };
    ram_bytes += end - start;
  }
  if(navail == 0)
    panic("bootmem: the boot loader passed no available memory");

  // Page 0 stays unused, the BIOS owns 640 KiB..1 MiB (EBDA, VGA, option ROMs), and
  // the AP trampoline needs a fixed page below 1 MiB before anything else takes it.
  bootmem_reserve(0, PAGE_SIZE, "real-mode IVT and BIOS data");
  bootmem_reserve(TRAMPOLINE_PA, PAGE_SIZE, "AP trampoline");
  bootmem_reserve(0x80000, 0x80000, "EBDA, VGA and BIOS ROMs");
  bootmem_reserve(KERNEL_PHYS, __pa_symbol(_end) - KERNEL_PHYS, "kernel image");
  bootmem_reserve(bootinfo.mbi_phys, bootinfo.mbi_size, "Multiboot2 information");
  // The initramfs archives, until fs/initramfs.c has unpacked them and freed their pages.
  for(int i = 0; i < bootinfo.nmodules; i++)
    bootmem_reserve(bootinfo.modules[i].start,
                    bootinfo.modules[i].end - bootinfo.modules[i].start, "initramfs");
  // ACPI ranges are never available memory; listing them says so.
  for(int i = 0; i < bootinfo.nmmap; i++) {
    struct boot_mmap_entry *m = &bootinfo.mmap[i];
    if(m->type == MEM_ACPI || m->type == MEM_NVS)
      bootmem_reserve(m->base, m->len, mem_type_name[m->type]);
  }
}

static bool
overlaps(u64 start, u64 end, struct range **hit)
{
  for(int i = 0; i < nresv; i++) {
    if(start < resv[i].end && resv[i].start < end) {
      *hit = &resv[i];
      return true;
    }
  }
  return false;
}

u64
bootmem_alloc(u64 size, u64 align, u64 limit)
{
  size = ALIGN_UP(size, PAGE_SIZE);
  for(int i = 0; i < navail; i++) {
    u64 a = ALIGN_UP(avail[i].start, align);
    struct range *hit;
    while(a + size <= avail[i].end && a + size <= limit) {
      if(!overlaps(a, a + size, &hit)) {
        bootmem_reserve(a, size, "boot allocations");
        return a;
      }
      a = ALIGN_UP(hit->end, align);
    }
  }
  panic("bootmem: out of memory allocating %lu bytes below %#lx", size, limit);
}

static bool
is_free(u64 a, u64 b)
{
  struct range *hit;
  return !overlaps(a, b, &hit);
}

void
bootmem_for_each_free(void (*fn)(u64 start, u64 end))
{
  for(int i = 0; i < navail; i++) {
    u64 a = avail[i].start;
    while(a < avail[i].end) {
      if(!is_free(a, a + PAGE_SIZE)) {
        a += PAGE_SIZE;
        continue;
      }
      u64 b = a + PAGE_SIZE;
      while(b < avail[i].end && is_free(b, b + PAGE_SIZE))
        b += PAGE_SIZE;
      fn(a, b);
      a = b;
    }
  }
}

// True if [base, base+size) lies inside one entry of the memory map, of any type but bad.
bool
bootmem_in_map(u64 base, u64 size)
{
  for(int i = 0; i < bootinfo.nmmap; i++) {
    struct boot_mmap_entry *m = &bootinfo.mmap[i];
    if(m->type != MEM_BAD && base >= m->base && base + size <= m->base + m->len)
      return true;
  }
  return false;
}

u64
bootmem_ram_bytes(void)
{
  return ram_bytes;
}

u64
bootmem_max_pfn(void)
{
  return max_addr >> PAGE_SHIFT;
}

void
bootmem_print(void)
{
  for(int i = 0; i < bootinfo.nmmap; i++) {
    struct boot_mmap_entry *m = &bootinfo.mmap[i];
    const char *t = m->type < ARRAY_SIZE(mem_type_name) && mem_type_name[m->type]
                      ? mem_type_name[m->type] : "unknown";
    pr_info("mem: [0x%012lx-0x%012lx] %s\n", m->base, m->base + m->len - 1, t);
  }
  for(int i = 0; i < nresv; i++)
    pr_info("bootmem: reserved [0x%012lx-0x%012lx] %s\n", resv[i].start, resv[i].end - 1,
            resv[i].name);
  pr_info("bootmem: %lu MiB available\n", ram_bytes >> 20);
}
