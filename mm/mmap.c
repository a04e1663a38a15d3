// Address spaces: creating and tearing down an mm, its VMAs in an AVL tree keyed by start
// address, and private anonymous mmap/munmap. The tree changes only under mmap_sem for write.
#include "errno.h"
#include "panic.h"
#include "rwsem.h"
#include "slab.h"
#include "vm.h"
#include <asm/memlayout.h>

#define MMAP_MIN_ADDR 0x10000UL   // Linux's default mmap_min_addr: NULL stays unmapped

static int
height(struct vma *v)
{
  return v ? v->height : 0;
}

static void
fix_height(struct vma *v)
{
  v->height = MAX(height(v->left), height(v->right)) + 1;
}

static struct vma *
rotate_right(struct vma *v)
{
  struct vma *l = v->left;
  v->left = l->right;
  l->right = v;
  fix_height(v);
  fix_height(l);
  return l;
}

static struct vma *
rotate_left(struct vma *v)
{
  struct vma *r = v->right;
  v->right = r->left;
  r->left = v;
  fix_height(v);
  fix_height(r);
  return r;
}

// Restores the AVL property at v once a subtree's height changed by one: the two
// subtrees' heights may differ by at most one (Adelson-Velsky and Landis 1962;
// the four rotation cases of Knuth, TAOCP vol. 3, 6.2.3).
static struct vma *
balance(struct vma *v)
{
  fix_height(v);
  int diff = height(v->left) - height(v->right);
  if(diff > 1) {
    if(height(v->left->left) < height(v->left->right))
      v->left = rotate_left(v->left);
    return rotate_right(v);
  }
  if(diff < -1) {
    if(height(v->right->right) < height(v->right->left))
      v->right = rotate_right(v->right);
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
    root->left = tree_insert(root->left, v);
  else
    root->right = tree_insert(root->right, v);
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
  root->left = tree_remove_min(root->left, min);
  return balance(root);
}

static struct vma *
tree_remove(struct vma *root, struct vma *v)
{
  if(v->start < root->start) {
    root->left = tree_remove(root->left, v);
  } else if(v->start > root->start) {
    root->right = tree_remove(root->right, v);
  } else {
    if(!root->right)
      return root->left;
    struct vma *min;
    struct vma *right = tree_remove_min(root->right, &min);
    min->left = root->left;
    min->right = right;
    return balance(min);
  }
  return balance(root);
}

// The VMA containing addr or, if none does, the first one above it (Linux's find_vma).
struct vma *
find_vma(struct mm *mm, unsigned long addr)
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

struct vma *
vma_next(struct mm *mm, struct vma *vma)
{
  return find_vma(mm, vma->end);
}

static void
vma_insert(struct mm *mm, struct vma *v)
{
  v->left = v->right = NULL;
  v->height = 1;
  mm->vma_root = tree_insert(mm->vma_root, v);
  mm->nr_vmas++;
}

void
vma_link(struct mm *mm, struct vma *v)
{
  vma_insert(mm, v);
}

static void
vma_remove(struct mm *mm, struct vma *v)
{
  mm->vma_root = tree_remove(mm->vma_root, v);
  mm->nr_vmas--;
  kfree(v);
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

// First fit from MMAP_BASE up; 0 if no gap of len bytes is left.
static unsigned long
find_gap(struct mm *mm, size_t len)
{
  unsigned long addr = MMAP_BASE;
  for(struct vma *v = find_vma(mm, addr); v; v = vma_next(mm, v)) {
    if(v->start >= addr + len)
      break;
    addr = v->end;
  }
  return addr + len <= USER_END ? addr : 0;
}

// Removes [start, end) from every VMA it touches and unmaps the pages. Cutting a hole in
// the middle of one VMA needs a second VMA: *spare, which is then taken (set to NULL).
static void
unmap_range(struct mm *mm, unsigned long start, unsigned long end, struct vma **spare)
{
  struct vma *v = find_vma(mm, start);
  while(v && v->start < end) {
    struct vma *next = vma_next(mm, v);
    if(v->start < start && v->end > end) {
      struct vma *tail = *spare;
      *spare = NULL;
      tail->start = end;
      tail->end = v->end;
      tail->flags = v->flags;
      v->end = start;
      vma_insert(mm, tail);
    } else if(v->start < start) {
      v->end = start;
    } else if(v->end > end) {
      v->start = end;   // still between its neighbours: the tree order holds
    } else {
      vma_remove(mm, v);
    }
    v = next;
  }
  zap_page_range(mm, start, end);
}

static bool
range_ok(unsigned long addr, size_t len)
{
  return addr % PAGE_SIZE == 0 && len <= USER_END && addr <= USER_END - len;
}

// Whether [addr, addr + len) meets no VMA.
static bool
range_free(struct mm *mm, unsigned long addr, size_t len)
{
  struct vma *v = find_vma(mm, addr);
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

long
vm_mmap(struct mm *mm, unsigned long addr, size_t len, int prot, int flags)
{
  int type = flags & (MAP_SHARED | MAP_PRIVATE);
  if(type != MAP_SHARED && type != MAP_PRIVATE)
    return -EINVAL;
  if(!(flags & MAP_ANONYMOUS) || (flags & ~MAP_KNOWN) ||
     (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
    return -EINVAL;
  if(len == 0 || len > USER_END)
    return -EINVAL;
  len = ALIGN_UP(len, PAGE_SIZE);
  bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
  if(fixed && !range_ok(addr, len))
    return -EINVAL;
  if(fixed && addr < MMAP_MIN_ADDR)
    return -EPERM;
  struct vma *v = kzalloc(sizeof(*v), GFP_KERNEL);
  struct vma *spare = kzalloc(sizeof(*spare), GFP_KERNEL);
  if(!v || !spare) {
    kfree(v);
    kfree(spare);
    return -ENOMEM;
  }
  long err = -ENOMEM;
  down_write(&mm->mmap_sem);
  if((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) && !range_free(mm, addr, len)) {
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
    v->flags = vm_flags_from_prot(prot);
    vma_insert(mm, v);
    v = NULL;
  }
  up_write(&mm->mmap_sem);
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
  tail->start = addr;
  tail->end = v->end;
  tail->flags = v->flags;
  v->end = addr;
  vma_insert(mm, tail);
}

// Joins neighbours with equal flags from the VMA before start to the one after end.
void
vma_merge_range(struct mm *mm, unsigned long start, unsigned long end)
{
  struct vma *v = find_vma(mm, start ? start - 1 : 0);
  while(v && v->start <= end) {
    struct vma *n = vma_next(mm, v);
    if(n && n->start == v->end && n->flags == v->flags && n->start <= end) {
      v->end = n->end;
      vma_remove(mm, n);
      continue;
    }
    v = n;
  }
}

int
vm_munmap(struct mm *mm, unsigned long addr, size_t len)
{
  if(len == 0 || len > USER_END)
    return -EINVAL;
  len = ALIGN_UP(len, PAGE_SIZE);
  if(!range_ok(addr, len))
    return -EINVAL;
  struct vma *spare = kzalloc(sizeof(*spare), GFP_KERNEL);
  if(!spare)
    return -ENOMEM;
  down_write(&mm->mmap_sem);
  unmap_range(mm, addr, addr + len, &spare);
  up_write(&mm->mmap_sem);
  kfree(spare);
  return 0;
}
