// Self-tests of split page-table locks (mm/ptlock.c): while one page table's lock is held, a
// fault in another page table's span goes on and a fault in the held one's span waits.
#include "cpumask.h"
#include "errno.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "vm.h"
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/processor.h>
#include <asm/uaccess.h>

static struct {
  struct mm *mm;
  unsigned long addr;   // the page the faulter writes
  int done;             // 1: its fault returned and the write went in; -1: it failed
} pl;

static int
faulter(void *arg)
{
  (void)arg;
  use_mm(pl.mm);
  int err = put_user(0x5a, (u8 *)pl.addr);
  unuse_mm(pl.mm);
  smp_store_release(&pl.done, err ? -1 : 1);
  return 0;
}

// Spins, since a spinlock is held: the faulter runs on another CPU.
static bool
done_within(u64 ms)
{
  u64 end = ktime_ns() + ms * 1000000;
  while(!smp_load_acquire(&pl.done) && ktime_ns() < end)
    cpu_relax();
  return smp_load_acquire(&pl.done) != 0;
}

// A write fault at addr by a thread on CPU other while this one holds the lock of the page
// table at held: whether it finished while the lock was held (within 100 ms), and whether
// it finished, its write in, in the end.
static bool
fault_while_held(struct mm *mm, unsigned long addr, unsigned long held, int other, bool *during)
{
  pl.mm = mm;
  pl.addr = addr;
  WRITE_ONCE(pl.done, 0);
  spinlock_t *ptl = pte_lockptr(mm, pte_lookup(mm, held));
  spin_lock(ptl);
  struct thread *t = kthread_create(faulter, NULL, other, "ptl-faulter");
  if(!t) {
    spin_unlock(ptl);
    return false;
  }
  *during = done_within(100);
  spin_unlock(ptl);
  bool ok = done_within(5000) && READ_ONCE(pl.done) == 1;
  kthread_join(t);
  return ok;
}

static bool
ptlock_run(bool planted)
{
  int other = selftest_other_cpu();
  if(other < 0) {
    selftest_extra("cpus=1 skipped=needs-two-cpus");
    return true;
  }
  // Page tables made now get locks of their own whatever the boot's vm.ptl=, so that a
  // vm.ptl=mm boot tests the mechanism too.
  bool was = vm_ptl_split;
  WRITE_ONCE(vm_ptl_split, true);
  WRITE_ONCE(ptlock_planted_shared, planted);
  struct mm *mm = mm_create();
  // Two 2 MiB spans, each with its page table made by a first write: a and b.
  unsigned long a = ALIGN_UP(MMAP_BASE + 0x1000000, PMD_SIZE), b = a + PMD_SIZE;
  bool ok = mm && vm_mmap(mm, a, 2 * PMD_SIZE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) == (long)a;
  if(ok) {
    use_mm(mm);
    ok = put_user(1, (u8 *)a) == 0 && put_user(1, (u8 *)b) == 0;
    unuse_mm(mm);
  }
  WRITE_ONCE(ptlock_planted_shared, false);
  WRITE_ONCE(vm_ptl_split, was);
  bool split = ok && pte_lockptr(mm, pte_lookup(mm, a)) != pte_lockptr(mm, pte_lookup(mm, b)) &&
               pte_lockptr(mm, pte_lookup(mm, a)) != &mm->page_table_lock;
  bool other_during = false, own_during = true;
  if(ok) {
    ok &= fault_while_held(mm, b + PAGE_SIZE, a, other, &other_during);   // b's goes on
    ok &= fault_while_held(mm, a + PAGE_SIZE, a, other, &own_during);     // a's waits
  }
  selftest_extra("tables_own_locks=%d other_table_during=%d own_table_during=%d", split,
                 other_during, own_during);
  if(mm)
    mmput(mm);
  return ok && split && other_during && !own_during;
}

static bool
test_ptlock(void)
{
  return ptlock_run(false);
}
SELFTEST_NOINJECT("ptlock", test_ptlock);

// Every page table made gets one and the same lock: a fault in another table's span waits.
static bool
test_planted_ptlock_shared(void)
{
  return ptlock_run(true);
}
SELFTEST_NOINJECT("planted-ptlock-shared", test_planted_ptlock_shared);
