// manymaps: 60,000 one-page mappings, protections alternating so that none merge (a hostile
// address space near vm.max_map_count), then two threads each unmapping and mapping again in a
// loop among them. Every new mapping must be fresh (reads zero) and overlap no live one (each
// keeps a pattern until unmapped; sentinel pages must keep theirs). Exits 0 when all hold.
// With find_gap walking every VMA each mmap here cost a walk of 60,000 (mm/vma.c).
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROG "manymaps"
#include "check.h"

#define N 60000        // below Linux's default vm.max_map_count, 65530, with room for libc's
#define LOOPS 400      // per thread
#define RING 8         // each thread's own multi-page mappings kept live at a time
#define SENTINEL 997   // every SENTINEL-th writable mapping holds its index

static char *map[N];   // map[i]: thread i / (N / 2) replaces it in the loop
static long pg;

static int
prot_of(int i)
{
  return i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
}

static int
cmp_ptr(const void *a, const void *b)
{
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

static bool
sentinel(int i)
{
  return i % SENTINEL == 0 && prot_of(i) & PROT_WRITE;
}

// The whole of [p, p + len) reads zero: a fresh anonymous mapping, not someone's pages.
static bool
zero(const char *p, size_t len)
{
  const uint64_t *q = (const uint64_t *)p;
  for(size_t i = 0; i < len / sizeof(*q); i++)
    if(q[i])
      return false;
  return true;
}

struct worker {
  int id;
  uint64_t seed;
  int failed, maps;   // this thread's own counts: check() is not thread-safe
};

static uint64_t
rnd(struct worker *w)
{
  w->seed ^= w->seed << 13;
  w->seed ^= w->seed >> 7;
  w->seed ^= w->seed << 17;
  return w->seed;
}

// Its half of map[]: one mapping away, a fresh one of one to three pages (checked for zeroes,
// then stamped with the thread and round on every page; checked again before it goes), and
// the one-page mapping back with its protection.
static void *
worker(void *arg)
{
  struct worker *w = arg;
  char *ring[RING] = {0};
  size_t ring_len[RING] = {0};
  int ring_stamp[RING] = {0};
  for(int r = 0; r < LOOPS; r++) {
    int i = w->id * (N / 2) + rnd(w) % (N / 2);
    if(sentinel(i))
      continue;
    w->failed += munmap(map[i], pg) != 0;
    int k = r % RING;
    if(ring[k]) {
      for(size_t off = 0; off < ring_len[k]; off += pg)
        w->failed += *(int *)(ring[k] + off) != ring_stamp[k];
      w->failed += munmap(ring[k], ring_len[k]) != 0;
    }
    ring_len[k] = pg * (1 + rnd(w) % 3);
    ring[k] = mmap(NULL, ring_len[k], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if(ring[k] == MAP_FAILED) {
      w->failed++;
      ring[k] = NULL;
    } else {
      w->failed += !zero(ring[k], ring_len[k]);
      ring_stamp[k] = w->id * LOOPS + r;
      for(size_t off = 0; off < ring_len[k]; off += pg)
        *(int *)(ring[k] + off) = ring_stamp[k];
      w->maps++;
    }
    map[i] = mmap(NULL, pg, prot_of(i), MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    w->failed += map[i] == MAP_FAILED;
    w->maps += map[i] != MAP_FAILED;
  }
  for(int k = 0; k < RING; k++)
    if(ring[k])
      w->failed += munmap(ring[k], ring_len[k]) != 0;
  return NULL;
}

int
main(void)
{
  pg = sysconf(_SC_PAGESIZE);
  int made = 0;
  for(int i = 0; i < N; i++) {
    map[i] = mmap(NULL, pg, prot_of(i), MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if(map[i] == MAP_FAILED)
      break;
    made++;
    if(sentinel(i))
      *(int *)map[i] = i;
  }
  check(made == N, "60,000 mappings");
  if(made < N)
    return 1;
  // Distinct and apart: sorted, each at least a page above the one before.
  static uintptr_t sorted[N];
  for(int i = 0; i < N; i++)
    sorted[i] = (uintptr_t)map[i];
  qsort(sorted, N, sizeof(sorted[0]), cmp_ptr);
  int overlaps = 0;
  for(int i = 1; i < N; i++)
    overlaps += sorted[i] - sorted[i - 1] < (uintptr_t)pg;
  check(overlaps == 0, "the mappings do not overlap");
  check(zero(map[1], pg) && zero(map[2], pg), "fresh mappings read zero");
  check(mprotect(map[1], pg, PROT_READ | PROT_WRITE) == 0 && mprotect(map[1], pg, PROT_READ) == 0,
        "mprotect among them");
  struct worker w[2] = { { 0, 0x9e3779b97f4a7c15UL, 0, 0 }, { 1, 0xd1b54a32d192ed03UL, 0, 0 } };
  pthread_t t[2];
  for(int i = 0; i < 2; i++)
    check(pthread_create(&t[i], NULL, worker, &w[i]) == 0, "pthread_create");
  for(int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  check(w[0].failed == 0 && w[1].failed == 0, "the loop's maps: fresh, apart, kept, unmapped");
  check(w[0].maps > LOOPS && w[1].maps > LOOPS, "the loop mapped enough");   // ~2 a round
  int bad = 0;
  for(int i = 0; i < N; i += SENTINEL)
    bad += sentinel(i) && *(int *)map[i] != i;
  check(bad == 0, "sentinels kept their values");
  int unmapped = 0;
  for(int i = 0; i < N; i++)
    unmapped += munmap(map[i], pg) == 0;
  check(unmapped == N, "all unmapped");
  printf("manymaps: %d mappings, %d + %d mapped in the loop: %s\n", N, w[0].maps, w[1].maps,
         fails ? "some checks failed" : "all checks passed");
  return fails != 0;
}
