// libFuzzer harness for the ACPI table parser (arch/x86_64/acpi.c): the input is an RSDP copy and
// a piece of physical memory; the parser must read only what it mapped and keep its limits.
#include <stdlib.h>
#include <string.h>
#include <asm/acpi.h>
#include "fuzz.h"

// The input: u8 rsdp_len (at most 64, the size of bootinfo.rsdp), u32 base (little-endian),
// rsdp_len bytes of RSDP copy as multiboot2 tag 14 or 15 hands it over, then the memory at
// physical address base. tests/fuzz/corpus/acpi/ has QEMU's real tables in this form.
#define HDR 5

static const unsigned char *mem;
static u64 mem_base;
static size_t mem_len;

// Every mapping is a private heap copy of exactly len bytes, so ASan reports a read past the
// length the parser asked for (as in tests/host/test_acpi.c); freed after each input.
static void **maps;
static size_t nmaps, capmaps;

void *
acpi_map(u64 phys, size_t len)
{
  void *p;

  if(len == 0 || phys < mem_base || phys - mem_base > mem_len || len > mem_len - (phys - mem_base))
    return NULL;
  if(nmaps == capmaps) {
    capmaps = capmaps ? 2 * capmaps : 64;
    maps = realloc(maps, capmaps * sizeof(*maps));
  }
  p = malloc(len);
  memcpy(p, mem + (phys - mem_base), len);
  return maps[nmaps++] = p;
}

static void
check(const struct acpi_info *ai, int ret, const unsigned char *rsdp, size_t rsdp_len)
{
  bool seen[ACPI_MAXCPU] = { false };

  FUZZ_CHECK(ret == 0 || ret == -1);
  FUZZ_CHECK((ret == 0) == (ai->error == NULL));
  FUZZ_CHECK(ret == 0 || ai->error[0] != '\0');
  // Warnings: at most ACPI_MAXWARN, each a non-empty message given once.
  FUZZ_CHECK(ai->nwarn >= 0 && ai->nwarn <= ACPI_MAXWARN);
  for(int i = 0; i < ai->nwarn; i++) {
    FUZZ_CHECK(ai->warn[i] != NULL && ai->warn[i][0] != '\0');
    for(int j = 0; j < i; j++)
      FUZZ_CHECK(ai->warn[i] != ai->warn[j]);
  }
  if(ret != 0)
    return;
  // Success: the RSDP's revision and OEM, a local APIC, 1..255 distinct xAPIC ids 0..254,
  // and the I/O APICs and overrides within their arrays.
  FUZZ_CHECK(rsdp_len >= 20 && ai->revision == rsdp[15]);
  FUZZ_CHECK(memcmp(ai->oem_id, rsdp + 9, 6) == 0 && ai->oem_id[6] == '\0');
  FUZZ_CHECK(ai->lapic_phys != 0);
  FUZZ_CHECK(ai->ncpus >= 1 && ai->ncpus <= ACPI_MAXCPU);
  for(int i = 0; i < ai->ncpus; i++) {
    FUZZ_CHECK(ai->apic_id[i] < 255 && !seen[ai->apic_id[i]]);
    seen[ai->apic_id[i]] = true;
  }
  FUZZ_CHECK(ai->nx2apic_skipped >= 0);
  FUZZ_CHECK(ai->nioapic >= 0 && ai->nioapic <= ACPI_MAXIOAPIC);
  FUZZ_CHECK(ai->niso >= 0 && ai->niso <= ACPI_MAXISO);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  static struct acpi_info ai;
  unsigned char *rsdp;
  size_t rsdp_len;
  int ret;

  if(size < HDR)
    return 0;
  rsdp_len = data[0] < 64 ? data[0] : 64;
  if(size - HDR < rsdp_len)
    return 0;
  mem_base = data[1] | data[2] << 8 | data[3] << 16 | (u64)data[4] << 24;
  mem_len = size - HDR - rsdp_len;
  mem = data + HDR + rsdp_len;
  rsdp = malloc(rsdp_len ? rsdp_len : 1);   // exactly rsdp_len readable bytes
  memcpy(rsdp, data + HDR, rsdp_len);

  ret = acpi_parse(rsdp, rsdp_len, &ai);
  check(&ai, ret, rsdp, rsdp_len);

  free(rsdp);
  for(size_t i = 0; i < nmaps; i++)
    free(maps[i]);
  nmaps = 0;
  return 0;
}
