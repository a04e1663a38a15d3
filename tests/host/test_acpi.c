// Host test for the ACPI parser: synthetic tables in a fake 1 MiB physical memory,
// then damaged ones and a random byte fuzz that must never crash or trip ASan.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/acpi.h>
#include "check.h"

#define MEMSIZE (1u << 20)
#define RSDT_AT 0x1000
#define XSDT_AT 0x2000
#define HPET_AT 0x11000    // listed by the XSDT
#define FACP_AT 0x12000    // the FADT: only its century register is read
#define HPET2_AT 0x13000   // listed by the RSDT: tells which root was used
#define MADT_AT 0x20000

static u8 mem[MEMSIZE];
static u8 rsdp[36];

// acpi_map hands out a private copy of exactly len bytes, so ASan
// reports any read past what the parser asked for.
static void **maps;
static size_t nmaps, capmaps;

void *
acpi_map(u64 phys, size_t len)
{
  u8 *p;

  if(phys > MEMSIZE || len > MEMSIZE - phys)
    return NULL;
  if(nmaps == capmaps) {
    capmaps = capmaps ? 2 * capmaps : 64;
    maps = realloc(maps, capmaps * sizeof(*maps));
  }
  p = malloc(len ? len : 1);
  memcpy(p, mem + phys, len);
  maps[nmaps++] = p;
  return p;
}

// Parse an exact-size copy of the first len bytes of rsdp[].
static int
parse(size_t len, struct acpi_info *ai)
{
  u8 *copy = malloc(len ? len : 1);
  int r;

  memcpy(copy, rsdp, len);
  r = acpi_parse(copy, len, ai);
  free(copy);
  for(size_t i = 0; i < nmaps; i++)
    free(maps[i]);
  nmaps = 0;
  return r;
}

// Substring test by hand: with -Iinclude the kernel's string.h, which
// has no strstr, stands in for the C library's.
static bool
contains(const char *s, const char *text)
{
  size_t n = strlen(text);

  for(; *s; s++)
    if(strncmp(s, text, n) == 0)
      return true;
  return false;
}

static bool
warned(const struct acpi_info *ai, const char *text)
{
  for(int i = 0; i < ai->nwarn; i++)
    if(contains(ai->warn[i], text))
      return true;
  return false;
}

static bool
failed(const struct acpi_info *ai, const char *text)
{
  return ai->error && contains(ai->error, text);
}

// Table builder: begin() writes a header at phys, emit() appends
// little-endian fields, finish() sets the length and checksum.
static u32 at, tstart;

static void
emit(u64 v, int n)
{
  for(int i = 0; i < n; i++)
    mem[at++] = v >> (8 * i);
}

static void
emits(const char *s, int n)
{
  memcpy(mem + at, s, n);
  at += n;
}

static void
begin(u32 phys, const char *sig)
{
  tstart = at = phys;
  emits(sig, 4);
  emit(0, 4);           // length, set by finish
  emit(1, 1);           // revision
  emit(0, 1);           // checksum, set by finish
  emits("TESTOE", 6);
  emits("TESTTABL", 8);
  emit(1, 4);
  emits("TEST", 4);
  emit(1, 4);
}

static u8
sum(const u8 *p, size_t n)
{
  u8 s = 0;

  while(n-- > 0)
    s += *p++;
  return s;
}

// Recompute the checksum of the table at phys from its length field.
static void
fix_sum(u32 phys)
{
  u32 len;

  memcpy(&len, mem + phys + 4, 4);
  if(len > MEMSIZE - phys)
    len = MEMSIZE - phys;
  mem[phys + 9] = 0;
  mem[phys + 9] = -sum(mem + phys, len);
}

static void
finish(void)
{
  u32 len = at - tstart;

  memcpy(mem + tstart + 4, &len, 4);
  fix_sum(tstart);
}

static void
set_len(u32 phys, u32 len)
{
  memcpy(mem + phys + 4, &len, 4);
  fix_sum(phys);
}

