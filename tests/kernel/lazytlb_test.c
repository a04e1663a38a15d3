// Self-tests of lazy TLB for waiting CPUs (arch/x86_64/tlb.c): a CPU in lazy mode is sent no
// shootdown, and the flush it was spared happens before it next reads user memory.
#include "errno.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "vm.h"
#include <asm/processor.h>
#include <asm/uaccess.h>

#define LT_ROUNDS 40
#define LT_WAIT_MS 30000   // a hang guard, not a time check
#define LT_PATTERN 0x6c617a79746c6221ULL

// Each round the reader writes the page (its TLB now holds the translation), goes lazy and
// says so; the test zaps the page with MADV_DONTNEED, which must send no IPI; the reader
// leaves lazy mode and reads the page back: zero (a fresh page), never the pattern, which
// only a stale translation to the freed frame can still show.
static struct {
  struct mm *mm;
  unsigned long addr;
  int round;     // the round to run; -1: the end. Release by the test
  int lazy;      // the last round the reader is lazy in; release by the reader
  int zapped;    // the last round zapped; release by the test
  int done;      // the last round read back; release by the reader
  int stale, errors, stuck;   // by the reader
} lt;

// Spins until *v reaches want (or the test ends): the reader must not sleep while lazy, a
// switch would reload CR3 and flush for it. False after the guard.
static bool
spin_until(int *v, int want)
{
  u64 end = ktime_ns() + LT_WAIT_MS * 1000000ULL;
  int got;
  while((got = smp_load_acquire(v)) != want && got >= 0 && smp_load_acquire(&lt.round) >= 0) {
    if(ktime_ns() > end)
      return false;
    cpu_relax();
  }
  return got == want;
}

static int
lazy_reader(void *arg)
{
  (void)arg;
  use_mm(lt.mm);
  for(int r = 1; r <= LT_ROUNDS; r++) {
    if(!spin_until(&lt.round, r))
      break;
    u64 v = 0;
    if(put_user(LT_PATTERN, (u64 *)lt.addr) || get_user(v, (u64 *)lt.addr) || v != LT_PATTERN) {
      lt.errors++;
      break;
    }
    enter_lazy_tlb();
    smp_store_release(&lt.lazy, r);
    bool zapped = spin_until(&lt.zapped, r);
    leave_lazy_tlb();
    if(!zapped) {
      lt.stuck++;
      break;
    }
    if(get_user(v, (u64 *)lt.addr))
      lt.errors++;
    else if(v != 0)
      lt.stale++;
    // A stale translation (the planted bug) must not outlive the round: this one's next write
    // would land in the freed frame.
    unuse_mm(lt.mm);
    use_mm(lt.mm);
    smp_store_release(&lt.done, r);
  }
  unuse_mm(lt.mm);
  return 0;
}

static bool
lazy_run(bool planted)
{
  int cpu = selftest_other_cpu();
  if(cpu < 0)
    return selftest_skip("one CPU");
  memset(&lt, 0, sizeof(lt));
  if(!(lt.mm = mm_create()))
    return selftest_skip("enomem");
  long base = vm_mmap(lt.mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  struct thread *t = NULL;
  if(base > 0) {
    lt.addr = base;
    t = kthread_create(lazy_reader, NULL, cpu, "lazytlb/%d", cpu);
  }
  if(!t) {
    mmput(lt.mm);
    return selftest_skip("enomem");
  }
  WRITE_ONCE(tlb_planted_lazy_noflush, planted);
  int rounds = 0;
  u64 ipis = 0, deferred = 0;
  bool ok = true;
  for(int r = 1; ok && r <= LT_ROUNDS; r++) {
    smp_store_release(&lt.round, r);
    if(!(ok = spin_until(&lt.lazy, r)))
      break;
    u64 i0 = READ_ONCE(tlb_shootdown_ipis), d0 = READ_ONCE(tlb_flush_deferred);
    ok = madvise(lt.mm, base, PAGE_SIZE, MADV_DONTNEED) == 0;
    ipis += READ_ONCE(tlb_shootdown_ipis) - i0;
    deferred += READ_ONCE(tlb_flush_deferred) - d0;
    smp_store_release(&lt.zapped, r);
    ok = ok && spin_until(&lt.done, r);
    rounds += ok;
  }
  smp_store_release(&lt.round, -1);
  kthread_join(t);
  WRITE_ONCE(tlb_planted_lazy_noflush, false);
  mmput(lt.mm);
  selftest_extra("cpu=%d rounds=%d stale=%d errors=%d stuck=%d ipis=%lu deferred=%lu", cpu,
                 rounds, lt.stale, lt.errors, lt.stuck, ipis, deferred);
  // Other CPUs' shootdowns of other mms may run meanwhile, so the counts are at least, not
  // exactly: one deferral a round (the reader was lazy each time) is the work done.
  return ok && rounds == LT_ROUNDS && lt.stale == 0 && lt.errors == 0 && lt.stuck == 0 &&
         deferred >= (u64)rounds;
}

static bool
test_lazy_tlb(void)
{
  return lazy_run(false);
}
SELFTEST("lazy-tlb", test_lazy_tlb);

// The lazy CPU forgets its deferred flush: its read after the zap finds the old frame.
static bool
test_planted_lazy_noflush(void)
{
  return lazy_run(true);
}
SELFTEST("planted-lazy-noflush", test_planted_lazy_noflush);
