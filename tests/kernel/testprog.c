// The test programs of the test archive, found and run by name (testprog.h): a missing one is
// a failure that names its path, never a pass and never a crash.
#include "errno.h"
#include "fault_inject.h"
#include "fs.h"
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "selftest.h"
#include "slab.h"
#include "testprog.h"
#include "vsprintf.h"

bool
testprog_load(struct testprog *p, const char *name, int *errp)
{
  snprintf(p->path, sizeof(p->path), TEST_BIN_DIR "%s", name);
  struct kstat st;
  int err = vfs_stat(p->path, 0, &st);
  if(!err && !S_ISREG(st.mode))
    err = -EACCES;
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
  return !err;
}

const char *const testprog_env[] = { "HOME=/", "TERM=linux", "PATH=/bin:/usr/bin", NULL };

// Pages in use outside the free lists, kept-for-good pages and slab caches, once every
// deferred free has run: what a finished process must give back in full.
long
testprog_used_pages(void)
{
  mm_quiesce();
  long pages = nr_free_pages() + nr_permanent_pages();
  for(int i = 0; i < KMEM_CACHE_INDEX_MAX; i++) {
    struct kmem_cache_usage u;
    if(kmem_cache_usage(i, &u))
      pages += u.pages;
  }
  return -pages;
}

// prog's process with argv.
struct process *
testprog_spawn(const struct testprog *prog, const char *const argv[])
{
  int err;
  struct process *p = process_spawn(prog->path, argv, testprog_env, &err);
  if(!p)
    selftest_extra("spawn=%d", err);
  return p;
}

// Runs the program /test/bin/<name> with argv to its end: true if its status is want and no
// page stayed behind. The program's pages are its file's, in the page cache of ramfs, on both
// sides of the count; what the process copies of them is its own and goes with it.
bool
testprog_run(const char *name, const char *const argv[], int want)
{
  struct testprog prog;
  if(!testprog_load(&prog, name, NULL))
    return false;
  long before = testprog_used_pages();
  struct process *p = testprog_spawn(&prog, argv);
  if(!p)
    return false;
  int status = process_wait(p);
  long leaked = testprog_used_pages() - before;
  selftest_extra("%s=%d", argv[1] ? argv[1] : name, status);
  if(leaked)
    selftest_extra("leaked-pages=%ld", leaked);
  return status == want && leaked == 0;
}