static void
madt_begin(u32 lapic, u32 flags)
{
  begin(MADT_AT, "APIC");
  emit(lapic, 4);
  emit(flags, 4);
}

static void
lapic(u8 uid, u8 id, u32 flags)
{
  emit(0, 1); emit(8, 1); emit(uid, 1); emit(id, 1); emit(flags, 4);
}

static void
x2apic(u32 id, u32 flags)
{
  emit(9, 1); emit(16, 1); emit(0, 2); emit(id, 4); emit(flags, 4); emit(id, 4);
}

static void
ioapic(u8 id, u32 addr, u32 gsi)
{
  emit(1, 1); emit(12, 1); emit(id, 1); emit(0, 1); emit(addr, 4); emit(gsi, 4);
}

static void
iso(u8 bus, u8 irq, u32 gsi, u16 flags)
{
  emit(2, 1); emit(10, 1); emit(bus, 1); emit(irq, 1); emit(gsi, 4); emit(flags, 2);
}

static void
nmi(void)
{
  emit(4, 1); emit(6, 1); emit(0xff, 1); emit(5, 2); emit(1, 1);
}

static void
lapic_override(u64 addr)
{
  emit(5, 1); emit(12, 1); emit(0, 2); emit(addr, 8);
}

// Four enabled-or-online-capable CPUs with gaps in their ids, a disabled
// one, an empty socket (id 0xff), an x2APIC-only CPU, 2 I/O APICs, 2 ISOs.
static void
standard_madt(void)
{
  madt_begin(0xfee00000, 1);
  lapic(0, 0, 1);
  lapic(1, 2, 1);
  lapic(2, 4, 0);
  lapic(3, 6, 2);
  lapic(4, 0xff, 0);
  lapic(5, 9, 1);
  x2apic(300, 1);
  ioapic(1, 0xfec00000, 0);
  ioapic(2, 0xfec01000, 24);
  iso(0, 0, 2, 0);
  iso(0, 9, 9, 0xd);
  nmi();
  finish();
}

static void
hpet(u32 phys, u8 space, u64 addr)
{
  begin(phys, "HPET");
  emit(0x8086a201, 4);
  emit(space, 1); emit(64, 1); emit(0, 1); emit(0, 1); emit(addr, 8);
  emit(0, 1); emit(0x80, 2); emit(0, 1);
  finish();
}

static void
fix_rsdp(void)
{
  rsdp[8] = 0;
  rsdp[8] = -sum(rsdp, 20);
  rsdp[32] = 0;
  rsdp[32] = -sum(rsdp, 36);
}

// Revision 2 RSDP, XSDT and RSDT over the standard tables.
static void
build(void)
{
  u32 rsdt = RSDT_AT, len = 36;
  u64 xsdt = XSDT_AT;

  memset(mem, 0, sizeof(mem));
  standard_madt();
  hpet(HPET_AT, 0, 0xfed00000);
  hpet(HPET2_AT, 0, 0xfed80000);
  begin(FACP_AT, "FACP");   // ACPI 1.0's 116 bytes, CENTURY at 108 (QEMU's 0x32)
  for(int i = 0; i < 9; i++)
    emit(0, 8);
  emit(0x32, 1);
  emit(0, 7);
  finish();
  begin(RSDT_AT, "RSDT");
  emit(FACP_AT, 4); emit(MADT_AT, 4); emit(HPET2_AT, 4);
  finish();
  begin(XSDT_AT, "XSDT");
  emit(FACP_AT, 8); emit(MADT_AT, 8); emit(HPET_AT, 8);
  finish();

  memcpy(rsdp, "RSD PTR ", 8);
  memcpy(rsdp + 9, "TESTOE", 6);
  rsdp[15] = 2;
  memcpy(rsdp + 16, &rsdt, 4);
  memcpy(rsdp + 20, &len, 4);
  memcpy(rsdp + 24, &xsdt, 8);
  fix_rsdp();
}

