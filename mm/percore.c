// Per-core page tables (vm.pt=percore): each CPU runs an address space on page tables of its
// own, a cache of the mm's shared tables filled by that CPU's faults alone, so that a change
// to memory only one CPU touched needs no IPI (RadixVM: Clements, Kaashoek, Zeldovich,
// EuroSys 2013). Linux has no such variant.
//
// The shared tables (mm->pgd) stay the truth, and every path that changes a PTE changes them
// as before. A CPU's tables (mm->pcpu_pgd[cpu]) hold copies of shared PTEs: a fault fills the
// faulting CPU's copy from the shared PTE (percore_fill) and records the CPU in the shared
// page table's struct page (private: a bitmap of CPU ids, hence at most 64 CPUs); a flush of
// a range clears the copies of the CPUs recorded there (percore_zap) and sends IPIs to
// those of them still running the mm, not to every CPU running it. Copies change only under
// the lock of the shared page table they copy (pte_lockptr; the hardware's accessed and
// dirty bits aside), which also guards its record of CPUs.
//
// The dirty bit: a store sets it in the copy it went through, not in the shared PTE. Only
// lazy-free reclaim reads it (a page written after MADV_FREE must stay), so each path that
// must see it looks at the copies too: a zap that leaves the shared PTE in place folds its
// copies' dirty bits into it (mprotect, fork, and mremap before its move), MADV_FREE cleans
// the copies with the shared PTE (percore_clean), and reclaim takes the copies away
// with the shared PTE, each atomically, so that no store can set a bit it does not see
// (percore_clear_page_locked). Copies are cleared by exchange: a CPU whose TLB entry has the
// dirty bit clear re-walks on a store and faults on the cleared copy (SDM vol. 3A, 4.8).
#include "errno.h"
#include "mm.h"
#include "slab.h"
#include "smp.h"
#include "string.h"
#include "vm.h"
#include <asm/paging.h>

bool vm_pt_percore;              // vm.pt=percore: new mms get per-core tables
bool percore_planted_skip_cpu;   // planted bug: a zap forgets the highest other CPU recorded
struct pt_count pt_pages_shared, pt_pages_percore;

