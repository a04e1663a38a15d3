// Address spaces: struct mm with its own page tables and a tree of VMAs, anonymous and file
// mmap/munmap/mremap, demand paging, madvise (MADV_DONTNEED, MADV_FREE) and TLB shootdowns.
#pragma once
#include "cpumask.h"
#include "list.h"
#include "mm.h"
#include "rcupdate.h"
#include "rwsem.h"
#include "spinlock.h"
#include "types.h"

struct file;
struct lru_ops;
struct page;
struct thread;

// The lower half of the address space belongs to an mm; PML4 entries 256..511 are the
// kernel's, copied from kernel_pml4 when the mm is made (AMD64 canonical addresses).
#define USER_END     0x0000800000000000UL
#define MMAP_BASE    0x0000100000000000UL   // where mmap looks for room without MAP_FIXED
// Linux's TASK_SIZE_MAX: the top page below USER_END is never mapped, so no instruction can end
// at 2^47 and SYSRET (or IRET) never returns to a non-canonical address (Intel SDM vol. 2B,
// SYSRET: #GP in ring 0 on a non-canonical RCX).
#define TASK_SIZE    (USER_END - 0x1000UL)
// Linux's vm.max_map_count default (DEFAULT_MAX_MAP_COUNT): the most VMAs one address space
// may hold, so that no program makes every later walk, fork and teardown of it unbounded.
#define MAX_MAP_COUNT 65530

#include "uapi/mman.h"

// mm/mmap.c: [addr, addr + len) reaches past TASK_SIZE (the argument checks of mmap, mremap...).
bool beyond_task_size(u64 addr, u64 len);

#define VM_READ  0x1
#define VM_WRITE 0x2
#define VM_EXEC  0x4
#define VM_SHARED   0x8    // MAP_SHARED of a file: stores go to the page cache (Linux's values)
#define VM_MAYWRITE 0x20   // mprotect may add VM_WRITE: all but a shared map of a read-only fd
#define VM_PROT (VM_READ | VM_WRITE | VM_EXEC)

#define FAULT_WRITE 0x1   // handle_mm_fault's flags: the access was a write,
#define FAULT_INSTR 0x2   // an instruction fetch,
#define FAULT_USER  0x4   // from ring 3

// One mapping [start, end), page aligned, a node of the mm's AVL tree ordered by start.
// A file mapping holds a reference on its file (get_file), dropped when the VMA goes.
struct vma {
  unsigned long start, end;
  unsigned long flags;        // VM_READ, VM_WRITE, VM_EXEC, VM_SHARED, VM_MAYWRITE
  struct file *file;          // a file mapping's file, or NULL: anonymous memory
  unsigned long pgoff;        // file mappings: the file's page at start
  struct mm *mm;              // file mappings: the mm whose tree holds it
  struct list_head i_mmap_link;   // file mappings: on the inode's i_mmap, under i_mmap_lock
  unsigned long unmap_gen;    // the inode's i_mmap_gen when truncation last unmapped it
  // The tree's links and what each node knows of its subtree, all under mmap_sem for write:
  // the height for the AVL balance, and for find_gap the subtree's span and its largest hole
  // between two of its VMAs (mm/vma.c, after Linux's rb_subtree_gap).
  struct vma *left, *right;
  int height;                 // of the subtree rooted here; a leaf is 1
  unsigned long subtree_start;   // the lowest start in the subtree (its first VMA's)
  unsigned long subtree_end;     // the highest end in the subtree (its last VMA's)
  unsigned long subtree_gap;     // the largest hole between consecutive VMAs of it; 0 for one
  // Per-VMA locking (mm/vma_lock.c): a fault read-locks vm_lock unless vm_lock_seq equals the
  // mm's mm_lock_seq, which vma_start_write sets under mmap_sem for write and vm_lock for write.
  struct rw_semaphore vm_lock;
  int vm_lock_seq;
  bool detached;              // out of the tree, under mmap_sem for write; freed after rcu
  // munmap in two phases (mm/munmap.c): the VMA stays in the tree, marked, while its pages
  // are zapped without mmap_sem. Set under mmap_sem for write with the VMA write-locked, and
  // never cleared: the VMA leaves the tree instead. find_vma and faults pass it over;
  // unmap_next links that munmap's VMAs, which only it reads.
  bool unmapping;
  struct vma *unmap_next;
  struct rcu_head rcu;
};

