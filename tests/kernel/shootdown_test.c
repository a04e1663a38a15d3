// TLB shootdowns with a thread on every CPU, round after round for the torture duration:
// tlb-shootdown (munmap under readers) and madvise-dontneed (one zap under writers).
#include "errno.h"
#include "fault_inject.h"
#include "mm.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "torture.h"
#include "vm.h"
#include <asm/processor.h>
#include <asm/uaccess.h>

#define SD_MS 500            // a test's default duration; torture.secs= sets it
#define ROUNDS_PER_SEC 2     // the work floor up to 8 CPUs (torture_floor_all_cpus): every CPU
                             // takes part in each round
// A hang guard, not a time check: a thread that has not answered a round by then is stuck.
// 30 s up to 8 CPUs, 240 s at 64 (torture_guard_ms): at 64 vCPUs on 2 host cores one
// madvise-dontneed round took over 30 s.
#define WAIT_MS 30000
#define PATTERN 0x5a5a5a5a12345678ULL
#define WORKER_PAGES 4       // madvise-dontneed's pages per worker

// When a wait that starts at now gives up: WAIT_MS, grown with the CPUs.
static u64
guard_end(u64 now)
{
  return now + torture_guard_ms(WAIT_MS) * 1000000ULL;
}

// Waits (sleeping: threads may share this CPU) until *counter reaches n or the guard passes.
static bool
wait_for(int *counter, int n)
{
  u64 end = guard_end(ktime_ns());
  while(smp_load_acquire(counter) < n) {
    if(ktime_ns() > end)
      return false;
    msleep(1);
  }
  return true;
}

// Whether the test goes on to another round: for its duration, then until the floor is met,
// but not past TORTURE_CAP times the duration (torture.h's rule).
static bool
more_rounds(u64 start, u64 ns, u64 rounds, u64 floor)
{
  u64 now = ktime_ns() - start;
  return now < ns || (rounds < floor && now < TORTURE_CAP * ns);
}

// A thread waits for the next round (round > seen) or the end (round < 0). Between rounds
// it sleeps: at 64 vCPUs on a 2-core host, 63 spinning vCPUs starve the rest of host time.
// spin: it must keep the mm loaded meanwhile (a switch away from an mm takes its CPU out of
// the mask), and spins; only a thread that shares the test's CPU lets it run, and the others
// after SPIN_MS, so as not to hold off a thread of their CPU (RCU's grace-period thread) for
// long. False if it waited the guard (WAIT_MS, grown with the CPUs).
#define SPIN_MS 10
static bool
next_round(int *round, int seen, bool spin, bool mine, int *got)
{
  u64 now = ktime_ns(), yield_at = now + SPIN_MS * 1000000ULL, end = guard_end(now);
  while((*got = smp_load_acquire(round)) == seen) {   // pairs with the test's store_release
    now = ktime_ns();
    if(now > end)
      return false;
    if(!spin)
      msleep(1);
    else if(mine)
      yield();   // the test may be waiting to run here: at once, not at the next tick
    else if(now > yield_at)
      cond_resched();
    else
      cpu_relax();
  }
  return true;
}

// tlb-shootdown: readers on every CPU but the test's (on one CPU, that one too) read the
// round's page until it faults. A read that succeeds must return the pattern, never the
// recycled frame's poison, and once munmap has returned (the shootdown is done) every read
// must fault.
static struct {
  struct mm *mm;
  int round;        // the round being read; -1: the end. Release by the test
  u64 *page;        // the round's page, set before round
  int unmapped;     // the last round whose munmap returned; release by the test
  int ready, faulted, stale, stuck;   // atomic
  u64 reads;
  int munmap_err;   // the last failed munmap's errno, by the test
} sd;

