// Host test of the profile tables (kernel/lib/stacktable.c): adding and merging stacks, a full table,
// ranking stacks and functions (self and total, a recursive function once), and folding.
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "stacktable.h"
#include "vsprintf.h"

// Function "addresses" 0x100, 0x200, ... are named f1, f2, ...; a pseudo-function its kind;
// 0x700 is a GCC clone, f7.isra.0.
static const char *
name(u64 addr, void *arg)
{
  static char buf[8][16];
  static int next;
  char *b = buf[next++ % 8];

  if(addr < PROF_NKINDS)
    return prof_kind_name[addr];
  ksnprintf(b, 16, "f%lu%s", (unsigned long)(addr >> 8), addr == 0x700 ? ".isra.0" : "");
  return b;
}

// A kernel stack from its frames, innermost first.
static struct prof_stack
stack(int depth, const u64 *pc)
{
  struct prof_stack s = { .kind = PROF_KERNEL, .depth = depth };
  memcpy(s.pc, pc, depth * sizeof(pc[0]));
  return s;
}

static struct prof_stack
idle(void)
{
  return (struct prof_stack){ .kind = PROF_IDLE };
}

static const struct prof_func *
func(const struct prof_func *f, u32 n, u64 addr)
{
  for(u32 i = 0; i < n; i++)
    if(f[i].addr == addr)
      return &f[i];
  return NULL;
}

