// fmap: file-backed mmap against Linux's results, in a fresh directory under /tmp: MAP_SHARED
// coherent with read/write and other mappings, MAP_PRIVATE copy-on-write, offsets, mappings
// outliving close and unlink, /dev/zero, msync, mincore, mremap (grow, shrink, move, fixed;
// glibc's realloc), madvise on file mappings, and the errno of each misuse. Exits 0 when all
// hold. "fmap sigbus" and "fmap truncate" touch a page past the end of a mapped file (a short
// file; a file truncated while mapped) and must die of SIGBUS (status 135).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "fmap"
#include "check.h"

#define PG 4096L

#define MAP_FAILS(call, err) do { errno = 0; void *p_ = (call); \
    check(p_ == MAP_FAILED && errno == (err), #call " fails with " #err); } while(0)

// A file of n pages, page i filled with the byte 'a' + i.
static int
make_file(const char *name, int pages)
{
  int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0644);
  char buf[PG];
  for(int i = 0; i < pages; i++) {
    memset(buf, 'a' + i, PG);
    if(write(fd, buf, PG) != PG)
      return -1;
  }
  return fd;
}

static char
byte_at(int fd, long off)
{
  char c = 0;
  return pread(fd, &c, 1, off) == 1 ? c : -1;
}

static void
shared_mappings(void)
{
  int fd = make_file("s", 3);
  check(fd >= 0, "make s");
  char *m = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  check(m != MAP_FAILED, "mmap shared");
  check(m[0] == 'a' && m[PG] == 'b' && m[3 * PG - 1] == 'c', "shared map reads the file");
  m[10] = 'X';
  check(byte_at(fd, 10) == 'X', "a store through MAP_SHARED is read by pread");
  check(pwrite(fd, "Y", 1, PG + 5) == 1 && m[PG + 5] == 'Y', "pwrite is seen by the mapping");
  char *m2 = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, PG);
  check(m2 != MAP_FAILED && m2[5] == 'Y' && m2[0] == 'b', "offset mapping: page 1");
  m[PG + 6] = 'Z';
  check(m2 != MAP_FAILED && m2[6] == 'Z', "two shared mappings see each other's stores");
  check(msync(m, 3 * PG, MS_SYNC) == 0, "msync MS_SYNC");
  check(msync(m, PG, MS_ASYNC | MS_INVALIDATE) == 0, "msync MS_ASYNC|MS_INVALIDATE");
  FAILS(msync(m + 1, PG, MS_SYNC), EINVAL);
  FAILS(msync(m, PG, MS_SYNC | MS_ASYNC), EINVAL);
  FAILS(msync(m, PG, 8), EINVAL);
  // mincore: every page of the file is in its page cache, touched or not.
  unsigned char vec[4] = { 9, 9, 9, 9 };
  check(mincore(m, 3 * PG, vec) == 0 && (vec[0] & 1) && (vec[1] & 1) && (vec[2] & 1),
        "mincore: the file's pages are resident");
  FAILS(mincore(m + 1, PG, vec), EINVAL);
  FAILS(mincore(m, PG, (unsigned char *)8), EFAULT);
  // The mapping outlives the fd and the name.
  check(close(fd) == 0 && unlink("s") == 0, "close and unlink while mapped");
  m[2 * PG] = 'Q';
  check(m[2 * PG] == 'Q' && m2[6] == 'Z', "the mapping outlives close and unlink");
  check(msync(m, 3 * PG, MS_SYNC) == 0, "msync after close");
  check(munmap(m, 3 * PG) == 0 && munmap(m2, PG) == 0, "munmap shared");
  FAILS(msync(m, PG, MS_SYNC), ENOMEM);
  FAILS(mincore(m, PG, vec), ENOMEM);
  // Stores survive munmap: the data is the file's.
  fd = make_file("s2", 2);
  m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  check(m != MAP_FAILED, "mmap s2");
  memset(m + PG, 'W', PG);
  check(munmap(m, 2 * PG) == 0, "munmap s2");
  char buf[PG];
  check(pread(fd, buf, PG, PG) == PG && buf[0] == 'W' && buf[PG - 1] == 'W',
        "stores through a mapping stay after munmap");
  // A hole: a file grown by ftruncate maps zeros, and a store there is the file's data.
  check(ftruncate(fd, 4 * PG) == 0, "ftruncate grows");
  m = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  check(m != MAP_FAILED && m[3 * PG] == 0 && m[4 * PG - 1] == 0, "a hole maps zeros");
  m[3 * PG + 1] = 'H';
  check(byte_at(fd, 3 * PG + 1) == 'H', "a store into a hole is read back");
  // DONTNEED drops the mapping's pages, not the file's: they come back.
  check(madvise(m, 4 * PG, MADV_DONTNEED) == 0 && m[3 * PG + 1] == 'H' && m[PG] == 'W',
        "MADV_DONTNEED on a shared file mapping keeps the file's data");
  FAILS(madvise(m, PG, MADV_FREE), EINVAL);
  // A read-only fd: shared maps may read, never write, now or later.
  int ro = open("s2", O_RDONLY);
  MAP_FAILS(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
  char *r = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, PG);
  check(r != MAP_FAILED && r[0] == 'W', "shared read-only map of a read-only fd");
  FAILS(mprotect(r, PG, PROT_READ | PROT_WRITE), EACCES);
  check(mprotect(r, PG, PROT_NONE) == 0 && mprotect(r, PG, PROT_READ) == 0 && r[0] == 'W',
        "mprotect without write is allowed");
  munmap(r, PG);
  close(ro);
  int wo = open("s2", O_WRONLY);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, wo, 0), EACCES);
  MAP_FAILS(mmap(NULL, PG, PROT_WRITE, MAP_SHARED, wo, 0), EACCES);
  close(wo);
  munmap(m, 4 * PG);
  close(fd);
  unlink("s2");
  // Truncation unmaps what lies past the new end, a private mapping's copies too: once the
  // file grows again, those pages are its new holes, not the old data.
  fd = make_file("t", 3);
  char *t = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *tp = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  check(t != MAP_FAILED && tp != MAP_FAILED && t[2 * PG] == 'c' && tp[2 * PG] == 'c',
        "map t shared and private");
  tp[PG] = 'x';
  check(ftruncate(fd, PG) == 0 && ftruncate(fd, 3 * PG) == 0, "shrink and grow t");
  check(t[0] == 'a' && t[PG] == 0 && t[2 * PG] == 0 && tp[PG] == 0 && tp[2 * PG] == 0,
        "truncation unmaps the pages past the end, private copies too");
  munmap(t, 3 * PG);
  munmap(tp, 3 * PG);
  close(fd);
  unlink("t");
}

