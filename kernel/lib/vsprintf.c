// vsnprintf and friends: printf formatting into a bounded buffer.
// Follows C11 7.21.6.1 for the subset the kernel uses; no floating point.
//
// Supported: %d %i %u %x %X %o %c %s %p %%, flags - 0 space + #, width and
// precision (digits or *), length modifiers hh h l ll z t.
// Where this differs from the C standard or glibc:
//   %p prints "0x" and 16 hex digits, NULL too (glibc prints "(nil)").
//   %s of NULL prints "(null)", cut by the precision like any string.
//   Anything else after '%' (%n, %f, %q, a lone % at the end) is copied to
//   the output as written and consumes no argument (a '*' in it still
//   does); gcc's format checking (__printf in vsprintf.h) rejects these at
//   compile time anyway.
//   Widths and precisions are clamped to FIELD_MAX.

#include <limits.h>
#include <stdarg.h>
#include "types.h"
#include "compiler.h"
#include "string.h"
#include "vsprintf.h"

// No kernel line is a megabyte wide; the clamp keeps the parse of "%99999999999d"
// from overflowing (Linux clamps too: FIELD_WIDTH_MAX in lib/vsprintf.c).
#define FIELD_MAX (1 << 20)

enum {
  LEFT = 1,   // '-': pad on the right
  ZERO = 2,   // '0': pad with zeros between the sign/prefix and the digits
  SPACE = 4,  // ' ': a space where a '+' would go
  PLUS = 8,   // '+': always print a sign
  ALT = 16,   // '#': "0x" before hex, a leading 0 for octal
};

enum { LEN_INT, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T };

struct spec {
  int flags;
  int width;
  int prec;  // -1: none given
  int len;   // LEN_*
};

struct out {
  char *buf;
  size_t size;
  size_t len;  // bytes the whole output needs; may pass size
};

// Store c if there is room before the final NUL; count it either way,
// because vsnprintf returns the untruncated length.
static void
put(struct out *o, char c)
{
  if(o->len + 1 < o->size)
    o->buf[o->len] = c;
  o->len++;
}

static void
putn(struct out *o, const char *s, size_t n)
{
  while(n-- > 0)
    put(o, *s++);
}

// n copies of c. Padding past the end of buf is only counted, so a huge
// width into a small buffer costs nothing.
static void
pad(struct out *o, char c, int n)
{
  for(; n > 0 && o->len + 1 < o->size; n--)
    o->buf[o->len++] = c;
  if(n > 0)
    o->len += n;
}

// The digits of v in base, after prefix ("-", "0x", ...), padded per sp.
static void
number(struct out *o, struct spec *sp, u64 v, const char *prefix, int base, bool upper)
{
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char tmp[24];  // a u64 has at most 22 octal digits
  int n = 0;
  int np = strlen(prefix);
  int prec = sp->prec < 0 ? 1 : sp->prec;
  int zeros, spaces;

  // Precision is the minimum digit count; a zero with precision 0 prints no digits.
  for(; v != 0; v /= base)
    tmp[n++] = digits[v % base];
  // '#' with %o: "the precision is increased to force the first digit to be zero".
  if((sp->flags & ALT) && base == 8 && prec <= n)
    prec = n + 1;
  zeros = prec > n ? prec - n : 0;
  // The '0' flag is ignored when a precision is given or with '-'.
  if((sp->flags & (ZERO | LEFT)) == ZERO && sp->prec < 0 && sp->width > np + n)
    zeros = sp->width - np - n;
  spaces = sp->width - np - zeros - n;

  if(!(sp->flags & LEFT))
    pad(o, ' ', spaces);
  putn(o, prefix, np);
  pad(o, '0', zeros);
  while(n > 0)
    put(o, tmp[--n]);
  if(sp->flags & LEFT)
    pad(o, ' ', spaces);
}

// n bytes of s, padded to the field width.
static void
text(struct out *o, struct spec *sp, const char *s, size_t n)
{
  int spaces = (size_t)sp->width > n ? sp->width - (int)n : 0;

  if(!(sp->flags & LEFT))
    pad(o, ' ', spaces);
  putn(o, s, n);
  if(sp->flags & LEFT)
    pad(o, ' ', spaces);
}

static void
string(struct out *o, struct spec *sp, const char *s)
{
  if(s == NULL)
    s = "(null)";
  // With a precision, s need not be NUL-terminated: read at most prec bytes.
  text(o, sp, s, sp->prec < 0 ? strlen(s) : strnlen(s, sp->prec));
}

// The next argument, read with the type the length modifier names.
// Arguments narrower than int arrive promoted and are cut back here.
static s64
arg_signed(va_list *ap, int len)
{
  switch(len) {
  case LEN_HH: return (signed char)va_arg(*ap, int);
  case LEN_H: return (short)va_arg(*ap, int);
  case LEN_L: return va_arg(*ap, long);
  case LEN_LL: return va_arg(*ap, long long);
  case LEN_Z: return (s64)va_arg(*ap, size_t);
  case LEN_T: return va_arg(*ap, ptrdiff_t);
  default: return va_arg(*ap, int);
  }
}

