// Address spaces: creating and tearing down an mm, its VMAs in an AVL tree keyed by start
// address and augmented with each subtree's largest hole (so first fit is O(log n)), mmap of
// anonymous memory and files, and mremap (munmap is mm/munmap.c's). The tree changes only
// under mmap_sem for write.
#include "errno.h"
#include <asm/memlayout.h>
#include "panic.h"
#include "rwsem.h"
#include "slab.h"
#include "vm.h"
#include "internal.h"

#define MMAP_MIN_ADDR 0x10000UL   // Linux's default mmap_min_addr: NULL stays unmapped

static int
height(struct vma *v)
{
  return v ? v->height : 0;
}

#ifdef VMA_TEST
unsigned long vma_gap_visits;
bool vma_planted_stale_rotate;
#endif

// Recomputes what v knows of its subtree from its own range and its children's, which must
// be up to date: every change of the tree's shape or of a VMA's range redoes this from the
// changed node up to the root. Linux's rb_subtree_gap (Michel Lespinasse, "mm: augment vma
// rbtree with rb_subtree_gap", LKML 2012) keeps the hole before each VMA, which depends on
// its predecessor, often outside its subtree, and follows vm_prev and rb_parent to fix the
// successor's ancestors; this tree has neither link, so each node keeps only the holes inside
// its subtree and the subtree's span, a function of its children alone, and the hole between
// a left subtree and its parent is seen at the parent.
static void
subtree_update(struct vma *v)
{
  struct vma *l = v->left, *r = v->right;
  v->height = MAX(height(l), height(r)) + 1;
  v->subtree_start = l ? l->subtree_start : v->start;
  v->subtree_end = r ? r->subtree_end : v->end;
  unsigned long gap = 0;
  if(l)
    gap = MAX(l->subtree_gap, v->start - l->subtree_end);
  if(r)
    gap = MAX(gap, MAX(r->subtree_gap, r->subtree_start - v->end));
  v->subtree_gap = gap;
}

// A rotation changes the subtrees of its two nodes: the lower one is redone first.
static void
rotate_update(struct vma *v)
{
#ifdef VMA_TEST
  if(vma_planted_stale_rotate) {
    v->height = MAX(height(v->left), height(v->right)) + 1;   // the gaps left stale
    return;
  }
#endif
  subtree_update(v);
}

static struct vma *
rotate_right(struct vma *v)
{
  struct vma *l = v->left;
  WRITE_ONCE(v->left, l->right);
  WRITE_ONCE(l->right, v);
  rotate_update(v);
  rotate_update(l);
  return l;
}

static struct vma *
rotate_left(struct vma *v)
{
  struct vma *r = v->right;
  WRITE_ONCE(v->right, r->left);
  WRITE_ONCE(r->left, v);
  rotate_update(v);
  rotate_update(r);
  return r;
}

// Restores the AVL property at v once a subtree's height changed by one: the two
// subtrees' heights may differ by at most one (Adelson-Velsky and Landis 1962;
// the four rotation cases of Knuth, TAOCP vol. 3, 6.2.3). Every node on the path of an
// insertion or removal comes through here, so it also redoes the subtree gaps.
static struct vma *
balance(struct vma *v)
{
  subtree_update(v);
  int diff = height(v->left) - height(v->right);
  if(diff > 1) {
    if(height(v->left->left) < height(v->left->right))
      WRITE_ONCE(v->left, rotate_left(v->left));
    return rotate_right(v);
  }
  if(diff < -1) {
    if(height(v->right->right) < height(v->right->left))
      WRITE_ONCE(v->right, rotate_right(v->right));
    return rotate_left(v);
  }
  return v;
}

// VMAs never overlap, so start addresses are distinct keys.
static struct vma *
tree_insert(struct vma *root, struct vma *v)
{
  if(!root)
    return v;
  if(v->start < root->start)
    WRITE_ONCE(root->left, tree_insert(root->left, v));
  else
    WRITE_ONCE(root->right, tree_insert(root->right, v));
  return balance(root);
}

