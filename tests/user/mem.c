// mem: brk and malloc, anonymous mmap/munmap, mprotect (PROT_NONE keeps the data),
// madvise DONTNEED (zeroes) and FREE, get_mempolicy, and the errnos of bad arguments, checked
// against Linux's results. Exits 0 when all hold; names the first check that does not.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "mem"
#include "check.h"

int
main(void)
{
  long pg = sysconf(_SC_PAGESIZE);
  check(pg == 4096, "page size");
  // malloc: small pieces from brk, a big one from mmap.
  char *small[1000];
  for(int i = 0; i < 1000; i++) {
    small[i] = malloc(100 + i);
    memset(small[i], i & 0xff, 100 + i);
  }
  for(int i = 0; i < 1000; i++)
    check(small[i][99] == (char)(i & 0xff), "malloc contents");
  for(int i = 0; i < 1000; i++)
    free(small[i]);
  char *big = malloc(8 << 20);
  check(big != NULL, "malloc 8 MiB");
  memset(big, 1, 8 << 20);
  free(big);
  // mmap, touch, munmap.
  size_t len = 64 * pg;
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(m != MAP_FAILED, "mmap");
  for(size_t i = 0; i < len; i += pg)
    m[i] = 7;
  // DONTNEED: the next read sees zeroes.
  check(madvise(m, len / 2, MADV_DONTNEED) == 0, "madvise DONTNEED");
  check(m[0] == 0 && m[len / 2] == 7, "DONTNEED zeroes only its range");
  check(madvise(m + len / 2, len / 2, MADV_FREE) == 0, "madvise FREE");
  check(madvise(m + 1, pg, MADV_DONTNEED) == -1 && errno == EINVAL, "madvise unaligned EINVAL");
  // mprotect: PROT_NONE and back keeps the data; splitting the middle of a mapping.
  m[5 * pg] = 42;
  check(mprotect(m + 4 * pg, 4 * pg, PROT_NONE) == 0, "mprotect NONE");
  check(mprotect(m + 4 * pg, 4 * pg, PROT_READ | PROT_WRITE) == 0, "mprotect RW");
  check(m[5 * pg] == 42, "data kept across PROT_NONE");
  check(mprotect(m + 1, pg, PROT_READ) == -1 && errno == EINVAL, "mprotect unaligned EINVAL");
  check(munmap(m, len) == 0, "munmap");
  check(mprotect(m, pg, PROT_READ) == -1 && errno == ENOMEM, "mprotect unmapped ENOMEM");
  // Bad arguments.
  check(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED && errno == EINVAL,
        "mmap len 0 EINVAL");
  check(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, -1, 0) == MAP_FAILED && errno == EBADF,
        "mmap fd -1 EBADF");
  check(munmap((void *)1, pg) == -1 && errno == EINVAL, "munmap unaligned EINVAL");
  void *volatile bad_ptr = (void *)0x10;
  check(write(1, bad_ptr, 5) == -1 && errno == EFAULT, "write from an unmapped page EFAULT");
  check(write(99, "x", 1) == -1 && errno == EBADF, "write to fd 99 EBADF");
  // A hint is taken when free.
  void *want = (void *)0x200000000000UL;
  char *h = mmap(want, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(h == want, "mmap hint taken");
  munmap(h, pg);
  // get_mempolicy on one memory node (more on a host with several: node 0 is among them).
  int mode = -1;
  unsigned long mask[2] = { ~0UL, ~0UL };
  check(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) == 0 && mode == 0,
        "get_mempolicy: MPOL_DEFAULT");
  check(syscall(SYS_get_mempolicy, &mode, mask, 129, NULL, 0) == 0 && !mask[0] && !mask[1],
        "get_mempolicy: the default's empty mask, the rest of the buffer cleared");
  check(syscall(SYS_get_mempolicy, NULL, mask, 64, NULL, 4) == 0 && (mask[0] & 1),
        "get_mempolicy MPOL_F_MEMS_ALLOWED: node 0");
  FAILS(syscall(SYS_get_mempolicy, &mode, mask, 0, NULL, 0), EINVAL);
  FAILS(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 8), EINVAL);
  FAILS(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 1), EINVAL);
  FAILS(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 6), EINVAL);
  FAILS(syscall(SYS_get_mempolicy, &mode, mask, 4096 * 8 + 65, NULL, 0), EINVAL);
  FAILS(syscall(SYS_get_mempolicy, (int *)1, NULL, 0, NULL, 0), EFAULT);
  h = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mode = -1;
  check(syscall(SYS_get_mempolicy, &mode, NULL, 0, h + 100, 3) == 0 && mode == 0,
        "get_mempolicy MPOL_F_NODE|MPOL_F_ADDR: node 0");
  munmap(h, pg);
  FAILS(syscall(SYS_get_mempolicy, &mode, NULL, 0, h, 2), EFAULT);
  // set_mempolicy: kept and given back, its checks in Linux's order, copied by fork.
  unsigned long one = 1, odd = 2, sparse = 5, wide[32] = { 1 };
  check(syscall(SYS_set_mempolicy, 2 /* MPOL_BIND */, &one, 65) == 0 &&
        syscall(SYS_get_mempolicy, &mode, mask, 65, NULL, 0) == 0 && mode == 2 && mask[0] == 1,
        "set_mempolicy MPOL_BIND {0}, given back");
  pid_t pid = fork();
  if(pid == 0)
    _exit(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) != 0 || mode != 2);
  int st = -1;
  check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "fork's child has the policy");
  check(syscall(SYS_set_mempolicy, 3 /* MPOL_INTERLEAVE */, &one, 65) == 0 &&
        syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 1) == 0 && mode == 0,
        "MPOL_INTERLEAVE: MPOL_F_NODE gives the next node, 0");
  check(syscall(SYS_set_mempolicy, 1 /* MPOL_PREFERRED */, NULL, 0) == 0 &&
        syscall(SYS_get_mempolicy, &mode, mask, 65, NULL, 0) == 0 && mode == 4 && mask[0] == 0,
        "MPOL_PREFERRED with no nodes is MPOL_LOCAL");
  check(syscall(SYS_set_mempolicy, 2 | 1 << 15, &sparse, 65) == 0 &&
        syscall(SYS_get_mempolicy, &mode, mask, 65, NULL, 0) == 0 && mode == (2 | 1 << 15) &&
        mask[0] == 5, "MPOL_F_STATIC_NODES: the mode flag and the user's mask given back");
  check(syscall(SYS_set_mempolicy, 2 | 1 << 14, &odd, 65) == 0,
        "MPOL_F_RELATIVE_NODES: node 1 folds onto node 0");
  FAILS(syscall(SYS_set_mempolicy, 2, &odd, 65), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 2, NULL, 0), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 0, &one, 65), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 4, &one, 65), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 6, NULL, 0), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 2 | 3 << 14, &one, 65), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 3 | 1 << 13, &one, 65), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 2, &one, 0), EINVAL);
  FAILS(syscall(SYS_set_mempolicy, 2, (void *)8, 65), EFAULT);
  FAILS(syscall(SYS_set_mempolicy, 2, &one, 4096 * 8 + 2), EINVAL);
  wide[20] = 1;   // node 1280: past any kernel's nodes
  FAILS(syscall(SYS_set_mempolicy, 2, wide, 2048), EINVAL);
  wide[20] = 0;
  check(syscall(SYS_set_mempolicy, 2, wide, 2048) == 0, "a long mask of zeros past node 0");
  check(syscall(SYS_set_mempolicy, 0, NULL, 0) == 0 &&
        syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) == 0 && mode == 0,
        "back to MPOL_DEFAULT");
  printf("mem: %s\n", fails ? "some checks failed" : "all checks passed");
  return fails != 0;
}
