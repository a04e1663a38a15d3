// Host test for kernel/lib/vsprintf.c: compares it with the host libc's snprintf.
// Thousands of random conversions from the supported subset, then the edge cases.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Must come before vsprintf.h, which renames snprintf to the kernel's.
static int
libc_snprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

#include "check.h"
#include "vsprintf.h"

#define BUF 512
#define CANARY 0x5a

static char kbuf[BUF], lbuf[BUF];
static int kret, lret;

// One formatted value, described so both printfs can be called with it.
enum { T_INT, T_UINT, T_LONG, T_ULONG, T_LL, T_ULL, T_SIZE, T_PTRDIFF, T_STR };

struct arg {
  int type;
  long long i;
  const char *s;
  int nstar;  // '*' arguments before the value
  int star[2];
};

// Calls f with fmt, the star arguments and a, the value cast to type.
#define CALL(f, buf, size, fmt, a, v)                                        \
  ((a)->nstar == 0   ? f(buf, size, fmt, v)                                 \
   : (a)->nstar == 1 ? f(buf, size, fmt, (a)->star[0], v)                   \
                     : f(buf, size, fmt, (a)->star[0], (a)->star[1], v))

#define BOTH(size, fmt, a, v)                                                \
  do {                                                                       \
    kret = CALL(snprintf, kbuf, size, fmt, a, v);                            \
    lret = CALL(libc_snprintf, lbuf, size, fmt, a, v);                       \
  } while(0)

// Formats with both, into buffers of the given size filled with a canary,
// and reports whether return values, text and untouched tails agree.
static int
same(const char *fmt, struct arg *a, size_t size)
{
  memset(kbuf, CANARY, BUF);
  memset(lbuf, CANARY, BUF);
  switch(a->type) {
  case T_INT: BOTH(size, fmt, a, (int)a->i); break;
  case T_UINT: BOTH(size, fmt, a, (unsigned)a->i); break;
  case T_LONG: BOTH(size, fmt, a, (long)a->i); break;
  case T_ULONG: BOTH(size, fmt, a, (unsigned long)a->i); break;
  case T_LL: BOTH(size, fmt, a, a->i); break;
  case T_ULL: BOTH(size, fmt, a, (unsigned long long)a->i); break;
  case T_SIZE: BOTH(size, fmt, a, (size_t)a->i); break;
  case T_PTRDIFF: BOTH(size, fmt, a, (ptrdiff_t)a->i); break;
  case T_STR: BOTH(size, fmt, a, a->s); break;
  }
  if(kret != lret || memcmp(kbuf, lbuf, BUF) != 0) {
    fprintf(stderr, "mismatch: fmt \"%s\" size %zu: kernel %d \"%.*s\" libc %d \"%.*s\"\n",
            fmt, size, kret, (int)strnlen(kbuf, size), kbuf, lret,
            (int)strnlen(lbuf, size), lbuf);
    return 0;
  }
  return 1;
}

static u64
rnd64(void)
{
  return (u64)rand() << 42 ^ (u64)rand() << 21 ^ (u64)rand();
}

// A value that exercises the edges: small, all-ones, sign bits, random.
static long long
rndval(void)
{
  static const long long edges[] = {
    0, 1, -1, 7, 8, 9, 10, 15, 16, 127, 128, 255, 256, -128, -129,
    32767, -32768, 65535, INT32_MAX, INT32_MIN, UINT32_MAX,
    INT64_MAX, INT64_MIN, (long long)UINT64_MAX,
  };

  switch(rand() % 3) {
  case 0: return edges[rand() % ARRAY_SIZE(edges)];
  case 1: return (long long)(rnd64() % 100000) - 50000;
  default: return (long long)rnd64();
  }
}

static const char *const strs[] = {
  "", "a", "hello", "hello, world", "tab\there", "0123456789abcdefghij", NULL,
};

