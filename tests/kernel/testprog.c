// The test programs read from the test archive by name (testprog.h): a missing one is a
// failure that names its path, never a pass and never a crash.
#include "errno.h"
#include "fault_inject.h"
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "selftest.h"
#include "testprog.h"
#include "vsprintf.h"

bool
testprog_load(struct testprog *p, const char *name, int *errp)
{
  snprintf(p->path, sizeof(p->path), TEST_BIN_DIR "%s", name);
  p->image = NULL;
  p->len = 0;
  int err = read_program(p->path, &p->image, &p->len, &p->order);
  if(err == -ENOENT) {
    selftest_extra("missing=%s", p->path);
    pr_err("selftest: %s: no such file: the test programs are the test archive's "
           "(build/tests.cpio.gz, a GRUB module tools/qemu.sh adds to the debug image's "
           "boots); was it loaded?\n", p->path);
  } else if(err && !(err == -ENOMEM && fault_inject_active())) {
    // (Under failslab=/failpage= an allocation may fail: the caller counts that, silently.)
    selftest_extra("unreadable=%s error=%d", p->path, err);
    pr_err("selftest: %s: cannot read it (error %d)\n", p->path, err);
  }
  if(errp)
    *errp = err;
  if(err) {
    p->image = NULL;
    return false;
  }
  return true;
}

void
testprog_put(struct testprog *p)
{
  if(p->image)
    free_pages((unsigned long)p->image, p->order);
  p->image = NULL;
}
