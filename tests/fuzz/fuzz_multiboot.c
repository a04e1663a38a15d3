// libFuzzer harness for the Multiboot2 information parser (arch/x86_64/multiboot.c): the input is
// the boot information; what is kept must fit its arrays and, written back as tags, parse the same.
#include <stdlib.h>
#include <string.h>
#include "bootinfo.h"
#include "fuzz.h"

static void
check(const struct bootinfo *bi, size_t len)
{
  FUZZ_CHECK(bi->nmmap >= 0 && bi->nmmap <= BOOT_MMAP_MAX);
  FUZZ_CHECK(strnlen(bi->cmdline, sizeof(bi->cmdline)) < sizeof(bi->cmdline));
  FUZZ_CHECK(strnlen(bi->loader, sizeof(bi->loader)) < sizeof(bi->loader));
  FUZZ_CHECK(bi->rsdp_len <= sizeof(bi->rsdp));
  FUZZ_CHECK(bi->mbi_size <= len);
  FUZZ_CHECK(bi->nmodules >= 0 && bi->nmodules <= BOOT_MODULES_MAX);
  for(int i = 0; i < bi->nmodules; i++) {
    FUZZ_CHECK(bi->modules[i].start <= bi->modules[i].end && bi->modules[i].end <= 0xffffffffu);
    FUZZ_CHECK(strnlen(bi->modules[i].name, sizeof(bi->modules[i].name)) <
               sizeof(bi->modules[i].name));
  }
}

// Appends a tag of size 8 + n, padded to 8 bytes (spec 3.6.1).
static size_t
put_tag(unsigned char *out, size_t off, u32 type, const void *body, u32 n)
{
  u32 hdr[2] = { type, 8 + n };

  memcpy(out + off, hdr, 8);
  memcpy(out + off + 8, body, n);
  memset(out + off + 8 + n, 0, -(8 + n) & 7);
  return off + ((8 + n + 7) & ~7u);
}

// bi as well-formed boot information: command line, loader name, the memory map with
// 24-byte entries, the RSDP as tag 15, and the end tag. Returns its size.
static size_t
unparse(const struct bootinfo *bi, unsigned char *out)
{
  static unsigned char map[8 + BOOT_MMAP_MAX * 24];
  u32 map_hdr[2] = { 24, 0 };
  size_t off = 8;
  u32 total;

  off = put_tag(out, off, 1, bi->cmdline, strlen(bi->cmdline) + 1);
  off = put_tag(out, off, 2, bi->loader, strlen(bi->loader) + 1);
  memcpy(map, map_hdr, 8);
  for(int i = 0; i < bi->nmmap; i++) {
    u32 e[6] = { bi->mmap[i].base, bi->mmap[i].base >> 32, bi->mmap[i].len,
                 bi->mmap[i].len >> 32, bi->mmap[i].type, 0 };
    memcpy(map + 8 + i * 24, e, 24);
  }
  off = put_tag(out, off, 6, map, 8 + bi->nmmap * 24);
  for(int i = 0; i < bi->nmodules; i++) {
    unsigned char mod[8 + sizeof(bi->modules[i].name)];
    u32 range[2] = { bi->modules[i].start, bi->modules[i].end };
    size_t n = strlen(bi->modules[i].name) + 1;
    memcpy(mod, range, 8);
    memcpy(mod + 8, bi->modules[i].name, n);
    off = put_tag(out, off, 3, mod, 8 + n);
  }
  off = put_tag(out, off, 15, bi->rsdp, bi->rsdp_len);
  off = put_tag(out, off, 0, "", 0);
  total = off;
  memcpy(out, &total, 4);
  memset(out + 4, 0, 4);
  return off;
}

static bool
same(const struct bootinfo *a, const struct bootinfo *b)
{
  if(strcmp(a->cmdline, b->cmdline) != 0 || strcmp(a->loader, b->loader) != 0 ||
     a->nmmap != b->nmmap || a->rsdp_len != b->rsdp_len ||
     memcmp(a->rsdp, b->rsdp, a->rsdp_len) != 0)
    return false;
  if(a->nmodules != b->nmodules)
    return false;
  for(int i = 0; i < a->nmodules; i++)
    if(a->modules[i].start != b->modules[i].start || a->modules[i].end != b->modules[i].end ||
       strcmp(a->modules[i].name, b->modules[i].name) != 0)
      return false;
  for(int i = 0; i < a->nmmap; i++)
    if(a->mmap[i].base != b->mmap[i].base || a->mmap[i].len != b->mmap[i].len ||
       a->mmap[i].type != b->mmap[i].type)
      return false;
  return true;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  static struct bootinfo bi, again;
  static unsigned char out[2 * sizeof(struct bootinfo)];
  unsigned char *copy = malloc(size ? size : 1);   // exactly size readable bytes
  const char *why;
  size_t n;

  memcpy(copy, data, size);
  why = multiboot_parse_info(&bi, copy, size);
  free(copy);
  FUZZ_CHECK(why == NULL || why[0] != '\0');
  check(&bi, size);

  n = unparse(&bi, out);
  FUZZ_CHECK(multiboot_parse_info(&again, out, n) == NULL);
  FUZZ_CHECK(same(&bi, &again));
  return 0;
}
