// Host test of mm/vma.c: the AVL tree of VMAs against a brute-force model, its subtree gaps
// and first fit against brute force, mmap/munmap's splits and errnos, file mappings' offsets
// and references through splits, merges and mremap. Page tables are stubbed; zap_page_range
// and move_page_tables calls are recorded. Built with -DVMA_TEST (vm.h's test hooks).
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "check.h"
#include "errno.h"
#include <asm/memlayout.h>
#include "rcupdate.h"
#include "slab.h"
#include "vm.h"
#include "lib/host.h"

// Stubs of the page tables mm/vma.c changes.
static unsigned long zapped_pages;

int pgd_alloc(struct mm *mm) { return 0; }
void free_pgtables(struct mm *mm) {}

void
zap_page_range(struct mm *mm, unsigned long start, unsigned long end)
{
  zapped_pages += (end - start) / PAGE_SIZE;
}

// A file is only an address here: each VMA that maps it holds one reference.
static int file_refs;
static struct file *const the_file = (struct file *)0x1000;

struct file *
get_file(struct file *f)
{
  file_refs++;
  return f;
}

void
vfs_close(struct file *f)
{
  CHECK(f == the_file && file_refs > 0);
  file_refs--;
}

static unsigned long moved_pages;
static int linked_vmas;

void vma_link_file(struct mm *mm, struct vma *v) { linked_vmas++; }
void vma_unlink_file(struct vma *v) { linked_vmas--; }

int
move_page_tables(struct mm *mm, unsigned long old, unsigned long new, unsigned long len)
{
  moved_pages += len / PAGE_SIZE;
  return 0;
}

#define FLAGS (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

// The subtree's span and largest hole between consecutive VMAs, from a walk of all its VMAs
// in address order: brute force, never reading the values the tree keeps.
struct span {
  unsigned long start, end, gap;
  bool any;
};

static void
walk_span(struct vma *v, struct span *s)
{
  if(!v)
    return;
  walk_span(v->left, s);
  if(s->any)
    s->gap = MAX(s->gap, v->start - s->end);
  else
    s->start = v->start;
  s->any = true;
  s->end = v->end;
  walk_span(v->right, s);
}

static unsigned long gap_checks;   // nodes whose subtree gap was recomputed by brute force

