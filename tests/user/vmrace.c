// vmrace: page faults racing the calls that change a mapping under them. One thread keeps
// replacing a region (mmap MAP_FIXED, munmap and mmap, MADV_DONTNEED, mprotect PROT_NONE and
// back), writing each new generation's number into every page before publishing it; three
// threads read the region's pages at random and must never see a generation older than the
// one published before their read began (a stale translation or a page that outlived its
// unmapping), nor read it at all while it is PROT_NONE; a SIGSEGV while the region is away
// or out of reach is expected. Two more threads map, fault
// and unmap regions of their own meanwhile, so that faults on other VMAs run beside it all.
// Exits 0 when nothing stale was read and enough reads were made.
#define PROG "vmrace"
#include "check.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 16
#define ROUNDS 100
// The generations go on past ROUNDS until the owners have faulted enough pages to mean
// something: how many they fault meanwhile depends on how fast the main thread's calls are
// (madvise.lock=vma's MADV_DONTNEED takes no mmap_sem, and 100 went by with 976). At most
// MAX_ROUNDS, some seconds: owners that never get to run fail the check, not the time limit.
#define MAX_ROUNDS 5000
#define ENOUGH_FAULTS 1000
#define READERS 3
#define OWNERS 2
#define PAGE 4096

static char *block;              // the region, then each owner's, 2 x PAGES pages apart
static char *region;
static long gen;                 // the generation every page of the region holds, published
static long prot_epoch;          // odd while the region is PROT_NONE, by mprotect's return
static int done;
static long reads, segvs, stale, owner_faults;
static __thread sigjmp_buf on_segv;

static void
segv(int sig)
{
  siglongjmp(on_segv, 1);
}

static void *
reader(void *arg)
{
  unsigned seed = (unsigned)(uintptr_t)arg;
  long n = 0, s = 0, bad = 0;
  while(!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    long g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
    long e = __atomic_load_n(&prot_epoch, __ATOMIC_ACQUIRE);
    volatile long *p = (volatile long *)(region + (rand_r(&seed) % PAGES) * PAGE);
    if(sigsetjmp(on_segv, 1)) {
      s++;
      continue;
    }
    long v = *p;
    n++;
    if(v != 0 && v < g)   // 0: a fresh page of the next generation, not yet written
      bad++;
    // A read that began and ended while the region was PROT_NONE used a stale translation.
    if((e & 1) && __atomic_load_n(&prot_epoch, __ATOMIC_ACQUIRE) == e)
      bad++;
  }
  __atomic_fetch_add(&reads, n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&segvs, s, __ATOMIC_RELAXED);
  __atomic_fetch_add(&stale, bad, __ATOMIC_RELAXED);
  return NULL;
}

// Its own region: mapped, every page faulted in and checked, unmapped, over and over. At an
// address of its own in the block: mmap(NULL) could hand it the region while that is away.
static void *
owner(void *arg)
{
  char *at = block + (uintptr_t)arg * 2 * PAGES * PAGE;
  while(!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    char *p = mmap(at, PAGES * PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if(p != at) {
      __atomic_fetch_add(&stale, 1, __ATOMIC_RELAXED);
      break;
    }
    for(int i = 0; i < PAGES; i++)
      p[i * PAGE] = (char)i;
    for(int i = 0; i < PAGES; i++)
      if(p[i * PAGE] != (char)i)
        __atomic_fetch_add(&stale, 1, __ATOMIC_RELAXED);
    munmap(p, PAGES * PAGE);
    __atomic_fetch_add(&owner_faults, PAGES, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void
publish(long g)
{
  for(int i = 0; i < PAGES; i++)
    *(long *)(region + i * PAGE) = g;
  __atomic_store_n(&gen, g, __ATOMIC_RELEASE);
}

int
main(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = segv;
  sa.sa_flags = SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  const int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS;
  // The block is reserved (PROT_NONE) so that no other mapping lands in it.
  block = mmap(NULL, (1 + OWNERS) * 2 * PAGES * PAGE, PROT_NONE, anon, -1, 0);
  check(block != MAP_FAILED, "mmap of the block");
  if(block == MAP_FAILED)
    return 1;
  region = block;
  check(mmap(region, PAGES * PAGE, rw, anon | MAP_FIXED, -1, 0) == region, "mmap of the region");
  publish(1);
  pthread_t t[READERS + OWNERS];
  for(long i = 0; i < READERS + OWNERS; i++)
    check(pthread_create(&t[i], NULL, i < READERS ? reader : owner,
                         (void *)(i < READERS ? i + 1 : i - READERS + 1)) == 0, "pthread_create");
  int failed_calls = 0;
  long g;
  for(g = 2; g < ROUNDS || (g < MAX_ROUNDS &&
                            __atomic_load_n(&owner_faults, __ATOMIC_RELAXED) < ENOUGH_FAULTS);
      g++) {
    switch(g % 4) {
    case 0:   // replaced in place
      failed_calls += mmap(region, PAGES * PAGE, rw, anon | MAP_FIXED, -1, 0) != region;
      break;
    case 1:   // away for a while, then back
      failed_calls += munmap(region, PAGES * PAGE) != 0;
      sched_yield();
      failed_calls += mmap(region, PAGES * PAGE, rw, anon | MAP_FIXED, -1, 0) != region;
      break;
    case 2:   // its pages dropped: zero-filled on the next touch
      failed_calls += madvise(region, PAGES * PAGE, MADV_DONTNEED) != 0;
      break;
    default:   // out of reach, then back with the same pages
      failed_calls += mprotect(region, PAGES * PAGE, PROT_NONE) != 0;
      __atomic_fetch_add(&prot_epoch, 1, __ATOMIC_RELEASE);
      sched_yield();
      __atomic_fetch_add(&prot_epoch, 1, __ATOMIC_RELEASE);
      failed_calls += mprotect(region, PAGES * PAGE, rw) != 0;
      break;
    }
    publish(g);
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  for(int i = 0; i < READERS + OWNERS; i++)
    pthread_join(t[i], NULL);
  printf("vmrace: %d generations, %ld reads, %ld SIGSEGVs, %ld stale, %ld faults in the"
         " owners' regions\n", (int)g, reads, segvs, stale, owner_faults);
  check(failed_calls == 0, "every mmap, munmap, madvise and mprotect succeeded");
  check(stale == 0, "no read saw a generation older than the one published before it");
  check(reads >= 1000 && owner_faults >= ENOUGH_FAULTS,
        "enough reads and faults to mean something");
  return fails ? 1 : 0;
}