#ifdef VMA_TEST
// Host test builds of mm/vma.c only (tests/host/test_vma.c): the nodes find_gap visited, and a
// planted bug, rotations that forget to recompute the subtree gaps.
extern unsigned long vma_gap_visits;
extern bool vma_planted_stale_rotate;
#endif

// Anonymous pages name their owner through page->private (this mm) and page->index (their
// virtual address); page->mapping points at the static lazyfree owner (mm/lazyfree.c), not at
// the mm, so the reclaim core never follows a pointer into an mm that is being torn down.
struct mm {
  u64 *pgd;                   // the top-level page table (the PML4 on x86-64); switch_mm loads it
  bool user;                      // a process's: its pages are user pages (PTE_U), set at creation
  struct vma *vma_root;
  int nr_vmas;
  struct rw_semaphore mmap_sem;   // the VMA tree: write to change it, read to fault or madvise
  // Write sections of mmap_sem, counted: bumped (release) by mmap_write_unlock, read by
  // faults that lock one VMA without mmap_sem (mm/vma_lock.c).
  int mm_lock_seq;
  // munmap's second phase (mm/munmap.c): VMAs marked unmapping, and the munmaps that ended
  // (bumped when their VMAs leave the tree), both under mmap_sem for write; the threads that
  // wait for one to end (atomic).
  int nr_unmapping;
  unsigned long unmap_seq;
  int unmap_waiters;
  // The page tables' shape: a missing upper level installed (pte_alloc, each CPU's under
  // vm.pt=percore), and the tables freed (free_pgtables) against lazyfree_evict's walk. Under
  // vm.ptl=mm it also guards every PTE; under vm.ptl=split (the default) a page table's
  // entries are under that table's own lock instead (pte_lockptr).
  spinlock_t page_table_lock;
  struct cpumask cpu_mask;        // CPUs that may hold TLB entries of this mm (atomic updates)
  int users;                      // references (mm_create, use_mm); the last mmput tears down
  unsigned long rss;              // resident pages: mm_rss_add, atomic (faults count
                                  // them under different page tables' locks)
  u64 tlb_flushes;                // flush requests, local or remote
  // vm.pt=percore (mm/percore.c): each CPU id's own top-level table, NULL under shared; a
  // copy of a shared PTE changes under the shared PTE's lock (pte_lockptr), a CPU's upper
  // levels under page_table_lock.
  u64 **pcpu_pgd;
  struct rcu_head rcu;            // freed after a grace period: lazyfree_evict may still look
};

// Split page-table locks (vm.ptl=split, the default; Linux 2.6.15's, Hugh Dickins, "mm:
// split page table lock", 2005): each page table (512 PTEs, 2 MiB) has a lock of its own,
// kept through page->ptl, so that threads faulting or advising different 2 MiB spans of one
// address space take different locks. vm.ptl=mm keeps one lock for every PTE of the mm, as
// Linux before it, to compare the two in one image. A page table made under vm.ptl=mm has no
// lock of its own (page->ptl NULL) and uses the mm's all its life. mm/ptlock.c.
extern bool vm_ptl_split;
extern bool ptlock_planted_shared;   // planted bug: every page table made gets one lock
static inline spinlock_t *
pte_lockptr(struct mm *mm, u64 *pte)
{
  spinlock_t *l = virt_to_page(pte)->ptl;
  return l ? l : &mm->page_table_lock;
}
int ptlock_alloc(struct page *pt);   // a new page table's lock (or NULL: the mm's); -ENOMEM
void ptlock_free(struct page *pt);

static inline void
mm_rss_add(struct mm *mm, long n)
{
  __atomic_add_fetch(&mm->rss, n, __ATOMIC_RELAXED);
}