int
main(void)
{
  static struct prof_stack slots[64], slots2[64], small[8];
  struct prof_table t, u, s8;
  struct prof_func f[32];
  const struct prof_func *p;
  u32 idx[64], n;
  char buf[512];

  prof_table_init(&t, slots, 64);
  u64 a[] = { 0x300, 0x200, 0x100 };   // f3 called by f2 called by f1
  u64 b[] = { 0x200, 0x100 };
  u64 r[] = { 0x400, 0x400, 0x100 };   // f4 recursing, from f1
  struct prof_stack sa = stack(3, a), sb = stack(2, b), sr = stack(3, r), si = idle();
  CHECK(prof_table_add(&t, &sa, 5) && prof_table_add(&t, &sb, 2) && prof_table_add(&t, &sa, 1));
  CHECK(prof_table_add(&t, &sr, 3) && prof_table_add(&t, &si, 10));
  CHECK(t.used == 4 && t.samples == 21 && t.dropped == 0);

  // Largest first.
  n = prof_sorted(&t, idx);
  CHECK(n == 4 && t.slot[idx[0]].kind == PROF_IDLE && t.slot[idx[0]].count == 10);
  CHECK(t.slot[idx[1]].count == 6 && t.slot[idx[2]].count == 3 && t.slot[idx[3]].count == 2);

  // Self and total; f4 recurses but counts once a sample; idle is a pseudo-function.
  n = prof_funcs(&t, f, 32, false);
  CHECK(n == 5 && f[0].addr == PROF_IDLE && f[0].self == 10 && f[1].addr == 0x300);
  CHECK((p = func(f, n, 0x100)) && p->self == 0 && p->total == 11);
  CHECK((p = func(f, n, 0x200)) && p->self == 2 && p->total == 8);
  CHECK((p = func(f, n, 0x300)) && p->self == 6 && p->total == 6);
  CHECK((p = func(f, n, 0x400)) && p->self == 3 && p->total == 3);
  n = prof_funcs(&t, f, 32, true);
  CHECK(f[0].addr == 0x100 && f[0].total == 11 && f[1].addr == PROF_IDLE);
  CHECK(prof_funcs(&t, f, 2, false) == 2);   // at most max functions

  // Folded: root first.
  prof_fold(buf, sizeof(buf), &sa, name, NULL);
  CHECK(!strcmp(buf, "f1;f2;f3"));
  prof_fold(buf, sizeof(buf), &si, name, NULL);
  CHECK(!strcmp(buf, "idle"));
  struct prof_stack cut = sa;
  cut.cut = 1;
  prof_fold(buf, sizeof(buf), &cut, name, NULL);
  CHECK(!strcmp(buf, "...;f1;f2;f3"));
  // Too long for the buffer: the innermost frames that fit, behind "...".
  CHECK(prof_fold(buf, 9, &sa, name, NULL) == 8 && !strcmp(buf, "f1;f2;f3"));
  CHECK(prof_fold(buf, 8, &sa, name, NULL) == 6 && !strcmp(buf, "...;f3"));
  CHECK(prof_fold(buf, 10, &cut, name, NULL) == 9 && !strcmp(buf, "...;f2;f3"));
  CHECK(prof_fold(buf, 4, &sa, name, NULL) == 3 && !strcmp(buf, "..."));

  // Split by category: a stack goes to the first category naming one of its frames.
  static const char *const l1[] = { "f1", NULL }, *const l2[] = { "f2", NULL };
  static const char *const l3[] = { "f3", NULL }, *const l23[] = { "f9", "f2", "f3", NULL };
  static const char *const l7[] = { "f7", NULL }, *const lf[] = { "f", "f7.isra.0.x", NULL };
  u64 cnt[6];
  const char *const *c32[] = { l3, l2 };
  CHECK(prof_split(&t, name, NULL, c32, 2, cnt, NULL) == 21);
  CHECK(cnt[0] == 6 && cnt[1] == 2 && cnt[2 + PROF_SPLIT_IDLE] == 10 &&
        cnt[2 + PROF_SPLIT_OTHER] == 3);
  const char *const *c12[] = { l1, l2 };   // every kernel stack has f1: all are the first's
  CHECK(prof_split(&t, name, NULL, c12, 2, cnt, NULL) == 21);
  CHECK(cnt[0] == 11 && cnt[1] == 0 && cnt[2 + PROF_SPLIT_OTHER] == 0);
  const char *const *c21[] = { l2, l1 };   // f2's first, then the rest (f1;f4;f4) f1's
  CHECK(prof_split(&t, name, NULL, c21, 2, cnt, NULL) == 21 && cnt[0] == 8 && cnt[1] == 3);
  const char *const *ctie[] = { l23, l2 };   // a frame two lists name: the first list's
  CHECK(prof_split(&t, name, NULL, ctie, 2, cnt, NULL) == 21 && cnt[0] == 8 && cnt[1] == 0);
  const char *const *cnone[] = { NULL };
  CHECK(prof_split(&t, name, NULL, cnone, 0, cnt, NULL) == 21 && cnt[PROF_SPLIT_IDLE] == 10 &&
        cnt[PROF_SPLIT_OTHER] == 11);
  // GCC's suffixes: f7 names f7.isra.0, but f does not, nor a longer name.
  prof_table_init(&u, slots2, 64);
  u64 c7[] = { 0x700, 0x100 };
  struct prof_stack s7 = stack(2, c7), su = { .kind = PROF_USER };
  CHECK(prof_table_add(&u, &s7, 4) && prof_table_add(&u, &su, 1));
  const char *const *c7f[] = { lf, l7 };
  CHECK(prof_split(&u, name, NULL, c7f, 2, cnt, NULL) == 5 && cnt[0] == 0 && cnt[1] == 4 &&
        cnt[2 + PROF_SPLIT_OTHER] == 1);

  // Merge: counts add, stacks new to the target are inserted.
  prof_table_init(&u, slots2, 64);
  CHECK(prof_table_add(&u, &sb, 4));
  prof_table_merge(&u, &t);
  CHECK(u.used == 4 && u.samples == 25);
  n = prof_sorted(&u, idx);
  CHECK(u.slot[idx[0]].count == 10 && u.slot[idx[1]].count == 6 && u.slot[idx[2]].count == 6);
  // Hits: one an add (the NMI), however many samples it stands for; merged, they add up. sb
  // was added once to u and once to t, sa twice to t.
  u64 hit[4];
  CHECK(prof_split(&u, name, NULL, c21, 2, cnt, hit) == 25 && cnt[0] == 12 && hit[0] == 4 &&
        hit[1] == 1 && hit[2 + PROF_SPLIT_IDLE] == 1 && hit[2 + PROF_SPLIT_OTHER] == 0);
  struct prof_stack sw = sb;
  sw.count = 99, sw.hits = 99;   // ignored
  CHECK(prof_table_add_hits(&u, &sw, 7, 3));
  CHECK(prof_split(&u, name, NULL, c21, 2, cnt, hit) == 32 && cnt[0] == 19 && hit[0] == 7);

  // A full table (7 of 8 slots) drops new stacks and counts them; known ones still add.
  prof_table_init(&s8, small, 8);
  for(u64 i = 1; i <= 7; i++) {
    u64 pc = i << 8;
    struct prof_stack x = stack(1, &pc);
    CHECK(prof_table_add(&s8, &x, 1));
  }
  u64 pc9 = 9 << 8;
  struct prof_stack x9 = stack(1, &pc9);
  CHECK(!prof_table_add(&s8, &x9, 2) && s8.dropped == 2 && s8.samples == 9 && s8.used == 7);
  u64 pc1 = 1 << 8;
  struct prof_stack x1 = stack(1, &pc1);
  CHECK(prof_table_add(&s8, &x1, 1) && s8.samples == 10);
  // Merging a table with drops keeps the count of them.
  prof_table_reset(&u);
  prof_table_merge(&u, &s8);
  CHECK(u.samples == 10 && u.dropped == 2 && u.used == 7);
  // Dropped samples are in no category.
  CHECK(prof_split(&u, name, NULL, c21, 2, cnt, NULL) == 8 && cnt[0] == 1 && cnt[1] == 2 &&
        cnt[2 + PROF_SPLIT_OTHER] == 5);

  // Many random stacks against a plain count.
  prof_table_reset(&u);
  u64 total = 0;
  srand(2);
  for(int i = 0; i < 1000; i++) {
    u64 fr[2] = { (u64)(rand() % 6 + 1) << 8, 0x100 };
    struct prof_stack x = stack(2, fr);
    u32 w = rand() % 3 + 1;
    total += w;
    CHECK(prof_table_add(&u, &x, w));
  }
  n = prof_funcs(&u, f, 32, true);
  CHECK(u.samples == total && f[0].addr == 0x100 && f[0].total == total);
  return check_summary("test_prof");
}