void
pt_pages_add(struct pt_count *c, long n)
{
  u64 now = __atomic_add_fetch(&c->now, n, __ATOMIC_RELAXED);
  u64 peak = READ_ONCE(c->peak);
  while(now > peak && !__atomic_compare_exchange_n(&c->peak, &peak, now, false,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

static inline int
pt_index(unsigned long va, int level)
{
  return (va >> (12 + 9 * level)) & 511;
}

static u64 *
new_table(void)
{
  struct page *p = alloc_page(GFP_KERNEL | __GFP_ZERO);
  if(!p)
    return NULL;
  pt_pages_add(&pt_pages_percore, 1);
  return page_address(p);
}

static void
free_table(u64 *t, int level)
{
  for(int i = 0; level > 0 && i < (level == 3 ? 256 : 512); i++)
    if(t[i] & PTE_P)
      free_table(__va(t[i] & PTE_ADDR), level - 1);
  free_page((unsigned long)t);
  pt_pages_add(&pt_pages_percore, -1);
}

// Every CPU id gets its top-level table now, with the kernel half (mm/memory.c's pgd_alloc);
// the lower levels come with the faults. -ENOMEM leaves nothing allocated.
int
percore_pgd_alloc(struct mm *mm)
{
  if(!vm_pt_percore || nr_cpu_ids > 64)
    return 0;
  u64 **pgds = kzalloc(nr_cpu_ids * sizeof(*pgds), GFP_KERNEL);
  if(!pgds)
    return -ENOMEM;
  for(int cpu = 0; cpu < nr_cpu_ids; cpu++) {
    if(!(pgds[cpu] = new_table())) {
      while(cpu-- > 0)
        free_table(pgds[cpu], 0);
      kfree(pgds);
      return -ENOMEM;
    }
    memcpy(pgds[cpu] + 256, mm->pgd + 256, 256 * sizeof(u64));
  }
  mm->pcpu_pgd = pgds;
  return 0;
}

void
percore_free(struct mm *mm)
{
  if(!mm->pcpu_pgd)
    return;
  for(int cpu = 0; cpu < nr_cpu_ids; cpu++)
    free_table(mm->pcpu_pgd[cpu], 3);
  kfree(mm->pcpu_pgd);
  mm->pcpu_pgd = NULL;
}

// The PTE of addr in cpu's tables, or NULL where a level is missing. Under the lock of the
// shared page table of addr; the upper levels it walks only ever gain entries (under
// page_table_lock, percore_slot) while the mm lives.
static u64 *
pcpu_pte(struct mm *mm, int cpu, unsigned long addr)
{
  return pt_walk(mm->pcpu_pgd[cpu], addr);
}

// Where cpu's copy of addr's PTE goes: cpu's tables made to reach it, NULL without memory.
// The allocations may sleep, so a fault calls this before it takes the shared table's lock;
// a level another fault made meanwhile wins.
u64 *
percore_slot(struct mm *mm, int cpu, unsigned long addr)
{
  u64 *t = mm->pcpu_pgd[cpu];
  for(int level = 3; level > 0; level--) {
    u64 *e = &t[pt_index(addr, level)];
    if(!(READ_ONCE(*e) & PTE_P)) {
      u64 *n = new_table();
      if(!n)
        return NULL;
      spin_lock(&mm->page_table_lock);
      if(!(*e & PTE_P)) {
        WRITE_ONCE(*e, __pa(n) | PT_FLAGS);
        n = NULL;
      }
      spin_unlock(&mm->page_table_lock);
      if(n)
        free_table(n, 0);
    }
    t = __va(READ_ONCE(*e) & PTE_ADDR);
  }
  return &t[pt_index(addr, 0)];
}

// cpu's copy of the shared PTE, and cpu on the shared table's record. Under the lock of the
// shared page table; nothing when the shared PTE is not present: the access faults again.
void
percore_copy(int cpu, u64 *copy, u64 *shared)
{
  u64 e = *shared;
  if(e & PTE_P) {
    WRITE_ONCE(*copy, e);
    virt_to_page(shared)->private |= 1UL << cpu;
  }
}

// After a fault on this CPU resolved addr in the shared tables, unless it made the copy under
// the lock it installed the PTE with (do_fault's demand-zero path): this CPU's copy of the
// shared PTE. Nothing when the shared PTE went meanwhile: the access faults again. The thread
// may have moved to another CPU since; the copy is then that CPU's cache, and the thread
// faults again where it runs now.
void
percore_fill(struct mm *mm, unsigned long addr)
{
  int cpu = smp_processor_id();
  u64 *copy = percore_slot(mm, cpu, addr);
  if(!copy)
    return;   // no memory for a table: the access faults again, and may find some
  spinlock_t *ptl;
  u64 *shared = pte_offset_map_lock(mm, addr, &ptl);
  if(!shared)
    return;
  percore_copy(cpu, copy, shared);
  spin_unlock(ptl);
}

// The copies of [start, end) within one shared page table pt (one 2 MiB span), cleared in
// every CPU recorded on it; those that held one of the range go into *cpus (a CPU caches no
// translation its tables never had: SDM vol. 3A, 4.10.2.3), so threads whose memory shares a
// span do not shoot each other down. A CPU whose copies of the span are all gone leaves the
// record.
static void
zap_span(struct mm *mm, struct page *pt, unsigned long span, unsigned long start,
         unsigned long end, struct cpumask *cpus)
{
  u64 bits = pt->private;
  u64 others = bits & ~(1UL << smp_processor_id());
  if(others && READ_ONCE(percore_planted_skip_cpu))
    bits &= ~(1UL << (63 - __builtin_clzl(others)));   // planted: one CPU keeps its copies
  for(int cpu = 0; bits; cpu++, bits >>= 1) {
    if(!(bits & 1))
      continue;
    u64 *pte = pcpu_pte(mm, cpu, span);
    if(!pte) {
      pt->private &= ~(1UL << cpu);
      continue;
    }
    u64 *shared = page_address(pt);
    bool any = false, had = false;
    for(int i = 0; i < 512; i++) {
      unsigned long a = span + i * PAGE_SIZE;
      if(a < start || a >= end) {
        any |= pte[i] & PTE_P;
        continue;
      }
      u64 old = pte[i] & PTE_P ? __atomic_exchange_n(&pte[i], 0, __ATOMIC_RELAXED) : 0;
      had |= old & PTE_P;
      // Written through this copy, and the shared PTE still maps the same page: it is dirty.
      const u64 same = PTE_P | PTE_ADDR;
      if((old & PTE_D) && (READ_ONCE(shared[i]) & same) == (old & same))
        __atomic_fetch_or(&shared[i], PTE_D, __ATOMIC_RELAXED);
    }
    if(had)
      cpumask_set_cpu(cpu, cpus);
    if(!any)
      pt->private &= ~(1UL << cpu);
  }
}

// fn on each span of [start, end) that has a shared page table, with that table's struct
// page and the span's first address, under that table's lock. A missing upper level skips
// all it covers, so a whole address space (fork) costs what its tables hold.
static void
for_each_span(struct mm *mm, unsigned long start, unsigned long end, struct cpumask *cpus,
              void (*fn)(struct mm *mm, struct page *pt, unsigned long span,
                         unsigned long start, unsigned long end, struct cpumask *cpus))
{
  for(unsigned long a = ALIGN_DOWN(start, PMD_SIZE); a < end;) {
    u64 *t = mm->pgd;
    int level = 3;
    for(; level > 0; level--) {
      u64 e = READ_ONCE(t[pt_index(a, level)]);
      if(!(e & PTE_P))
        break;
      t = __va(e & PTE_ADDR);
    }
    if(level == 0) {
      spinlock_t *ptl = pte_lockptr(mm, t);
      spin_lock(ptl);
      fn(mm, virt_to_page(t), a, start, end, cpus);
      spin_unlock(ptl);
    }
    unsigned long size = 1UL << (12 + 9 * (level ? level : 1));
    unsigned long next = ALIGN_DOWN(a, size) + size;
    if(next <= a)   // wrapped past the top
      break;
    a = next;
  }
}

// After the shared PTEs of [start, end) changed: every copy of them goes, and *cpus gains
// the CPUs that held one.
void
percore_zap(struct mm *mm, unsigned long start, unsigned long end, struct cpumask *cpus)
{
  for_each_span(mm, start, end, cpus, zap_span);
}

// MADV_FREE's, within one span: each recorded CPU's copies of [start, end) lose their
// accessed and dirty bits, atomically (the hardware may set them meanwhile).
static void
clean_span(struct mm *mm, struct page *pt, unsigned long span, unsigned long start,
           unsigned long end, struct cpumask *cpus)
{
  int lo = start > span ? (start - span) >> PAGE_SHIFT : 0;
  int hi = end < span + PMD_SIZE ? (end - span) >> PAGE_SHIFT : 512;
  u64 bits = pt->private;
  for(int cpu = 0; bits; cpu++, bits >>= 1) {
    u64 *pte = bits & 1 ? pcpu_pte(mm, cpu, span) : NULL;
    bool had = false;
    for(int i = lo; pte && i < hi; i++) {
      if(READ_ONCE(pte[i]) & PTE_P) {
        __atomic_fetch_and(&pte[i], ~(PTE_A | PTE_D), __ATOMIC_RELAXED);
        had = true;
      }
    }
    if(had)
      cpumask_set_cpu(cpu, cpus);
  }
}

// MADV_FREE's: the copies of [start, end) lose their accessed and dirty bits as the shared
// PTEs did; *cpus gains the CPUs that held one, whose TLBs must drop the entries that still
// say dirty.
void
percore_clean(struct mm *mm, unsigned long start, unsigned long end, struct cpumask *cpus)
{
  for_each_span(mm, start, end, cpus, clean_span);
}

// Under shared's page table's lock, lazy-free reclaim's: every copy of the page at addr,
// whose shared PTE is shared, taken away by exchange; whether one was dirty. *cpus gains
// the CPUs that held one.
bool
percore_clear_page_locked(struct mm *mm, u64 *shared, unsigned long addr, struct cpumask *cpus)
{
  bool dirty = false;
  u64 bits = virt_to_page(shared)->private;
  for(int cpu = 0; bits; cpu++, bits >>= 1) {
    u64 *pte = bits & 1 ? pcpu_pte(mm, cpu, addr) : NULL;
    u64 old = pte ? __atomic_exchange_n(pte, 0, __ATOMIC_RELAXED) : 0;
    if(old & PTE_P) {
      dirty |= old & PTE_D;
      cpumask_set_cpu(cpu, cpus);
    }
  }
  return dirty;
}