struct mm *mm_create(void);                 // NULL when out of memory; one user
void mmget(struct mm *mm);
void mmput(struct mm *mm);                  // the last reference unmaps and frees everything
struct vma *find_vma(struct mm *mm, unsigned long addr);   // first vma with end > addr
// The same counting the VMAs a munmap is taking down (vma->unmapping), whose pages may still
// be mapped: truncation must reach them, and nothing may be mapped over them meanwhile.
struct vma *__find_vma(struct mm *mm, unsigned long addr);
struct vma *vma_next(struct mm *mm, struct vma *vma);      // in address order, NULL at the end

// Linux's in-kernel vm_mmap/vm_munmap. vm_mmap maps private anonymous memory (MAP_SHARED
// given here is private too: user mappings that must be shared across fork go through
// shmem_zero_setup); vm_mmap_file maps file
// (taking its own reference) from page pgoff on, with vm_flags' VM_SHARED and VM_MAYWRITE,
// which the caller has checked against the file's open mode. Both return the address or a
// negative errno; without MAP_FIXED, addr is a hint taken when that range is free.
long vm_mmap(struct mm *mm, unsigned long addr, size_t len, int prot, int flags);
long vm_mmap_file(struct mm *mm, unsigned long addr, size_t len, int prot, int flags,
                  struct file *file, unsigned long pgoff, unsigned long vm_flags);
// mmap(2)'s MAP_SHARED|MAP_ANONYMOUS (mm/shmem.c): a shared mapping of a new unnamed file of
// len bytes, which fork's children keep sharing; the address or -errno, as vm_mmap.
long shmem_zero_setup(struct mm *mm, unsigned long addr, size_t len, int prot, int flags);
// Such a file by itself, of size bytes (a SysV segment's, ipc/shm.c): one reference, or NULL.
struct file *shmem_file_setup(size_t size);
bool is_shmem_file(const struct file *f);
// mremap(2) (mm/vma.c): the new address or -errno.
long vm_mremap(struct mm *mm, unsigned long addr, size_t old_len, size_t new_len, int flags,
               unsigned long new_addr);
int vm_mprotect(struct mm *mm, unsigned long addr, size_t len, int prot);   // mm/mprotect.c
unsigned long vm_flags_from_prot(int prot);
// Under mmap_sem for write: split the VMA containing addr there (taking *spare), and join
// neighbours with equal flags around [start, end].
void vma_split_at(struct mm *mm, unsigned long addr, struct vma **spare);
void vma_merge_range(struct mm *mm, unsigned long start, unsigned long end);
// munmap(2): the VMAs leave the tree under mmap_sem for write, their pages are zapped without
// it (mm/munmap.c). 0, -EINVAL, or -ENOMEM where a VMA would need splitting past the limit.
int vm_munmap(struct mm *mm, unsigned long addr, size_t len);
// Test hooks (tests/kernel/munmap_test.c): called between munmap's phases, with mmap_sem free
// and the VMAs marked; planted bugs: the zap takes the whole range, holes and all, and a fault
// under a VMA's lock maps a page into a VMA being unmapped.
extern void (*munmap_zap_hook)(struct mm *mm);
extern bool munmap_planted_whole_range, munmap_planted_fault;
// mincore(2)'s answer for up to n pages from start, within the VMA holding it (mm/mincore.c):
// how many were filled, or -ENOMEM if start is unmapped.
long vm_mincore(struct mm *mm, unsigned long start, unsigned long n, u8 *vec);
int madvise(struct mm *mm, unsigned long addr, size_t len, int advice);
extern bool madvise_exclusive;   // true: madvise takes mmap_sem for write (pre-2007 Linux)
extern bool madvise_vma_lock;    // madvise.lock=vma: within one VMA, under its lock alone
extern bool madvise_planted_span; // planted bug: madvise.lock=vma ignores the VMA's end
// madvise with the lock mode given: exclusive, mmap_sem for write (user mode's follows
// madvise.lock=write, the in-kernel callers' madvise_exclusive); else a VMA's lock as
// madvise_vma_lock says, or mmap_sem for reading.
int madvise_locked(struct mm *mm, unsigned long addr, size_t len, int advice, bool exclusive);

// fs/file_table.c: a file's references (Linux's get_file and fput); the last close frees it.
struct file *get_file(struct file *f);
void vfs_close(struct file *f);
// mm/truncate.c: a file VMA joins its inode's i_mmap list when it enters an mm's tree and
// leaves it when it leaves the tree, so that truncation finds every mapping of the file.
void vma_link_file(struct mm *mm, struct vma *v);
void vma_unlink_file(struct vma *v);
bool mmget_not_zero(struct mm *mm);   // a reference, unless the mm is being torn down

