// hostile: every system call the kernel implements, thousands of times, with kernel
// addresses, unmapped and top-of-space pointers, huge lengths and random numbers, from a
// fixed seed. Each must come back with a result or -errno (never kill or hang the program);
// write and getrandom given a kernel pointer must say EFAULT. Exits 0 when all of that holds.
#include <stdint.h>
#include <stdio.h>

static long
raw(long nr, long a, long b, long c, long d, long e, long f)
{
  long ret;
  register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                   "r"(r9) : "rcx", "r11", "memory");
  return ret;
}

static uint64_t seed = 0x9e3779b97f4a7c15UL;

static uint64_t
rnd(void)
{
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

// Values that are wrong as pointers, lengths or flags in as many ways as possible.
static const long bad[] = {
  0, 1, -1, 0x1000, 0xfff, 0x7ffffffff000L, 0x7fffffffffffL, 0x800000000000L,
  (long)0xffff888000000000UL, (long)0xffffffff80000000UL, (long)0xffffffff80100000UL,
  0x7fffffffffffffffL, (long)0x8000000000000000UL, 4096L << 30, 3, 0x100, -4096,
};

static long
pick(void)
{
  uint64_t r = rnd();
  return r % 4 == 0 ? (long)rnd() : bad[r / 4 % (sizeof(bad) / sizeof(bad[0]))];
}

// Implemented, minus those that end or split the program (exit, exit_group, kill, tkill,
// tgkill, clone, clone3), would close its own stdout (close), break its TLS (arch_prctl),
// may legitimately unmap or zero the program itself (mmap, munmap, mremap, madvise over
// [0x1000, 4 TiB)), or, run natively, would change the files behind fds 0-2 or sync the
// host's disks (fchmod, fchown, sync, syncfs): those get the fixed cases below or none.
static const int calls[] = {
  0, 1, 5, 8, 10, 12, 13, 14, 16, 17, 18, 19, 20, 24, 26, 35, 39, 40, 63, 79, 82, 89, 90, 92,
  94, 95, 96, 97, 98, 99, 102, 104, 107, 108, 110, 131, 132, 186, 201, 202, 203, 204, 218, 228,
  229, 230, 235, 257, 260, 261, 262, 264, 267, 268, 273, 280, 302, 309, 316, 318, 332, 334, 500,
  1000, -1,
};

int
main(void)
{
  long calls_made = 0, wrong = 0;
  for(int round = 0; round < 60; round++) {
    for(unsigned i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
      long r = raw(calls[i], pick(), pick(), pick(), pick(), pick(), pick());
      calls_made++;
      (void)r;   // any value: the point is that the kernel answers and we are still here
    }
  }
  const long kernel[] = { (long)0xffff888000000000UL, (long)0xffffffff80100000UL,
                          0x7ffffffff000L, 0x800000000000L - 8 };
  for(unsigned i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
    if(raw(1, 1, kernel[i], 64, 0, 0, 0) != -14)   // write from it: EFAULT
      printf("hostile: write from %#lx not EFAULT\n", kernel[i]), wrong++;
    wrong += raw(318, kernel[i], 64, 0, 0, 0, 0) != -14;   // getrandom into it: EFAULT
    wrong += raw(63, kernel[i], 0, 0, 0, 0, 0) != -14;     // uname into it: EFAULT
    wrong += raw(332, -100, (long)"/", 0, 0x7ff, kernel[i], 0) != -14;   // statx into it
    wrong += raw(90, kernel[i], 0644, 0, 0, 0, 0) != -14;  // chmod of a name there: EFAULT
    wrong += raw(82, kernel[i], (long)"/nothing", 0, 0, 0, 0) != -14;   // rename from it
    wrong += raw(280, -100, (long)"/", kernel[i], 0, 0, 0) != -14;   // utimensat's times
    wrong += raw(40, 1, 0, kernel[i], 1, 0, 0) != -14;     // sendfile's offset: EFAULT
  }
  wrong += raw(500, 0, 0, 0, 0, 0, 0) != -38;   // ENOSYS
  // The memory calls with kernel and non-canonical ranges: refused, nothing of ours touched.
  for(unsigned i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
    long a = kernel[i] & ~4095L;
    wrong += raw(11, a, 4096, 0, 0, 0, 0) != -22;                  // munmap: EINVAL
    wrong += raw(28, a, 4096, 4, 0, 0, 0) >= 0 && a >= 0x800000000000L;   // madvise
    wrong += raw(9, a, 4096, 3, 0x32, -1, 0) >= 0 && a >= 0x800000000000L; // mmap FIXED
    wrong += raw(25, a, 4096, 8192, 1, 0, 0) >= 0;                  // mremap: nothing there
    calls_made += 4;
  }
  printf("hostile: %ld calls answered, %ld wrong errnos\n", calls_made, wrong);
  return wrong != 0;
}
