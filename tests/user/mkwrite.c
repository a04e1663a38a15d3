// mkwrite: a MAP_SHARED file mapping's first write to a page updates the file's mtime and ctime
// (Linux's page_mkwrite -> file_update_time), and nothing else does: a read fault, a
// MAP_PRIVATE write, a second write through the same writable page. Exits 0 when all hold.
//
// The times are only compared with each other: the mtime is first set into the past with
// futimens (which sets the ctime to now), then the ctime is recorded, and 20 ms pass before
// the write so that the coarse clock Linux marks files with has moved (its tick is at most
// 10 ms). Natively the directory must be on a file system whose mappings are write-notified
// (ext4, ramfs); tmpfs has no page_mkwrite on Linux and its mtime never moves on a store.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "mkwrite"
#include "check.h"

#define PG 4096L
#define PAGES 4
#define TMPFS_MAGIC 0x01021994
#define PLANNED 362  // the checks main makes when every step runs

static int fd;
static volatile int stop;
static volatile long writer_rounds;

// Keeps the file's i_mutex busy (each pwrite(2) holds it) past the mapped pages, so that the
// write faults of main meet it taken: the kernel's fault then waits for it with mmap_sem
// dropped, and starts again.
static void *
writer(void *arg)
{
  static char big[64 * 1024];
  (void)arg;
  while(!stop) {
    if(pwrite(fd, big, sizeof(big), PAGES * PG) != sizeof(big))
      break;
    writer_rounds++;
  }
  return NULL;
}

static void
nap(void)
{
  struct timespec ts = { 0, 20 * 1000 * 1000 };
  nanosleep(&ts, NULL);
}

static int
ts_cmp(struct timespec a, struct timespec b)
{
  if(a.tv_sec != b.tv_sec)
    return a.tv_sec < b.tv_sec ? -1 : 1;
  return a.tv_nsec < b.tv_nsec ? -1 : a.tv_nsec > b.tv_nsec;
}

static struct stat
now_stat(void)
{
  struct stat st;
  if(fstat(fd, &st) != 0)
    memset(&st, 0, sizeof(st));
  return st;
}

// The mtime a day before the current one (whatever the clock says), the ctime that setting
// it left, then a nap: a write after this must show a later mtime and ctime.
static struct stat
into_the_past(void)
{
  struct stat st = now_stat();
  struct timespec t[2] = { st.st_atim, st.st_mtim };
  t[1].tv_sec -= 24 * 60 * 60;
  check(futimens(fd, t) == 0, "futimens sets the mtime a day back");
  st = now_stat();
  nap();
  return st;
}

// The file's times did not move since before.
static void
unchanged(struct stat before, const char *what)
{
  struct stat st = now_stat();
  char msg[160];
  snprintf(msg, sizeof(msg), "%s: mtime unchanged", what);
  check(ts_cmp(st.st_mtim, before.st_mtim) == 0, msg);
  snprintf(msg, sizeof(msg), "%s: ctime unchanged", what);
  check(ts_cmp(st.st_ctim, before.st_ctim) == 0, msg);
}

// Both times moved past what they were before.
static void
updated(struct stat before, const char *what)
{
  struct stat st = now_stat();
  char msg[160];
  snprintf(msg, sizeof(msg), "%s: mtime later than before", what);
  check(ts_cmp(st.st_mtim, before.st_mtim) > 0, msg);
  snprintf(msg, sizeof(msg), "%s: ctime later than before", what);
  check(ts_cmp(st.st_ctim, before.st_ctim) > 0, msg);
}

static volatile char *
map(int prot, int flags)
{
  void *p = mmap(NULL, PAGES * PG, prot, flags, fd, 0);
  check(p != MAP_FAILED, "mmap of the file");
  if(p == MAP_FAILED) {
    printf("mkwrite: cannot go on without the mapping\n");
    exit(1);
  }
  return p;
}

static void
unmap(volatile char *m)
{
  check(munmap((void *)m, PAGES * PG) == 0, "munmap");
}