// The ACPI 1.0 form, as multiboot2 tag 14 carries it.
static void
build_v1(void)
{
  build();
  rsdp[15] = 0;
  fix_rsdp();
}

static void
test_good(void)
{
  struct acpi_info ai;

  build();
  CHECK(parse(36, &ai) == 0);
  CHECK(ai.error == NULL);
  CHECK(ai.revision == 2);
  CHECK(strcmp(ai.oem_id, "TESTOE") == 0);
  CHECK(ai.lapic_phys == 0xfee00000);
  CHECK(ai.pcat_compat);
  CHECK(ai.ncpus == 4);
  CHECK(ai.apic_id[0] == 0 && ai.apic_id[1] == 2);
  CHECK(ai.apic_id[2] == 6 && ai.apic_id[3] == 9);
  CHECK(ai.nx2apic_skipped == 1);
  CHECK(warned(&ai, "x2APIC"));
  CHECK(ai.nwarn == 1);
  CHECK(ai.nioapic == 2);
  CHECK(ai.ioapic[0].id == 1 && ai.ioapic[0].phys == 0xfec00000);
  CHECK(ai.ioapic[0].gsi_base == 0);
  CHECK(ai.ioapic[1].id == 2 && ai.ioapic[1].phys == 0xfec01000);
  CHECK(ai.ioapic[1].gsi_base == 24);
  CHECK(ai.niso == 2);
  CHECK(ai.iso[0].bus_irq == 0 && ai.iso[0].gsi == 2 && ai.iso[0].flags == 0);
  CHECK(ai.iso[1].bus_irq == 9 && ai.iso[1].gsi == 9 && ai.iso[1].flags == 0xd);
  CHECK(ai.hpet_phys == 0xfed00000);   // from the XSDT
  CHECK(ai.century == 0x32);

  build_v1();
  CHECK(parse(20, &ai) == 0);
  CHECK(ai.revision == 0);
  CHECK(ai.ncpus == 4 && ai.nioapic == 2 && ai.niso == 2);
  CHECK(ai.hpet_phys == 0xfed80000);   // from the RSDT

  // A revision 2 RSDP cut to 20 bytes (tag 14) still reaches the RSDT.
  build();
  CHECK(parse(20, &ai) == 0);
  CHECK(ai.hpet_phys == 0xfed80000);
  CHECK(warned(&ai, "RSDP copy too short"));
}

// The century register: outside the standard CMOS bank, or in a FADT too short to hold it,
// it is ignored with a warning and the rest of the tables still count.
static void
test_fadt(void)
{
  struct acpi_info ai;

  build();
  mem[FACP_AT + 108] = 0x90;
  fix_sum(FACP_AT);
  CHECK(parse(36, &ai) == 0 && ai.century == 0 && warned(&ai, "century"));
  build();
  mem[FACP_AT + 108] = 0;
  fix_sum(FACP_AT);
  CHECK(parse(36, &ai) == 0 && ai.century == 0 && ai.nwarn == 1);
  build();
  set_len(FACP_AT, 100);
  CHECK(parse(36, &ai) == 0 && ai.century == 0 && warned(&ai, "FADT length invalid"));
  CHECK(ai.ncpus == 4 && ai.hpet_phys == 0xfed00000);
}

static void
test_rsdp(void)
{
  struct acpi_info ai;

  build();
  rsdp[8] ^= 1;
  CHECK(parse(36, &ai) < 0 && failed(&ai, "RSDP checksum"));

  build();
  CHECK(parse(19, &ai) < 0 && failed(&ai, "RSDP too short"));
  CHECK(parse(0, &ai) < 0 && failed(&ai, "RSDP too short"));

  build();
  rsdp[0] = 'X';
  fix_rsdp();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "RSDP signature"));

  // A bad extended checksum costs only the XSDT.
  build();
  rsdp[32] ^= 1;
  CHECK(parse(36, &ai) == 0);
  CHECK(warned(&ai, "RSDP extended checksum"));
  CHECK(ai.hpet_phys == 0xfed80000);

  // Length field larger than the copy we were given.
  build();
  rsdp[20] = 200;
  fix_rsdp();
  CHECK(parse(36, &ai) == 0 && warned(&ai, "RSDP length"));
  CHECK(ai.hpet_phys == 0xfed80000);
}