// Every subtree's height is right and balanced, keys ascend, VMAs do not overlap, and the
// span and largest hole each node keeps are those of a brute-force walk of its subtree.
static int
check_tree(struct vma *v, unsigned long lo, unsigned long hi, int *count)
{
  if(!v)
    return 0;
  int l = check_tree(v->left, lo, v->start, count);
  int r = check_tree(v->right, v->end, hi, count);
  (*count)++;
  struct span s = {0};
  walk_span(v, &s);
  gap_checks++;
  if(v->start < lo || v->end > hi || v->start >= v->end || v->height != MAX(l, r) + 1 ||
     l - r > 1 || r - l > 1 || v->subtree_start != s.start || v->subtree_end != s.end ||
     v->subtree_gap != s.gap)
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

// Counts the VMAs over npages from base once vma_merge_range has joined what it can.
static int
merged_count(struct mm *mm, unsigned long base, int npages)
{
  vma_merge_range(mm, base, base + npages * PAGE_SIZE);
  int n = 0;
  for(struct vma *v = find_vma(mm, base); v && v->start < base + npages * PAGE_SIZE;
      v = vma_next(mm, v))
    n++;
  return n;
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

// First fit by brute force: every VMA in address order from an in-order walk, as find_gap
// walked them before it used the subtree gaps.
struct fit {
  unsigned long len, addr;
  bool found;
};

static void
walk_fit(struct vma *v, struct fit *f)
{
  if(!v || f->found)
    return;
  walk_fit(v->left, f);
  if(!f->found && v->end > f->addr) {
    if(v->start >= f->addr + f->len)
      f->found = true;
    else
      f->addr = v->end;
  }
  walk_fit(v->right, f);
}

static unsigned long
brute_first_fit(struct mm *mm, unsigned long len)
{
  struct fit f = {len, MMAP_BASE, false};
  walk_fit(mm->vma_root, &f);
  return f.addr + len <= TASK_SIZE ? f.addr : 0;
}

// Whether no VMA meets [addr, addr + len), by a walk of them all.
static bool
brute_free(struct vma *v, unsigned long addr, unsigned long len)
{
  if(!v)
    return true;
  return (v->end <= addr || v->start >= addr + len) && brute_free(v->left, addr, len) &&
         brute_free(v->right, addr, len);
}

static unsigned long
last_end(struct mm *mm)
{
  return mm->vma_root ? mm->vma_root->subtree_end : 0;   // checked by tree_ok after each op
}

// What gap_random did, so that a pass means something.
struct gap_stats {
  int fits, at_floor, in_holes, at_tail, wrong, grows, moves, splits, merges, max_vmas;
};

// A long random sequence of fixed maps, unmaps, first-fit and hinted maps, splits, merges and
// mremap grows, shrinks and moves over a window across MMAP_BASE (VMAs below, across and
// above first fit's floor), with lengths up to 300 pages. After each: tree_ok, which checks
// every node's subtree gap against brute force; every address find_gap chose is compared with
// a brute-force first fit on the same tree taken just before. Returns the first op after
// which tree_ok failed, or -1.
#define GAP_WINDOW 1024   // pages
static int
gap_random(bool planted, unsigned seed, struct gap_stats *st)
{
  struct mm *mm = mm_create();
  unsigned long base = MMAP_BASE - 256 * PAGE_SIZE;
  srand(seed);
  vma_planted_stale_rotate = planted;
  int failed_at = -1;
  for(int op = 0; op < 20000 && failed_at < 0; op++) {
    unsigned long a = base + (rand() % GAP_WINDOW) * PAGE_SIZE;
    unsigned long len = (rand() % 8 ? 1 + rand() % 16 : 1 + rand() % 300) * PAGE_SIZE;
    int prot = rand() % 2 ? RW : PROT_READ, nr = mm->nr_vmas;
    unsigned long want = 0;
    long got = 0;
    switch(rand() % 8) {
    case 0:
    case 1:
      st->wrong += vm_mmap(mm, a, len, prot, FLAGS | MAP_FIXED) != (long)a;
      break;
    case 2:
      st->wrong += vm_munmap(mm, a, len) != 0;
      break;
    case 3:   // a hint, taken when free
      want = brute_free(mm->vma_root, a, len) ? a : brute_first_fit(mm, len);
      st->wrong += vm_mmap(mm, a, len, prot, FLAGS) != (long)want;
      break;
    case 4: {
      struct vma *spare = vma_alloc();
      vma_split_at(mm, a, &spare);
      kfree(spare);
      st->splits += mm->nr_vmas > nr;
      break;
    }
    case 5:
      vma_merge_range(mm, a, a + len);
      st->merges += mm->nr_vmas < nr;
      break;
    case 6: {   // mremap of a whole VMA: shrink, grow in place, or move by first fit
      struct vma *v = find_vma(mm, a);
      if(!v)
        break;
      unsigned long start = v->start, old = v->end - v->start;
      bool in_place = len <= old || brute_free(mm->vma_root, v->end, len - old);
      want = in_place ? start : brute_first_fit(mm, len);
      got = vm_mremap(mm, start, old, len, MREMAP_MAYMOVE, 0);
      st->wrong += got != (long)want;
      st->grows += len > old && in_place;
      st->moves += !in_place;
      break;
    }
    default:   // first fit
      want = brute_first_fit(mm, len);
      unsigned long last = last_end(mm);
      got = vm_mmap(mm, 0, len, prot, FLAGS);
      st->wrong += got != (long)want;
      st->fits++;
      st->at_floor += want == MMAP_BASE;
      st->in_holes += want > MMAP_BASE && want < last;
      st->at_tail += want >= last;
      break;
    }
    st->max_vmas = MAX(st->max_vmas, mm->nr_vmas);
    if(!tree_ok(mm))
      failed_at = op;
  }
  vma_planted_stale_rotate = false;
  mmput(mm);
  return failed_at;
}

static void
test_gap_random(void)
{
  struct gap_stats st = {0};
  unsigned long checks = gap_checks;
  CHECK(gap_random(false, 2, &st) == -1);
  CHECK(st.wrong == 0);
  printf("test_vma: gap_random: %d first fits (%d at the floor, %d in holes, %d at the tail), "
         "%d grows, %d moves, %d splits, %d merges, up to %d VMAs, %lu subtree gaps checked\n",
         st.fits, st.at_floor, st.in_holes, st.at_tail, st.grows, st.moves, st.splits,
         st.merges, st.max_vmas, gap_checks - checks);
  CHECK(st.at_floor >= 50 && st.in_holes >= 1000 && st.at_tail >= 50);
  CHECK(st.grows >= 100 && st.moves >= 100 && st.splits >= 100 && st.merges >= 100);
  CHECK(st.max_vmas >= 100 && gap_checks - checks >= 1000000);
  // The planted bug: rotations that leave the subtree gaps stale must be caught by tree_ok.
  struct gap_stats planted = {0};
  int at = gap_random(true, 2, &planted);
  printf("test_vma: planted stale rotation caught after op %d\n", at);
  CHECK(at >= 0);
}

// With 60,000 VMAs, find_gap visits O(log n) nodes wherever the first fit is: above the last
// VMA, in a hole in the middle, near the end, at the first hole. Three-page VMAs a page apart,
// so that only the holes made here take two pages. Before the subtree gaps it walked all.
static void
test_gap_work(void)
{
  enum { N = 60000 };
  struct mm *mm = mm_create();
  long bad = 0;
  for(unsigned long i = 0; i < N; i++)
    bad += vm_mmap(mm, MMAP_BASE + 4 * i * PAGE_SIZE, 3 * PAGE_SIZE, RW, FLAGS | MAP_FIXED) < 0;
  CHECK(bad == 0 && mm->nr_vmas == N);
  unsigned long at[4], visits[4];
  at[0] = MMAP_BASE + (4 * (N - 1) + 3) * PAGE_SIZE;   // above the last
  vma_gap_visits = 0;
  CHECK(vm_mmap(mm, 0, 2 * PAGE_SIZE, RW, FLAGS) == (long)at[0]);
  visits[0] = vma_gap_visits;
  at[1] = MMAP_BASE + (4 * (N / 2) - 1) * PAGE_SIZE;   // a five-page hole in the middle
  CHECK(vm_munmap(mm, at[1] + PAGE_SIZE, 3 * PAGE_SIZE) == 0);
  vma_gap_visits = 0;
  CHECK(vm_mmap(mm, 0, 2 * PAGE_SIZE, RW, FLAGS) == (long)at[1]);
  visits[1] = vma_gap_visits;
  at[2] = MMAP_BASE + (4 * (N - 2) - 1) * PAGE_SIZE;   // four pages: only near the end
  CHECK(vm_munmap(mm, at[2] + PAGE_SIZE, 3 * PAGE_SIZE) == 0);
  vma_gap_visits = 0;
  CHECK(vm_mmap(mm, 0, 4 * PAGE_SIZE, RW, FLAGS) == (long)at[2]);
  visits[2] = vma_gap_visits;
  at[3] = MMAP_BASE + 3 * PAGE_SIZE;   // one page: the first hole
  vma_gap_visits = 0;
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, RW, FLAGS) == (long)at[3]);
  visits[3] = vma_gap_visits;
  printf("test_vma: find_gap among %d VMAs visited %lu (tail), %lu (middle), %lu (near the end), "
         "%lu (first hole) nodes\n", N, visits[0], visits[1], visits[2], visits[3]);
  for(int i = 0; i < 4; i++)
    CHECK(visits[i] > 0 && visits[i] < 200);
  CHECK(tree_ok(mm));
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

// The top page below USER_END is never mapped (Linux's TASK_SIZE_MAX): not for a hint, not
// with MAP_FIXED, not by first fit when it is the only room left, not by mremap growing into
// it in place. A syscall instruction in its last bytes would return to 2^47.
static void
test_top_page(void)
{
  struct mm *mm = mm_create();
  long a = vm_mmap(mm, TASK_SIZE, PAGE_SIZE, RW, FLAGS);   // a hint there: placed elsewhere
  CHECK(a > 0 && (unsigned long)a + PAGE_SIZE <= TASK_SIZE);
  CHECK(vm_mmap(mm, TASK_SIZE, PAGE_SIZE, RW, FLAGS | MAP_FIXED) == -EINVAL);
  CHECK(vm_mmap(mm, MMAP_BASE, TASK_SIZE - MMAP_BASE, RW, FLAGS | MAP_FIXED) == (long)MMAP_BASE);
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, RW, FLAGS) == -ENOMEM);   // only the top page is left
  CHECK(vm_munmap(mm, TASK_SIZE - PAGE_SIZE, PAGE_SIZE) == 0);
  long c = vm_mmap(mm, TASK_SIZE - PAGE_SIZE, PAGE_SIZE, RW, FLAGS | MAP_FIXED);
  CHECK(c == (long)(TASK_SIZE - PAGE_SIZE));
  CHECK(vm_mremap(mm, c, PAGE_SIZE, 2 * PAGE_SIZE, 0, 0) == -ENOMEM);
  CHECK(find_vma(mm, TASK_SIZE) == NULL);
  CHECK(tree_ok(mm));
  mmput(mm);
}

