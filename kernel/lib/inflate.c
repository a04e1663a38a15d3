// DEFLATE decompression (RFC 1951): stored, fixed-Huffman and dynamic-Huffman blocks, decoded
// a bit at a time from canonical code counts, as Mark Adler's puff.c explains the format.
// Every length, distance and code is checked: bad data is an error, never a wild access.
#include "compiler.h"
#include "errno.h"
#include "inflate.h"
#include "string.h"

#define MAXBITS 15      // longest code
#define MAXLCODES 286   // literal/length codes
#define MAXDCODES 30    // distance codes
#define FIXLCODES 288   // the fixed literal/length table's codes (286 and 287 never occur)
#define WMASK (INFLATE_WINDOW - 1)
#define FLUSH_AT (INFLATE_WINDOW / 2)

// A canonical Huffman code: how many codes of each length, and the symbols in code order.
struct huffman {
  short count[MAXBITS + 1];
  short symbol[FIXLCODES];
};

struct state {
  const u8 *in;
  size_t inlen, inpos;
  u32 bitbuf, bitcnt;
  bool short_input;       // a read went past the end of the input
  u8 *win;                // the last INFLATE_WINDOW bytes of output, by position & WMASK
  u64 outpos, flushed;    // bytes made, bytes given to out
  inflate_out_fn out;
  void *arg;
  const char *why;
  struct huffman lencode, distcode;
};

static int
fail(struct state *s, const char *why)
{
  if(!s->why)
    s->why = why;
  return -EINVAL;
}

// Bits come least significant first (RFC 1951 3.1.1). Past the end: zeros and a flag.
static u32
bits(struct state *s, u32 need)
{
  u64 val = s->bitbuf;
  while(s->bitcnt < need) {
    if(s->inpos == s->inlen) {
      s->short_input = true;
      return 0;
    }
    val |= (u64)s->in[s->inpos++] << s->bitcnt;
    s->bitcnt += 8;
  }
  s->bitbuf = (u32)(val >> need);
  s->bitcnt -= need;
  return (u32)(val & ((1ULL << need) - 1));
}

static int
flush(struct state *s)
{
  u64 n = s->outpos - s->flushed;
  if(n == 0)
    return 0;
  // The unflushed bytes never wrap more than once: flushing every FLUSH_AT keeps them below.
  size_t at = s->flushed & WMASK, first = MIN(n, (u64)INFLATE_WINDOW - at);
  int err = s->out(s->arg, s->win + at, first);
  if(!err && first < n)
    err = s->out(s->arg, s->win, n - first);
  s->flushed = s->outpos;
  return err;
}

static int
put(struct state *s, u8 c)
{
  s->win[s->outpos++ & WMASK] = c;
  return s->outpos - s->flushed == FLUSH_AT ? flush(s) : 0;
}

// Stored block (3.2.4): to a byte boundary, LEN and its complement, LEN bytes.
static int
stored(struct state *s)
{
  s->bitbuf = 0;
  s->bitcnt = 0;
  if(s->inlen - s->inpos < 4)
    return fail(s, "stored block cut short");
  const u8 *p = s->in + s->inpos;
  u32 len = p[0] | p[1] << 8, nlen = p[2] | p[3] << 8;
  if(len != (~nlen & 0xffff))
    return fail(s, "stored block length does not match its complement");
  s->inpos += 4;
  if(s->inlen - s->inpos < len)
    return fail(s, "stored block cut short");
  for(u32 i = 0; i < len; i++) {
    int err = put(s, s->in[s->inpos++]);
    if(err)
      return err;
  }
  return 0;
}