// A kernel thread adopts an mm and reaches its lower half through uaccess.h; it must
// unuse_mm before it exits.
void use_mm(struct mm *mm);
void unuse_mm(struct mm *mm);

// mm/memory.c: page tables of the lower half, faults and unmapping.
int pgd_alloc(struct mm *mm);
void free_pgtables(struct mm *mm);
// 0, -EFAULT (SIGSEGV), -ENOMEM, or -EIO: a file page at or past the end of the file (SIGBUS).
int handle_mm_fault(struct mm *mm, unsigned long addr, unsigned flags);
u64 vma_pte_prot(struct mm *mm, unsigned long vm_flags);   // a PTE's bits for such a VMA
// The PTE bits for page in v: as vma_pte_prot, but read-only for a page-cache page in a
// private mapping, whose first write copies it (copy-on-write), and for every page of a
// write-notified shared mapping, whose first write goes through page_mkwrite.
u64 vma_page_prot(struct mm *mm, struct vma *v, struct page *page);
bool page_is_file(struct page *page);   // in a file's page cache (not anonymous)
// Linux's vma_wants_writenotify: v's pages are mapped read-only until a write fault has
// marked them dirty and updated the file's times (a MAP_SHARED ramfs file mapping).
bool vma_wants_writenotify(struct vma *v);
// The rights of v's present PTE pte after a change of the VMA's (mprotect, a racing fault):
// vma_page_prot, keeping PTE_W on a write-notified page that page_mkwrite made writable.
u64 vma_present_prot(struct mm *mm, struct vma *v, u64 pte);
u64 *pte_lookup(struct mm *mm, unsigned long addr);   // NULL if no page table; under the lock
// addr's PTE with its page table's lock held (*ptl), or NULL, nothing held, where there is no
// page table (Linux's pte_offset_map_lock).
static inline u64 *
pte_offset_map_lock(struct mm *mm, unsigned long addr, spinlock_t **ptl)
{
  u64 *pte = pte_lookup(mm, addr);
  if(pte) {
    *ptl = pte_lockptr(mm, pte);
    spin_lock(*ptl);
  }
  return pte;
}
u64 *pt_walk(u64 *pgd, unsigned long addr);           // the same from any top-level table
u64 *pte_alloc(struct mm *mm, unsigned long addr);    // the tables made; NULL without memory
// mremap: the present PTEs of [old, old + len) to the same offsets from new; -ENOMEM before
// any moved. Under mmap_sem for write.
int move_page_tables(struct mm *mm, unsigned long old, unsigned long new, unsigned long len);
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
  struct page **pages;        // local, until a batch outgrows it: then a page of pointers
  unsigned n, max;
  struct page *local[GATHER_LOCAL];
};
void tlb_gather_init(struct mmu_gather *tlb, struct mm *mm);
bool tlb_gather_page(struct mmu_gather *tlb, struct page *page, unsigned long addr);  // full?
bool tlb_gather_grow(struct mmu_gather *tlb);       // a full local batch to a page; may sleep
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
void anon_pages_lazyfree(struct page **pages, int n);   // MADV_FREE, after the flush, locked
extern bool lazyfree_ignore_dirty;   // planted bug: evict drops redirtied pages too
// Test hook: evict calls it, outside every lock, for a page it has just decided to keep.
extern void (*lazyfree_keep_hook)(struct page *page);
extern u64 lazyfree_freed;           // pages dropped by evict since boot

