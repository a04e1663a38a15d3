// Which address space each CPU runs on, and TLB shootdowns: a flush request goes by IPI only
// to the CPUs in the mm's mask, one round per range (Linux's flush_tlb_mm_range).
#include "panic.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "vm.h"
#include <asm/cpu.h>
#include <asm/memlayout.h>
#include <asm/paging.h>
#include <asm/uaccess.h>
#include <asm/x86.h>

// The mm whose tables this CPU's CR3 holds; NULL: kernel_cr3. A CPU that switches to a
// thread without an mm loads kernel_cr3 and leaves the mm's mask, so later shootdowns of
// that mm skip it (its CR3 load already dropped every entry: no PTE_G on user pages).
DEFINE_PER_CPU(struct mm *, loaded_mm);
u64 tlb_shootdown_ipis;
u64 tlb_shootdown_wait_ns;
u64 tlb_flush_deferred;
bool tlb_planted_lazy_noflush;

// Lazy TLB for a thread that does not touch user memory for a while. Linux's lazy TLB mode
// lets a kernel thread keep the last user mm's tables loaded without taking its shootdowns:
// it uses no user translation, so a sender skips it and it flushes when it next switches if
// a flush came meanwhile (the tlb_gen check of switch_mm_irqs_off, Andy Lutomirski, Linux
// 4.14-4.19). A thread in a page fault, in madvise or munmap, or waiting in a shootdown for
// other CPUs' answers is in the same state: until it is done it reaches user pages only
// through the direct map, and its CPU runs only it, interrupts and the calls queued to it,
// none of which touch user memory (the kernel is not preemptible: include/sched.h). Workers
// that unmap at once wait for each other, and under TCG an answer may wait milliseconds for
// the host to run a vCPU; skipping a CPU that cannot use a stale entry spares it the IPI and
// the sender the wait. (Amit et al., "Don't shoot down TLB shootdowns!", EuroSys 2020, defer
// the flush of user translations to the return to user space the same way, under page-table
// isolation.)
//
// tlb_lazy is one word so that the sender's claim and the CPU's exit are one order: a sender
// moves LAZY to LAZY_STALE with a compare-and-swap and sends nothing; the CPU leaves with an
// exchange and flushes its whole TLB if it finds LAZY_STALE. Either the swap came first and
// the CPU flushes, or the exchange did and the sender sees ACTIVE and sends the IPI. The
// promise is the running thread's: a lazy thread that sleeps leaves the mode at the switch
// (switch_mm) and takes it up again on whatever CPU it resumes.
//
// Sound only because no page-table page is freed while its mm runs (free_pgtables runs when
// the mask is empty): a lazy CPU's paging-structure caches may still point into the tables,
// and a speculative walk through a freed and reused one could cache garbage or set bits in
// it (Linux sends its IPIs to lazy CPUs too when it frees page tables, for this reason).
enum { TLB_ACTIVE, TLB_LAZY, TLB_LAZY_STALE };
static DEFINE_PER_CPU(int, tlb_lazy);

// A plain store: x86 keeps stores after earlier loads and stores (SDM vol. 3A, 9.2.2), so a
// sender that reads LAZY has seen every user access made before it, even stores through a
// stale entry. Only the exit must be atomic with the sender's claim.
static void
lazy_begin(void)
{
  smp_store_release(this_cpu_ptr(&tlb_lazy), TLB_LAZY);
}

static void
lazy_end(void)
{
  if(__atomic_exchange_n(this_cpu_ptr(&tlb_lazy), TLB_ACTIVE, __ATOMIC_SEQ_CST) ==
       TLB_LAZY_STALE &&
     !READ_ONCE(tlb_planted_lazy_noflush))
    write_cr3(read_cr3());   // a flush came for an mm loaded here; which ranges, not kept
}

// No user address is touched from here until the matching leave_lazy_tlb; sections nest.
void
enter_lazy_tlb(void)
{
  if(current->lazy_tlb++ == 0)
    lazy_begin();
}