// Appends a random conversion from the subset whose meaning C defines, and
// fills in the argument it takes.
static void
rndspec(char *f, struct arg *a)
{
  static const char convs[] = "diuxXocs";
  static const char *const lens[] = { "", "hh", "h", "l", "ll", "z", "t" };
  static const int types[][2] = {  // signed, unsigned type per length
    { T_INT, T_UINT }, { T_INT, T_UINT }, { T_INT, T_UINT }, { T_LONG, T_ULONG },
    { T_LL, T_ULL }, { T_SIZE, T_SIZE }, { T_PTRDIFF, T_PTRDIFF },
  };
  char c = convs[rand() % (sizeof(convs) - 1)];
  bool integer = strchr("diuxXo", c) != NULL;
  bool issigned = c == 'd' || c == 'i';
  int len = integer ? rand() % ARRAY_SIZE(lens) : 0;
  bool prec = true;

  a->nstar = 0;
  *f++ = '%';
  if(rand() % 3 == 0)
    *f++ = '-';
  if(integer && rand() % 3 == 0)
    *f++ = '0';
  if(issigned && rand() % 4 == 0)
    *f++ = ' ';
  if(issigned && rand() % 4 == 0)
    *f++ = '+';
  if(strchr("xXo", c) && rand() % 3 == 0)
    *f++ = '#';
  switch(rand() % 4) {
  case 0: f += sprintf(f, "%d", rand() % 30); break;
  case 1:
    *f++ = '*';
    a->star[a->nstar++] = rand() % 60 - 30;
    break;
  }
  if(c != 'c') {
    switch(rand() % 4) {
    case 0: f += sprintf(f, ".%d", rand() % 25); break;
    case 1: *f++ = '.'; break;
    case 2:
      f += sprintf(f, ".*");
      a->star[a->nstar++] = rand() % 40 - 10;
      break;
    default: prec = false; break;
    }
  }
  f += sprintf(f, "%s%c", lens[len], c);
  *f = '\0';

  a->i = rndval();
  a->s = NULL;
  if(c == 's') {
    a->type = T_STR;
    a->s = strs[rand() % ARRAY_SIZE(strs)];
    // glibc prints "" for NULL under a precision below 6; the kernel cuts "(null)".
    if(a->s == NULL && prec)
      a->s = "x";
  } else if(c == 'c') {
    a->type = T_INT;
    a->i = rand() % 255 + 1;
  } else {
    a->type = types[len][!issigned];
  }
}

// Random text around one random conversion, into random buffer sizes.
static void
test_random(int rounds)
{
  static const char lits[][8] = { "", "x", "[", "] ", "%%", "ab%%cd", "\n" };
  char fmt[128];
  struct arg a;
  int i, n, bad = 0;

  for(i = 0; i < rounds; i++) {
    n = sprintf(fmt, "%s", lits[rand() % ARRAY_SIZE(lits)]);
    rndspec(fmt + n, &a);
    sprintf(fmt + strlen(fmt), "%s", lits[rand() % ARRAY_SIZE(lits)]);
    if(!same(fmt, &a, BUF))
      bad++;
    if(!same(fmt, &a, rand() % 40))
      bad++;
  }
  printf("random: %d formats, %d mismatches\n", rounds, bad);
  CHECK(bad == 0);
}

// Formats several arguments at once, as printk lines do.
static void
test_lines(void)
{
  char b[64];

  CHECK(snprintf(b, sizeof(b), "[%5u.%06u] ", 12, 3456) == 15);
  CHECK(strcmp(b, "[   12.003456] ") == 0);
  CHECK(snprintf(b, sizeof(b), "[%5u.%06u] ", 123456, 999999) == 16);
  CHECK(strcmp(b, "[123456.999999] ") == 0);
  CHECK(snprintf(b, sizeof(b), "cpu%d: %s %lu pages, %zx%c", 3, "ok", 4096ul,
                 (size_t)255, '!') == 24);
  CHECK(strcmp(b, "cpu3: ok 4096 pages, ff!") == 0);
  CHECK(snprintf(b, sizeof(b), "%%%d%%", 5) == 3 && strcmp(b, "%5%") == 0);
  CHECK(snprintf(b, sizeof(b), "%c%c%c", 'a', 'b', 'c') == 3 && strcmp(b, "abc") == 0);
}