static int
shootdown_reader(void *arg)
{
  int seen = 0, r;
  use_mm(sd.mm);
  while(next_round(&sd.round, seen, false, false, &r) && r > 0) {
    u64 *p = READ_ONCE(sd.page), end = guard_end(ktime_ns()), reads = 0;
    seen = r;
    for(;;) {
      bool after = smp_load_acquire(&sd.unmapped) == r;
      u64 v = 0;
      if(get_user(v, p) == -EFAULT) {
        __atomic_fetch_add(&sd.faulted, 1, __ATOMIC_RELEASE);
        break;
      }
      if(v != PATTERN || after) {   // fails the test; the round goes on without this reader
        __atomic_fetch_add(&sd.stale, 1, __ATOMIC_RELAXED);
        if(reads == 0)
          __atomic_fetch_add(&sd.ready, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&sd.faulted, 1, __ATOMIC_RELEASE);
        break;
      }
      if(++reads == 1)
        __atomic_fetch_add(&sd.ready, 1, __ATOMIC_RELEASE);
      if(ktime_ns() > end) {
        __atomic_fetch_add(&sd.stuck, 1, __ATOMIC_RELAXED);
        break;
      }
      cond_resched();
    }
    __atomic_fetch_add(&sd.reads, reads, __ATOMIC_RELAXED);
  }
  if(r >= 0)   // gave up waiting for a round
    __atomic_fetch_add(&sd.stuck, 1, __ATOMIC_RELAXED);
  unuse_mm(sd.mm);
  return 0;
}

