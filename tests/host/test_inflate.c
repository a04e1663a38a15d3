// Host test of kernel/lib/inflate.c and gunzip.c: known vectors (stored, fixed and dynamic
// blocks, every header field), round trips against the host's gzip at every level, and bad
// input of every kind rejected with a reason.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "errno.h"
#include "inflate.h"

static unsigned char window[INFLATE_WINDOW];

struct sink {
  unsigned char *buf;
  size_t len, cap;
  size_t calls;
};

static int
sink_out(void *arg, const u8 *buf, size_t len)
{
  struct sink *s = arg;
  if(s->len + len > s->cap) {
    s->cap = (s->len + len) * 2;
    s->buf = realloc(s->buf, s->cap);
  }
  memcpy(s->buf + s->len, buf, len);
  s->len += len;
  s->calls++;
  return 0;
}

static int
run_gunzip(const u8 *in, size_t len, struct sink *s, size_t *used, const char **why)
{
  memset(s, 0, sizeof(*s));
  return gunzip(in, len, used, window, sink_out, s, why);
}

// Host gzip of data at level: the compressed bytes in *out.
static size_t
host_gzip(const u8 *data, size_t len, int level, u8 **out)
{
  char cmd[64], in_name[] = "/tmp/test_inflate.XXXXXX";
  int fd = mkstemp(in_name);
  FILE *f = fdopen(fd, "w");
  fwrite(data, 1, len, f);
  fclose(f);
  snprintf(cmd, sizeof(cmd), "gzip -n -%d -c %s", level, in_name);
  FILE *p = popen(cmd, "r");
  size_t cap = len + 4096, n = 0, r;
  *out = malloc(cap);
  while((r = fread(*out + n, 1, cap - n, p)) > 0)
    if((n += r) == cap)
      *out = realloc(*out, cap *= 2);
  pclose(p);
  unlink(in_name);
  return n;
}

static void
round_trip(const u8 *data, size_t len, int level)
{
  u8 *gz;
  size_t gzlen = host_gzip(data, len, level, &gz), used = 0;
  struct sink s;
  const char *why = NULL;
  CHECK(gzlen > 18);
  int err = run_gunzip(gz, gzlen, &s, &used, &why);
  CHECK(err == 0);
  if(err)
    fprintf(stderr, "level %d len %zu: %s\n", level, len, why);
  CHECK(used == gzlen);
  CHECK(s.len == len && (len == 0 || memcmp(s.buf, data, len) == 0));
  // Every shorter prefix is refused, none is read past (ASan) and none crashes.
  for(size_t cut = 0; cut < gzlen; cut += 1 + gzlen / 64) {
    struct sink t;
    why = NULL;
    CHECK(run_gunzip(gz, cut, &t, NULL, &why) == -EINVAL && why != NULL);
    free(t.buf);
  }
  // A flipped bit in the data or the trailer never gives other data silently.
  for(size_t at = 10; at < gzlen; at += 1 + gzlen / 16) {
    struct sink t;
    gz[at] ^= 0x10;
    int r = run_gunzip(gz, gzlen, &t, NULL, NULL);
    // Padding bits, and a match's distance in a run of one byte, may change nothing.
    CHECK(r != 0 || (t.len == len && memcmp(t.buf, data, len) == 0));
    gz[at] ^= 0x10;
    free(t.buf);
  }
  free(s.buf);
  free(gz);
}

