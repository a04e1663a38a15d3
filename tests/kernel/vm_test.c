// Self-tests of address spaces: madvise (LTP madvise09's lazy-free pattern), errnos, -EFAULT
// and teardown leaks on every CPU (the shootdown tests are in shootdown_test.c).
#include "errno.h"
#include "fault_inject.h"
#include "mm.h"
#include "printk.h"
#include "rcupdate.h"
#include "reclaim.h"
#include "sched.h"
#include "selftest.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "vm.h"
#include <asm/processor.h>
#include <asm/uaccess.h>

#define FREE_PAGES 128     // madvise09's mapping

static long
map_anon(struct mm *mm, size_t len)
{
  return vm_mmap(mm, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
}

// madvise09: 128 pages of 'a', MADV_FREE, pages 0 and 10 written again, then reclaim.
// At least one page must go, pages 0 and 10 must keep 'b' then 'a's, and every other page
// must read all 'a' or all zero. planted: evict ignores the dirty bit, so 0 and 10 go too.
static bool
lazyfree_run(bool planted)
{
  static char buf[PAGE_SIZE];
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  use_mm(mm);
  bool ok = true;
  long base = map_anon(mm, FREE_PAGES * PAGE_SIZE);
  char *p = (char *)base;
  memset(buf, 'a', PAGE_SIZE);
  for(int i = 0; i < FREE_PAGES && base > 0; i++)
    ok &= copy_to_user(p + i * PAGE_SIZE, buf, PAGE_SIZE) == 0;
  u64 ipis = tlb_shootdown_ipis, freed0 = lazyfree_freed;
  ok &= base > 0 && madvise(mm, base, FREE_PAGES * PAGE_SIZE, MADV_FREE) == 0;
  char c = 0;
  ok &= get_user(c, p + PAGE_SIZE) == 0 && c == 'a';   // not freed immediately
  ok &= put_user('b', p) == 0 && put_user('b', p + 10 * PAGE_SIZE) == 0;
  WRITE_ONCE(lazyfree_ignore_dirty, planted);
  for(int tries = 0; tries < 10 && lazyfree_freed == freed0; tries++)
    try_to_free_pages(GFP_KERNEL, 2 * FREE_PAGES);
  WRITE_ONCE(lazyfree_ignore_dirty, false);
  unsigned zeroed = 0, corrupt = 0;
  for(int i = 0; i < FREE_PAGES && base > 0; i++) {
    ok &= copy_from_user(buf, p + i * PAGE_SIZE, PAGE_SIZE) == 0;
    bool redirtied = i == 0 || i == 10;
    int first = redirtied ? 'b' : buf[0];
    bool same = buf[0] == first && (first == 'a' || first == 'b' || first == 0);
    for(unsigned j = 1; same && j < PAGE_SIZE; j++)
      same = buf[j] == (first == 'b' ? 'a' : first);
    if(!same)
      corrupt++;
    else if(first == 0)
      zeroed++;
  }
  u64 freed = lazyfree_freed - freed0;
  selftest_extra("lazy_freed=%lu zeroed=%u corrupt=%u shootdown_ipis=%lu", freed, zeroed,
                 corrupt, tlb_shootdown_ipis - ipis);
  unuse_mm(mm);
  mmput(mm);
  return ok && freed >= 1 && zeroed >= 1 && corrupt == 0;
}

static bool
test_madvise_free(void)
{
  return lazyfree_run(false);
}
SELFTEST_NOINJECT("madvise-free", test_madvise_free);

static bool
test_planted_lazyfree_dirty(void)
{
  return lazyfree_run(true);
}
SELFTEST("planted-lazyfree-dirty", test_planted_lazyfree_dirty);

// Linux's errnos for bad arguments (madvise(2), vm_mmap(2), vm_munmap(2)).
static bool
test_madvise_errors(void)
{
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  unsigned long a = MMAP_BASE + 0x100000;
  bool ok = vm_mmap(mm, a, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) == (long)a;
  ok &= madvise(mm, a + 1, PAGE_SIZE, MADV_FREE) == -EINVAL;
  ok &= madvise(mm, a, PAGE_SIZE, 12345) == -EINVAL;
  ok &= madvise(mm, a, 0, MADV_FREE) == 0;
  ok &= madvise(mm, ~0UL & ~(PAGE_SIZE - 1), 2 * PAGE_SIZE, MADV_FREE) == -EINVAL;
  ok &= madvise(mm, a, ~0UL, MADV_DONTNEED) == -EINVAL;
  ok &= madvise(mm, a + 8 * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED) == -ENOMEM;
  ok &= madvise(mm, a, 6 * PAGE_SIZE, MADV_FREE) == -ENOMEM;   // runs past the mapping
  ok &= madvise(mm, a - PAGE_SIZE, 2 * PAGE_SIZE, MADV_FREE) == -ENOMEM;
  ok &= madvise(mm, a, 4 * PAGE_SIZE, MADV_DONTNEED) == 0;
  ok &= madvise(mm, a, 4 * PAGE_SIZE - 100, MADV_FREE) == 0;   // the length is rounded up
  ok &= vm_munmap(mm, a + 1, PAGE_SIZE) == -EINVAL;
  ok &= vm_munmap(mm, a, 0) == -EINVAL;
  ok &= vm_mmap(mm, 0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS) == -EINVAL;
  ok &= vm_mmap(mm, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS) == -EINVAL;
  ok &= vm_mmap(mm, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) == -EPERM;
  ok &= vm_munmap(mm, a + PAGE_SIZE, PAGE_SIZE) == 0;   // a hole: two VMAs now
  ok &= mm->nr_vmas == 2;
  ok &= madvise(mm, a, 4 * PAGE_SIZE, MADV_FREE) == -ENOMEM;
  mmput(mm);
  return ok;
}
// Exact errnos, -ENOMEM among them: an injected allocation failure would read as one of the
// answers checked, so the boot's injection is paused for it (it failed at failslab=20).
SELFTEST_NOINJECT("madvise-errors", test_madvise_errors);

// munmap with every slab allocation failing: a whole VMA still goes (it needs no spare VMA;
// an injected failure once left a page mapped under tlb-shootdown's readers), a hole in the
// middle of one fails with ENOMEM and leaves the mapping as it was.
static bool
test_munmap_nomem(void)
{
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  unsigned long a = MMAP_BASE + 0x100000, b = a + 8 * PAGE_SIZE;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
  bool ok = vm_mmap(mm, a, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, flags) == (long)a;
  ok &= vm_mmap(mm, b, PAGE_SIZE, PROT_READ, flags) == (long)b;
  use_mm(mm);
  ok &= put_user(7UL, (u64 *)(a + PAGE_SIZE)) == 0;
  struct fault_rates saved;
  fault_inject_save(&saved);
  fault_inject_set(FAULT_SLAB, 1000);
  u64 failed = fault_inject_count(FAULT_SLAB);
  int hole = vm_munmap(mm, a + PAGE_SIZE, PAGE_SIZE);
  int whole = vm_munmap(mm, b, PAGE_SIZE);
  failed = fault_inject_count(FAULT_SLAB) - failed;
  fault_inject_restore(&saved);
  u64 v = 0;
  ok &= get_user(v, (u64 *)(a + PAGE_SIZE)) == 0 && v == 7;   // the hole was not cut
  ok &= get_user(v, (u64 *)b) == -EFAULT;
  unuse_mm(mm);
  selftest_extra("hole=%d whole=%d slab_failed=%lu vmas=%d", hole, whole, failed, mm->nr_vmas);
  ok &= hole == -ENOMEM && whole == 0 && failed >= 2 && mm->nr_vmas == 1;
  mmput(mm);
  return ok;
}
SELFTEST_NOINJECT("munmap-nomem", test_munmap_nomem);

// Touches outside any VMA, through a read-only VMA, across a VMA's end, at a kernel address
// and from a thread with no mm: each gets -EFAULT (or the uncopied byte count), no panic.
static bool
test_vm_efault(void)
{
  static char buf[2 * PAGE_SIZE];
  u64 v = 1;
  bool ok = get_user(v, (u64 *)(MMAP_BASE + 0x1000)) == -EFAULT && v == 0;   // no mm yet
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  use_mm(mm);
  long rw = map_anon(mm, PAGE_SIZE);
  long ro = vm_mmap(mm, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS);
  ok &= rw > 0 && ro > 0;
  u64 *hole = (u64 *)(rw + 16 * PAGE_SIZE);
  ok &= get_user(v, hole) == -EFAULT;
  ok &= put_user(7, hole) == -EFAULT;
  ok &= get_user(v, (u64 *)ro) == 0 && v == 0;       // demand-zero on a read
  ok &= put_user(7, (u64 *)ro) == -EFAULT;           // no write permission
  ok &= get_user(v, (u64 *)&buf[0]) == -EFAULT;      // a kernel address is not "user"
  memset(buf, 'x', sizeof(buf));
  ok &= copy_to_user((void *)rw, buf, PAGE_SIZE) == 0;
  // rw and ro are adjacent or not; a copy across the end of the last VMA stops there.
  unsigned long top = MAX(rw, ro) + PAGE_SIZE;
  ok &= copy_from_user(buf, (void *)(top - 100), 300) == 200;
  ok &= vm_munmap(mm, rw, PAGE_SIZE) == 0;
  ok &= get_user(v, (u64 *)rw) == -EFAULT;           // gone after munmap
  unuse_mm(mm);
  mmput(mm);
  return ok;
}
// Exact results, a demand-zero fault among them: the boot's injection is paused for it.
SELFTEST_NOINJECT("vm-efault", test_vm_efault);

// An mm used on every CPU, with pages resident, lazily freed (on the reclaim core's list)
// and zapped, is torn down: the free-page count must come back (memory others free
// meanwhile may only raise it).
static struct {
  struct mm *mm;
  unsigned long base;
  int errors;
} td;

static int
teardown_worker(void *arg)
{
  long id = (long)arg;
  char *p = (char *)(td.base + id * 64 * PAGE_SIZE);
  use_mm(td.mm);
  for(int i = 0; i < 64; i++)
    if(put_user('t', p + i * PAGE_SIZE) != 0)
      __atomic_fetch_add(&td.errors, 1, __ATOMIC_RELAXED);
  if(madvise(td.mm, (unsigned long)p, 16 * PAGE_SIZE, MADV_FREE) != 0 ||
     madvise(td.mm, (unsigned long)p + 16 * PAGE_SIZE, 16 * PAGE_SIZE, MADV_DONTNEED) != 0)
    __atomic_fetch_add(&td.errors, 1, __ATOMIC_RELAXED);
  unuse_mm(td.mm);
  return 0;
}

static void
teardown_round(int n)
{
  static struct thread *t[NR_CPUS];
  long i = 0;
  int cpu;
  for_each_online_cpu(cpu) {   // n of them: one on every CPU
    t[i] = kthread_create(teardown_worker, (void *)i, cpu, "teardown/%d", cpu);
    if(!t[i++])
      __atomic_fetch_add(&td.errors, 1, __ATOMIC_RELAXED);
  }
  for(i = 0; i < n; i++)
    if(t[i])
      kthread_join(t[i]);
}

static unsigned long
free_count(void)
{
  rcu_barrier();
  drain_all_pages();
  kmem_cache_shrink_all();
  return nr_free_pages();
}

// One round: a fresh mm, used and torn down; returns the free-page change (negative: lost).
static long
teardown_once(int n, unsigned long *rss)
{
  unsigned long before = free_count();
  td.mm = mm_create();
  if(!td.mm)
    return -1;
  td.base = vm_mmap(td.mm, 0, n * 64 * PAGE_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS);
  teardown_round(n);
  *rss = td.mm->rss;
  mmput(td.mm);
  return (long)free_count() - (long)before;
}

// Other subsystems allocate once on first use (thread stacks, caches) or free late, so a
// round may be retried; a leak loses pages in every round and fails all three.
static bool
test_mm_teardown(void)
{
  int n = num_online_cpus();
  unsigned long rss = 0;
  long change = 0;
  int round = 0;
  td.errors = 0;
  while(round < 3 && (change = teardown_once(n, &rss)) < 0)
    round++;
  selftest_extra("cpus=%d rss=%lu free_change=%ld rounds=%d", n, rss, change, round + 1);
  return td.errors == 0 && rss >= n * 32UL && rss <= n * 48UL && change >= 0;
}
SELFTEST_NOINJECT("mm-teardown", test_mm_teardown);