// Detaches the leftmost node of the subtree into *min.
static struct vma *
tree_remove_min(struct vma *root, struct vma **min)
{
  if(!root->left) {
    *min = root;
    return root->right;
  }
  WRITE_ONCE(root->left, tree_remove_min(root->left, min));
  return balance(root);
}

static struct vma *
tree_remove(struct vma *root, struct vma *v)
{
  if(v->start < root->start) {
    WRITE_ONCE(root->left, tree_remove(root->left, v));
  } else if(v->start > root->start) {
    WRITE_ONCE(root->right, tree_remove(root->right, v));
  } else {
    if(!root->right)
      return root->left;
    struct vma *min;
    struct vma *right = tree_remove_min(root->right, &min);
    WRITE_ONCE(min->left, root->left);
    WRITE_ONCE(min->right, right);
    return balance(min);
  }
  return balance(root);
}

// The VMA containing addr or, if none does, the first one above it (Linux's find_vma),
// unmapping or not.
struct vma *
__find_vma(struct mm *mm, unsigned long addr)
{
  struct vma *best = NULL;
  for(struct vma *v = mm->vma_root; v;) {
    if(v->end > addr) {
      best = v;
      if(v->start <= addr)
        break;
      v = v->left;
    } else {
      v = v->right;
    }
  }
  return best;
}

// A VMA a munmap is taking down is already gone for everyone else (mm/munmap.c).
struct vma *
find_vma(struct mm *mm, unsigned long addr)
{
  struct vma *v = __find_vma(mm, addr);
  while(v && v->unmapping)
    v = __find_vma(mm, v->end);
  return v;
}

struct vma *
vma_next(struct mm *mm, struct vma *vma)
{
  return find_vma(mm, vma->end);
}

// Redoes the subtree gaps from the root down to v once v's range changed in place (its
// neighbours unchanged, so its place in the tree holds): the nodes above it, and only those,
// have v in their subtree. An AVL tree of MAX_MAP_COUNT nodes is at most 1.44 log2(n + 2) =
// 24 high (Knuth, TAOCP vol. 3, 6.2.3).
static void
tree_update_path(struct mm *mm, struct vma *v)
{
  struct vma *path[48];
  int n = 0;
  for(struct vma *p = mm->vma_root;; p = v->start < p->start ? p->left : p->right) {
    BUG_ON(!p || n == (int)ARRAY_SIZE(path));
    path[n++] = p;
    if(p == v)
      break;
  }
  while(n > 0)
    subtree_update(path[--n]);
}

// Every change of a VMA in the tree's start or end goes through here (Linux's vma_adjust).
static void
vma_adjust(struct mm *mm, struct vma *v, unsigned long start, unsigned long end)
{
  vma_start_write(mm, v);
  WRITE_ONCE(v->start, start);
  WRITE_ONCE(v->end, end);
  tree_update_path(mm, v);
}

static void
vma_insert(struct mm *mm, struct vma *v)
{
  v->left = v->right = NULL;
  subtree_update(v);   // a leaf; a VMA copied by fork brings its old node's values
  v->vm_lock_seq = mm->mm_lock_seq;   // born write-locked, until the section ends (Linux's too)
  WRITE_ONCE(mm->vma_root, tree_insert(mm->vma_root, v));
  mm->nr_vmas++;
  if(v->file)
    vma_link_file(mm, v);
}

void
vma_link(struct mm *mm, struct vma *v)
{
  vma_insert(mm, v);
}

// Dropping a file mapping's reference may free the file and, for an unlinked one, its inode
// and pages: a sleeping call, fine under mmap_sem (Linux defers it to task work instead).
void
vma_remove(struct mm *mm, struct vma *v)
{
  vma_start_write(mm, v);
  vma_mark_detached(v);
  WRITE_ONCE(mm->vma_root, tree_remove(mm->vma_root, v));
  mm->nr_vmas--;
  if(v->file) {
    vma_unlink_file(v);
    vfs_close(v->file);
  }
  vma_free(v);
}