void
leave_lazy_tlb(void)
{
  BUG_ON(current->lazy_tlb <= 0);
  if(--current->lazy_tlb == 0)
    lazy_end();
}

#ifdef CONFIG_DEBUG
// user_access_begin's check in the debug image: a lazy CPU may hold stale translations.
void
lazy_tlb_check_user_access(void)
{
  if(READ_ONCE(this_cpu(tlb_lazy)) != TLB_ACTIVE)
    panic("tlb: a user access in a lazy TLB section (depth %d)", current->lazy_tlb);
}
#endif

// The sender's side: whether cpu will flush before it next uses a user translation, so that
// no IPI is needed. The caller's fence (flush_range's, flush_tlb_mask's) has made its PTE
// stores visible before this reads the word, so cpu's walks after its exit see them.
static bool
defer_flush(int cpu)
{
  int *s = per_cpu_ptr(&tlb_lazy, cpu);
  int old = READ_ONCE(*s);
  while(old == TLB_LAZY)
    if(__atomic_compare_exchange_n(s, &old, TLB_LAZY_STALE, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_RELAXED))
      return true;
  return old == TLB_LAZY_STALE;
}

// Sends the flush to targets and waits for every one to answer, counting the IPIs and the
// time waited: with more vCPUs than host cores the wait, not the flush, is the cost.
//
// A shootdown that gets no answer cannot be given up on. The caller frees the pages next
// (zap, reclaim), so a CPU that has not flushed could still write through its stale entry
// to a page handed to someone else; and its call is still queued, so when it wakes it runs
// flush_ipi on a flush_request that lived on this stack. Linux never gives up either
// (csd_lock_wait spins for good; CONFIG_CSD_LOCK_WAIT_DEBUG reports the stuck CPU and, with
// smp.panic_on_ipistall, panics): here ipi.c has named the CPU and this panics.
//
// Targets waiting in a shootdown of their own are left their flush for later (above); the
// others get fn, which flushes no more than the whole TLB that a lazy CPU's exit flushes.
static void
shootdown(const struct cpumask *targets, void (*fn)(void *), void *arg)
{
  struct cpumask send;
  int cpu, deferred = 0;
  cpumask_clear(&send);
  for_each_cpu(cpu, targets) {
    if(defer_flush(cpu))
      deferred++;
    else
      cpumask_set_cpu(cpu, &send);
  }
  if(deferred)
    __atomic_fetch_add(&tlb_flush_deferred, deferred, __ATOMIC_RELAXED);
  int n = cpumask_weight(&send);
  if(!n)
    return;
  u64 t0 = ktime_ns();
  __atomic_fetch_add(&tlb_shootdown_ipis, n, __ATOMIC_RELAXED);
  enter_lazy_tlb();
  int err = smp_call_function_many(&send, fn, arg, true);
  leave_lazy_tlb();
  if(err < 0)
    panic("tlb: a shootdown to %d CPUs went unanswered for %d ms; its pages cannot be freed",
          n, ipi_timeout());
  __atomic_fetch_add(&tlb_shootdown_wait_ns, ktime_ns() - t0, __ATOMIC_RELAXED);
}

struct flush_request {
  struct mm *mm;
  unsigned long start, end;
};

// invlpg per page for small ranges, a CR3 reload above the ceiling, where one reload
// costs less than many invlpg (Linux's tlb_single_page_flush_ceiling).
static void
flush_local(struct flush_request *f)
{
  if((f->end - f->start) / PAGE_SIZE > TLB_FLUSH_CEILING) {
    write_cr3(read_cr3());
    return;
  }
  for(unsigned long a = f->start; a < f->end; a += PAGE_SIZE)
    invlpg(a);
}

// In the IPI, interrupts off. The CPU may have left the mm since the sender read the mask.
static void
flush_ipi(void *arg)
{
  struct flush_request *f = arg;
  if(this_cpu(loaded_mm) == f->mm)
    flush_local(f);
}

