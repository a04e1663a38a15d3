// Host test of the panic backtrace's symbol lookup (kernel/lib/ksyms.c) on tables of its own.
// Checks the edges: before the first symbol, exact starts, the last symbol, past the end.
#include "check.h"
#include "ksyms.h"
#include <stdlib.h>
#include <string.h>

int
main(void)
{
  static const u64 addr[] = { 0x1000, 0x1010, 0x1010, 0x1400, 0x2000 };
  static const u32 off[] = { 0, 6, 12, 18, 24 };
  static const char names[] = "alpha\0beta1\0beta2\0gamma\0delta";
  struct ksym_table t = { 5, addr, off, names };
  u64 o = 99;
  const char *n;

  CHECK(ksym_find(&t, 0x3000, 0xfff, &o) == NULL);
  CHECK((n = ksym_find(&t, 0x3000, 0x1000, &o)) && !strcmp(n, "alpha") && o == 0);
  CHECK((n = ksym_find(&t, 0x3000, 0x100f, &o)) && !strcmp(n, "alpha") && o == 0xf);
  // Two symbols at one address: the lookup names the last of them, consistently.
  CHECK((n = ksym_find(&t, 0x3000, 0x1010, &o)) && !strcmp(n, "beta2") && o == 0);
  CHECK((n = ksym_find(&t, 0x3000, 0x13ff, &o)) && !strcmp(n, "beta2") && o == 0x3ef);
  CHECK((n = ksym_find(&t, 0x3000, 0x2fff, &o)) && !strcmp(n, "delta") && o == 0xfff);
  CHECK(ksym_find(&t, 0x3000, 0x3000, &o) == NULL);
  CHECK(ksym_find(&t, 0x3000, ~0UL, &o) == NULL);
  struct ksym_table empty = { 0, addr, off, names };
  CHECK(ksym_find(&empty, 0x3000, 0x1000, &o) == NULL);

  // Against a linear scan, on a large random table.
  enum { N = 5000 };
  u64 *a = malloc(N * sizeof(*a));
  u32 *no = malloc(N * sizeof(*no));
  char *nm = malloc(N * 16);
  u64 x = 0x100000;
  srand(1);
  for(int i = 0; i < N; i++) {
    x += rand() % 64;
    a[i] = x;
    no[i] = i * 16;
    snprintf(nm + i * 16, 16, "f%d", i);
  }
  struct ksym_table big = { N, a, no, nm };
  int bad = 0;
  for(int k = 0; k < 100000; k++) {
    u64 q = 0xfff00 + rand() % (x - 0xfff00 + 100);
    int want = -1;
    for(int i = 0; i < N && a[i] <= q; i++)
      want = i;
    n = ksym_find(&big, x + 1, q, &o);
    if(want < 0 || q >= x + 1)
      bad += n != NULL;
    else
      bad += !n || strcmp(n, nm + want * 16) != 0 || o != q - a[want];
  }
  CHECK(bad == 0);
  free(a);
  free(no);
  free(nm);
  return check_summary("test_ksyms");
}
