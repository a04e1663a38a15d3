// ACPI table parser: RSDP -> XSDT or RSDT -> MADT, HPET and the FADT's RTC century.
// Section numbers are from the ACPI 6.5 spec; the HPET table from the IA-PC HPET spec 1.0a.
#include "compiler.h"
#include "types.h"
#include <asm/acpi.h>

// A MADT for 255 CPUs is a few KiB; a length field above this is corruption,
// and checksumming it would walk far through memory for nothing.
#define TABLE_MAX (1u << 20)

// 5.2.5.3 Root System Description Pointer
struct rsdp {
  char sig[8];          // "RSD PTR "
  u8 checksum;          // the first 20 bytes sum to 0
  char oem_id[6];
  u8 revision;          // 0 for ACPI 1.0, 2 for ACPI 2.0 and later
  u32 rsdt;
  u32 length;           // the fields from here on exist only in revision 2
  u64 xsdt;
  u8 xchecksum;         // all length bytes sum to 0
  u8 reserved[3];
} __packed;

#define RSDP_V1_LEN 20

// 5.2.6 System Description Table Header, shared by every table.
struct sdt {
  char sig[4];
  u32 length;           // whole table, header included
  u8 revision;
  u8 checksum;          // all length bytes sum to 0
  char oem_id[6];
  char oem_table_id[8];
  u32 oem_revision;
  u32 creator_id;
  u32 creator_revision;
} __packed;

// 5.2.12 Multiple APIC Description Table: this header, then entries.
struct madt {
  struct sdt h;
  u32 lapic;
  u32 flags;
} __packed;

#define MADT_PCAT_COMPAT 1

struct madt_entry {
  u8 type;
  u8 length;
} __packed;

#define MADT_LAPIC 0
#define MADT_IOAPIC 1
#define MADT_ISO 2
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9

// 5.2.12.2 Processor Local APIC
struct madt_lapic {
  struct madt_entry e;
  u8 uid;
  u8 id;
  u32 flags;
} __packed;

// Local APIC flags (5.2.12.2 table 5.23), also used by x2APIC entries.
#define LAPIC_ENABLED 1
#define LAPIC_ONLINE_CAPABLE 2

// 5.2.12.3 I/O APIC
struct madt_ioapic {
  struct madt_entry e;
  u8 id;
  u8 reserved;
  u32 addr;
  u32 gsi_base;
} __packed;

// 5.2.12.5 Interrupt Source Override
struct madt_iso {
  struct madt_entry e;
  u8 bus;               // 0: ISA, the only bus defined
  u8 source;            // bus-relative IRQ
  u32 gsi;
  u16 flags;
} __packed;

// 5.2.12.8 Local APIC Address Override
struct madt_lapic_override {
  struct madt_entry e;
  u16 reserved;
  u64 addr;
} __packed;

// 5.2.12.12 Processor Local x2APIC
struct madt_x2apic {
  struct madt_entry e;
  u16 reserved;
  u32 id;
  u32 flags;
  u32 uid;
} __packed;

// 5.2.3.2 Generic Address Structure
struct gas {
  u8 space;
  u8 bit_width;
  u8 bit_offset;
  u8 access_size;
  u64 addr;
} __packed;

#define GAS_SYSTEM_MEMORY 0

// IA-PC HPET spec 1.0a, section 3.2.4, table 3
struct hpet {
  struct sdt h;
  u32 block_id;
  struct gas base;
  u8 number;
  u16 min_tick;
  u8 protection;
} __packed;

// The warnings for one kind of table, so each message names its table.
struct kind {
  char sig[4];
  const char *unmapped;
  const char *badlen;
  const char *badsum;
};

static const struct kind xsdt_kind = {
  "XSDT", "XSDT outside memory", "XSDT length invalid", "XSDT checksum mismatch",
};
static const struct kind rsdt_kind = {
  "RSDT", "RSDT outside memory", "RSDT length invalid", "RSDT checksum mismatch",
};
static const struct kind madt_kind = {
  "APIC", "MADT outside memory", "MADT length invalid", "MADT checksum mismatch",
};
static const struct kind fadt_kind = {
  "FACP", "FADT outside memory", "FADT length invalid", "FADT checksum mismatch",
};
static const struct kind hpet_kind = {
  "HPET", "HPET table outside memory", "HPET table length invalid",
  "HPET table checksum mismatch",
};

