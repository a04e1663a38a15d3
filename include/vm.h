// Address spaces: struct mm with its own page tables and a tree of VMAs, private anonymous
// mmap/munmap, demand paging, madvise (MADV_DONTNEED, MADV_FREE) and the TLB shootdowns they need.
#pragma once
#include "cpumask.h"
#include "rcupdate.h"
#include "rwsem.h"
#include "spinlock.h"
#include "types.h"

struct lru_ops;
struct page;
struct thread;

// The lower half of the address space belongs to an mm; PML4 entries 256..511 are the
// kernel's, copied from kernel_pml4 when the mm is made (AMD64 canonical addresses).
#define USER_END     0x0000800000000000UL
#define MMAP_BASE    0x0000100000000000UL   // where mmap looks for room without MAP_FIXED

#define PROT_READ    0x1
#define PROT_WRITE   0x2
#define PROT_EXEC    0x4
#define MAP_SHARED   0x01
#define MAP_PRIVATE  0x02
#define MAP_FIXED    0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000

#define MADV_DONTNEED 4   // Linux's values (include/uapi/asm-generic/mman-common.h)
#define MADV_FREE     8

#define VM_READ  0x1
#define VM_WRITE 0x2
#define VM_EXEC  0x4

#define FAULT_WRITE 0x1   // handle_mm_fault's flags: the access was a write,
#define FAULT_INSTR 0x2   // an instruction fetch,
#define FAULT_USER  0x4   // from ring 3

// One mapping [start, end), page aligned, a node of the mm's AVL tree ordered by start.
struct vma {
  unsigned long start, end;
  unsigned long flags;        // VM_READ, VM_WRITE, VM_EXEC
  struct vma *left, *right;
  int height;                 // of the subtree rooted here; a leaf is 1
};

// Anonymous pages name their owner through page->private (this mm) and page->index (their
// virtual address); page->mapping points at the static lazyfree owner (mm/lazyfree.c), not at
// the mm, so the reclaim core never follows a pointer into an mm that is being torn down.
struct mm {
  u64 *pgd;                   // the top-level page table (the PML4 on x86-64); switch_mm loads it
  bool user;                      // a process's: its pages are user pages (PTE_U), set at creation
  struct vma *vma_root;
  int nr_vmas;
  struct rw_semaphore mmap_sem;   // the VMA tree: write to change it, read to fault or madvise
  spinlock_t page_table_lock;     // every lower-half PTE and page-table page of this mm
  struct cpumask cpu_mask;        // CPUs that may hold TLB entries of this mm (atomic updates)
  int users;                      // references (mm_create, use_mm); the last mmput tears down
  unsigned long rss;              // resident pages, under page_table_lock
  u64 tlb_flushes;                // flush requests, local or remote
  struct rcu_head rcu;            // freed after a grace period: lazyfree_evict may still look
};

struct mm *mm_create(void);                 // NULL when out of memory; one user
void mmget(struct mm *mm);
void mmput(struct mm *mm);                  // the last reference unmaps and frees everything
struct vma *find_vma(struct mm *mm, unsigned long addr);   // first vma with end > addr
struct vma *vma_next(struct mm *mm, struct vma *vma);      // in address order, NULL at the end

// Only anonymous memory (Linux's in-kernel vm_mmap/vm_munmap); MAP_SHARED is private memory
// here, as no process shares an mm with another. vm_mmap returns the address or a negative
// errno; without MAP_FIXED, addr is a hint taken when that range is free.
long vm_mmap(struct mm *mm, unsigned long addr, size_t len, int prot, int flags);
int vm_mprotect(struct mm *mm, unsigned long addr, size_t len, int prot);   // mm/mprotect.c
unsigned long vm_flags_from_prot(int prot);
// Under mmap_sem for write: split the VMA containing addr there (taking *spare), and join
// neighbours with equal flags around [start, end].
void vma_split_at(struct mm *mm, unsigned long addr, struct vma **spare);
void vma_merge_range(struct mm *mm, unsigned long start, unsigned long end);
int vm_munmap(struct mm *mm, unsigned long addr, size_t len);
int madvise(struct mm *mm, unsigned long addr, size_t len, int advice);
extern bool madvise_exclusive;   // true: madvise takes mmap_sem for write (pre-2007 Linux)