// One round: a fresh page with the pattern, read by every reader, unmapped, its frame
// poisoned. Returns -ENOMEM when injection kept the page from being mapped or written (the
// round is undone), else 0 or -ETIMEDOUT.
static int
shootdown_round(int r, int n, u64 *ipis)
{
  use_mm(sd.mm);
  long base = vm_mmap(sd.mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  int err = base < 0 ? (int)base : put_user(PATTERN, (u64 *)base);
  unuse_mm(sd.mm);   // the test's CPU leaves: only the readers' CPUs stay in the mask
  if(err) {
    if(base >= 0)
      vm_munmap(sd.mm, base, PAGE_SIZE);
    return fault_inject_active() ? -ENOMEM : err;
  }
  sd.page = (u64 *)base;
  WRITE_ONCE(sd.ready, 0);
  WRITE_ONCE(sd.faulted, 0);
  smp_store_release(&sd.round, r);   // pairs with next_round
  bool ok = wait_for(&sd.ready, n);
  u64 before = tlb_shootdown_ipis;
  // A whole VMA's munmap needs no allocation: under injection too it must succeed.
  int merr = vm_munmap(sd.mm, base, PAGE_SIZE);
  if(merr)
    sd.munmap_err = merr;
  ok &= merr == 0;
  smp_store_release(&sd.unmapped, r);
  *ipis += tlb_shootdown_ipis - before;
  // The freed frame is most likely this CPU's next page: poison it while readers run.
  struct page *poison[8];
  for(int i = 0; i < 8; i++) {
    poison[i] = alloc_page(GFP_KERNEL);
    if(poison[i])
      memset(page_address(poison[i]), 0xee, PAGE_SIZE);
  }
  ok &= wait_for(&sd.faulted, n);
  for(int i = 0; i < 8; i++)
    if(poison[i])
      __free_page(poison[i]);
  return ok ? 0 : -ETIMEDOUT;
}

// percore: the mm has per-core page tables (mm/percore.c), whatever vm.pt= says; planted:
// their zap forgets one CPU's copies, which a reader there then keeps reading.
static bool
shootdown_run(bool percore, bool planted)
{
  int ncpus = num_online_cpus(), n = 0, cpu;
  static struct thread *t[NR_CPUS];
  memset(&sd, 0, sizeof(sd));
  if(percore && nr_cpu_ids > 64)
    return selftest_skip("more than 64 CPUs");
  bool was = vm_pt_percore;
  WRITE_ONCE(vm_pt_percore, percore);
  sd.mm = mm_create();
  WRITE_ONCE(vm_pt_percore, was);
  if(!sd.mm)
    return selftest_skip("enomem");
  WRITE_ONCE(percore_planted_skip_cpu, planted);
  int main_cpu = smp_processor_id();
  bool created = true;
  for_each_online_cpu(cpu)
    if(ncpus == 1 || cpu != main_cpu)
      created &= (t[n++] = kthread_create(shootdown_reader, NULL, cpu, "sdread/%d", cpu)) != NULL;
  u64 ns = torture_ns(SD_MS), start = ktime_ns();
  u64 floor = torture_floor_all_cpus(ROUNDS_PER_SEC, ns);
  u64 rounds = 0, ipis = 0, enomem = 0;
  bool ok = true;
  while(created && ok && more_rounds(start, ns, rounds, floor)) {
    int err = shootdown_round(rounds + enomem + 1, n, &ipis);
    enomem += err == -ENOMEM;
    rounds += err == 0;
    ok = err == 0 || err == -ENOMEM;
  }
  smp_store_release(&sd.round, -1);
  int joined = 0;
  for(int i = 0; i < n; i++)
    if(t[i])
      joined += kthread_join(t[i]) == 0;
  WRITE_ONCE(percore_planted_skip_cpu, false);
  mmput(sd.mm);
  selftest_extra("readers=%d rounds=%lu reads=%lu stale=%d stuck=%d shootdown_ipis=%lu enomem=%lu"
                 " munmap_err=%d", n, rounds, sd.reads, sd.stale, sd.stuck, ipis, enomem,
                 sd.munmap_err);
  if(!created)   // kthread_create fails under failslab=
    return selftest_skip("enomem");
  ok &= sd.stale == 0 && sd.stuck == 0;
  ok &= torture_enough("tlb-shootdown", "rounds", rounds, floor);
  // The munmaps must have interrupted the readers' CPUs: in half the rounds at least, not in
  // every one. A reader gives its CPU to whatever else wants it (cond_resched), which takes
  // that CPU out of the mm's mask, and the munmap then rightly skips it (a clean-clone make
  // test: 263 IPIs in 264 rounds at 2 vCPUs, no reader stale), as in madvise-dontneed below.
  // A kernel that skips the shootdown altogether still sends none.
  if(ncpus > 1)
    ok &= torture_enough("tlb-shootdown", "shootdown_ipis", ipis, (rounds + 1) / 2);
  return ok;
}

static bool
test_tlb_shootdown(void)
{
  return shootdown_run(false, false);
}
SELFTEST("tlb-shootdown", test_tlb_shootdown);

// The same under per-core page tables: only the readers' CPUs, which copied the page, are
// shot down, and none may read the page once munmap returned.
static bool
test_tlb_shootdown_percore(void)
{
  return shootdown_run(true, false);
}
SELFTEST("tlb-shootdown-percore", test_tlb_shootdown_percore);

static bool
test_planted_percore_skip_cpu(void)
{
  return shootdown_run(true, true);
}
SELFTEST("planted-percore-skip-cpu", test_planted_percore_skip_cpu);

// madvise-dontneed: a worker on every CPU (the test's too) owns WORKER_PAGES pages of one
// mapping. Each round they fill them, the test zaps the whole range with one MADV_DONTNEED
// while they keep the mm loaded (so their CPUs are in the mask), and they read zeros back.
static struct {
  struct mm *mm;
  unsigned long base;
  int main_cpu;
  int round, go;         // the round to fill, the round zapped; release by the test; -1: end
  int filled, checked, errors, stuck;   // atomic
} dn;

static int
dontneed_worker(void *arg)
{
  long id = (long)arg;
  u64 *p = (u64 *)(dn.base + id * WORKER_PAGES * PAGE_SIZE);
  bool mine = smp_processor_id() == dn.main_cpu;
  int seen = 0, r, zapped;
  use_mm(dn.mm);
  while(next_round(&dn.round, seen, false, mine, &r) && r > 0) {
    seen = r;
    for(int i = 0; i < WORKER_PAGES * 512; i++)
      if(put_user(((u64)r << 32) + i, p + i) != 0)
        __atomic_fetch_add(&dn.errors, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&dn.filled, 1, __ATOMIC_RELEASE);
    // Spin for the zap, not sleep: a worker that let another thread run would leave the
    // mm's mask (a switch away from an mm takes its CPU out), and the zap could skip its CPU
    // with a correct reason, failing the ipis floor.
    if(!next_round(&dn.go, r - 1, true, mine, &zapped) || zapped != r)
      break;
    for(int i = 0; i < WORKER_PAGES * 512; i++) {
      u64 v = 1;
      if(get_user(v, p + i) != 0 || v != 0)
        __atomic_fetch_add(&dn.errors, 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&dn.checked, 1, __ATOMIC_RELEASE);
  }
  if(r >= 0)   // gave up waiting
    __atomic_fetch_add(&dn.stuck, 1, __ATOMIC_RELAXED);
  unuse_mm(dn.mm);
  return 0;
}

// Exact counts (rss 0 after the zap, every word read back): the boot's injection is paused.
static bool
test_madvise_dontneed(void)
{
  int n = num_online_cpus(), cpu, i = 0;
  static struct thread *t[NR_CPUS];
  memset(&dn, 0, sizeof(dn));
  dn.mm = mm_create();
  if(!dn.mm)
    return false;
  size_t len = n * WORKER_PAGES * PAGE_SIZE;
  long base = vm_mmap(dn.mm, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  bool ok = base > 0;
  dn.base = base;
  dn.main_cpu = smp_processor_id();
  for_each_online_cpu(cpu) {
    t[i] = ok ? kthread_create(dontneed_worker, (void *)(long)i, cpu, "dontneed/%d", cpu) : NULL;
    ok &= t[i++] != NULL;
  }
  u64 ns = torture_ns(SD_MS), start = ktime_ns();
  u64 floor = torture_floor_all_cpus(ROUNDS_PER_SEC, ns);
  u64 rounds = 0, ipis = 0, rss = 0;
  while(ok && more_rounds(start, ns, rounds, floor)) {
    int r = rounds + 1;
    WRITE_ONCE(dn.filled, 0);
    WRITE_ONCE(dn.checked, 0);
    smp_store_release(&dn.round, r);   // pairs with next_round
    if(!wait_for(&dn.filled, n)) {   // a zap now would race the late fillers
      ok = false;
      break;
    }
    u64 before = tlb_shootdown_ipis;
    ok &= madvise(dn.mm, base, len, MADV_DONTNEED) == 0;
    ipis += tlb_shootdown_ipis - before;
    rss += dn.mm->rss;
    smp_store_release(&dn.go, r);
    ok &= wait_for(&dn.checked, n);
    rounds++;
  }
  smp_store_release(&dn.round, -1);
  smp_store_release(&dn.go, -1);
  for(int k = 0; k < n; k++)
    if(t[k])
      kthread_join(t[k]);
  selftest_extra("cpus=%d rounds=%lu errors=%d stuck=%d rss_after_zap=%lu shootdown_ipis=%lu", n,
                 rounds, dn.errors, dn.stuck, rss, ipis);
  mmput(dn.mm);
  ok &= dn.errors == 0 && dn.stuck == 0 && rss == 0;
  ok &= torture_enough("madvise-dontneed", "rounds", rounds, floor);
  // Workers on other CPUs had the mm loaded, so the zaps must interrupt them: in half the
  // rounds at least, not in every one. A worker that spun SPIN_MS for the zap gives its CPU
  // to whatever else wants it (cond_resched), which takes that CPU out of the mm's mask,
  // and the zap then rightly skips it (a clean-clone make test: 42 IPIs in 43 rounds at 2
  // vCPUs). A kernel that skips the shootdown altogether still sends none.
  if(n > 1)
    ok &= torture_enough("madvise-dontneed", "shootdown_ipis", ipis, (rounds + 1) / 2);
  return ok;
}
SELFTEST_NOINJECT("madvise-dontneed", test_madvise_dontneed);
