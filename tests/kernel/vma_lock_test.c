// Self-tests of per-VMA locks (mm/vma_lock.c): a page fault, or a madvise within one VMA under
// madvise.lock=vma, goes on while another thread holds mmap_sem for write to change another
// VMA, and waits while its own VMA is being changed.
#include "errno.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "time.h"
#include "vm.h"
#include <asm/memlayout.h>
#include <asm/uaccess.h>

static struct {
  struct mm *mm;
  unsigned long addr;   // the page the faulter writes first; the start of the madvise
  size_t len;           // the madvise's length
  int err;              // what the madvise returned
  int done;             // 1: its fault returned and the write went in; -1: it failed
} vl;

static int
faulter(void *arg)
{
  use_mm(vl.mm);
  int err = put_user(0x5a, (u8 *)vl.addr);
  unuse_mm(vl.mm);
  smp_store_release(&vl.done, err ? -1 : 1);
  return 0;
}

static int
advisor(void *arg)
{
  use_mm(vl.mm);
  vl.err = madvise(vl.mm, vl.addr, vl.len, MADV_DONTNEED);
  unuse_mm(vl.mm);
  smp_store_release(&vl.done, 1);
  return 0;
}

// Whether the faulter is done within ms milliseconds.
static bool
done_within(u64 ms)
{
  u64 end = ktime_ns() + ms * 1000000;
  while(!smp_load_acquire(&vl.done) && ktime_ns() < end)
    msleep(1);
  return smp_load_acquire(&vl.done) != 0;
}

// A fault at addr, by a thread of its own, while this one holds mmap_sem for write with the
// VMA at locked write-locked (none if 0): whether the fault (or fn's madvise) finished during
// the section (within 200 ms), and whether it finished, with its write in, in the end.
static bool
run_during_section(int (*fn)(void *), struct mm *mm, unsigned long addr, unsigned long locked,
                   bool *during)
{
  vl.mm = mm;
  vl.addr = addr;
  WRITE_ONCE(vl.done, 0);
  mmap_write_lock(mm);
  if(locked)
    vma_start_write(mm, find_vma(mm, locked));
  struct thread *t = kthread_create(fn, NULL, -1, "vma-locker");
  if(!t) {
    mmap_write_unlock(mm);
    return false;
  }
  *during = done_within(200);
  mmap_write_unlock(mm);
  bool ok = done_within(5000) && READ_ONCE(vl.done) == 1;
  kthread_join(t);
  return ok;
}

// Three VMAs of len bytes at a, b and c, apart so that none merges.
#define VMA_A (MMAP_BASE + 0x100000)
#define VMA_B (VMA_A + 0x10000)
#define VMA_C (VMA_B + 0x10000)

static bool
map_three(struct mm *mm, size_t len)
{
  bool ok = true;
  for(unsigned long x = VMA_A; x <= VMA_C; x += 0x10000)
    ok &= vm_mmap(mm, x, len, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) == (long)x;
  return ok;
}

static bool
vma_lock_run(bool planted)
{
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  // The faulter writes a and c, b is changed.
  unsigned long a = VMA_A, b = VMA_B, c = VMA_C;
  bool ok = map_three(mm, PAGE_SIZE);
  bool was = fault_vma_lock;
  WRITE_ONCE(fault_vma_lock, true);   // vm.fault_lock=mmap_sem boots test the mechanism too
  WRITE_ONCE(vma_lock_planted_no_write, planted);
  u64 locked0 = READ_ONCE(nr_page_faults) - READ_ONCE(nr_mmap_sem_faults);
  bool other_during = false, own_during = true;
  ok &= run_during_section(faulter, mm, a, b, &other_during);   // b changes: a's goes on
  ok &= run_during_section(faulter, mm, c, c, &own_during);     // c changes: c's waits
  u64 locked = READ_ONCE(nr_page_faults) - READ_ONCE(nr_mmap_sem_faults) - locked0;
  WRITE_ONCE(vma_lock_planted_no_write, false);
  WRITE_ONCE(fault_vma_lock, was);
  selftest_extra("other_vma_during=%d own_vma_during=%d vma_locked_faults=%lu", other_during,
                 own_during, locked);
  mmput(mm);
  return ok && other_during && !own_during && locked >= 1;
}

static bool
test_vma_lock(void)
{
  return vma_lock_run(false);
}
SELFTEST_NOINJECT("vma-lock", test_vma_lock);

// vma_start_write marks nothing: the fault into the VMA being changed goes on under it.
static bool
test_planted_vma_lock_no_write(void)
{
  return vma_lock_run(true);
}
SELFTEST("planted-vma-lock-no-write", test_planted_vma_lock_no_write);

// madvise.lock=vma: a MADV_DONTNEED within one VMA goes on while another VMA is changed, and
// waits while its own is; one over three VMAs and the holes between them waits for mmap_sem,
// and says ENOMEM for the holes. Each zaps what it was given.
static bool
madvise_vma_run(bool planted)
{
  struct mm *mm = mm_create();
  if(!mm)
    return false;
  unsigned long a = VMA_A, b = VMA_B, c = VMA_C;
  bool ok = map_three(mm, 2 * PAGE_SIZE);
  use_mm(mm);
  for(unsigned long x = a; x <= c; x += 0x10000)
    ok &= put_user(1, (u8 *)x) == 0 && put_user(1, (u8 *)(x + PAGE_SIZE)) == 0;
  u64 rss0 = mm->rss;
  unuse_mm(mm);
  bool was_fault = fault_vma_lock, was_madvise = madvise_vma_lock;
  WRITE_ONCE(fault_vma_lock, true);
  WRITE_ONCE(madvise_vma_lock, true);
  WRITE_ONCE(madvise_planted_span, planted);
  bool other_during = false, own_during = true, span_during = true;
  vl.len = PAGE_SIZE;
  ok &= run_during_section(advisor, mm, a, b, &other_during) && vl.err == 0;
  ok &= run_during_section(advisor, mm, b, b, &own_during) && vl.err == 0;
  vl.len = c - a;   // [a + PAGE_SIZE, c + PAGE_SIZE): a's second page to c's first, two holes
  ok &= run_during_section(advisor, mm, a + PAGE_SIZE, 0, &span_during) && vl.err == -ENOMEM;
  WRITE_ONCE(madvise_planted_span, false);
  WRITE_ONCE(madvise_vma_lock, was_madvise);
  WRITE_ONCE(fault_vma_lock, was_fault);
  // Left mapped: c's second page, only.
  u64 rss = mm->rss;
  selftest_extra("other_vma_during=%d own_vma_during=%d span_during=%d rss=%lu of %lu",
                 other_during, own_during, span_during, rss, rss0);
  mmput(mm);
  return ok && other_during && !own_during && !span_during && rss0 == 6 && rss == 1;
}

static bool
test_madvise_vma_lock(void)
{
  return madvise_vma_run(false);
}
SELFTEST_NOINJECT("madvise-vma-lock", test_madvise_vma_lock);

// The range is not checked against the VMA's end: a madvise over several VMAs and holes runs
// under the first one's lock alone, with mmap_sem held for write by another thread.
static bool
test_planted_madvise_vma_span(void)
{
  return madvise_vma_run(true);
}
SELFTEST("planted-madvise-vma-span", test_planted_madvise_vma_span);