// tail becomes v's part from addr on, with its own reference on v's file; v keeps the rest.
static void
vma_split_tail(struct mm *mm, struct vma *v, unsigned long addr, struct vma *tail)
{
  tail->start = addr;
  tail->end = v->end;
  tail->flags = v->flags;
  tail->file = v->file ? get_file(v->file) : NULL;
  tail->pgoff = v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
  vma_adjust(mm, v, v->start, addr);   // before tail goes in: the tree never holds an overlap
  vma_insert(mm, tail);
}

// v loses its pages below addr: a file mapping's now starts further into the file.
static void
vma_trim_front(struct mm *mm, struct vma *v, unsigned long addr)
{
  vma_start_write(mm, v);
  v->pgoff += (addr - v->start) >> PAGE_SHIFT;
  vma_adjust(mm, v, addr, v->end);   // still between its neighbours: the tree order holds
}

struct mm *
mm_create(void)
{
  struct mm *mm = kzalloc(sizeof(*mm), GFP_KERNEL);
  if(!mm)
    return NULL;
  init_rwsem(&mm->mmap_sem);
  spin_lock_init(&mm->page_table_lock);
  mm->users = 1;
  if(pgd_alloc(mm) < 0) {
    kfree(mm);
    return NULL;
  }
  return mm;
}

void
mmget(struct mm *mm)
{
  __atomic_fetch_add(&mm->users, 1, __ATOMIC_RELAXED);
}

// The struct outlives its last user by a grace period and its VMAs, so a walker that found
// it through one of them may look at the count; at zero the teardown has begun.
bool
mmget_not_zero(struct mm *mm)
{
  int n = READ_ONCE(mm->users);
  while(n > 0)
    if(__atomic_compare_exchange_n(&mm->users, &n, n + 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return true;
  return false;
}

static void
mm_free_rcu(struct rcu_head *head)
{
  kfree(container_of(head, struct mm, rcu));
}

// The last user is gone, so no CPU runs on these tables (unuse_mm switched away).
// The struct itself waits a grace period: lazyfree_evict may have read a page's
// owner link just before the zap cleared it.
static void
mm_teardown(struct mm *mm)
{
  BUG_ON(cpumask_weight(&mm->cpu_mask) != 0);
  while(mm->vma_root) {
    struct vma *v = mm->vma_root;
    zap_page_range(mm, v->start, v->end);
    vma_remove(mm, v);
  }
  free_pgtables(mm);
  call_rcu(&mm->rcu, mm_free_rcu);
}

void
mmput(struct mm *mm)
{
  if(__atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL) == 0)
    mm_teardown(mm);
}

// The lowest hole of len bytes between two VMAs of v's subtree, counting only its part from
// floor up; 0 if none. A subtree whose largest hole is too small, or that ends below
// floor + len (a hole ends at a VMA's start), is skipped whole. A subtree wholly above floor
// that is not skipped holds a fitting hole, so the descent into it never comes back empty;
// only subtrees whose span holds floor can, and they lie on one root-to-leaf path: O(height)
// nodes in all (Linux's unmapped_area, mm/mmap.c, 2012).
static unsigned long
gap_search(struct vma *v, unsigned long floor, size_t len)
{
  if(!v)
    return 0;
#ifdef VMA_TEST
  vma_gap_visits++;
#endif
  if(v->subtree_gap < len || v->subtree_end <= floor + len)
    return 0;
  unsigned long addr = gap_search(v->left, floor, len);
  if(addr)
    return addr;
  if(v->left) {   // the hole just below v
    addr = MAX(v->left->subtree_end, floor);
    if(v->start >= addr + len)
      return addr;
  }
  if(v->right) {   // the hole just above v
    addr = MAX(v->end, floor);
    if(v->right->subtree_start >= addr + len)
      return addr;
  }
  return gap_search(v->right, floor, len);
}

// First fit from MMAP_BASE up; 0 if no gap of len bytes is left: below the first VMA, between
// two, or above the last one, where the top page is never handed out (TASK_SIZE).
static unsigned long
find_gap(struct mm *mm, size_t len)
{
  struct vma *root = mm->vma_root;
  unsigned long addr = MMAP_BASE;
  if(root && root->subtree_start < addr + len && !(addr = gap_search(root, MMAP_BASE, len)))
    addr = MAX(root->subtree_end, MMAP_BASE);
  return addr + len <= TASK_SIZE ? addr : 0;
}

void
unmap_range(struct mm *mm, unsigned long start, unsigned long end, struct vma **spare)
{
  struct vma *v = find_vma(mm, start);
  while(v && v->start < end) {
    struct vma *next = vma_next(mm, v);
    if(v->start < start && v->end > end) {
      struct vma *tail = *spare;
      *spare = NULL;
      vma_split_tail(mm, v, end, tail);
      vma_adjust(mm, v, v->start, start);
    } else if(v->start < start) {
      vma_adjust(mm, v, v->start, start);
    } else if(v->end > end) {
      vma_trim_front(mm, v, end);
    } else {
      vma_remove(mm, v);
    }
    v = next;
  }
  zap_page_range(mm, start, end);
}

bool
range_ok(unsigned long addr, size_t len)
{
  return addr % PAGE_SIZE == 0 && len <= TASK_SIZE && addr <= TASK_SIZE - len;
}

// Whether [addr, addr + len) meets no VMA, counting those being unmapped.
static bool
range_free(struct mm *mm, unsigned long addr, size_t len)
{
  struct vma *v = __find_vma(mm, addr);
  return !v || v->start >= addr + len;
}

#define MAP_KNOWN (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | \
                   0x0100 /* GROWSDOWN */ | 0x4000 /* NORESERVE */ | 0x8000 /* POPULATE */ | \
                   0x20000 /* STACK */)