// At most MAX_MAP_COUNT VMAs (Linux's vm.max_map_count): past it an mmap is ENOMEM, and so is
// a munmap that would cut a hole in one; taking a VMA away makes room again. Three-page VMAs
// a page apart, so that none merge.
static void
test_map_count(void)
{
  struct mm *mm = mm_create();
  long bad = 0;
  for(unsigned long i = 0; i < MAX_MAP_COUNT; i++)
    bad += vm_mmap(mm, MMAP_BASE + 4 * i * PAGE_SIZE, 3 * PAGE_SIZE, RW, FLAGS | MAP_FIXED) < 0;
  CHECK(bad == 0 && mm->nr_vmas == MAX_MAP_COUNT);
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, RW, FLAGS) == -ENOMEM);
  CHECK(vm_munmap(mm, MMAP_BASE + PAGE_SIZE, PAGE_SIZE) == -ENOMEM);   // a hole: one more VMA
  CHECK(vm_munmap(mm, MMAP_BASE + 4 * PAGE_SIZE, 3 * PAGE_SIZE) == 0);
  CHECK(vm_munmap(mm, MMAP_BASE + PAGE_SIZE, PAGE_SIZE) == 0 && mm->nr_vmas == MAX_MAP_COUNT);
  CHECK(vm_mmap(mm, 0, PAGE_SIZE, RW, FLAGS) == -ENOMEM);
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