// The caller has changed the PTEs of [start, end). The fence orders those stores before
// the mask is read (x86 lets a load pass an earlier store, SDM vol. 3A, 9.2.3.4); a CPU
// joining the mm sets its bit before it loads CR3, so one of the two sees the other.
//
// Under vm.pt=percore only the CPUs whose own tables copied a PTE of the range can cache
// it: their copies go first (mm/percore.c), under the locks their faults fill them under,
// and of them only those still running the mm get the IPI; one that left reloaded CR3.
static void
flush_range(struct mm *mm, unsigned long start, unsigned long end, bool clean)
{
  struct flush_request f = { mm, start, end };
  __atomic_fetch_add(&mm->tlb_flushes, 1, __ATOMIC_RELAXED);
  struct cpumask copied;
  if(mm->pcpu_pgd) {
    cpumask_clear(&copied);
    if(clean)
      percore_clean(mm, start, end, &copied);
    else
      percore_zap(mm, start, end, &copied);
  }
  smp_mb();
  struct cpumask targets = mm->cpu_mask;
  if(mm->pcpu_pgd)
    cpumask_and(&targets, &copied);
  cpumask_clear_cpu(smp_processor_id(), &targets);
  shootdown(&targets, flush_ipi, &f);
  if(this_cpu(loaded_mm) == mm)
    flush_local(&f);
}

void
flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end)
{
  flush_range(mm, start, end, false);
}

// MADV_FREE's flush: the PTEs of [start, end) stay, clean; per-core copies are cleaned as
// they are, not cleared, so that the pages' next stores need no fault.
void
flush_tlb_range_clean(struct mm *mm, unsigned long start, unsigned long end)
{
  flush_range(mm, start, end, true);
}

static void
flush_all_ipi(void *arg)
{
  write_cr3(read_cr3());   // every non-global entry: user pages are never global
}

// Every CPU in mask drops all its user TLB entries: reclaim's one flush for a batch of
// pages from several address spaces.
void
flush_tlb_mask(const struct cpumask *mask)
{
  struct cpumask targets = *mask;
  int me = smp_processor_id();
  smp_mb();
  cpumask_clear_cpu(me, &targets);
  shootdown(&targets, flush_all_ipi, NULL);
  if(cpumask_test_cpu(me, mask))
    write_cr3(read_cr3());
}

// Interrupts off: a flush IPI must see loaded_mm and CR3 agree.
static void
load_mm(struct mm *next)
{
  int me = smp_processor_id();
  struct mm *prev = this_cpu(loaded_mm);
  if(prev == next)
    return;
  if(next) {
    cpumask_set_cpu_atomic(me, &next->cpu_mask);
    smp_mb();
    write_cr3(__pa(next->pcpu_pgd ? next->pcpu_pgd[me] : next->pgd));
  } else {
    write_cr3(kernel_cr3);
  }
  this_cpu(loaded_mm) = next;
  if(prev)
    cpumask_clear_cpu_atomic(me, &prev->cpu_mask);
}

// From schedule(), just before switch_to: the next thread's tables, or the kernel's.
void
switch_mm(struct thread *prev, struct thread *next)
{
  if(prev->lazy_tlb)
    lazy_end();   // next may run user code on this CPU: whatever was deferred, flushed first
  next->active_mm = next->mm;
  load_mm(next->mm);
  if(next->lazy_tlb)
    lazy_begin();   // next resumes inside its lazy section
}

void
use_mm(struct mm *mm)
{
  mmget(mm);
  u64 flags = local_irq_save();
  current->mm = mm;
  current->active_mm = mm;
  load_mm(mm);
  local_irq_restore(flags);
}

void
unuse_mm(struct mm *mm)
{
  u64 flags = local_irq_save();
  current->mm = NULL;
  current->active_mm = NULL;
  load_mm(NULL);
  local_irq_restore(flags);
  mmput(mm);
}