static void
test_root(void)
{
  struct acpi_info ai;
  u64 far = 0x7fff00000000;

  // Damaged XSDT: the RSDT is used instead.
  build();
  mem[XSDT_AT + 40] ^= 1;
  CHECK(parse(36, &ai) == 0);
  CHECK(warned(&ai, "XSDT checksum"));
  CHECK(warned(&ai, "falling back to RSDT"));
  CHECK(ai.hpet_phys == 0xfed80000);

  // Both damaged: nothing to go on.
  mem[RSDT_AT + 40] ^= 1;
  CHECK(parse(36, &ai) < 0 && failed(&ai, "no usable RSDT or XSDT"));
  CHECK(warned(&ai, "RSDT checksum"));

  // XSDT outside memory.
  build();
  memcpy(rsdp + 24, &far, 8);
  fix_rsdp();
  CHECK(parse(36, &ai) == 0 && warned(&ai, "XSDT outside memory"));

  // No XSDT and no RSDT.
  memset(rsdp + 16, 0, 4);
  memset(rsdp + 24, 0, 8);
  fix_rsdp();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "no usable RSDT or XSDT"));

  // RSDT address pointing at the XSDT: wrong signature.
  build_v1();
  rsdp[16] = XSDT_AT & 0xff;
  rsdp[17] = XSDT_AT >> 8;
  fix_rsdp();
  CHECK(parse(20, &ai) < 0 && warned(&ai, "signature"));

  // A table entry outside memory and a null entry are stepped over.
  build();
  at = XSDT_AT + 36;
  emit(far, 8);
  at = XSDT_AT + 60;
  emit(0, 8);
  set_len(XSDT_AT, 68);
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 4);
  CHECK(warned(&ai, "table outside memory"));
  CHECK(warned(&ai, "null entry"));

  // Odd root length: the partial entry is not read.
  build();
  set_len(XSDT_AT, 36 + 8 * 3 + 5);
  CHECK(parse(36, &ai) == 0 && warned(&ai, "multiple of its entry size"));
}

static void
test_madt_damage(void)
{
  struct acpi_info ai;

  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0, 1);
  emit(0, 1); emit(0, 1);              // type 0, length 0
  lapic(1, 1, 1);
  finish();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "zero length"));

  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0, 1);
  emit(1, 1); emit(40, 1); emit(0, 8); emit(0, 2);  // I/O APIC claiming 40, 12 left
  finish();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "overruns table"));

  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0, 1);
  emit(0, 1);                           // one stray byte at the end
  finish();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "header overruns"));

  // Short entries are skipped, the walk goes on.
  build();
  madt_begin(0xfee00000, 0);
  emit(0, 1); emit(4, 1); emit(0x0101, 2);
  lapic(0, 3, 1);
  finish();
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 1 && ai.apic_id[0] == 3);
  CHECK(warned(&ai, "too short"));

  // Huge length, with a checksum that would match if it were summed.
  build();
  set_len(MADT_AT, 0xfffffff0);
  CHECK(parse(36, &ai) < 0 && failed(&ai, "no usable MADT"));
  CHECK(warned(&ai, "MADT length invalid"));

  // Length under the cap but past the end of memory.
  build();
  set_len(MADT_AT, MEMSIZE - MADT_AT + 16);
  CHECK(parse(36, &ai) < 0 && warned(&ai, "MADT outside memory"));

  // Shorter than the MADT's fixed fields.
  build();
  set_len(MADT_AT, 40);
  CHECK(parse(36, &ai) < 0 && warned(&ai, "MADT length invalid"));

  build();
  mem[MADT_AT + 50] ^= 0x10;
  CHECK(parse(36, &ai) < 0 && warned(&ai, "MADT checksum"));
  CHECK(failed(&ai, "no usable MADT"));

  // No MADT at all.
  build();
  memcpy(mem + MADT_AT, "APIX", 4);
  fix_sum(MADT_AT);
  CHECK(parse(36, &ai) < 0 && failed(&ai, "no usable MADT"));

  // Only disabled CPUs.
  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0, 0);
  lapic(1, 0xff, 0);
  finish();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "no usable CPU"));

  build();
  madt_begin(0, 0);
  lapic(0, 0, 1);
  finish();
  CHECK(parse(36, &ai) < 0 && failed(&ai, "local APIC address"));
}