// munmap's window between its phases (mm/munmap.c), seen from its hook: the VMAs are marked,
// gone for find_vma, taken for first fit and MAP_FIXED_NOREPLACE; the hole between them may
// be mapped, and the zap that follows reaches the VMAs only. Planted: the zap takes the whole
// range, the new mapping in the hole included.
static struct {
  unsigned long base;
  int wrong;
  unsigned long zapped;   // zapped_pages when the window opened
} mw;

static void
munmap_window(struct mm *mm)
{
  unsigned long b = mw.base;
  struct vma *v = find_vma(mm, b), *raw = __find_vma(mm, b);
  mw.wrong += v && v->start < b + 5 * PAGE_SIZE;
  mw.wrong += !raw || !raw->unmapping || mm->nr_unmapping != 2;
  mw.wrong += vm_mmap(mm, b, PAGE_SIZE, RW, FLAGS | MAP_FIXED_NOREPLACE) != -EEXIST;
  long h = vm_mmap(mm, b, PAGE_SIZE, RW, FLAGS);
  mw.wrong += h <= 0 || ((unsigned long)h >= b && (unsigned long)h < b + 5 * PAGE_SIZE);
  mw.wrong += vm_mmap(mm, b + 2 * PAGE_SIZE, PAGE_SIZE, RW | PROT_EXEC, FLAGS | MAP_FIXED) !=
              (long)(b + 2 * PAGE_SIZE);
  mw.zapped = zapped_pages;
}

