// Self-test of a second MADV_FREE that lands while reclaim decides to keep a redirtied page
// (mm/lazyfree.c, mm/vmscan.c): the new hand-over must stand, and the next reclaim drop the page.
#include "errno.h"
#include "mm.h"
#include "printk.h"
#include "reclaim.h"
#include "sched.h"
#include "selftest.h"
#include "vm.h"
#include <asm/uaccess.h>

static struct {
  struct mm *mm;
  unsigned long addr;
  struct page *page;   // the page evict kept, once the hook has fired
  int fired;
  int err;
} refree;

// Runs in reclaim, right after evict has kept the redirtied page and dropped its locks:
// the moment a second MADV_FREE from another thread may land.
static void
refree_hook(struct page *page)
{
  if(refree.fired++)
    return;
  refree.page = page;
  refree.err = madvise(refree.mm, refree.addr, PAGE_SIZE, MADV_FREE);
}

// One page: written, MADV_FREE, written again, so evict keeps it; the hook then frees it
// lazily again. The page must be back on the LRU as lazyfree, and a second reclaim must
// drop it (reading zeros after). On the old order the hand-over was lost: the page stayed
// clean and mapped on no list, and no reclaim could ever take it.
static bool
lazyfree_refree_test(void)
{
  refree.mm = mm_create();
  if(!refree.mm)
    return false;
  use_mm(refree.mm);
  refree.fired = 0;
  refree.page = NULL;
  long a = vm_mmap(refree.mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  bool ok = a > 0;
  refree.addr = a;
  char *p = (char *)a;
  ok = ok && put_user('a', p) == 0 && madvise(refree.mm, a, PAGE_SIZE, MADV_FREE) == 0;
  ok = ok && put_user('b', p) == 0;   // redirtied: evict must keep it
  WRITE_ONCE(lazyfree_keep_hook, refree_hook);
  // Lazyfree pages go to the inactive tail, the first scanned; other pages may be there too.
  // One page a call: a batch would take the handed-over page again at once.
  for(int tries = 0; ok && tries < 64 && !refree.fired; tries++)
    shrink_lru(1);
  WRITE_ONCE(lazyfree_keep_hook, NULL);
  bool fired = refree.fired == 1 && refree.err == 0;
  bool handed = fired && page_flag(refree.page, PG_lru) && page_flag(refree.page, PG_lazyfree) &&
                refree.page->mapping != NULL;
  u64 freed0 = lazyfree_freed;
  for(int tries = 0; handed && tries < 64 && lazyfree_freed == freed0; tries++)
    shrink_lru(1);
  bool dropped = lazyfree_freed > freed0;
  char c = 'x';
  ok = ok && get_user(c, p) == 0;
  selftest_extra("hook_fired=%d handed_over=%d dropped=%d reads=%#x", refree.fired, handed,
                 dropped, (unsigned char)c);
  unuse_mm(refree.mm);
  mmput(refree.mm);
  return ok && fired && handed && dropped && c == 0;
}
// One page's exact path through reclaim, which an injected failure (failslab=, failpage=)
// would cut short: the boot's injection is paused for it.
SELFTEST_NOINJECT("lazyfree-refree", lazyfree_refree_test);