static void
test_cpus(void)
{
  struct acpi_info ai;
  bool inorder = true;

  // 300 x2APIC CPUs: ids 0..254 fit, 45 do not.
  build();
  madt_begin(0xfee00000, 0);
  for(u32 i = 0; i < 300; i++)
    x2apic(i, 1);
  finish();
  CHECK(parse(36, &ai) == 0);
  CHECK(ai.ncpus == 255);
  CHECK(ai.nx2apic_skipped == 45);
  for(int i = 0; i < ai.ncpus; i++)
    inorder &= ai.apic_id[i] == i;
  CHECK(inorder);

  // 300 xAPIC entries: ids wrap, so duplicates and the broadcast id appear.
  build();
  madt_begin(0xfee00000, 0);
  for(u32 i = 0; i < 300; i++)
    lapic(i, i, 1);
  finish();
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 255);
  CHECK(warned(&ai, "duplicate") && warned(&ai, "broadcast"));

  // Duplicates, also across entry types, keep the first position.
  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 5, 1);
  lapic(1, 1, 1);
  lapic(2, 5, 1);
  x2apic(1, 1);
  x2apic(7, 0);           // disabled: not even a duplicate
  x2apic(8, 2);
  finish();
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 3);
  CHECK(ai.apic_id[0] == 5 && ai.apic_id[1] == 1 && ai.apic_id[2] == 8);
  CHECK(warned(&ai, "duplicate"));

  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0xff, 1);
  lapic(1, 0, 1);
  finish();
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 1 && ai.apic_id[0] == 0);
  CHECK(warned(&ai, "broadcast"));
}

static void
test_other_entries(void)
{
  struct acpi_info ai;

  build();
  madt_begin(0xfee00000, 0);
  lapic(0, 0, 1);
  lapic_override(0x123456789000);
  for(int i = 0; i < 10; i++)
    ioapic(i, 0xfec00000 + 0x1000 * i, 24 * i);
  for(int i = 0; i < 18; i++)
    iso(0, i, i, 0);
  iso(1, 3, 3, 0);
  finish();
  CHECK(parse(36, &ai) == 0);
  CHECK(ai.lapic_phys == 0x123456789000);
  CHECK(!ai.pcat_compat);
  CHECK(ai.nioapic == 8 && ai.ioapic[7].gsi_base == 168);
  CHECK(ai.niso == 16 && ai.iso[15].bus_irq == 15);
  CHECK(warned(&ai, "I/O APICs") && warned(&ai, "overrides"));
  CHECK(warned(&ai, "non-ISA"));

  // The HPET is optional: a bad one costs only itself.
  build();
  mem[HPET_AT + 45] ^= 1;
  CHECK(parse(36, &ai) == 0 && ai.ncpus == 4);
  CHECK(ai.hpet_phys == 0 && warned(&ai, "HPET table checksum"));

  build();
  hpet(HPET_AT, 1, 0x400);   // I/O space
  CHECK(parse(36, &ai) == 0 && ai.hpet_phys == 0);
  CHECK(warned(&ai, "system memory"));

  build();
  hpet(HPET_AT, 0, 0);
  CHECK(parse(36, &ai) == 0 && ai.hpet_phys == 0);
  CHECK(warned(&ai, "base address is zero"));

  build();
  set_len(HPET_AT, 50);
  CHECK(parse(36, &ai) == 0 && ai.hpet_phys == 0);
  CHECK(warned(&ai, "HPET table length"));
}