static unsigned long
munmap_window_run(bool planted)
{
  struct mm *mm = mm_create();
  mw.base = MMAP_BASE + (3UL << 32);
  mw.wrong = 0;
  CHECK(vm_mmap(mm, mw.base, 2 * PAGE_SIZE, RW, FLAGS | MAP_FIXED) == (long)mw.base);
  CHECK(vm_mmap(mm, mw.base + 3 * PAGE_SIZE, 2 * PAGE_SIZE, RW, FLAGS | MAP_FIXED) ==
        (long)(mw.base + 3 * PAGE_SIZE));
  munmap_zap_hook = munmap_window;
  munmap_planted_whole_range = planted;
  CHECK(vm_munmap(mm, mw.base, 5 * PAGE_SIZE) == 0);
  munmap_zap_hook = NULL;
  munmap_planted_whole_range = false;
  CHECK(mw.wrong == 0 && mm->nr_unmapping == 0 && mm->nr_vmas == 2);
  struct vma *hole = find_vma(mm, mw.base);
  CHECK(hole && hole->start == mw.base + 2 * PAGE_SIZE && hole->end == hole->start + PAGE_SIZE);
  unsigned long zapped = zapped_pages - mw.zapped;
  mmput(mm);
  return zapped;
}

static void
test_munmap_window(void)
{
  CHECK(munmap_window_run(false) == 4);   // the two VMAs' pages, not the hole's
  unsigned long planted = munmap_window_run(true);
  CHECK(planted == 5);
  printf("test_vma: munmap's window: 4 pages zapped; planted whole-range zap: %lu\n", planted);
}

// A file mapping keeps its offset through a hole punched in it, refuses to merge with a
// neighbour that maps other pages, and every piece holds one reference until unmapped.
static void
test_file_vmas(void)
{
  struct mm *mm = mm_create();
  unsigned long base = MMAP_BASE + (1UL << 32);
  long a = vm_mmap_file(mm, base, 8 * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED, the_file, 10,
                        VM_SHARED | VM_MAYWRITE);
  CHECK(a == (long)base && file_refs == 1);
  CHECK(vm_munmap(mm, base + 2 * PAGE_SIZE, 3 * PAGE_SIZE) == 0);
  struct vma *lo = find_vma(mm, base), *hi = find_vma(mm, base + 2 * PAGE_SIZE);
  CHECK(lo && lo->pgoff == 10 && lo->end == base + 2 * PAGE_SIZE && (lo->flags & VM_SHARED));
  CHECK(hi && hi->start == base + 5 * PAGE_SIZE && hi->pgoff == 15 && hi->file == the_file);
  CHECK(file_refs == 2);
  // Mapping the hole again with the right pages joins the three; other pages do not join.
  CHECK(vm_mmap_file(mm, base + 2 * PAGE_SIZE, 3 * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED,
                     the_file, 40, VM_SHARED | VM_MAYWRITE) == (long)(base + 2 * PAGE_SIZE));
  CHECK(merged_count(mm, base, 8) == 3 && file_refs == 3);
  CHECK(vm_mmap_file(mm, base + 2 * PAGE_SIZE, 3 * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED,
                     the_file, 12, VM_SHARED | VM_MAYWRITE) == (long)(base + 2 * PAGE_SIZE));
  CHECK(merged_count(mm, base, 8) == 1);
  CHECK(file_refs == 1 && find_vma(mm, base)->pgoff == 10);
  CHECK(vm_mmap_file(mm, 0, PAGE_SIZE, RW, MAP_SHARED | MAP_ANONYMOUS, the_file, 0, 0) == -EINVAL);
  CHECK(vm_mmap_file(mm, 0, 2 * PAGE_SIZE, RW, MAP_SHARED, the_file, ~0UL, 0) == -EOVERFLOW);
  CHECK(vm_munmap(mm, base, 8 * PAGE_SIZE) == 0);
  CHECK(file_refs == 0 && linked_vmas == 0 && mm->nr_vmas == 0);
  mmput(mm);
}

