// Self-tests of munmap in two phases (mm/munmap.c): while a munmap zaps with mmap_sem free, a
// fault into its range fails, a MAP_FIXED over it waits for it, and a hole in it may be mapped
// again and keeps what is written there.
#include "errno.h"
#include "sched.h"
#include "selftest.h"
#include "string.h"
#include "time.h"
#include "vm.h"
#include <asm/uaccess.h>

#define MW_WAIT_MS 30000   // a hang guard, not a time check
#define MW_PATTERN 0x6d756e6d61702121ULL

// The range: VMA a (two pages, the first written), a hole of one page, VMA b (one page).
static struct {
  struct mm *mm;
  unsigned long a, hole, b;
  struct thread *mapper;   // the MAP_FIXED thread started in the window
  long fixed;              // its result; 0 until it returns (release)
  int fault_err;           // the window's write to a's untouched page: -EFAULT, or 0 (wrong)
  int hole_err;            // the hole's mapping and write in the window
  bool waited;             // the MAP_FIXED thread was seen waiting while the window was open
} mw;

// Maps a's first page again over the munmap in progress: must wait for it to end.
static int
fixed_mapper(void *arg)
{
  (void)arg;
  long r = vm_mmap(mw.mm, mw.a, PAGE_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
  smp_store_release(&mw.fixed, r ? r : -EINVAL);
  return 0;
}

// The window between the phases, on the munmapping thread, with mmap_sem free.
static void
window(struct mm *mm)
{
  u64 v = MW_PATTERN;
  mw.fault_err = put_user(v, (u64 *)(mw.a + PAGE_SIZE));   // no PTE there: this one faults
  long h = vm_mmap(mm, mw.hole, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
  mw.hole_err = h == (long)mw.hole ? put_user(v, (u64 *)mw.hole) : -EINVAL;
  if(!(mw.mapper = kthread_create(fixed_mapper, NULL, -1, "munmap-fixed")))
    return;
  // Until it waits (counted on the mm) or, wrongly, returns.
  u64 end = ktime_ns() + MW_WAIT_MS * 1000000ULL;
  while(!READ_ONCE(mm->unmap_waiters) && !smp_load_acquire(&mw.fixed) && ktime_ns() < end)
    msleep(1);
  mw.waited = READ_ONCE(mm->unmap_waiters) && !smp_load_acquire(&mw.fixed);
}

static bool
unmapped_at(unsigned long addr)
{
  u8 x;
  bool gone = get_user(x, (u8 *)addr) == -EFAULT;
  (void)x;
  return gone;
}

static bool
munmap_run(bool planted_fault, bool planted_whole)
{
  memset(&mw, 0, sizeof(mw));
  if(!(mw.mm = mm_create()))
    return selftest_skip("enomem");
  mw.a = MMAP_BASE + (5UL << 32);
  mw.hole = mw.a + 2 * PAGE_SIZE;
  mw.b = mw.hole + PAGE_SIZE;
  int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
  bool ok = vm_mmap(mw.mm, mw.a, 2 * PAGE_SIZE, rw, anon) == (long)mw.a &&
            vm_mmap(mw.mm, mw.b, PAGE_SIZE, rw, anon) == (long)mw.b;
  use_mm(mw.mm);
  u64 v = MW_PATTERN;
  ok = ok && !put_user(v, (u64 *)mw.a) && !put_user(v, (u64 *)mw.b);
  bool was = fault_vma_lock, range = munmap_range;
  WRITE_ONCE(fault_vma_lock, true);   // vm.fault_lock=mmap_sem boots test the VMA path too
  WRITE_ONCE(munmap_range, true);     // and vm.munmap=lock boots the two phases
  WRITE_ONCE(munmap_planted_fault, planted_fault);
  WRITE_ONCE(munmap_planted_whole_range, planted_whole);
  munmap_zap_hook = window;
  ok = ok && vm_munmap(mw.mm, mw.a, 4 * PAGE_SIZE) == 0;
  munmap_zap_hook = NULL;
  WRITE_ONCE(munmap_planted_whole_range, false);
  WRITE_ONCE(munmap_planted_fault, false);
  WRITE_ONCE(fault_vma_lock, was);
  WRITE_ONCE(munmap_range, range);
  if(mw.mapper)
    kthread_join(mw.mapper);
  // After: the hole keeps its write, the mapper's new page reads zero, the rest is unmapped.
  u64 hole = 0, first = ~0ULL;
  int hole_read = get_user(hole, (u64 *)mw.hole), first_read = get_user(first, (u64 *)mw.a);
  int unmapped = unmapped_at(mw.a + PAGE_SIZE) + unmapped_at(mw.b);
  unuse_mm(mw.mm);
  mmput(mw.mm);
  selftest_extra("fault_err=%d hole_err=%d waited=%d fixed_ok=%d hole_kept=%d first_zero=%d"
                 " unmapped=%d", mw.fault_err, mw.hole_err, mw.waited, mw.fixed == (long)mw.a,
                 !hole_read && hole == MW_PATTERN, !first_read && first == 0, unmapped);
  return ok && mw.fault_err == -EFAULT && mw.hole_err == 0 && mw.waited &&
         mw.fixed == (long)mw.a && !hole_read && hole == MW_PATTERN && !first_read &&
         first == 0 && unmapped == 2;
}

static bool
test_munmap_window(void)
{
  return munmap_run(false, false);
}
SELFTEST_NOINJECT("munmap-window", test_munmap_window);

// A fault under a VMA's lock maps a page into a VMA being unmapped: the window's write works.
static bool
test_planted_munmap_fault(void)
{
  return munmap_run(true, false);
}
SELFTEST("planted-munmap-fault", test_planted_munmap_fault);

// The zap takes the whole range, holes and all: the page mapped in the hole meanwhile goes.
static bool
test_planted_munmap_whole(void)
{
  return munmap_run(false, true);
}
SELFTEST("planted-munmap-whole", test_planted_munmap_whole);