unsigned long
vm_flags_from_prot(int prot)
{
  return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_READ | VM_WRITE : 0) |
         (prot & PROT_EXEC ? VM_READ | VM_EXEC : 0);
}

static long mmap_region(struct mm *mm, unsigned long addr, size_t len, int prot, int flags,
                        struct file *file, unsigned long pgoff, unsigned long vm_flags);

long
vm_mmap(struct mm *mm, unsigned long addr, size_t len, int prot, int flags)
{
  if(!(flags & MAP_ANONYMOUS))
    return -EINVAL;
  return mmap_region(mm, addr, len, prot, flags, NULL, 0, VM_MAYWRITE);
}

// pgoff + the length in pages must not wrap (Linux's EOVERFLOW); past the end of the file is
// allowed, a fault there is SIGBUS.
long
vm_mmap_file(struct mm *mm, unsigned long addr, size_t len, int prot, int flags,
             struct file *file, unsigned long pgoff, unsigned long vm_flags)
{
  if(flags & MAP_ANONYMOUS)
    return -EINVAL;
  if(len && len <= USER_END && pgoff + (ALIGN_UP(len, PAGE_SIZE) >> PAGE_SHIFT) < pgoff)
    return -EOVERFLOW;
  return mmap_region(mm, addr, len, prot, flags, file, pgoff,
                     vm_flags & (VM_SHARED | VM_MAYWRITE));
}

