// The Multiboot2 hand-over at entry: checks the loader's magic and where the boot information
// lies, then copies it out with multiboot.c's parser. Problems are named; the boot goes on.
#include "bootinfo.h"
#include "printk.h"
#include <asm/memlayout.h>

#define MB2_BOOT_MAGIC 0x36d76289   // in eax from a Multiboot2 loader (spec 3.3)
#define BOOT_WINDOW (1UL << 30)     // boot/entry.S maps the first GiB at KERNEL_VMA

struct bootinfo bootinfo;

void
multiboot_parse(u32 magic, u64 mbi_phys)
{
  const char *why;

  if(magic != MB2_BOOT_MAGIC) {
    pr_err("multiboot: bad magic %#x: not loaded by a Multiboot2 loader\n", magic);
    return;
  }
  if(mbi_phys >= BOOT_WINDOW) {
    pr_err("multiboot: boot information at %#lx is above 1 GiB\n", mbi_phys);
    return;
  }
  // Everything up to the end of the window is readable; the parser checks the information's
  // own size against that.
  why = multiboot_parse_info(&bootinfo, (const void *)(KERNEL_VMA + mbi_phys),
                             BOOT_WINDOW - mbi_phys);
  bootinfo.mbi_phys = mbi_phys;
  if(why != NULL)
    pr_err("multiboot: %s\n", why);
}