// A kernel thread adopts an mm and reaches its lower half through uaccess.h; it must
// unuse_mm before it exits.
void use_mm(struct mm *mm);
void unuse_mm(struct mm *mm);

// mm/memory.c: page tables of the lower half, faults and unmapping.
int pgd_alloc(struct mm *mm);
void free_pgtables(struct mm *mm);
int handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags);   // 0, -EFAULT, -ENOMEM
u64 vma_pte_prot(struct mm *mm, unsigned long vm_flags);   // a PTE's bits for such a VMA
u64 *pte_lookup(struct mm *mm, unsigned long addr);   // NULL if no page table; under the lock
u64 *pte_alloc(struct mm *mm, unsigned long addr);    // the tables on the way made; NULL: no memory
void vma_link(struct mm *mm, struct vma *v);          // into the tree; under mmap_sem for write
// mm/cow.c: fork's copy-on-write.
struct mm *dup_mm(struct mm *src);   // the child's address space; NULL when out of memory
bool cow_reuse(struct mm *mm, struct page *page, unsigned long addr);   // under the lock
int do_wp_page(struct mm *mm, unsigned long addr, u64 *pte, u64 prot);  // 0 or -ENOMEM
void zap_page_range(struct mm *mm, unsigned long start, unsigned long end);

// A batch of pages whose PTEs were changed: one TLB flush covers them all before they are
// freed or handed to reclaim (Linux's mmu_gather).
#define GATHER_LOCAL 16
struct mmu_gather {
  struct mm *mm;
  unsigned long start, end;   // the range still to flush; start >= end when none
  struct page **pages;        // a page of pointers, or local if that allocation failed
  unsigned n, max;
  struct page *local[GATHER_LOCAL];
};
void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm);
bool tlb_gather_page(struct mmu_gather *tlb, struct page *page, unsigned long addr);  // full?
void tlb_gather_flush(struct mmu_gather *tlb);     // one shootdown for the range so far
void tlb_gather_release(struct mmu_gather *tlb);   // flush, then free the unmapped pages
void tlb_gather_done(struct mmu_gather *tlb);      // release, and give the batch page back
// Each present PTE of [start, end) through pte_fn under the page-table lock, its page into
// the batch; batch_fn on every full batch and the last, unlocked (mm/memory.c).
void walk_present_ptes(struct mm *mm, unsigned long start, unsigned long end,
                       struct page *(*pte_fn)(struct mm *mm, u64 *pte),
                       void (*batch_fn)(struct mmu_gather *tlb));

// mm/lazyfree.c: the owner of anonymous pages on the reclaim core's lists.
extern const struct lru_ops *const anon_owner;   // &anon_owner: page->mapping once handed over
void anon_page_init(struct page *page, struct mm *mm, unsigned long addr);
void anon_page_release(struct page *page);       // after its PTE is gone and flushed
void anon_page_lazyfree(struct page *page);      // MADV_FREE, after the flush, under the lock
extern bool lazyfree_ignore_dirty;   // planted bug: evict drops redirtied pages too
// Test hook: evict calls it, outside every lock, for a page it has just decided to keep.
extern void (*lazyfree_keep_hook)(struct page *page);
extern u64 lazyfree_freed;           // pages dropped by evict since boot

// arch/x86_64/tlb.c: which mm a CPU runs on, and shootdowns.
void switch_mm(struct thread *prev, struct thread *next);   // schedule(), interrupts off
void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);
void flush_tlb_mask(const struct cpumask *mask);
extern u64 nr_page_faults;   // handle_mm_fault calls since boot (Linux's PGFAULT event)
extern u64 tlb_shootdown_ipis;       // IPIs sent for shootdowns since boot
extern u64 tlb_shootdown_wait_ns;    // time their senders waited for the answers
#define TLB_FLUSH_CEILING 33         // pages above which a CPU flushes its whole TLB (Linux's)