static u64
arg_unsigned(va_list *ap, int len)
{
  switch(len) {
  case LEN_HH: return (unsigned char)va_arg(*ap, unsigned int);
  case LEN_H: return (unsigned short)va_arg(*ap, unsigned int);
  case LEN_L: return va_arg(*ap, unsigned long);
  case LEN_LL: return va_arg(*ap, unsigned long long);
  case LEN_Z: return va_arg(*ap, size_t);
  case LEN_T: return (u64)va_arg(*ap, ptrdiff_t);
  default: return va_arg(*ap, unsigned int);
  }
}

static int
flagbit(char c)
{
  switch(c) {
  case '-': return LEFT;
  case '0': return ZERO;
  case ' ': return SPACE;
  case '+': return PLUS;
  case '#': return ALT;
  default: return 0;
  }
}

// A width or precision written as digits, saturating at FIELD_MAX.
static const char *
field(const char *fmt, int *v)
{
  *v = 0;
  for(; *fmt >= '0' && *fmt <= '9'; fmt++)
    *v = MIN(*v * 10 + (*fmt - '0'), FIELD_MAX);
  return fmt;
}

// A width or precision given as '*': an int argument, clamped.
static int
star(va_list *ap)
{
  int v = va_arg(*ap, int);

  return MAX(MIN(v, FIELD_MAX), -FIELD_MAX);
}

static const char *
length(const char *fmt, int *len)
{
  if(fmt[0] == 'h' && fmt[1] == 'h') {
    *len = LEN_HH;
    return fmt + 2;
  }
  if(fmt[0] == 'l' && fmt[1] == 'l') {
    *len = LEN_LL;
    return fmt + 2;
  }
  switch(*fmt) {
  case 'h': *len = LEN_H; return fmt + 1;
  case 'l': *len = LEN_L; return fmt + 1;
  case 'z': *len = LEN_Z; return fmt + 1;
  case 't': *len = LEN_T; return fmt + 1;
  default: *len = LEN_INT; return fmt;
  }
}

// Format one conversion; fmt points at its '%'. Returns the rest of fmt.
static const char *
convert(struct out *o, const char *fmt, va_list *ap)
{
  const char *start = fmt++;
  struct spec sp = { 0, 0, -1, LEN_INT };
  const char *prefix = "";
  char c, ch;
  s64 sv;
  u64 uv;

  for(; flagbit(*fmt); fmt++)
    sp.flags |= flagbit(*fmt);
  if(*fmt == '*') {
    // "A negative field width argument is taken as a '-' flag followed by
    // a positive field width" (C11 7.21.6.1p5).
    sp.width = star(ap);
    if(sp.width < 0) {
      sp.flags |= LEFT;
      sp.width = -sp.width;
    }
    fmt++;
  } else {
    fmt = field(fmt, &sp.width);
  }
  if(*fmt == '.') {
    fmt++;
    if(*fmt == '*') {
      // A negative precision argument counts as no precision at all.
      sp.prec = star(ap);
      if(sp.prec < 0)
        sp.prec = -1;
      fmt++;
    } else {
      fmt = field(fmt, &sp.prec);
    }
  }
  fmt = length(fmt, &sp.len);

  c = *fmt;
  if(c == '\0') {
    putn(o, start, fmt - start);
    return fmt;
  }
  fmt++;
  switch(c) {
  case 'd':
  case 'i':
    sv = arg_signed(ap, sp.len);
    if(sv < 0)
      prefix = "-";
    else if(sp.flags & PLUS)
      prefix = "+";
    else if(sp.flags & SPACE)
      prefix = " ";
    // Negate as unsigned so INT64_MIN does not overflow.
    number(o, &sp, sv < 0 ? -(u64)sv : (u64)sv, prefix, 10, false);
    break;
  case 'u':
    number(o, &sp, arg_unsigned(ap, sp.len), "", 10, false);
    break;
  case 'o':
    number(o, &sp, arg_unsigned(ap, sp.len), "", 8, false);
    break;
  case 'x':
  case 'X':
    uv = arg_unsigned(ap, sp.len);
    // '#' adds 0x only to a nonzero value (C11 7.21.6.1p6).
    if((sp.flags & ALT) && uv != 0)
      prefix = c == 'x' ? "0x" : "0X";
    number(o, &sp, uv, prefix, 16, c == 'X');
    break;
  case 'p':
    // Fixed width, so pointers in a log line up.
    sp.prec = 16;
    number(o, &sp, (uintptr_t)va_arg(*ap, void *), "0x", 16, false);
    break;
  case 'c':
    ch = (char)va_arg(*ap, int);
    text(o, &sp, &ch, 1);
    break;
  case 's':
    string(o, &sp, va_arg(*ap, const char *));
    break;
  case '%':
    put(o, '%');
    break;
  default:
    putn(o, start, fmt - start);
    break;
  }
  return fmt;
}

int
vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  struct out o = { buf, size, 0 };
  va_list args;

  // The helpers take a va_list pointer, and a va_list parameter may be an
  // array that decayed to a pointer, so work on a real local copy.
  va_copy(args, ap);
  while(*fmt != '\0') {
    if(*fmt == '%')
      fmt = convert(&o, fmt, &args);
    else
      put(&o, *fmt++);
  }
  va_end(args);
  if(size > 0)
    buf[MIN(o.len, size - 1)] = '\0';
  return o.len > INT_MAX ? INT_MAX : (int)o.len;
}

int
snprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

int
vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  size_t n = vsnprintf(buf, size, fmt, ap);

  if(size == 0)
    return 0;
  return MIN(n, size - 1);
}

int
scnprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vscnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}
