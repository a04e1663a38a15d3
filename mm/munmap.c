// munmap(2) in two phases: its VMAs are marked under mmap_sem for write, their pages zapped
// and shot down with mmap_sem free, and the VMAs taken out of the tree under it again.
//
// The zap and its shootdown are most of an unmap's time: held under mmap_sem for write, they
// kept every other thread's mmap and munmap waiting (`lockstat=yes`, ufault at 8 threads:
// 305 us held an acquisition, 43% of acquisitions waited). Linux 4.20 downgrades to read for
// the zap (Yang Shi, "mm: mmap: zap pages with read mmap_sem in munmap", 2018), which lets
// faults in but still keeps other maps and unmaps out; RadixVM (Clements et al., EuroSys 2013)
// locks only the range. Here the VMAs stay in the tree while they are zapped, marked
// unmapping, which is such a lock on their range: find_vma and faults pass them over (the
// memory is as good as gone), first fit and MAP_FIXED_NOREPLACE see them (nothing new lands
// there), and whatever would change the tree over them (MAP_FIXED, mremap, another munmap)
// waits for the munmap to end (unmapping_wait). Page tables stay until the mm goes (mm/memory.c),
// so the zap needs no lock of the tree: a hole between the VMAs may be mapped again meanwhile,
// which is why each VMA is zapped over its own range and not the whole one.
#include "errno.h"
#include "slab.h"
#include "wait.h"
#include "vm.h"
#include "internal.h"

bool munmap_range = true;   // vm.munmap=range (the default); false: lock, in one phase
void (*munmap_zap_hook)(struct mm *mm);
bool munmap_planted_whole_range;
bool munmap_planted_fault;

// Every mm's waiters on one queue: waits are rare (an overlap with a munmap in progress), and
// each waiter checks its own mm's count.
static DECLARE_WAIT_QUEUE_HEAD(unmap_wait);

bool
unmapping_wait(struct mm *mm, unsigned long start, unsigned long end)
{
  if(!mm->nr_unmapping)
    return false;
  struct vma *v = __find_vma(mm, start);
  while(v && v->start < end && !v->unmapping)
    v = __find_vma(mm, v->end);
  if(!v || v->start >= end)
    return false;
  // Counted and read under mmap_sem: a munmap that ends after this unlock sees the waiter and
  // wakes it; one that ended before has bumped unmap_seq, which wait_event sees first.
  unsigned long seq = mm->unmap_seq;
  __atomic_add_fetch(&mm->unmap_waiters, 1, __ATOMIC_RELAXED);
  mmap_write_unlock(mm);
  wait_event(unmap_wait, READ_ONCE(mm->unmap_seq) != seq);
  __atomic_sub_fetch(&mm->unmap_waiters, 1, __ATOMIC_RELAXED);
  return true;
}

// Phase one: the VMAs of [start, end) cut at its ends, marked and linked; their count.
static int
unmap_mark(struct mm *mm, unsigned long start, unsigned long end, struct vma **spare,
           struct vma **list)
{
  vma_split_at(mm, start, &spare[0]);
  vma_split_at(mm, end, &spare[1]);
  int n = 0;
  for(struct vma *v = find_vma(mm, start); v && v->start < end; v = vma_next(mm, v)) {
    vma_start_write(mm, v);   // the faults in it finish first; later ones see the mark
    WRITE_ONCE(v->unmapping, true);
    v->unmap_next = NULL;
    *list = v;
    list = &v->unmap_next;
    n++;
  }
  mm->nr_unmapping += n;
  return n;
}

// Phases two and three: the pages go, then the VMAs, and whoever waited may look again.
static void
unmap_finish(struct mm *mm, unsigned long start, unsigned long end, struct vma *list, int n)
{
  if(munmap_zap_hook)
    munmap_zap_hook(mm);
  if(munmap_planted_whole_range)
    zap_page_range(mm, start, end);
  else
    for(struct vma *v = list; v; v = v->unmap_next)
      zap_page_range(mm, v->start, v->end);
  mmap_write_lock(mm);
  for(struct vma *v = list, *next; v; v = next) {
    next = v->unmap_next;
    vma_remove(mm, v);
  }
  mm->nr_unmapping -= n;
  WRITE_ONCE(mm->unmap_seq, mm->unmap_seq + 1);
  bool waiters = READ_ONCE(mm->unmap_waiters);
  mmap_write_unlock(mm);
  if(waiters)
    wake_up_all(&unmap_wait);
}

int
vm_munmap(struct mm *mm, unsigned long addr, size_t len)
{
  if(len == 0 || len > USER_END)
    return -EINVAL;
  len = ALIGN_UP(len, PAGE_SIZE);
  if(!range_ok(addr, len))
    return -EINVAL;
  unsigned long end = addr + len;
  // Cutting the range out of VMAs that reach past its ends takes a spare VMA for each end.
  // Without them (allocation failed, or MAX_MAP_COUNT in reach), or under vm.munmap=lock,
  // munmap unmaps in one phase under mmap_sem, and fails with ENOMEM only where it would have
  // to cut a hole in one VMA, as Linux's does (munmap(2): ENOMEM).
  struct vma *spare[2] = { vma_alloc(), vma_alloc() };
  mmap_write_lock(mm);
  while(unmapping_wait(mm, addr, end))
    mmap_write_lock(mm);
  int err = 0;
  if(READ_ONCE(munmap_range) && spare[0] && spare[1] && mm->nr_vmas + 2 <= MAX_MAP_COUNT) {
    struct vma *list = NULL;
    int n = unmap_mark(mm, addr, end, spare, &list);
    mmap_write_unlock(mm);
    if(n)
      unmap_finish(mm, addr, end, list, n);
  } else {
    struct vma *v = find_vma(mm, addr);
    bool hole = v && v->start < addr && v->end > end;   // one VMA becomes two
    if(hole && (!spare[0] || mm->nr_vmas >= MAX_MAP_COUNT))
      err = -ENOMEM;
    else
      unmap_range(mm, addr, end, &spare[0]);
    mmap_write_unlock(mm);
  }
  kfree(spare[0]);
  kfree(spare[1]);
  return err;
}
