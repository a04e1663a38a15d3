// What the VFS self-tests share: one ramfs mount per page-cache variant, file contents
// that are a function of (seed, offset), and their checksum.
#pragma once
#include "fs.h"
#include "types.h"

// Every variant, the radix ones at two fanouts between them.
static const struct {
  enum pagecache_variant variant;
  unsigned fanout;
} vfs_test_variants[NR_PC_VARIANTS] = {
  { PC_HASH_GLOBAL, 0 }, { PC_HASH_BUCKET, 0 }, { PC_RADIX_LOCK, 16 }, { PC_RADIX_RCU, 128 },
};

static inline u8
pattern_byte(u64 seed, u64 off)
{
  return ((seed + (off >> 3)) * 0x9e3779b97f4a7c15UL) >> (8 * (off & 7));
}

static inline void
pattern_fill(u8 *buf, u64 seed, u64 off, size_t n)
{
  for(size_t i = 0; i < n; i++)
    buf[i] = pattern_byte(seed, off + i);
}

// FNV-1a over 64 bits, continued from h.
static inline u64
checksum(u64 h, const u8 *buf, size_t n)
{
  for(size_t i = 0; i < n; i++)
    h = (h ^ buf[i]) * 0x100000001b3UL;
  return h;
}

#define CHECKSUM_INIT 0xcbf29ce484222325UL

// The checksum the first size bytes of a file written with seed must have.
static inline u64
pattern_checksum(u64 seed, u64 size)
{
  u64 h = CHECKSUM_INIT;
  for(u64 o = 0; o < size; o++) {
    u8 b = pattern_byte(seed, o);
    h = checksum(h, &b, 1);
  }
  return h;
}