// The next symbol of h; -1 for a code h does not have, or input cut short.
static int
decode(struct state *s, const struct huffman *h)
{
  int code = 0, first = 0, index = 0;
  for(int len = 1; len <= MAXBITS; len++) {
    code |= bits(s, 1);
    if(s->short_input)
      return -1;
    int count = h->count[len];
    if(code - count < first)
      return h->symbol[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

// Counts and symbols from the code lengths: 0 for a complete code, > 0 incomplete, < 0
// over-subscribed (more codes of some length than that length can have).
static int
construct(struct huffman *h, const short *length, int n)
{
  short offs[MAXBITS + 1];
  for(int len = 0; len <= MAXBITS; len++)
    h->count[len] = 0;
  for(int sym = 0; sym < n; sym++)
    h->count[length[sym]]++;
  if(h->count[0] == n)
    return 0;   // no codes: complete, and decode never finds one
  int left = 1;
  for(int len = 1; len <= MAXBITS; len++) {
    left <<= 1;
    left -= h->count[len];
    if(left < 0)
      return left;
  }
  offs[1] = 0;
  for(int len = 1; len < MAXBITS; len++)
    offs[len + 1] = offs[len] + h->count[len];
  for(int sym = 0; sym < n; sym++)
    if(length[sym] != 0)
      h->symbol[offs[length[sym]]++] = sym;
  return left;
}

static const short lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35,
                                 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const short lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const short dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                 8193, 12289, 16385, 24577 };
static const short dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

// The literals, lengths and distances of one block, up to its end-of-block code (3.2.5).
static int
codes(struct state *s)
{
  for(;;) {
    int sym = decode(s, &s->lencode), err;
    if(sym < 0)
      return fail(s, s->short_input ? "data cut short" : "invalid literal/length code");
    if(sym < 256) {
      if((err = put(s, sym)))
        return err;
      continue;
    }
    if(sym == 256)
      return 0;
    sym -= 257;
    if(sym >= 29)
      return fail(s, "invalid length symbol");
    u32 len = lbase[sym] + bits(s, lext[sym]);
    int dsym = decode(s, &s->distcode);
    if(dsym < 0 || dsym >= 30)
      return fail(s, s->short_input ? "data cut short" : "invalid distance code");
    u32 dist = dbase[dsym] + bits(s, dext[dsym]);
    if(s->short_input)
      return fail(s, "data cut short");
    if(dist > s->outpos)
      return fail(s, "distance too far back");
    for(; len; len--)
      if((err = put(s, s->win[(s->outpos - dist) & WMASK])))
        return err;
  }
}

// Fixed codes (3.2.6): literal/length lengths 8, 9, 7, 8 by range; 5-bit distances.
static int
fixed(struct state *s)
{
  short lengths[FIXLCODES];
  int sym = 0;
  for(; sym < 144; sym++)
    lengths[sym] = 8;
  for(; sym < 256; sym++)
    lengths[sym] = 9;
  for(; sym < 280; sym++)
    lengths[sym] = 7;
  for(; sym < FIXLCODES; sym++)
    lengths[sym] = 8;
  construct(&s->lencode, lengths, FIXLCODES);
  for(sym = 0; sym < MAXDCODES; sym++)
    lengths[sym] = 5;
  construct(&s->distcode, lengths, MAXDCODES);
  return codes(s);
}

// Dynamic codes (3.2.7): the code-length code, then the two codes' lengths in it.
static int
dynamic(struct state *s)
{
  static const u8 order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
  short lengths[MAXLCODES + MAXDCODES];
  int nlen = bits(s, 5) + 257, ndist = bits(s, 5) + 1, ncode = bits(s, 4) + 4;
  if(nlen > MAXLCODES || ndist > MAXDCODES)
    return fail(s, "too many length or distance codes");
  int idx = 0;
  for(; idx < ncode; idx++)
    lengths[order[idx]] = bits(s, 3);
  for(; idx < 19; idx++)
    lengths[order[idx]] = 0;
  if(s->short_input)
    return fail(s, "data cut short");
  if(construct(&s->lencode, lengths, 19) != 0)
    return fail(s, "incomplete code-length code");
  for(idx = 0; idx < nlen + ndist;) {
    int sym = decode(s, &s->lencode);
    if(sym < 0)
      return fail(s, s->short_input ? "data cut short" : "invalid code-length code");
    if(sym < 16) {
      lengths[idx++] = sym;
      continue;
    }
    short len = 0;
    int rep;
    if(sym == 16) {
      if(idx == 0)
        return fail(s, "repeat with no previous length");
      len = lengths[idx - 1];
      rep = 3 + bits(s, 2);
    } else if(sym == 17)
      rep = 3 + bits(s, 3);
    else
      rep = 11 + bits(s, 7);
    if(idx + rep > nlen + ndist)
      return fail(s, "too many code lengths");
    while(rep--)
      lengths[idx++] = len;
  }
  if(lengths[256] == 0)
    return fail(s, "no end-of-block code");
  // An incomplete code is allowed only when it is a single code of length one.
  int err = construct(&s->lencode, lengths, nlen);
  if(err < 0 || (err > 0 && nlen - s->lencode.count[0] != 1))
    return fail(s, "bad literal/length code lengths");
  err = construct(&s->distcode, lengths + nlen, ndist);
  if(err < 0 || (err > 0 && ndist - s->distcode.count[0] != 1))
    return fail(s, "bad distance code lengths");
  return codes(s);
}

int
inflate(const u8 *in, size_t inlen, size_t *used, u8 *window, inflate_out_fn out, void *arg,
        const char **why)
{
  // The state is some 1.3 KiB: on the stack of the caller of a boot-time unpack, no deeper.
  struct state s = { .in = in, .inlen = inlen, .win = window, .out = out, .arg = arg };
  int last, err = 0;
  do {
    last = bits(&s, 1);
    u32 type = bits(&s, 2);
    if(s.short_input)
      err = fail(&s, "data cut short");
    else if(type == 0)
      err = stored(&s);
    else if(type == 1)
      err = fixed(&s);
    else if(type == 2)
      err = dynamic(&s);
    else
      err = fail(&s, "invalid block type 3");
  } while(!err && !last);
  if(!err)
    err = flush(&s);
  if(used)
    *used = s.inpos;   // whole bytes: the unused bits of the last one are padding
  if(why)
    *why = s.why;
  return err;
}
