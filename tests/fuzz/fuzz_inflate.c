// libFuzzer harness for kernel/lib/inflate.c and gunzip.c: the first byte picks raw DEFLATE or
// gzip, the rest is the input. Whatever it is, the decoder stays inside the input and the
// window, and what it reports agrees with what it gave.
#include <string.h>
#include "errno.h"
#include "fuzz.h"
#include "inflate.h"

#define OUT_CAP (8u << 20)   // stops a decompression bomb within the time limit

static unsigned char window[INFLATE_WINDOW];

struct sink {
  size_t len;
  unsigned crc;
};

static int
sink_out(void *arg, const u8 *buf, size_t len)
{
  struct sink *s = arg;
  FUZZ_CHECK(len > 0 && len <= INFLATE_WINDOW);
  FUZZ_CHECK(buf >= window && buf + len <= window + INFLATE_WINDOW);
  s->crc = crc32_le(s->crc, buf, len);
  s->len += len;
  return s->len > OUT_CAP ? -ENOSPC : 0;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  if(size < 1)
    return 0;
  struct sink s = { 0, 0 };
  size_t used = (size_t)-1;
  const char *why = NULL;
  int err;
  if(data[0] & 1)
    err = gunzip(data + 1, size - 1, &used, window, sink_out, &s, &why);
  else
    err = inflate(data + 1, size - 1, &used, window, sink_out, &s, &why);
  FUZZ_CHECK(err == 0 || err == -EINVAL || err == -ENOSPC);
  FUZZ_CHECK(err != -EINVAL || (why != NULL && why[0] != '\0'));
  if(err == 0) {
    FUZZ_CHECK(used <= size - 1);
    if(data[0] & 1) {   // the trailer holds the CRC and length of what came out
      const u8 *t = data + 1 + used - 8;
      FUZZ_CHECK(used >= 18);
      FUZZ_CHECK((unsigned)(t[0] | t[1] << 8 | t[2] << 16 | (unsigned)t[3] << 24) == s.crc);
      FUZZ_CHECK((unsigned)(t[4] | t[5] << 8 | t[6] << 16 | (unsigned)t[7] << 24) ==
                 (unsigned)s.len);
    }
  }
  return 0;
}