static bool
same(const char *a, const char *b, int n)
{
  for(int i = 0; i < n; i++)
    if(a[i] != b[i])
      return false;
  return true;
}

// 5.2.5.3 and 5.2.6: a structure is valid when its bytes sum to 0 mod 256.
static bool
sum_ok(const void *p, size_t n)
{
  const u8 *b = p;
  u8 sum = 0;

  for(size_t i = 0; i < n; i++)
    sum += b[i];
  return sum == 0;
}

static void
warn(struct acpi_info *ai, const char *msg)
{
  for(int i = 0; i < ai->nwarn; i++)
    if(ai->warn[i] == msg)
      return;
  if(ai->nwarn < ACPI_MAXWARN)
    ai->warn[ai->nwarn++] = msg;
}

static int
fail(struct acpi_info *ai, const char *msg)
{
  ai->error = msg;
  return -1;
}

// Map a whole table and check its header: signature, length and checksum.
// Returns NULL, with a warning, if any check fails; else sets *len.
static const void *
map_table(u64 phys, const struct kind *k, size_t minlen,
          struct acpi_info *ai, u32 *len)
{
  const struct sdt *h;

  if((h = acpi_map(phys, sizeof(*h))) == NULL) {
    warn(ai, k->unmapped);
    return NULL;
  }
  if(!same(h->sig, k->sig, 4)) {
    warn(ai, "table signature mismatch");
    return NULL;
  }
  *len = h->length;
  if(*len < minlen || *len > TABLE_MAX) {
    warn(ai, k->badlen);
    return NULL;
  }
  if((h = acpi_map(phys, *len)) == NULL) {
    warn(ai, k->unmapped);
    return NULL;
  }
  if(!sum_ok(h, *len)) {
    warn(ai, k->badsum);
    return NULL;
  }
  return h;
}

// The revision 2 fields are usable only if the copy holds them all and
// the extended checksum over length bytes holds (5.2.5.3).
static bool
xsdp_ok(const struct rsdp *r, size_t rsdp_len, struct acpi_info *ai)
{
  if(rsdp_len < sizeof(*r)) {
    warn(ai, "RSDP copy too short for revision 2");
    return false;
  }
  if(r->length < sizeof(*r) || r->length > rsdp_len) {
    warn(ai, "RSDP length invalid");
    return false;
  }
  if(!sum_ok(r, r->length)) {
    warn(ai, "RSDP extended checksum mismatch");
    return false;
  }
  return r->xsdt != 0;
}

// Pick the root table. ACPI 2.0+ OSes must prefer the XSDT (5.2.5.3). If it
// is damaged we fall back to the RSDT, as Linux does for an XSDT it cannot
// use (acpi_tb_validate_xsdt): firmware builds both over the same tables,
// and the RSDT has its own checksum.
static const u8 *
map_root(const struct rsdp *r, size_t rsdp_len, struct acpi_info *ai,
         u32 *len, size_t *esize)
{
  const u8 *t;

  if(r->revision >= 2 && xsdp_ok(r, rsdp_len, ai)) {
    *esize = 8;
    if((t = map_table(r->xsdt, &xsdt_kind, sizeof(struct sdt), ai, len)))
      return t;
    warn(ai, "XSDT unusable, falling back to RSDT");
  }
  *esize = 4;
  if(r->rsdt == 0)
    return NULL;
  return map_table(r->rsdt, &rsdt_kind, sizeof(struct sdt), ai, len);
}

// Root table entries are 4 or 8 byte little-endian addresses; XSDT
// entries sit at offset 36, so they are not 8-byte aligned.
static u64
entry_addr(const u8 *p, size_t size)
{
  u64 v = 0;

  for(size_t i = size; i-- > 0; )
    v = v << 8 | p[i];
  return v;
}

// Ids are checked to be 0..254 and duplicates are dropped,
// so apic_id[] (255 slots) cannot overflow.
static void
add_cpu(struct acpi_info *ai, u64 *seen, u32 id)
{
  if(seen[id / 64] >> (id % 64) & 1) {
    warn(ai, "duplicate APIC id ignored");
    return;
  }
  seen[id / 64] |= 1ull << (id % 64);
  ai->apic_id[ai->ncpus++] = id;
}