static long
mmap_region(struct mm *mm, unsigned long addr, size_t len, int prot, int flags,
            struct file *file, unsigned long pgoff, unsigned long vm_flags)
{
  int type = flags & (MAP_SHARED | MAP_PRIVATE);
  if(type != MAP_SHARED && type != MAP_PRIVATE)
    return -EINVAL;
  if((flags & ~MAP_KNOWN) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
    return -EINVAL;
  if(len == 0 || len > USER_END)
    return -EINVAL;
  len = ALIGN_UP(len, PAGE_SIZE);
  bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
  if(fixed && !range_ok(addr, len))
    return -EINVAL;
  if(fixed && addr < MMAP_MIN_ADDR)
    return -EPERM;
  struct vma *v = vma_alloc();
  struct vma *spare = vma_alloc();
  if(!v || !spare) {
    kfree(v);
    kfree(spare);
    return -ENOMEM;
  }
  long err = -ENOMEM;
  mmap_write_lock(mm);
  while((flags & MAP_FIXED) && unmapping_wait(mm, addr, addr + len))
    mmap_write_lock(mm);
  if(mm->nr_vmas >= MAX_MAP_COUNT) {   // Linux's do_mmap: ENOMEM (a MAP_FIXED may split two)
    addr = 0;
  } else if((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) && !range_free(mm, addr, len)) {
    addr = 0;
    err = -EEXIST;
  } else if(flags & MAP_FIXED) {
    unmap_range(mm, addr, addr + len, &spare);   // MAP_FIXED replaces what was there
  } else if(!(flags & MAP_FIXED_NOREPLACE)) {
    // A hint is taken when the range is free, as Linux does (get_unmapped_area).
    if(!(addr && range_ok(addr, len) && addr >= MMAP_MIN_ADDR && range_free(mm, addr, len)))
      addr = find_gap(mm, len);
  }
  if(addr) {
    v->start = addr;
    v->end = addr + len;
    v->flags = vm_flags_from_prot(prot) | vm_flags;
    v->file = file ? get_file(file) : NULL;
    v->pgoff = pgoff;
    vma_insert(mm, v);
    v = NULL;
  }
  mmap_write_unlock(mm);
  kfree(v);
  kfree(spare);
  return addr ? (long)addr : err;
}

// Splits the VMA around addr so that a VMA starts there; under mmap_sem for write.
void
vma_split_at(struct mm *mm, unsigned long addr, struct vma **spare)
{
  struct vma *v = find_vma(mm, addr);
  if(!v || v->start >= addr)
    return;
  struct vma *tail = *spare;
  *spare = NULL;
  vma_split_tail(mm, v, addr, tail);
}

// Whether n may join v: adjacent, equal flags, and the same memory: anonymous both, or the
// same file with n's pages following v's.
static bool
vma_mergeable(struct vma *v, struct vma *n)
{
  return n->start == v->end && n->flags == v->flags && n->file == v->file &&
         (!v->file || n->pgoff == v->pgoff + ((v->end - v->start) >> PAGE_SHIFT));
}

// Joins mergeable neighbours from the VMA before start to the one after end.
void
vma_merge_range(struct mm *mm, unsigned long start, unsigned long end)
{
  struct vma *v = find_vma(mm, start ? start - 1 : 0);
  while(v && v->start <= end) {
    struct vma *n = vma_next(mm, v);
    if(n && n->start <= end && vma_mergeable(v, n)) {
      unsigned long n_end = n->end;
      vma_remove(mm, n);   // first: the tree never holds an overlap, which the gaps cannot say
      vma_adjust(mm, v, v->start, n_end);
      continue;
    }
    v = n;
  }
}

// mremap(2), as glibc's realloc of a large block calls it: a shrink unmaps the tail; a grow
// stays in place when the pages after the mapping are free, else moves (MREMAP_MAYMOVE) to a
// free range, or to new_addr (MREMAP_FIXED: what was there is unmapped first). Pages move
// with their page-table entries, never copied (move_page_tables). Linux's errnos: EINVAL for
// unknown flags (MREMAP_DONTUNMAP is not implemented), misalignment, a zero new length,
// overlapping fixed ranges, a zero old length of a private mapping; EFAULT when [addr,
// addr + old_len) is not inside one mapping; ENOMEM when it can neither grow nor move.
long
vm_mremap(struct mm *mm, unsigned long addr, size_t old_len, size_t new_len, int flags,
          unsigned long new_addr)
{
  if((flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED)) ||
     ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)) || addr % PAGE_SIZE)
    return -EINVAL;
  if(new_len == 0 || new_len > USER_END || old_len > USER_END)
    return -EINVAL;
  old_len = ALIGN_UP(old_len, PAGE_SIZE);
  new_len = ALIGN_UP(new_len, PAGE_SIZE);
  bool fixed = flags & MREMAP_FIXED;
  if(fixed) {
    if(!range_ok(new_addr, new_len) ||
       (addr + old_len > new_addr && new_addr + new_len > addr))
      return -EINVAL;
    if(new_addr < MMAP_MIN_ADDR)
      return -EPERM;
  }
  // Spares for the cuts: the destination, the shrunk tail, the moved range; and the new VMA.
  struct vma *sp[4];
  long ret = 0;
  for(int i = 0; i < 4; i++)
    if(!(sp[i] = vma_alloc()))
      ret = -ENOMEM;
  if(ret)
    goto out_free;
  mmap_write_lock(mm);
  while(unmapping_wait(mm, addr, addr + old_len) ||
        (fixed && unmapping_wait(mm, new_addr, new_addr + new_len)))
    mmap_write_lock(mm);
  // As Linux's mremap: EFAULT unless a VMA holds addr, before anything is cut; a shrink is a
  // munmap of the tail, EINVAL when that reaches past TASK_SIZE (do_munmap's check). Unchecked,
  // a kernel address or a huge old_len had the shrink zap the kernel's own page tables.
  struct vma *at = find_vma(mm, addr);
  if(!at || at->start > addr) {
    ret = -EFAULT;
    goto out;
  }
  if(old_len > new_len && !range_ok(addr + new_len, old_len - new_len)) {
    ret = -EINVAL;
    goto out;
  }
  if(fixed) {
    unmap_range(mm, new_addr, new_addr + new_len, &sp[0]);
    if(old_len > new_len) {
      unmap_range(mm, addr + new_len, addr + old_len, &sp[1]);
      old_len = new_len;
    }
  } else if(old_len >= new_len) {
    if(old_len > new_len)
      unmap_range(mm, addr + new_len, addr + old_len, &sp[1]);
    ret = addr;
    goto out;
  }
  struct vma *v = find_vma(mm, addr);
  if(!v || v->start > addr || old_len > v->end - addr) {
    ret = -EFAULT;
    goto out;
  }
  if(!old_len && !(v->flags & VM_SHARED)) {
    ret = -EINVAL;   // a copy of a private mapping's pages is not what Linux gives either
    goto out;
  }
  if(!fixed) {
    if(addr + old_len == v->end && addr <= TASK_SIZE - new_len &&
       range_free(mm, v->end, new_len - old_len)) {
      vma_adjust(mm, v, v->start, addr + new_len);
      vma_merge_range(mm, v->start, v->end);
      ret = addr;
      goto out;
    }
    if(!(flags & MREMAP_MAYMOVE) || !(new_addr = find_gap(mm, new_len))) {
      ret = -ENOMEM;
      goto out;
    }
  }
  vma_start_write(mm, v);   // no fault may map a page behind the move
  if((ret = move_page_tables(mm, addr, new_addr, old_len)) < 0)
    goto out;
  struct vma *nv = sp[3];
  sp[3] = NULL;
  nv->start = new_addr;
  nv->end = new_addr + new_len;
  nv->flags = v->flags;
  nv->file = v->file ? get_file(v->file) : NULL;
  nv->pgoff = v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
  vma_insert(mm, nv);
  if(old_len)
    unmap_range(mm, addr, addr + old_len, &sp[2]);   // no page left there to zap
  vma_merge_range(mm, new_addr, new_addr + new_len);
  ret = new_addr;
out:
  mmap_write_unlock(mm);
out_free:
  for(int i = 0; i < 4; i++)
    kfree(sp[i]);
  return ret;
}
