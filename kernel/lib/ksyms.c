// Symbol lookup: binary search of the sorted address table for the last symbol at or below addr.
// Used by panic's backtrace to print function+0xoffset.
#include "ksyms.h"

const char *
ksym_find(const struct ksym_table *t, u64 end, u64 addr, u64 *offset)
{
  if(t->count == 0 || addr < t->addr[0] || addr >= end)
    return NULL;
  u64 lo = 0, hi = t->count;   // invariant: addr[lo] <= addr < addr[hi]
  while(hi - lo > 1) {
    u64 mid = lo + (hi - lo) / 2;
    if(t->addr[mid] <= addr)
      lo = mid;
    else
      hi = mid;
  }
  *offset = addr - t->addr[lo];
  return t->names + t->name_off[lo];
}