// mm/vma_lock.c: per-VMA locks (Linux 6.4). The tree's left/right links and mm->vma_root
// are stored with WRITE_ONCE, as a fault walks them under rcu_read_lock alone.
extern bool fault_vma_lock;        // vm.fault_lock=vma: faults try a VMA's lock first
extern bool vma_lock_planted_no_write;   // planted bug: vma_start_write marks nothing
void vma_lock_init(void);             // mm/mmap.c: the boot's vm.fault_lock=, madvise.lock=vma
void percore_init(void);
void ptlock_init(void);                // mm/ptlock.c: the boot's vm.ptl=
void munmap_init(void);                // mm/munmap.c: the boot's vm.munmap=
extern bool munmap_range;              // vm.munmap=range: munmap in two phases
struct vma *vma_alloc(void);                 // zeroed, its lock ready; NULL without memory
struct vma *vma_dup(const struct vma *src);  // a copy with a lock of its own
void vma_free(struct vma *v);                // after a grace period
void mmap_write_lock(struct mm *mm);
void mmap_write_unlock(struct mm *mm);       // also unlocks every VMA write-locked meanwhile
void vma_end_write_all(struct mm *mm);       // that alone, for an mm built without the lock
void vma_start_write(struct mm *mm, struct vma *v);   // under mmap_sem, before v changes
void vma_mark_detached(struct vma *v);
struct vma *lock_vma_under_rcu(struct mm *mm, unsigned long addr);   // read-locked, or NULL
void vma_end_read(struct vma *v);

// mm/percore.c: per-core page tables (vm.pt=percore, RadixVM), copies of the shared ones.
extern bool vm_pt_percore;            // new mms get them (at most 64 CPUs)
extern bool percore_planted_skip_cpu; // planted bug: a zap leaves one CPU's copies
struct pt_count {
  u64 now, peak;                      // page-table pages in use, and the most since reset
};
extern struct pt_count pt_pages_shared, pt_pages_percore;
void pt_pages_add(struct pt_count *c, long n);
int percore_pgd_alloc(struct mm *mm);   // after mm->pgd; 0 also when the variant is off
void percore_free(struct mm *mm);
void percore_fill(struct mm *mm, unsigned long addr);   // after a fault
u64 *percore_slot(struct mm *mm, int cpu, unsigned long addr);   // may sleep; NULL: no memory
void percore_copy(int cpu, u64 *copy, u64 *shared);   // under shared's page-table lock
// Each: *cpus gains the CPUs that held a copy. The copies of [start, end) go (their dirty
// bits folded into shared PTEs that map the same pages still), or lose their accessed and
// dirty bits (MADV_FREE), each page table's span under its lock; under the lock of shared,
// the PTE of addr, the copies of that page go, and whether one was dirty (lazy-free reclaim).
void percore_zap(struct mm *mm, unsigned long start, unsigned long end, struct cpumask *cpus);
void percore_clean(struct mm *mm, unsigned long start, unsigned long end, struct cpumask *cpus);
bool percore_clear_page_locked(struct mm *mm, u64 *shared, unsigned long addr,
                               struct cpumask *cpus);

// arch/x86_64/tlb.c: which mm a CPU runs on, and shootdowns.
void switch_mm(struct thread *prev, struct thread *next);   // schedule(), interrupts off
void flush_tlb_range(struct mm *mm, unsigned long start, unsigned long end);
void flush_tlb_range_clean(struct mm *mm, unsigned long start, unsigned long end);   // MADV_FREE
void flush_tlb_mask(const struct cpumask *mask);
void enter_lazy_tlb(void);   // a wait that touches no user memory: shootdowns defer to its end
void leave_lazy_tlb(void);   // flushes if a shootdown was deferred meanwhile
extern u64 nr_page_faults;   // handle_mm_fault calls since boot (Linux's PGFAULT event)
// Those that took mmap_sem: every one under vm.fault_lock=mmap_sem, else a VMA's lock's miss
// (Linux's VMA_LOCK_ABORT and VMA_LOCK_MISS). Counted where mmap_sem is taken anyway, not on
// the lockless path; the rest were handled under a VMA's lock.
extern u64 nr_mmap_sem_faults;
extern u64 tlb_shootdown_ipis;       // IPIs sent for shootdowns since boot
extern u64 tlb_shootdown_wait_ns;    // time their senders waited for the answers
extern u64 tlb_flush_deferred;       // targets not sent one: waiting in a shootdown themselves
extern bool tlb_planted_lazy_noflush;   // planted bug: a lazy CPU's deferred flush is forgotten
#define TLB_FLUSH_CEILING 33         // pages above which a CPU flushes its whole TLB (Linux's)
