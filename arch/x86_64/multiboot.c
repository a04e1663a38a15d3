// Multiboot2 boot information parser: memory map, command line, loader name, modules and RSDP,
// from a buffer and its length alone (multiboot_boot.c finds the buffer; the host fuzzes this).
#include "bootinfo.h"
#include "compiler.h"
#include "string.h"

// Tag types and layouts from the Multiboot2 specification (version 2.0), section 3.6.
#define TAG_END        0
#define TAG_CMDLINE    1
#define TAG_LOADER     2
#define TAG_MODULE     3
#define TAG_MMAP       6
#define TAG_ACPI_OLD   14
#define TAG_ACPI_NEW   15

// 3.6.1: the information starts with u32 total_size and u32 reserved; tags follow, each
// starting on an 8-byte boundary, until a tag of type 0.
struct mb2_tag {
  u32 type;
  u32 size;     // header included, padding to 8 bytes not
} __packed;

// 3.6.8: the memory map's body is entry_size and entry_version, then the entries.
struct mb2_mmap {
  u32 entry_size;   // a multiple of 8, at least sizeof(struct mb2_mmap_entry)
  u32 entry_version;
} __packed;

struct mb2_mmap_entry {
  u64 base_addr;
  u64 length;
  u32 type;
  u32 reserved;
} __packed;

// The strings may lack their NUL; a copy is cut to fit cap, NUL included.
static void
copy_string(char *dst, size_t cap, const char *src, size_t srclen)
{
  size_t n = MIN(strnlen(src, srclen), cap - 1);

  memcpy(dst, src, n);
  dst[n] = '\0';
}

// Entries are read with memcpy: nothing in the buffer is assumed aligned.
static const char *
parse_mmap(struct bootinfo *bi, const u8 *body, size_t blen)
{
  struct mb2_mmap h;
  struct mb2_mmap_entry e;

  if(blen < sizeof(h))
    return "memory map tag too short, ignored";
  memcpy(&h, body, sizeof(h));
  if(h.entry_size < sizeof(e) || h.entry_size % 8 != 0)
    return "memory map entry size invalid, map ignored";
  for(size_t off = sizeof(h); blen - off >= h.entry_size; off += h.entry_size) {
    if(bi->nmmap == BOOT_MMAP_MAX)
      return "memory map has too many entries, the rest ignored";
    memcpy(&e, body + off, sizeof(e));
    bi->mmap[bi->nmmap++] = (struct boot_mmap_entry){ e.base_addr, e.length, e.type };
  }
  return NULL;
}

// 3.6.6: u32 mod_start, u32 mod_end (physical), then the module's command line.
static const char *
parse_module(struct bootinfo *bi, const u8 *body, size_t blen)
{
  u32 range[2];
  if(blen < sizeof(range))
    return "module tag too short, ignored";
  memcpy(range, body, sizeof(range));
  if(range[1] < range[0])
    return "module ends before it starts, ignored";
  if(bi->nmodules == BOOT_MODULES_MAX)
    return "too many modules, the rest ignored";
  struct boot_module *m = &bi->modules[bi->nmodules++];
  m->start = range[0];
  m->end = range[1];
  copy_string(m->name, sizeof(m->name), (const char *)body + sizeof(range), blen - sizeof(range));
  return NULL;
}

// ACPI 2.0's RSDP (tag 15) is preferred over the 1.0 one (tag 14), whichever comes first.
static void
parse_rsdp(struct bootinfo *bi, u32 type, const u8 *body, size_t blen, bool *have_new)
{
  if(type == TAG_ACPI_OLD && *have_new)
    return;
  bi->rsdp_len = MIN(blen, sizeof(bi->rsdp));
  memcpy(bi->rsdp, body, bi->rsdp_len);
  *have_new = type == TAG_ACPI_NEW;
}

const char *
multiboot_parse_info(struct bootinfo *bi, const void *buf, size_t len)
{
  const u8 *mbi = buf;
  const char *why = NULL, *bad;
  bool have_new_rsdp = false;
  struct mb2_tag tag;
  u32 total;

  memset(bi, 0, sizeof(*bi));
  if(len < 8)
    return "boot information shorter than its header";
  memcpy(&total, mbi, sizeof(total));
  if(total < 8 || total > len)
    return "boot information size out of range";
  bi->mbi_size = total;
  // off may pass total by the padding of a last tag without an end tag; sizes are size_t,
  // so off + size cannot wrap.
  for(size_t off = 8; ; off += ALIGN_UP((size_t)tag.size, 8)) {
    if(off > total || total - off < sizeof(tag))
      return why ? why : "no end tag before the end of the information";
    memcpy(&tag, mbi + off, sizeof(tag));
    if(tag.type == TAG_END)
      return why;
    // A bad size hides where the next tag starts: the walk stops, keeping what it has.
    if(tag.size < sizeof(tag) || tag.size > total - off)
      return why ? why : "a tag's size is out of range, the tags after it ignored";
    const u8 *body = mbi + off + sizeof(tag);
    size_t blen = tag.size - sizeof(tag);
    bad = NULL;
    switch(tag.type) {
    case TAG_CMDLINE:
      copy_string(bi->cmdline, sizeof(bi->cmdline), (const char *)body, blen);
      break;
    case TAG_LOADER:
      copy_string(bi->loader, sizeof(bi->loader), (const char *)body, blen);
      break;
    case TAG_MMAP:
      bad = parse_mmap(bi, body, blen);
      break;
    case TAG_MODULE:
      bad = parse_module(bi, body, blen);
      break;
    case TAG_ACPI_OLD:
    case TAG_ACPI_NEW:
      parse_rsdp(bi, tag.type, body, blen, &have_new_rsdp);
      break;
    }
    if(why == NULL)
      why = bad;
  }
}
