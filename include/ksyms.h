// The kernel's own symbol table, embedded at link time from `nm` (tools/ksyms.sh), and its lookup.
// The lookup is pure, so the host test runs it on tables of its own.
#pragma once
#include "types.h"

struct ksym_table {
  u64 count;
  const u64 *addr;       // sorted ascending
  const u32 *name_off;   // offset of each name in names
  const char *names;
};

// The function containing addr: its name, and addr's offset into it; NULL if
// addr lies outside [first symbol, end).
const char *ksym_find(const struct ksym_table *t, u64 end, u64 addr, u64 *offset);
// The kernel's embedded table: build/ksyms.S, which tools/ksyms.sh writes at link time.
extern const u64 ksyms_count;
extern const u64 ksyms_addr[];
extern const u32 ksyms_name_off[];
extern const char ksyms_names[];

// The same over the kernel's embedded table and text.
const char *ksym_lookup(u64 addr, u64 *offset);
