// Checks of a call's result against the value wanted, counted in a tally (tests/kernel/expect.h).
#include "expect.h"
#include "fs.h"
#include "printk.h"

void
expect_eq(struct expect_tally *t, const char *what, long got, long want)
{
  t->checks++;
  if(got != want && t->mismatches++ < 10)
    pr_err("%s: %s gave %ld, not %ld\n", t->test, what, got, want);
}

long
expect_stat_mode(const char *path, unsigned flags)
{
  struct kstat st;
  int err = vfs_stat(path, flags, &st);
  return err ? err : (long)st.mode;
}
