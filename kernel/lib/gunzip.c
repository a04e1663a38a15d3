// The gzip file format (RFC 1952) around a DEFLATE stream: the header with its optional
// fields, then the CRC-32 and length of the data in the trailer, both checked.
#include "errno.h"
#include "inflate.h"
#include "string.h"

#define FTEXT    0x01
#define FHCRC    0x02
#define FEXTRA   0x04
#define FNAME    0x08
#define FCOMMENT 0x10
#define FRESERVED 0xe0

// CRC-32 with gzip's reflected polynomial 0xedb88320 (RFC 1952 8), four bits at a time from
// a 16-entry table: small, and fast enough for a boot-time unpack.
u32
crc32_le(u32 crc, const u8 *buf, size_t len)
{
  static const u32 table[16] = {
    0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158,
    0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4,
    0xa00ae278, 0xbdbdf21c,
  };
  crc = ~crc;
  for(size_t i = 0; i < len; i++) {
    crc ^= buf[i];
    crc = (crc >> 4) ^ table[crc & 15];
    crc = (crc >> 4) ^ table[crc & 15];
  }
  return ~crc;
}

bool
gzip_magic(const u8 *in, size_t inlen)
{
  return inlen >= 2 && in[0] == 0x1f && in[1] == 0x8b;
}

struct counted {
  inflate_out_fn out;
  void *arg;
  u32 crc;
  u32 size;   // modulo 2^32, as ISIZE
};

static int
count_out(void *arg, const u8 *buf, size_t len)
{
  struct counted *c = arg;
  c->crc = crc32_le(c->crc, buf, len);
  c->size += (u32)len;
  return c->out(c->arg, buf, len);
}

static u32
le32(const u8 *p)
{
  return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

// The header's length (10 bytes and the optional fields), or 0 with *why.
static size_t
header(const u8 *in, size_t inlen, const char **why)
{
  if(inlen < 10 || !gzip_magic(in, inlen)) {
    *why = "not gzip data";
    return 0;
  }
  if(in[2] != 8) {
    *why = "gzip compression method is not deflate";
    return 0;
  }
  u8 flags = in[3];
  if(flags & FRESERVED) {
    *why = "gzip header has reserved flags set";
    return 0;
  }
  size_t pos = 10;
  if(flags & FEXTRA) {
    if(inlen - pos < 2 || inlen - pos - 2 < (size_t)(in[pos] | in[pos + 1] << 8)) {
      *why = "gzip extra field cut short";
      return 0;
    }
    pos += 2 + (in[pos] | in[pos + 1] << 8);
  }
  for(u8 field = FNAME; field <= FCOMMENT; field <<= 1) {
    if(!(flags & field))
      continue;
    const u8 *nul = memchr(in + pos, 0, inlen - pos);
    if(!nul) {
      *why = "gzip file name or comment has no end";
      return 0;
    }
    pos = nul - in + 1;
  }
  if(flags & FHCRC) {
    if(inlen - pos < 2) {
      *why = "gzip header CRC cut short";
      return 0;
    }
    if((crc32_le(0, in, pos) & 0xffff) != (u32)(in[pos] | in[pos + 1] << 8)) {
      *why = "gzip header CRC does not match";
      return 0;
    }
    pos += 2;
  }
  return pos;
}

int
gunzip(const u8 *in, size_t inlen, size_t *used, u8 *window, inflate_out_fn out, void *arg,
       const char **why)
{
  const char *dummy;
  why = why ? why : &dummy;
  *why = NULL;
  size_t hlen = header(in, inlen, why), dlen = 0;
  if(!hlen)
    return -EINVAL;
  struct counted c = { .out = out, .arg = arg };
  int err = inflate(in + hlen, inlen - hlen, &dlen, window, count_out, &c, why);
  if(err)
    return err;
  size_t pos = hlen + dlen;
  if(inlen - pos < 8) {
    *why = "gzip trailer cut short";
    return -EINVAL;
  }
  if(le32(in + pos) != c.crc) {
    *why = "gzip CRC-32 does not match the data";
    return -EINVAL;
  }
  if(le32(in + pos + 4) != c.size) {
    *why = "gzip length does not match the data";
    return -EINVAL;
  }
  if(used)
    *used = pos + 8;
  return 0;
}