// Usable: enabled, or online-capable (ACPI 6.3+: off at boot, but the
// platform supports enabling it at runtime). Online-capable CPUs are kept
// so SMP bring-up tries them; one that is not there fails its startup IPI.
static bool
usable(u32 flags)
{
  return flags & (LAPIC_ENABLED | LAPIC_ONLINE_CAPABLE);
}

static void
madt_lapic(const struct madt_lapic *e, struct acpi_info *ai, u64 *seen)
{
  // Firmware often lists absent CPU sockets as disabled entries with
  // id 0xff, so check the flags before complaining about the id.
  if(!usable(e->flags))
    return;
  if(e->id == 0xff) {
    warn(ai, "APIC id 255 (broadcast) ignored");
    return;
  }
  add_cpu(ai, seen, e->id);
}

// x2APIC entries describe CPUs whose ids may not fit the 8-bit xAPIC id
// (5.2.12.12); the kernel drives the local APIC in xAPIC mode.
static void
madt_x2apic(const struct madt_x2apic *e, struct acpi_info *ai, u64 *seen)
{
  if(!usable(e->flags))
    return;
  if(e->id > 254) {
    ai->nx2apic_skipped++;
    warn(ai, "x2APIC-only CPUs skipped in xAPIC mode");
    return;
  }
  add_cpu(ai, seen, e->id);
}

static void
madt_ioapic(const struct madt_ioapic *e, struct acpi_info *ai)
{
  struct acpi_ioapic *io;

  if(ai->nioapic == ACPI_MAXIOAPIC) {
    warn(ai, "too many I/O APICs, extra ignored");
    return;
  }
  io = &ai->ioapic[ai->nioapic++];
  io->id = e->id;
  io->phys = e->addr;
  io->gsi_base = e->gsi_base;
}

static void
madt_iso(const struct madt_iso *e, struct acpi_info *ai)
{
  struct acpi_iso *iso;

  if(e->bus != 0) {
    warn(ai, "override for a non-ISA bus ignored");
    return;
  }
  if(ai->niso == ACPI_MAXISO) {
    warn(ai, "too many interrupt overrides, extra ignored");
    return;
  }
  iso = &ai->iso[ai->niso++];
  iso->bus_irq = e->source;
  iso->gsi = e->gsi;
  iso->flags = e->flags;
}

// Minimum length of each entry type the parser reads; 0 for the others
// (NMI sources, GIC entries, ...), which are skipped.
static u8
entry_min(u8 type)
{
  switch(type) {
  case MADT_LAPIC: return sizeof(struct madt_lapic);
  case MADT_IOAPIC: return sizeof(struct madt_ioapic);
  case MADT_ISO: return sizeof(struct madt_iso);
  case MADT_LAPIC_OVERRIDE: return sizeof(struct madt_lapic_override);
  case MADT_X2APIC: return sizeof(struct madt_x2apic);
  default: return 0;
  }
}

static void
madt_entry(const struct madt_entry *e, struct acpi_info *ai, u64 *seen)
{
  if(e->length < entry_min(e->type)) {
    warn(ai, "MADT entry too short, skipped");
    return;
  }
  switch(e->type) {
  case MADT_LAPIC:
    madt_lapic((const struct madt_lapic *)e, ai, seen);
    break;
  case MADT_IOAPIC:
    madt_ioapic((const struct madt_ioapic *)e, ai);
    break;
  case MADT_ISO:
    madt_iso((const struct madt_iso *)e, ai);
    break;
  case MADT_LAPIC_OVERRIDE:
    ai->lapic_phys = ((const struct madt_lapic_override *)e)->addr;
    break;
  case MADT_X2APIC:
    madt_x2apic((const struct madt_x2apic *)e, ai, seen);
    break;
  }
}

