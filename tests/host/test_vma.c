// Host test of mm/mmap.c: the AVL tree of VMAs against a brute-force model, and mmap/munmap's
// splits and errnos. Page tables are stubbed; zap_page_range calls are recorded.
#include <stdlib.h>
#include "check.h"
#include "errno.h"
#include <asm/memlayout.h>
#include "rcupdate.h"
#include "vm.h"
#include "lib/host.h"

// Stubs of the page tables mm/mmap.c changes.
static unsigned long zapped_pages;

int pgd_alloc(struct mm *mm) { return 0; }
void free_pgtables(struct mm *mm) {}

void
zap_page_range(struct mm *mm, unsigned long start, unsigned long end)
{
  zapped_pages += (end - start) / PAGE_SIZE;
}

#define FLAGS (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

// Every subtree's height is right and balanced, keys ascend, VMAs do not overlap.
static int
check_tree(struct vma *v, unsigned long lo, unsigned long hi, int *count)
{
  if(!v)
    return 0;
  int l = check_tree(v->left, lo, v->start, count);
  int r = check_tree(v->right, v->end, hi, count);
  (*count)++;
  if(v->start < lo || v->end > hi || v->start >= v->end || v->height != MAX(l, r) + 1 ||
     l - r > 1 || r - l > 1)
    return 1000;   // an impossible height marks the failure all the way up
  return v->height;
}

static bool
tree_ok(struct mm *mm)
{
  int count = 0;
  int h = check_tree(mm->vma_root, 0, USER_END, &count);
  return h < 1000 && count == mm->nr_vmas;
}

// The model: one bit per page of a small window, set where some VMA maps it.
#define WINDOW 512
static bool model[WINDOW];

static bool
matches_model(struct mm *mm, unsigned long base)
{
  for(int i = 0; i < WINDOW; i++) {
    struct vma *v = find_vma(mm, base + i * PAGE_SIZE);
    bool mapped = v && v->start <= base + i * PAGE_SIZE;
    if(mapped != model[i])
      return false;
  }
  return true;
}

static void
test_random_ops(void)
{
  struct mm *mm = mm_create();
  unsigned long base = MMAP_BASE + (1UL << 30);
  srand(1);
  bool ok = true, balanced = true;
  for(int op = 0; op < 4000; op++) {
    int first = rand() % WINDOW, n = 1 + rand() % 16;
    if(first + n > WINDOW)
      n = WINDOW - first;
    unsigned long a = base + first * PAGE_SIZE;
    if(rand() % 2) {
      ok &= vm_mmap(mm, a, n * PAGE_SIZE, RW, FLAGS | MAP_FIXED) == (long)a;
      for(int i = first; i < first + n; i++)
        model[i] = true;
    } else {
      ok &= vm_munmap(mm, a, n * PAGE_SIZE) == 0;
      for(int i = first; i < first + n; i++)
        model[i] = false;
    }
    balanced &= tree_ok(mm);
  }
  CHECK(ok);
  CHECK(balanced);
  CHECK(matches_model(mm, base));
  mmput(mm);
}

static void
test_split_and_gaps(void)
{
  struct mm *mm = mm_create();
  long a = vm_mmap(mm, 0, 10 * PAGE_SIZE, RW, FLAGS);
  CHECK(a == (long)MMAP_BASE);
  long b = vm_mmap(mm, 0, PAGE_SIZE, PROT_READ, FLAGS);
  CHECK(b == a + 10 * (long)PAGE_SIZE);
  zapped_pages = 0;
  CHECK(vm_munmap(mm, a + 3 * PAGE_SIZE, 2 * PAGE_SIZE) == 0);   // a hole: the VMA splits
  CHECK(zapped_pages == 2);
  CHECK(mm->nr_vmas == 3);
  struct vma *v = find_vma(mm, a + 3 * PAGE_SIZE);
  CHECK(v && v->start == (unsigned long)a + 5 * PAGE_SIZE && (v->flags & VM_WRITE));
  struct vma *next = v ? vma_next(mm, v) : NULL;
  CHECK(next && next->start == (unsigned long)b && !(next->flags & VM_WRITE));
  long c = vm_mmap(mm, 0, 2 * PAGE_SIZE, RW, FLAGS);              // first fit: the hole
  CHECK(c == a + 3 * (long)PAGE_SIZE);
  CHECK(vm_mmap(mm, 0, 3 * PAGE_SIZE, RW, FLAGS) == b + (long)PAGE_SIZE);
  CHECK(find_vma(mm, USER_END - PAGE_SIZE) == NULL);
  CHECK(tree_ok(mm));
  mmput(mm);
}

static void
test_errors(void)
{
  struct mm *mm = mm_create();
  CHECK(vm_mmap(mm, 0, 0, RW, FLAGS) == -EINVAL);
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, RW, MAP_PRIVATE) == -EINVAL);
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, 0x8, FLAGS) == -EINVAL);
  CHECK(vm_mmap(mm, MMAP_BASE + 1, PAGE_SIZE, RW, FLAGS | MAP_FIXED) == -EINVAL);
  CHECK(vm_mmap(mm, USER_END - PAGE_SIZE, 2 * PAGE_SIZE, RW, FLAGS | MAP_FIXED) == -EINVAL);
  CHECK(vm_mmap(mm, PAGE_SIZE, PAGE_SIZE, RW, FLAGS | MAP_FIXED) == -EPERM);
  CHECK(vm_munmap(mm, MMAP_BASE + 1, PAGE_SIZE) == -EINVAL);
  CHECK(vm_munmap(mm, MMAP_BASE, 0) == -EINVAL);
  CHECK(vm_munmap(mm, MMAP_BASE, PAGE_SIZE) == 0);   // nothing there: not an error (POSIX)
  CHECK(mm->nr_vmas == 0);
  mmput(mm);
}

int
main(void)
{
  rcu_register_thread();
  test_random_ops();
  test_split_and_gaps();
  test_errors();
  rcu_barrier();                  // the mms go after a grace period
  CHECK(slab_nr_live() == 0);     // and with them every VMA
  rcu_unregister_thread();
  return check_summary("test_vma");
}