static void
test_edges(void)
{
  struct arg a = { .type = T_LL };
  char b[32];
  char unterminated[3] = { 'a', 'b', 'c' };
  const char *volatile null = NULL;
  const char *volatile huge[] = { "%99999999999d", "%*d" };
  int i;

  // size 0 writes nothing, not even the NUL, but still counts.
  memset(b, CANARY, sizeof(b));
  CHECK(snprintf(b, 0, "%d", 12345) == 5);
  CHECK(b[0] == CANARY);
  CHECK(snprintf(NULL, 0, "%s-%s", "abc", "de") == 6);
  // size 1 holds only the NUL.
  CHECK(snprintf(b, 1, "hello") == 5 && b[0] == '\0' && b[1] == CANARY);
  // Truncation keeps the prefix and terminates it.
  CHECK(snprintf(b, 4, "%s", "hello") == 5 && strcmp(b, "hel") == 0);
  CHECK(b[4] == CANARY);

  a.i = INT64_MIN;
  for(i = 1; i <= 30; i++) {
    CHECK(same("%lld", &a, i));
    a.type = T_ULL;
    a.i = (long long)UINT64_MAX;
    CHECK(same("%llu", &a, i));
    CHECK(same("%#llo", &a, i));
    CHECK(same("%#llX", &a, i));
    a.type = T_LL;
    a.i = INT64_MIN;
  }
  CHECK(snprintf(b, sizeof(b), "%lld", (long long)INT64_MIN) == 20);
  CHECK(strcmp(b, "-9223372036854775808") == 0);
  CHECK(snprintf(b, sizeof(b), "%llu", (unsigned long long)UINT64_MAX) == 20);
  CHECK(strcmp(b, "18446744073709551615") == 0);
  CHECK(snprintf(b, sizeof(b), "%hhd %hd", 200, 40000) == 10);
  CHECK(strcmp(b, "-56 -25536") == 0);

  // Zero with explicit precision 0 prints no digits, except under %#o.
  a.type = T_INT;
  a.i = 0;
  CHECK(same("[%.0d]", &a, BUF));
  CHECK(same("[%.0x]", &a, BUF));
  CHECK(same("[%#.0o]", &a, BUF));
  CHECK(same("[%#x]", &a, BUF));
  CHECK(same("[%#o]", &a, BUF));
  CHECK(same("[%5.0d]", &a, BUF));
  // Width 0, huge widths (counted past the buffer), '*' widths.
  a.i = 42;
  CHECK(same("%0d", &a, BUF));
  CHECK(same("%10000d", &a, BUF));
  CHECK(same("%-10000d|", &a, 8));
  CHECK(same("%1000000x", &a, 16));
  a.type = T_STR;
  a.s = "str";
  CHECK(same("%-300s|", &a, BUF));
  a.nstar = 2;
  a.star[0] = -20;
  a.star[1] = -5;
  CHECK(same("[%*.*s]", &a, BUF));
  a.nstar = 0;
  // Past FIELD_MAX the width is clamped, not overflowed (through volatile
  // pointers: gcc rejects these formats at compile time).
  CHECK(snprintf(b, sizeof(b), huge[0], 1) == 1 << 20);
  CHECK(snprintf(b, sizeof(b), huge[1], INT32_MIN, 1) == 1 << 20 && b[0] == '1');

  // NULL strings print "(null)", cut by a precision like any string.
  a.s = null;
  CHECK(same("%s|", &a, BUF));
  CHECK(same("%-10s|", &a, BUF));
  CHECK(snprintf(b, sizeof(b), "%s", null) == 6 && strcmp(b, "(null)") == 0);
  CHECK(snprintf(b, sizeof(b), "%.3s", null) == 3 && strcmp(b, "(nu") == 0);
  // A precision bounds the bytes read (ASan catches any read past the array).
  CHECK(snprintf(b, sizeof(b), "%.3s|%.2s", unterminated, unterminated) == 6);
  CHECK(strcmp(b, "abc|ab") == 0);

  // %p: 0x and 16 hex digits, NULL included; width pads the whole thing.
  CHECK(snprintf(b, sizeof(b), "%p", (void *)0xabcdef) == 18);
  CHECK(strcmp(b, "0x0000000000abcdef") == 0);
  CHECK(snprintf(b, sizeof(b), "%p", NULL) == 18);
  CHECK(strcmp(b, "0x0000000000000000") == 0);
  CHECK(snprintf(b, sizeof(b), "[%20p]", (void *)UINTPTR_MAX) == 22);
  CHECK(strcmp(b, "[  0xffffffffffffffff]") == 0);

  // A %c of NUL stores a NUL byte and counts it.
  CHECK(snprintf(b, sizeof(b), "a%cb", 0) == 3 && b[0] == 'a' && b[1] == '\0' && b[2] == 'b');
}

// Unknown conversions are copied verbatim and take no argument.
static void
test_unknown(void)
{
  // Through an array, so gcc's format check does not reject them at compile time.
  static const char *const fmts[] = { "a%qb", "%5.2yz", "%n", "%lf", "end%", "%-", "%ll", "%q%d" };
  static const char *const want[] = { "a%qb", "%5.2yz", "%n", "%lf", "end%", "%-", "%ll" };
  char b[32];
  size_t i;

  for(i = 0; i < ARRAY_SIZE(want); i++) {
    CHECK(snprintf(b, sizeof(b), fmts[i], 1) == (int)strlen(want[i]));
    CHECK(strcmp(b, want[i]) == 0);
  }
  // The argument is left for the next conversion.
  CHECK(snprintf(b, sizeof(b), fmts[7], 7) == 3 && strcmp(b, "%q7") == 0);
}

static void
test_scnprintf(void)
{
  char b[8];

  CHECK(scnprintf(b, sizeof(b), "%s", "hello, world") == 7 && strcmp(b, "hello, ") == 0);
  CHECK(scnprintf(b, sizeof(b), "%d", 42) == 2);
  CHECK(scnprintf(b, 0, "%d", 42) == 0);
  CHECK(scnprintf(b, 1, "%d", 42) == 0 && b[0] == '\0');
  CHECK(snprintf(b, sizeof(b), "%s", "hello, world") == 12);
}

int
main(int argc, char **argv)
{
  int seed = argc > 1 ? atoi(argv[1]) : 1;

  srand(seed);
  test_lines();
  test_edges();
  test_unknown();
  test_scnprintf();
  test_random(20000);
  return check_summary("test_vsprintf");
}