// Walk the entries. A bad entry length leaves the rest of the table
// unreadable, and a partial list could miss the I/O APIC that routes the
// timer, so it fails the whole MADT rather than boot on half a picture.
static int
parse_madt(const struct madt *m, u32 len, struct acpi_info *ai)
{
  const u8 *p = (const u8 *)m;
  u64 seen[4] = {0};   // bitmap of APIC ids already taken

  ai->lapic_phys = m->lapic;
  ai->pcat_compat = m->flags & MADT_PCAT_COMPAT;
  for(u32 off = sizeof(*m); off < len; ) {
    const struct madt_entry *e = (const struct madt_entry *)(p + off);
    if(len - off < sizeof(*e))
      return fail(ai, "MADT entry header overruns table");
    if(e->length == 0)
      return fail(ai, "MADT entry with zero length");
    if(e->length > len - off)
      return fail(ai, "MADT entry overruns table");
    madt_entry(e, ai, seen);
    off += e->length;
  }
  if(ai->lapic_phys == 0)
    return fail(ai, "MADT gives no local APIC address");
  if(ai->ncpus == 0)
    return fail(ai, "MADT lists no usable CPU");
  return 0;
}

static void
parse_hpet(const struct hpet *h, struct acpi_info *ai)
{
  if(h->base.space != GAS_SYSTEM_MEMORY) {
    warn(ai, "HPET not in system memory space, ignored");
    return;
  }
  if(h->base.addr == 0) {
    warn(ai, "HPET base address is zero, ignored");
    return;
  }
  ai->hpet_phys = h->base.addr;
}

// 5.2.9, table 5.9: CENTURY, at offset 108 since ACPI 1.0, is the RTC's CMOS RAM index of
// the century in BCD, or 0 if the RTC has none. An index outside the 128 bytes of the
// standard bank cannot be read through ports 0x70/0x71: ignored with a warning.
#define FADT_CENTURY 108

static void
parse_fadt(const u8 *f, struct acpi_info *ai)
{
  u8 c = f[FADT_CENTURY];
  if(c >= 0x80 || (c != 0 && c < 0x0e)) {
    warn(ai, "FADT century register outside CMOS RAM, ignored");
    return;
  }
  ai->century = c;
}

int
acpi_parse(const void *rsdp, size_t rsdp_len, struct acpi_info *ai)
{
  const struct rsdp *r = rsdp;
  const struct madt *madt = NULL;
  const struct hpet *hpet;
  const u8 *fadt = NULL;
  const struct sdt *h;
  const u8 *root;
  u32 len, madt_len = 0, hpet_len, fadt_len;
  size_t esize;

  *ai = (struct acpi_info){0};
  if(rsdp_len < RSDP_V1_LEN)
    return fail(ai, "RSDP too short");
  if(!same(r->sig, "RSD PTR ", 8))
    return fail(ai, "RSDP signature mismatch");
  if(!sum_ok(r, RSDP_V1_LEN))
    return fail(ai, "RSDP checksum mismatch");
  ai->revision = r->revision;
  for(int i = 0; i < 6; i++)
    ai->oem_id[i] = r->oem_id[i];

  if((root = map_root(r, rsdp_len, ai, &len, &esize)) == NULL)
    return fail(ai, "no usable RSDT or XSDT");
  if((len - sizeof(struct sdt)) % esize != 0)
    warn(ai, "root table length not a multiple of its entry size");

  // Only the signature of most tables is read; the first valid MADT,
  // HPET table and FADT are parsed, later ones ignored.
  for(u32 off = sizeof(struct sdt); len - off >= esize; off += esize) {
    u64 phys = entry_addr(root + off, esize);
    if(phys == 0) {
      warn(ai, "null entry in root table");
      continue;
    }
    if((h = acpi_map(phys, sizeof(*h))) == NULL) {
      warn(ai, "table outside memory");
      continue;
    }
    if(madt == NULL && same(h->sig, "APIC", 4))
      madt = map_table(phys, &madt_kind, sizeof(*madt), ai, &madt_len);
    if(ai->hpet_phys == 0 && same(h->sig, "HPET", 4)) {
      hpet = map_table(phys, &hpet_kind, sizeof(*hpet), ai, &hpet_len);
      if(hpet)
        parse_hpet(hpet, ai);
    }
    if(fadt == NULL && same(h->sig, "FACP", 4)) {
      fadt = map_table(phys, &fadt_kind, FADT_CENTURY + 1, ai, &fadt_len);
      if(fadt)
        parse_fadt(fadt, ai);
    }
  }
  if(madt == NULL)
    return fail(ai, "no usable MADT");
  return parse_madt(madt, madt_len, ai);
}