// mremap: shrink in place, grow in place into free pages, move when the next page is taken
// (the pages go with it, the file offset too), MREMAP_FIXED over another mapping, and errnos.
static void
test_mremap(void)
{
  struct mm *mm = mm_create();
  unsigned long base = MMAP_BASE + (1UL << 33);
  long a = vm_mmap(mm, base, 4 * PAGE_SIZE, RW, FLAGS | MAP_FIXED);
  CHECK(a == (long)base);
  zapped_pages = 0;
  CHECK(vm_mremap(mm, base, 4 * PAGE_SIZE, 2 * PAGE_SIZE, 0, 0) == (long)base);
  CHECK(zapped_pages == 2 && find_vma(mm, base)->end == base + 2 * PAGE_SIZE);
  CHECK(vm_mremap(mm, base, 2 * PAGE_SIZE, 6 * PAGE_SIZE, 0, 0) == (long)base);
  CHECK(find_vma(mm, base)->end == base + 6 * PAGE_SIZE && mm->nr_vmas == 1);
  CHECK(vm_mmap(mm, base + 6 * PAGE_SIZE, PAGE_SIZE, PROT_READ, FLAGS | MAP_FIXED) > 0);
  CHECK(vm_mremap(mm, base, 6 * PAGE_SIZE, 8 * PAGE_SIZE, 0, 0) == -ENOMEM);
  moved_pages = 0;
  long m = vm_mremap(mm, base, 6 * PAGE_SIZE, 8 * PAGE_SIZE, MREMAP_MAYMOVE, 0);
  CHECK(m > 0 && m != (long)base && moved_pages == 6);
  CHECK(find_vma(mm, base)->start == base + 6 * PAGE_SIZE);   // only the read-only page left
  CHECK(find_vma(mm, m)->end == (unsigned long)m + 8 * PAGE_SIZE);
  // A file mapping moved to a fixed place over another mapping keeps its offset.
  unsigned long f = base + 64 * PAGE_SIZE;
  CHECK(vm_mmap_file(mm, f, 4 * PAGE_SIZE, RW, MAP_PRIVATE | MAP_FIXED, the_file, 3,
                     VM_MAYWRITE) == (long)f);
  CHECK(vm_mremap(mm, f + PAGE_SIZE, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
                  m) == m);
  struct vma *v = find_vma(mm, m);
  CHECK(v && v->file == the_file && v->pgoff == 4 && v->end == (unsigned long)m + 2 * PAGE_SIZE);
  CHECK(file_refs == 3 && linked_vmas == 3);   // the moved piece and two around its old place
  // Errnos.
  CHECK(vm_mremap(mm, base + 1, PAGE_SIZE, PAGE_SIZE, 0, 0) == -EINVAL);
  CHECK(vm_mremap(mm, base, PAGE_SIZE, 0, 0, 0) == -EINVAL);
  CHECK(vm_mremap(mm, base, PAGE_SIZE, PAGE_SIZE, 8, 0) == -EINVAL);
  CHECK(vm_mremap(mm, base, PAGE_SIZE, PAGE_SIZE, MREMAP_FIXED, m) == -EINVAL);
  CHECK(vm_mremap(mm, m, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
                  m + PAGE_SIZE) == -EINVAL);   // overlapping ranges
  CHECK(vm_mremap(mm, base + 200 * PAGE_SIZE, PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE, 0) ==
        -EFAULT);
  CHECK(vm_mremap(mm, m, 4 * PAGE_SIZE, 8 * PAGE_SIZE, MREMAP_MAYMOVE, 0) == -EFAULT);
  CHECK(vm_mremap(mm, base + 6 * PAGE_SIZE, 0, PAGE_SIZE, MREMAP_MAYMOVE, 0) == -EINVAL);
  CHECK(tree_ok(mm));
  mmput(mm);
  CHECK(file_refs == 0);
}

// Per-VMA locks (mm/vma_lock.c): readers find and lock VMAs without mmap_sem, as faults do,
// while a writer maps, unmaps and moves VMAs under it. A VMA a reader holds must not change
// or leave the tree under it (vma_start_write waits for it), and most lookups must succeed.
#define LOCK_READERS 3
#define LOCK_WINDOW 64            // pages the writer works in
static struct mm *lock_mm;
static unsigned long lock_base;
static int lock_done, lock_broken;
static long lock_held;            // lookups that returned a locked VMA
static long lock_missed;          // and those that returned none (a fault would fall back)