static void
private_mappings(void)
{
  int fd = make_file("p", 3);
  check(fd >= 0, "make p");
  char *p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  char *s = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  check(p != MAP_FAILED && s != MAP_FAILED, "mmap private and shared");
  check(p[0] == 'a' && p[2 * PG] == 'c', "private map reads the file");
  p[1] = 'P';
  check(p[1] == 'P' && byte_at(fd, 1) == 'a' && s[1] == 'a',
        "a private store is copied: neither the file nor a shared map sees it");
  // A page read (mapped from the cache) but not written still follows the file.
  check(p[PG] == 'b', "private read of page 1");
  s[PG] = 'S';
  check(p[PG] == 'S', "an unwritten private page follows the file's stores");
  check(pwrite(fd, "F", 1, 2) == 1 && p[2] == 'a', "a copied page no longer follows the file");
  p[PG + 1] = 'q';
  s[PG + 2] = 'T';
  check(p[PG + 1] == 'q' && p[PG + 2] == 'b' && s[PG + 1] == 'b',
        "after its copy, page 1 is the process's own");
  // A first touch that writes copies at once.
  p[2 * PG] = 'w';
  check(p[2 * PG] == 'w' && s[2 * PG] == 'c' && p[2 * PG + 1] == 'c', "a first write copies");
  // DONTNEED drops the private copies: the file's data shows again.
  check(madvise(p, 3 * PG, MADV_DONTNEED) == 0, "MADV_DONTNEED on a private file map");
  check(p[1] == 'a' && p[2] == 'F' && p[2 * PG] == 'c' && p[PG + 2] == 'T',
        "after DONTNEED a private map reads the file again");
  FAILS(madvise(p, PG, MADV_FREE), EINVAL);
  // mprotect keeps a private map's cache pages read-only: a write after it still copies.
  check(p[PG] == 'S', "private read before mprotect");
  check(mprotect(p, 3 * PG, PROT_READ) == 0 && mprotect(p, 3 * PG, PROT_READ | PROT_WRITE) == 0,
        "mprotect private map");
  p[PG] = 'M';
  check(p[PG] == 'M' && s[PG] == 'S', "a write after mprotect still copies");
  munmap(p, 3 * PG);
  munmap(s, 3 * PG);
  // A private writable map of a read-only fd is allowed.
  int ro = open("p", O_RDONLY);
  p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
  check(p != MAP_FAILED, "private writable map of a read-only fd");
  if(p != MAP_FAILED) {
    p[0] = 'R';
    check(p[0] == 'R' && byte_at(fd, 0) == 'a', "private store to a read-only file");
    munmap(p, PG);
  }
  close(ro);
  // The tail of the last page past the end of the file reads as zeros.
  check(ftruncate(fd, 2 * PG + 100) == 0, "ftruncate to 2 pages + 100");
  p = mmap(NULL, 3 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
  check(p != MAP_FAILED && p[2 * PG + 99] == 'c' && p[2 * PG + 100] == 0 && p[3 * PG - 1] == 0,
        "the last page's tail past the end reads zeros");
  munmap(p, 3 * PG);
  close(fd);
  unlink("p");
}

// Threads writing into the same pages of one private mapping at once: their copy-on-write
// faults race, one copy per page wins, and every thread's stores are in it.
#define COW_THREADS 4
#define COW_PAGES 64
static char *cow_map;
static pthread_barrier_t cow_start;

static void *
cow_writer(void *arg)
{
  long id = (long)arg;
  pthread_barrier_wait(&cow_start);
  for(int round = 0; round < 4; round++)
    for(int i = 0; i < COW_PAGES; i++)
      cow_map[i * PG + id] = (char)('0' + id);
  return NULL;
}

static void
concurrent_cow(void)
{
  int fd = make_file("c", 1);
  check(ftruncate(fd, COW_PAGES * PG) == 0, "ftruncate c");
  check(pwrite(fd, "file", 4, 5 * PG + 100) == 4, "pwrite c");
  cow_map = mmap(NULL, COW_PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  check(cow_map != MAP_FAILED, "mmap c private");
  if(cow_map == MAP_FAILED)
    return;
  for(int i = 0; i < COW_PAGES; i += 2)   // half the pages mapped read-only first
    (void)*(volatile char *)(cow_map + i * PG);
  pthread_t t[COW_THREADS];
  pthread_barrier_init(&cow_start, NULL, COW_THREADS);
  for(long i = 0; i < COW_THREADS; i++)
    pthread_create(&t[i], NULL, cow_writer, (void *)i);
  for(int i = 0; i < COW_THREADS; i++)
    pthread_join(t[i], NULL);
  int lost = 0;
  for(int i = 0; i < COW_PAGES; i++)
    for(int id = 0; id < COW_THREADS; id++)
      lost += cow_map[i * PG + id] != (char)('0' + id);
  check(lost == 0, "racing private writes: every thread's stores are in the one copy");
  check(!memcmp(cow_map + 5 * PG + 100, "file", 4) && cow_map[0 * PG + 8] == 'a',
        "the copies carry the file's data");
  char buf[4];
  check(pread(fd, buf, 4, 0) == 4 && buf[0] == 'a' && buf[3] == 'a', "the file is untouched");
  munmap(cow_map, COW_PAGES * PG);
  close(fd);
  unlink("c");
}

static void
zero_and_errors(void)
{
  int z = open("/dev/zero", O_RDWR);
  check(z >= 0, "open /dev/zero");
  char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, z, 0);
  check(p != MAP_FAILED && p[0] == 0 && p[2 * PG - 1] == 0, "/dev/zero maps zeros");
  if(p != MAP_FAILED) {
    p[5] = 1;
    check(p[5] == 1, "/dev/zero map is writable");
    munmap(p, 2 * PG);
  }
  close(z);
  int fd = make_file("e", 1);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 1), EINVAL);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 100), EINVAL);
  MAP_FAILS(mmap(NULL, 0, PROT_READ, MAP_SHARED, fd, 0), EINVAL);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, 0, fd, 0), EINVAL);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_SHARED, 99, 0), EBADF);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_SHARED, -1, 0), EBADF);
  int d = open(".", O_RDONLY | O_DIRECTORY);
  MAP_FAILS(mmap(NULL, PG, PROT_READ, MAP_PRIVATE, d, 0), ENODEV);
  close(d);
  MAP_FAILS(mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0x7ffffffffffff000L), EOVERFLOW);
  // Mapping past the end is allowed (touching there is SIGBUS: "fmap sigbus").
  char *m = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
  check(m != MAP_FAILED && m[0] == 'a', "a mapping longer than its file");
  munmap(m, 8 * PG);
  close(fd);
  unlink("e");
}

