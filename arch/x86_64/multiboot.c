// Copies the memory map, command line and ACPI RSDP out of the Multiboot2 boot information.
// Tag layout from the Multiboot2 specification (version 2.0), section 3.6.
#include "bootinfo.h"
#include "printk.h"
#include "string.h"
#include <asm/memlayout.h>

#define MB2_BOOT_MAGIC 0x36d76289
#define TAG_END        0
#define TAG_CMDLINE    1
#define TAG_LOADER     2
#define TAG_MMAP       6
#define TAG_ACPI_OLD   14
#define TAG_ACPI_NEW   15

struct mb2_tag {
  u32 type;
  u32 size;
};

struct bootinfo bootinfo;

static void
copy_string(char *dst, size_t cap, const char *src, size_t srclen)
{
  size_t n = strnlen(src, srclen);
  if(n >= cap)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

// The boot information lies below 1 GiB, reachable through the boot page
// tables' KERNEL_VMA window (boot/entry.S maps the first GiB there).
void
multiboot_parse(u32 magic, u64 mbi_phys)
{
  if(magic != MB2_BOOT_MAGIC) {
    pr_err("multiboot: bad magic %#x: not loaded by a Multiboot2 loader\n", magic);
    return;
  }
  if(mbi_phys >= (1UL << 30)) {
    pr_err("multiboot: boot information at %#lx is above 1 GiB\n", mbi_phys);
    return;
  }
  u8 *mbi = (u8 *)(KERNEL_VMA + mbi_phys);
  u32 total = *(u32 *)mbi;
  bootinfo.mbi_phys = mbi_phys;
  bootinfo.mbi_size = total;
  bool have_new_rsdp = false;

  for(u32 off = 8; off + sizeof(struct mb2_tag) <= total;) {
    struct mb2_tag *tag = (struct mb2_tag *)(mbi + off);
    if(tag->type == TAG_END || tag->size < 8 || off + tag->size > total)
      break;
    u8 *body = (u8 *)(tag + 1);
    u32 blen = tag->size - 8;
    switch(tag->type) {
    case TAG_CMDLINE:
      copy_string(bootinfo.cmdline, sizeof(bootinfo.cmdline), (char *)body, blen);
      break;
    case TAG_LOADER:
      copy_string(bootinfo.loader, sizeof(bootinfo.loader), (char *)body, blen);
      break;
    case TAG_MMAP: {
      u32 esize = *(u32 *)body;
      if(esize < 24)
        break;
      for(u32 e = 8; e + esize <= blen && bootinfo.nmmap < BOOT_MMAP_MAX; e += esize) {
        struct boot_mmap_entry *m = &bootinfo.mmap[bootinfo.nmmap++];
        m->base = *(u64 *)(body + e);
        m->len = *(u64 *)(body + e + 8);
        m->type = *(u32 *)(body + e + 16);
      }
      break;
    }
    case TAG_ACPI_NEW:
    case TAG_ACPI_OLD:
      if(tag->type == TAG_ACPI_OLD && have_new_rsdp)
        break;
      bootinfo.rsdp_len = MIN(blen, (u32)sizeof(bootinfo.rsdp));
      memcpy(bootinfo.rsdp, body, bootinfo.rsdp_len);
      have_new_rsdp = tag->type == TAG_ACPI_NEW;
      break;
    }
    off += ALIGN_UP(tag->size, 8);   // tags are 8-byte aligned
  }
}