static void *
lock_reader(void *arg)
{
  rcu_register_thread();
  unsigned seed = (unsigned)(long)arg;
  while(!__atomic_load_n(&lock_done, __ATOMIC_ACQUIRE)) {
    unsigned long addr = lock_base + (rand_r(&seed) % LOCK_WINDOW) * PAGE_SIZE;
    rcu_read_lock();   // kept across the check: a planted bug must not also be a use-after-free
    struct vma *v = lock_vma_under_rcu(lock_mm, addr);
    if(v) {
      unsigned long start = v->start, end = v->end;
      bool broken = start > addr || end <= addr || v->detached;
      sched_yield();   // the writer's turn: it must wait for us to change v
      broken |= READ_ONCE(v->start) != start || READ_ONCE(v->end) != end ||
                READ_ONCE(v->detached);
      vma_end_read(v);
      __atomic_fetch_add(&lock_broken, broken, __ATOMIC_RELAXED);
      __atomic_fetch_add(&lock_held, 1, __ATOMIC_RELAXED);
    } else {
      __atomic_fetch_add(&lock_missed, 1, __ATOMIC_RELAXED);
    }
    rcu_read_unlock();
  }
  rcu_unregister_thread();
  return NULL;
}

static void
lock_race(int ops, int *broken, long *held)
{
  lock_mm = mm_create();
  lock_base = MMAP_BASE + 0x100000;
  lock_broken = 0;
  lock_held = 0;
  __atomic_store_n(&lock_done, 0, __ATOMIC_RELEASE);
  vm_mmap(lock_mm, lock_base, LOCK_WINDOW * PAGE_SIZE, RW, FLAGS | MAP_FIXED);
  pthread_t t[LOCK_READERS];
  for(long i = 0; i < LOCK_READERS; i++)
    pthread_create(&t[i], NULL, lock_reader, (void *)(i + 1));
  unsigned seed = 7;
  for(int i = 0; i < ops; i++) {
    unsigned long a = lock_base + (rand_r(&seed) % LOCK_WINDOW) * PAGE_SIZE;
    size_t len = (1 + rand_r(&seed) % 8) * PAGE_SIZE;
    if(a + len > lock_base + LOCK_WINDOW * PAGE_SIZE)
      len = lock_base + LOCK_WINDOW * PAGE_SIZE - a;
    switch(rand_r(&seed) % 3) {
    case 0:
      vm_mmap(lock_mm, a, len, rand_r(&seed) % 2 ? RW : PROT_READ, FLAGS | MAP_FIXED);
      break;
    case 1:
      vm_munmap(lock_mm, a, len);
      break;
    default:   // a shrink in place: the VMA's end moves
      vm_mremap(lock_mm, a, len, PAGE_SIZE, 0, 0);
      break;
    }
    if(i % 16 == 0)
      sched_yield();
  }
  __atomic_store_n(&lock_done, 1, __ATOMIC_RELEASE);
  for(int i = 0; i < LOCK_READERS; i++)
    pthread_join(t[i], NULL);
  mmput(lock_mm);
  *broken = lock_broken;
  *held = lock_held;
}

static void
test_vma_lock(void)
{
  int broken;
  long held;
  lock_missed = 0;
  lock_race(20000, &broken, &held);
  printf("test_vma: per-VMA locks: %ld lookups locked their VMA, %ld fell back, %d broken\n",
         held, lock_missed, broken);
  CHECK(broken == 0);
  CHECK(held >= 1000);   // enough locked lookups for the check to mean something
  // Planted: vma_start_write marks nothing, so a writer changes a VMA a reader holds.
  vma_lock_planted_no_write = true;
  lock_race(20000, &broken, &held);
  vma_lock_planted_no_write = false;
  printf("test_vma: planted vma_start_write that marks nothing: %d broken of %ld\n", broken,
         held);
  CHECK(broken > 0);
}

int
main(void)
{
  rcu_register_thread();
  test_random_ops();
  test_gap_random();
  test_gap_work();
  test_split_and_gaps();
  test_errors();
  test_top_page();
  test_map_count();
  test_file_vmas();
  test_munmap_window();
  test_mremap();
  test_vma_lock();
  rcu_barrier();                  // the mms go after a grace period
  CHECK(slab_nr_live() == 0);     // and with them every VMA
  rcu_unregister_thread();
  return check_summary("test_vma");
}