static void
mremaps(void)
{
  char *a = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(a != MAP_FAILED, "mmap for mremap");
  for(int i = 0; i < 4; i++)
    a[i * PG] = 'A' + i;
  char *b = mremap(a, 4 * PG, 64 * PG, MREMAP_MAYMOVE);
  check(b != MAP_FAILED && b[0] == 'A' && b[3 * PG] == 'D' && b[63 * PG] == 0,
        "mremap grows, the data goes with it");
  if(b == MAP_FAILED)
    return;
  b[63 * PG] = 'z';
  char *c = mremap(b, 64 * PG, 2 * PG, 0);
  check(c == b && c[PG] == 'B', "mremap shrinks in place");
  // Block the page after it: growing in place is then impossible.
  char *blk = mmap(c + 2 * PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  check(blk == c + 2 * PG, "mmap right after");
  errno = 0;
  check(mremap(c, 2 * PG, 4 * PG, 0) == MAP_FAILED && errno == ENOMEM,
        "mremap without MAYMOVE cannot grow into a mapping: ENOMEM");
  char *d = mremap(c, 2 * PG, 4 * PG, MREMAP_MAYMOVE);
  check(d != MAP_FAILED && d != c && d[0] == 'A' && d[PG] == 'B' && d[3 * PG] == 0,
        "mremap moves to grow");
  unsigned char vec[4];
  check(mincore(d, 4 * PG, vec) == 0 && (vec[0] & 1) && !(vec[2] & 1),
        "mincore: moved pages resident, new ones not");
  FAILS(mincore(c, PG, vec), ENOMEM);   // the old place is gone
  // MREMAP_FIXED onto a chosen place, over whatever was there.
  char *t = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *e = mremap(d, 4 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, t + 4 * PG);
  check(e == t + 4 * PG && e[0] == 'A' && e[PG] == 'B', "MREMAP_FIXED moves and shrinks");
  // Errnos.
  errno = 0;
  check(mremap(e + 1, PG, PG, 0) == MAP_FAILED && errno == EINVAL, "mremap unaligned: EINVAL");
  errno = 0;
  check(mremap(e, PG, 0, 0) == MAP_FAILED && errno == EINVAL, "mremap to 0: EINVAL");
  errno = 0;
  check(mremap(e, PG, PG, 0x100) == MAP_FAILED && errno == EINVAL, "mremap bad flags: EINVAL");
  errno = 0;
  check(mremap(e, PG, PG, MREMAP_FIXED, t) == MAP_FAILED && errno == EINVAL,
        "MREMAP_FIXED without MAYMOVE: EINVAL");
  errno = 0;
  check(mremap(e, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, e + PG) == MAP_FAILED &&
        errno == EINVAL, "overlapping MREMAP_FIXED: EINVAL");
  char *x = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(x != MAP_FAILED && munmap(x + PG, PG) == 0, "a mapping with a hole");
  errno = 0;
  check(mremap(x, 2 * PG, 4 * PG, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT,
        "mremap of a range with a hole: EFAULT");
  munmap(x, 3 * PG);
  errno = 0;
  check(mremap(e, 0, PG, MREMAP_MAYMOVE) == MAP_FAILED && errno == EINVAL,
        "mremap of 0 bytes of a private mapping: EINVAL");
  munmap(t, 8 * PG);
  munmap(blk, PG);
  // A shared file mapping moved by mremap is still the file.
  int fd = make_file("r", 2);
  char *m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *n = mremap(m, PG, 2 * PG, MREMAP_MAYMOVE);
  check(n != MAP_FAILED && n[0] == 'a' && n[PG] == 'b', "mremap grows a file mapping");
  if(n != MAP_FAILED) {
    n[PG + 3] = 'm';
    check(byte_at(fd, PG + 3) == 'm', "a store through a remapped file mapping is the file's");
    munmap(n, 2 * PG);
  }
  close(fd);
  unlink("r");
  // glibc's realloc of large blocks calls mremap.
  char *big = malloc(4 << 20);
  check(big != NULL, "malloc 4 MiB");
  memset(big, 0x5a, 4 << 20);
  big = realloc(big, 16 << 20);
  check(big && big[0] == 0x5a && big[(4 << 20) - 1] == 0x5a, "realloc to 16 MiB keeps the data");
  if(big) {
    memset(big + (4 << 20), 1, 12 << 20);
    big = realloc(big, 1 << 20);
    check(big && big[(1 << 20) - 1] == 0x5a, "realloc down to 1 MiB");
    free(big);
  }
}

// Touches a page past the end of a mapped file: SIGBUS ends the program (status 135). The
// file is unlinked first, so nothing is left behind. Truncated, the page touched was mapped
// before: truncation must have unmapped it.
static int
die_of_sigbus(int truncate)
{
  char name[64];
  snprintf(name, sizeof(name), "/tmp/fmap-bus.%d", getpid());
  int fd = make_file(name, truncate ? 2 : 1);
  volatile char *m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if(m == MAP_FAILED)
    return 2;
  unlink(name);
  if(m[0] != 'a')
    return 3;
  if(truncate && (m[PG] != 'b' || ftruncate(fd, 0) != 0))
    return 4;
  printf("fmap: touching page 1 past the end of the file\n");
  fflush(stdout);
  return m[PG] == 'b' ? 5 : 6;   // not reached: SIGBUS
}

int
main(int argc, char **argv)
{
  char dir[64];
  if(mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("fmap: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  if(argc > 1)
    return die_of_sigbus(strcmp(argv[1], "truncate") == 0);
  snprintf(dir, sizeof(dir), "/tmp/fmap.%d", getpid());
  if(mkdir(dir, 0755) != 0 || chdir(dir) != 0) {
    printf("fmap: cannot make %s (errno %d)\n", dir, errno);
    return 1;
  }
  shared_mappings();
  private_mappings();
  concurrent_cow();
  zero_and_errors();
  mremaps();
  check(chdir("/") == 0 && rmdir(dir) == 0, "the directory is empty at the end");
  printf("fmap: %d checks, %s\n", checks, fails ? "some failed" : "all passed");
  return fails != 0;
}
