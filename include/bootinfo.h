// What the kernel keeps from the Multiboot2 boot information: memory map, command line, ACPI
// RSDP, and where the modules (initramfs archives) lie.
// Copied out at entry, before any allocator can hand out the pages GRUB left it in.
#pragma once
#include "types.h"

#define BOOT_MMAP_MAX 128
#define BOOT_CMDLINE_MAX 4096
#define BOOT_MODULES_MAX 8

enum { MEM_AVAILABLE = 1, MEM_RESERVED = 2, MEM_ACPI = 3, MEM_NVS = 4, MEM_BAD = 5 };

struct boot_mmap_entry {
  u64 base;
  u64 len;
  u32 type;   // Multiboot2 memory types, as the MEM_* values above
};

// A module GRUB loaded (module2 in grub.cfg): the initramfs archives, in grub.cfg's order.
struct boot_module {
  u64 start, end;   // physical, [start, end)
  char name[64];    // its command line: the archive's name
};

struct bootinfo {
  int nmmap;
  struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
  char cmdline[BOOT_CMDLINE_MAX];
  u8 rsdp[64];        // a copy of the RSDP (tag 15 preferred over tag 14)
  u32 rsdp_len;       // 0: GRUB found no ACPI
  char loader[64];
  u64 mbi_phys, mbi_size;   // where GRUB left the boot information
  int nmodules;
  struct boot_module modules[BOOT_MODULES_MAX];
};

extern struct bootinfo bootinfo;
// At entry: checks the loader's magic and fills bootinfo from the information at mbi_phys.
void multiboot_parse(u32 magic, u64 mbi_phys);
// Fills bi from the Multiboot2 boot information in the len bytes at buf (its total_size
// field may say less), reading nothing outside them. Returns NULL, or the first problem
// found: tags after a bad tag size are not reached, the rest of bi is kept.
const char *multiboot_parse_info(struct bootinfo *bi, const void *buf, size_t len);

// The 64-bit C entry points: boot/entry.S calls kmain on the boot CPU, the AP trampoline
// calls ap_main on every other CPU with its APIC id.
void kmain(u32 magic, u64 mbi_phys);
void ap_main(u32 apic);