// xorshift64*: reproducible from the printed seed.
static u64 rng;

static u64
rnd(void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

// Whatever the parser returns must be self-consistent.
static bool
sane(int r, const struct acpi_info *ai)
{
  u64 seen[4] = {0};

  if(ai->nwarn < 0 || ai->nwarn > ACPI_MAXWARN)
    return false;
  if(r != 0)
    return r < 0 && ai->error != NULL;
  if(ai->error || ai->ncpus < 1 || ai->ncpus > ACPI_MAXCPU)
    return false;
  if(ai->nioapic > ACPI_MAXIOAPIC || ai->niso > ACPI_MAXISO)
    return false;
  for(int i = 0; i < ai->ncpus; i++) {
    u8 id = ai->apic_id[i];
    if(id == 0xff || (seen[id / 64] >> (id % 64) & 1))
      return false;
    seen[id / 64] |= 1ull << (id % 64);
  }
  return true;
}

// Each round damages one structure: a few flipped bytes, or a body of
// random bytes; half the time with a fixed checksum so the damage gets
// past the checksum and into the parser proper.
static void
test_fuzz(u64 seed, int rounds)
{
  static const u32 tables[] = { RSDT_AT, XSDT_AT, MADT_AT, HPET_AT };
  struct acpi_info ai;
  int bad = 0, ok = 0;

  printf("fuzz seed %llu, %d rounds\n", (unsigned long long)seed, rounds);
  rng = seed ? seed : 1;
  for(int n = 0; n < rounds; n++) {
    size_t rlen = 36;
    int r, what = rnd() % 6;
    u32 t = tables[rnd() % 4], len;

    build();
    memcpy(&len, mem + t + 4, 4);
    if(what == 0) {
      for(int i = rnd() % 4 + 1; i > 0; i--)
        rsdp[rnd() % 36] = rnd();
      if(rnd() % 2)
        fix_rsdp();
      rlen = rnd() % 37;
    } else if(what <= 3) {
      for(int i = rnd() % 8 + 1; i > 0; i--)
        mem[t + rnd() % len] = rnd();
      if(rnd() % 2)
        fix_sum(t);
    } else if(what == 4) {
      for(u32 i = 36; i < len; i++)
        mem[t + i] = rnd();
      fix_sum(t);
    } else {
      set_len(t, rnd() % 2 ? rnd() % 512 : (u32)rnd());
    }
    r = parse(rlen, &ai);
    ok += r == 0;
    if(!sane(r, &ai) && bad++ == 0)
      fprintf(stderr, "fuzz: inconsistent result in round %d\n", n);
  }
  printf("fuzz: %d of %d rounds parsed\n", ok, rounds);
  CHECK(bad == 0);
  CHECK(ok > 0 && ok < rounds);
}

// A fresh seed each run unless one is given to repeat a failure.
// (Not time(): include/time.h, the kernel's, shadows <time.h> here.)
static u64
new_seed(void)
{
  FILE *f = fopen("/dev/urandom", "r");
  u64 seed = 1;

  if(f) {
    if(fread(&seed, sizeof(seed), 1, f) != 1)
      seed = 1;
    fclose(f);
  }
  return seed;
}

int
main(int argc, char **argv)
{
  u64 seed = argc > 1 ? strtoull(argv[1], NULL, 0) : new_seed();

  test_good();
  test_fadt();
  test_rsdp();
  test_root();
  test_madt_damage();
  test_cpus();
  test_other_entries();
  test_fuzz(seed, 20000);
  free(maps);
  return check_summary("test_acpi");
}
