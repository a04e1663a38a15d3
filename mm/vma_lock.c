// Per-VMA locks: a page fault finds its VMA without mmap_sem and locks that VMA alone, so that
// faults go on while another thread of the process maps, unmaps or protects elsewhere.
//
// After Linux 6.4 (Suren Baghdasaryan, "Per-VMA locks", LKML 2023; mm/memory.c's
// lock_vma_under_rcu). A writer holds mmap_sem for write and, before it changes a VMA (its
// range, flags, file offset, its place in the tree, or the PTEs it moves), marks that VMA
// write-locked for the rest of its section with vma_start_write: it takes the VMA's vm_lock
// for write, which waits for the faults inside it, and stamps it with mm_lock_seq. A fault
// read-locks a VMA only while the VMA's stamp differs from mm_lock_seq; mmap_write_unlock
// bumps mm_lock_seq, which unlocks every VMA its section stamped at once. VMAs are freed after
// an RCU grace period, so a lockless walk of the tree never reads freed memory; the walk may
// still see the tree mid-rotation and go wrong, so what it finds is checked once locked (the
// VMA contains the address and is still in the tree), and a walk that finds nothing or too
// deep gives up: the fault then takes mmap_sem as before, which is always correct.
#include "rcupdate.h"
#include "slab.h"
#include "vm.h"

bool fault_vma_lock = true;     // vm.fault_lock=vma (the default); false: mmap_sem
bool vma_lock_planted_no_write; // planted bug: vma_start_write marks nothing

static void
vma_lock_setup(struct vma *v)
{
  init_rwsem(&v->vm_lock);
  v->vm_lock_seq = -1;   // unlocked for every mm_lock_seq until vma_insert stamps it
  v->detached = false;
}

struct vma *
vma_alloc(void)
{
  struct vma *v = kzalloc(sizeof(*v), GFP_KERNEL);
  if(v)
    vma_lock_setup(v);
  return v;
}

// fork's copy of a VMA: its fields, with a lock of its own.
struct vma *
vma_dup(const struct vma *src)
{
  struct vma *v = kmalloc(sizeof(*v), GFP_KERNEL);
  if(v) {
    *v = *src;
    vma_lock_setup(v);
  }
  return v;
}

static void
vma_free_rcu(struct rcu_head *head)
{
  kfree(container_of(head, struct vma, rcu));
}

// A VMA that was in a tree waits a grace period: lock_vma_under_rcu may be reading it.
void
vma_free(struct vma *v)
{
  call_rcu(&v->rcu, vma_free_rcu);
}

void
mmap_write_lock(struct mm *mm)
{
  down_write(&mm->mmap_sem);
}

// Every VMA stamped in this section is unlocked by the one increment (Linux's
// vma_end_write_all). The release pairs with vma_start_read's acquire of mm_lock_seq: a
// fault that sees the new count sees every change the section made to the VMA.
void
vma_end_write_all(struct mm *mm)
{
  smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1);
}

void
mmap_write_unlock(struct mm *mm)
{
  vma_end_write_all(mm);
  up_write(&mm->mmap_sem);
}

// Under mmap_sem for write, before v changes: waits for the faults that hold v and keeps new
// ones out until mmap_write_unlock.
void
vma_start_write(struct mm *mm, struct vma *v)
{
  int seq = mm->mm_lock_seq;   // only the holder of mmap_sem for write changes it
  if(v->vm_lock_seq == seq || vma_lock_planted_no_write)
    return;
  down_write(&v->vm_lock);
  WRITE_ONCE(v->vm_lock_seq, seq);
  up_write(&v->vm_lock);
}

// v leaves the tree; the caller has write-locked it. A fault that still finds it in a
// lockless walk gives up when it sees this, once the section is over.
void
vma_mark_detached(struct vma *v)
{
  WRITE_ONCE(v->detached, true);
}

// Linux's vma_start_read: read-locks v unless a writer has stamped it in the section now
// running. The first check spares the atomic in the common case of a VMA being changed.
static bool
vma_start_read(struct mm *mm, struct vma *v)
{
  if(READ_ONCE(v->vm_lock_seq) == smp_load_acquire(&mm->mm_lock_seq))
    return false;
  if(!down_read_trylock(&v->vm_lock))
    return false;
  // A writer that stamped v took vm_lock after us or released it before our trylock (whose
  // acquire then shows its stamp): either it waits for our up_read, or we see the stamp.
  if(READ_ONCE(v->vm_lock_seq) == smp_load_acquire(&mm->mm_lock_seq)) {
    up_read(&v->vm_lock);
    return false;
  }
  return true;
}

void
vma_end_read(struct vma *v)
{
  up_read(&v->vm_lock);
}

// The tree's nodes may be rotated under this walk: a wrong turn finds the wrong VMA or none,
// which the caller's checks catch, and the depth bound ends any walk around a node moved
// mid-step. An AVL tree of MAX_MAP_COUNT VMAs is at most 24 high (mm/vma.c).
#define WALK_MAX 64

static struct vma *
find_vma_rcu(struct mm *mm, unsigned long addr)
{
  struct vma *v = READ_ONCE(mm->vma_root);
  for(int depth = 0; v && depth < WALK_MAX; depth++) {
    if(READ_ONCE(v->end) <= addr)
      v = READ_ONCE(v->right);
    else if(READ_ONCE(v->start) > addr)
      v = READ_ONCE(v->left);
    else
      return v;
  }
  return NULL;
}

// The VMA holding addr, read-locked, or NULL: the caller takes mmap_sem and looks again. No
// VMA holding addr is as much a reason to fall back as a locked one: the walk may have missed.
struct vma *
lock_vma_under_rcu(struct mm *mm, unsigned long addr)
{
  rcu_read_lock();
  struct vma *v = find_vma_rcu(mm, addr);
  if(v && !vma_start_read(mm, v))
    v = NULL;
  rcu_read_unlock();   // a read-locked VMA stays: freeing it needs vma_start_write first
  // Under the read lock v's range and place are stable: it holds addr and is in the tree,
  // or it is the wrong VMA for this walk. One a munmap is taking down is gone already: the
  // fault under mmap_sem finds no VMA there (mm/munmap.c; the mark was set before the
  // section that made it ended, which vma_start_read's acquire of mm_lock_seq has seen).
  if(v && (READ_ONCE(v->detached) || addr < v->start || addr >= v->end ||
           (READ_ONCE(v->unmapping) && !munmap_planted_fault))) {
    vma_end_read(v);
    v = NULL;
  }
  return v;
}
