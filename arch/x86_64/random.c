// get_random_bytes: RDRAND (CPUID.1:ECX bit 30) when present, otherwise xorshift64* (Vigna
// 2014) stepped per call and stirred with the TSC. glibc takes its stack and pointer guards
// from AT_RANDOM and malloc's tcache key from getrandom; neither needs more than this.
#include "compiler.h"
#include "random.h"
#include "string.h"
#include <asm/x86.h>

static u64 state;
static int have_rdrand = -1;

static u64
next_word(void)
{
  if(have_rdrand < 0) {
    u32 a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    have_rdrand = (c >> 30) & 1;
  }
  u64 v;
  if(have_rdrand) {
    for(int i = 0; i < 10; i++) {   // Intel's guidance: retry a few times on CF = 0
      u8 ok;
      __asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
      if(ok)
        return v;
    }
  }
  // Racy updates of state only lose some mixing, never correctness.
  u64 x = READ_ONCE(state) ^ rdtsc();
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  WRITE_ONCE(state, x);
  return x * 0x2545f4914f6cdd1dUL;
}

void
get_random_bytes(void *buf, size_t n)
{
  u8 *p = buf;
  while(n) {
    u64 w = next_word();
    size_t k = n < 8 ? n : 8;
    memcpy(p, &w, k);
    p += k;
    n -= k;
  }
}