// Known vectors, made once with Python's zlib and gzip and checked by hand against RFC 1951.
static void
vectors(void)
{
  struct sink s;
  size_t used;
  const char *why;
  // Empty input, fixed Huffman: "1f8b 0800 ... 0300 ... 00000000 00000000".
  static const u8 empty[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
  CHECK(run_gunzip(empty, sizeof(empty), &s, &used, &why) == 0 && s.len == 0 &&
        used == sizeof(empty));
  free(s.buf);
  // "hello\n" in one stored block, with FNAME "h" and FCOMMENT "c"; CRC 0x363a3020.
  static const u8 stored[] = { 0x1f, 0x8b, 8, 0x18, 0, 0, 0, 0, 0, 3, 'h', 0, 'c', 0,
                               1, 6, 0, 0xf9, 0xff, 'h', 'e', 'l', 'l', 'o', '\n',
                               0x20, 0x30, 0x3a, 0x36, 6, 0, 0, 0 };
  CHECK(run_gunzip(stored, sizeof(stored), &s, &used, &why) == 0 && s.len == 6 &&
        memcmp(s.buf, "hello\n", 6) == 0);
  free(s.buf);
  // "aaaaaaaaaa" with fixed codes: a literal and a match of length 9 at distance 1.
  static const u8 fixed[] = { 0x4b, 0x4c, 0x84, 0x01, 0x00 };
  memset(&s, 0, sizeof(s));
  CHECK(inflate(fixed, sizeof(fixed), &used, window, sink_out, &s, &why) == 0 && s.len == 10 &&
        memcmp(s.buf, "aaaaaaaaaa", 10) == 0 && used == sizeof(fixed));
  free(s.buf);
  // The CRC-32 check value of RFC 1952's polynomial.
  CHECK(crc32_le(0, (const u8 *)"123456789", 9) == 0xcbf43926);
  // Bad input: each refused with a reason.
  static const struct {
    u8 bytes[8];
    size_t len;
  } bad[] = {
    { { 0xff }, 1 },                           // block type 3
    { { 0x01, 0x05, 0x00, 0x00, 0x00 }, 5 },   // stored LEN and NLEN disagree
    { { 0x03, 0x02, 0x00 }, 3 },               // fixed block: a match before any output
    { { 0x04, 0xff }, 2 },                     // dynamic block cut short
    { { 0x05, 0xe0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8 },   // too many length codes
  };
  for(size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    memset(&s, 0, sizeof(s));
    why = NULL;
    CHECK(inflate(bad[i].bytes, bad[i].len, NULL, window, sink_out, &s, &why) == -EINVAL &&
          why != NULL);
    free(s.buf);
  }
  static const u8 notgz[] = { 0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3, 3, 0 };
  CHECK(run_gunzip(notgz, sizeof(notgz), &s, NULL, &why) == -EINVAL && strstr(why, "method"));
  static const u8 reserved[] = { 0x1f, 0x8b, 8, 0x20, 0, 0, 0, 0, 0, 3, 3, 0 };
  CHECK(run_gunzip(reserved, sizeof(reserved), &s, NULL, &why) == -EINVAL);
  CHECK(!gzip_magic(notgz, 1) && gzip_magic(notgz, 2));
}

static int
failing_out(void *arg, const u8 *buf, size_t len)
{
  return -ENOSPC;
}

int
main(void)
{
  vectors();
  // Text that compresses well, random bytes that do not (stored blocks), and runs longer
  // than the window, so matches cross the window's wrap and many flushes happen.
  size_t len = 300 * 1024;
  u8 *text = malloc(len), *noise = malloc(len);
  srand(1);
  for(size_t i = 0; i < len; i++) {
    text[i] = "the quick brown fox jumps over the lazy dog\n"[(i * 7 + i / 1000) % 44];
    noise[i] = rand();
  }
  for(int level = 1; level <= 9; level += 4) {
    round_trip(text, len, level);
    round_trip(noise, 70000, level);
  }
  round_trip(text, 0, 6);
  round_trip(text, 1, 6);
  memset(text, 'z', len);
  round_trip(text, len, 9);   // long runs: distance 1 over and over
  // The callback's error stops decompression and is returned.
  u8 *gz;
  size_t gzlen = host_gzip(noise, 1000, 6, &gz);
  CHECK(gunzip(gz, gzlen, NULL, window, failing_out, NULL, NULL) == -ENOSPC);
  free(gz);
  free(text);
  free(noise);
  return check_summary("test_inflate");
}