int
main(void)
{
  char dir[64], buf[PG];
  struct statfs sfs;
  if(mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("mkwrite: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  snprintf(dir, sizeof(dir), "/tmp/mkwrite.%d", getpid());
  if(mkdir(dir, 0755) != 0 || chdir(dir) != 0) {
    printf("mkwrite: cannot make %s (errno %d)\n", dir, errno);
    return 1;
  }
  if(statfs(".", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC) {   // ENOSYS here: ramfs
    printf("mkwrite: %s is on tmpfs, whose mappings Linux does not write-notify\n", dir);
    return 1;
  }
  errno = 0;   // statfs's, if any, is not the first failed check's
  fd = open("data", O_CREAT | O_TRUNC | O_RDWR, 0644);
  memset(buf, 'a', PG);
  for(int i = 0; i < PAGES; i++)
    check(write(fd, buf, PG) == PG, "the file is written");

  // A read fault maps the page for reading only: no change. The write then goes through
  // page_mkwrite; its times are there at once, and after munmap.
  struct stat before = into_the_past();
  volatile char *m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
  check(m[0] == 'a', "the shared mapping reads the file");
  unchanged(before, "a read fault");
  m[0] = 'b';
  updated(before, "the first write after a read");
  unmap(m);
  updated(before, "the first write after a read, after munmap");
  check(pread(fd, buf, 1, 0) == 1 && buf[0] == 'b', "the store is the file's");

  // A write fault on a page never touched through this mapping; then a second store to the
  // same page, already writable and dirty, changes nothing (it does not fault), nor msync.
  before = into_the_past();
  m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
  m[PG + 1] = 'c';
  updated(before, "a write fault on an untouched page");
  before = into_the_past();
  m[PG + 2] = 'd';
  check(msync((void *)m, PAGES * PG, MS_SYNC) == 0, "msync");
  unchanged(before, "a second store to a writable page");
  unmap(m);

  // A private mapping copies the page on its first write: the file is not written.
  before = into_the_past();
  m = map(PROT_READ | PROT_WRITE, MAP_PRIVATE);
  check(m[0] == 'b', "the private mapping reads the file");
  m[0] = 'x';
  m[2 * PG] = 'x';
  unchanged(before, "MAP_PRIVATE writes");
  unmap(m);
  check(pread(fd, buf, 1, 0) == 1 && buf[0] == 'b', "the private store is not the file's");

  // A new mapping of a page that is dirty already: its first write is noticed again.
  before = into_the_past();
  m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
  m[0] = 'e';
  updated(before, "the first write of a second mapping");
  unmap(m);

  // mprotect to PROT_READ and back keeps the page write-protected: the write still faults.
  m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
  check(m[3 * PG] == 'a', "read before mprotect");
  before = into_the_past();
  check(mprotect((void *)m, PAGES * PG, PROT_READ) == 0, "mprotect PROT_READ");
  check(mprotect((void *)m, PAGES * PG, PROT_READ | PROT_WRITE) == 0,
        "mprotect PROT_READ|PROT_WRITE");
  check(m[3 * PG] == 'a', "read after mprotect");
  unchanged(before, "mprotect and a read");
  m[3 * PG] = 'f';
  updated(before, "a write after mprotect back to PROT_READ|PROT_WRITE");

  // fork shares the mapping: the child's first write to a page the parent has written is
  // noticed, and the parent sees the store.
  before = into_the_past();
  pid_t pid = fork();
  if(pid == 0) {
    m[3 * PG + 1] = 'g';
    _exit(0);
  }
  int status = -1;
  check(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "the child wrote");
  check(m[3 * PG + 1] == 'g', "the child's store is in the parent's mapping");
  updated(before, "the child's first write");
  unmap(m);

  // getdents64 stores its records through a shared mapping's untouched page: the kernel's
  // write fault, taken while the directory is locked, is a first write like any other.
  before = into_the_past();
  m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
  int dfd = open(".", O_RDONLY | O_DIRECTORY);
  check(syscall(SYS_getdents64, dfd, (void *)(m + 2 * PG), PG) > 0,
        "getdents64 into the shared mapping");
  updated(before, "getdents64's store into the mapping");
  close(dfd);
  unmap(m);

  // Write faults while another thread's pwrite(2)s keep the file busy: every store is the
  // file's, and the writer did its part.
  pthread_t t;
  int ok = 1;
  check(pthread_create(&t, NULL, writer, NULL) == 0, "the writer thread starts");
  // 300 rounds at least, and more while the writer has not run yet (a loaded host may not
  // have scheduled it): the race needs both sides.
  for(int round = 0; round < 300 || (writer_rounds == 0 && round < 100000); round++) {
    m = map(PROT_READ | PROT_WRITE, MAP_SHARED);
    for(int i = 0; i < PAGES; i++)
      m[i * PG + 8] = (char)(round + i);
    ok &= munmap((void *)m, PAGES * PG) == 0;
    for(int i = 0; i < PAGES; i++)
      ok &= pread(fd, buf, 9, i * PG) == 9 && buf[8] == (char)(round + i);
  }
  stop = 1;
  pthread_join(t, NULL);
  check(ok, "every store of 300 or more mappings is the file's, with a writer racing");
  check(writer_rounds > 0, "the writer thread wrote");

  close(fd);
  check(unlink("data") == 0 && chdir("/") == 0 && rmdir(dir) == 0, "cleanup");
  check(checks >= PLANNED, "every step ran");
  printf("mkwrite: %d checks (%d planned), %s\n", checks, PLANNED,
         fails ? "some failed" : "all passed");
  return fails != 0;
}
