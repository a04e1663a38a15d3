// hostile: every system call the kernel implements, thousands of times, with kernel
// addresses, unmapped and top-of-space pointers, huge lengths and random numbers, from a
// fixed seed. Each must come back with a result or -errno (never kill or hang the program);
// write and getrandom given a kernel pointer must say EFAULT. And an int argument is its
// register's low 32 bits: a call given garbage above them answers as the clean call does.
// Exits 0 when all of that holds.
#include <stdint.h>
#include <stdio.h>
#include "raw.h"

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

// The x86-64 ABI leaves the upper half of a register that carries an int undefined (glibc's
// syscall macros pass an int as an int: RUSAGE_CHILDREN arrives as 0x00000000ffffffff), and
// Linux reads only the low half of every int, pid_t, clockid_t and unsigned int argument
// (SYSCALL_DEFINE's casts). Each call below runs clean, then with 0xdeadbeef above each int
// argument named in its mask; both must answer alike (fds compared by being fds).
#define HI(v) ((long)(0xdeadbeefUL << 32 | (unsigned)(v)))
static long
dirty(long nr, int mask, long a, long b, long c, long d)
{
  long v[4] = { a, b, c, d };
  for(int i = 0; i < 4; i++)
    if(mask & 1 << i)
      v[i] = HI(v[i]);
  return raw(nr, v[0], v[1], v[2], v[3], 0, 0);
}

static long
upper_halves(long *calls_made)
{
  static char buf[512];
  static unsigned long mask[2];
  static int word;
  long wrong = 0;
  long pid = raw(39, 0, 0, 0, 0, 0, 0), tid = raw(186, 0, 0, 0, 0, 0, 0);
  long oldmask = raw(95, 022, 0, 0, 0, 0, 0);   // umask: a known value to set back
  raw(14, 0, 0, (long)mask, 8, 0, 0);           // the signal mask, to set it again
  const struct { long nr; int ints; long a, b, c, d; int fd; } c[] = {
    { 98, 1, -1, (long)buf },                    // getrusage(RUSAGE_CHILDREN)
    { 98, 1, 0, (long)buf },                     // getrusage(RUSAGE_SELF)
    { 62, 3, pid, 0 },                           // kill(self, 0)
    { 234, 7, pid, tid, 0 },                     // tgkill(self, self, 0)
    { 72, 3, 1, 1 },                             // fcntl(1, F_GETFD)
    { 72, 7, 1, 0, 10, 0, 1 },                   // fcntl(1, F_DUPFD, 10): an int too
    { 5, 1, 1, (long)buf },                      // fstat(1)
    { 1, 1, 1, (long)"", 0 },                    // write(1, "", 0)
    { 8, 5, 0, 0, 1 },                           // lseek(0, 0, SEEK_CUR): as the clean one
    { 16, 3, 1, 0x5401, (long)buf },             // ioctl(1, TCGETS): as the clean one
    { 262, 9, -100, (long)"/", (long)buf, 0 },   // newfstatat(AT_FDCWD, "/", 0)
    { 14, 1, 2, (long)mask, 0, 8 },              // rt_sigprocmask(SIG_SETMASK, the same)
    { 13, 1, 10, 0, (long)buf, 8 },              // rt_sigaction(SIGUSR1, NULL, &old)
    { 228, 1, 1, (long)buf },                    // clock_gettime(CLOCK_MONOTONIC)
    { 97, 1, 7, (long)buf },                     // getrlimit(RLIMIT_NOFILE)
    { 302, 3, 0, 7, 0, (long)buf },              // prlimit64(0, RLIMIT_NOFILE, NULL, &old)
    { 204, 3, 0, 128, (long)buf },               // sched_getaffinity(0, 128)
    { 202, 2, (long)&word, 129, 1, 0 },          // futex(FUTEX_WAKE_PRIVATE), no waiter
    { 95, 1, 022 },                              // umask(022)
    { 61, 5, -1, 0, 1, 0 },                      // wait4(-1, NULL, WNOHANG): ECHILD
    { 121, 1, 0 },                               // getpgid(0)
    { 124, 1, 0 },                               // getsid(0)
    { 32, 1, 1, 0, 0, 0, 1 },                    // dup(1)
    { 257, 13, -100, (long)"/", 0x10000, 0, 1 }, // openat(AT_FDCWD, "/", O_DIRECTORY)
    { 292, 7, 1, 90, 0x80000, 0, 1 },            // dup3(1, 90, O_CLOEXEC)
  };
  for(unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    // An fd made is closed before the other call (dup3 makes the same one), by a close
    // given an unsigned int with garbage above it too.
    long clean = dirty(c[i].nr, 0, c[i].a, c[i].b, c[i].c, c[i].d);
    wrong += c[i].fd && clean >= 0 && raw(3, HI(clean), 0, 0, 0, 0, 0) != 0;
    long odd = dirty(c[i].nr, c[i].ints, c[i].a, c[i].b, c[i].c, c[i].d);
    wrong += c[i].fd && odd >= 0 && raw(3, HI(odd), 0, 0, 0, 0, 0) != 0;
    *calls_made += 2;
    if(c[i].fd ? (clean >= 0) != (odd >= 0) : clean != odd) {
      printf("hostile: system call %ld with int arguments above 32 bits: %ld, clean %ld\n",
             c[i].nr, odd, clean);
      wrong++;
    }
  }
  // madvise's advice is an int too: MADV_DONTNEED on a page mapped for it (not one of the
  // program's data pages: its other variables would read zero after).
  long page = raw(9, 0, 4096, 3, 0x22, -1, 0);
  wrong += page < 0 || raw(28, page, 4096, HI(4), 0, 0, 0) != 0;
  raw(11, page, 4096, 0, 0, 0, 0);
  raw(95, oldmask, 0, 0, 0, 0, 0);
  return wrong;
}

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
  wrong += upper_halves(&calls_made);
  // The memory calls with kernel and non-canonical ranges: refused, nothing of ours touched.
  for(unsigned i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
    long a = kernel[i] & ~4095L;
    wrong += raw(11, a, 4096, 0, 0, 0, 0) != -22;                  // munmap: EINVAL
    wrong += raw(28, a, 4096, 4, 0, 0, 0) >= 0 && a >= 0x800000000000L;   // madvise
    wrong += raw(9, a, 4096, 3, 0x32, -1, 0) >= 0 && a >= 0x800000000000L; // mmap FIXED
    wrong += raw(25, a, 4096, 8192, 1, 0, 0) >= 0;                  // mremap: nothing there
    calls_made += 4;
  }
  // A shrinking mremap checks its range before it cuts (sysfuzz's first finding: the shrink
  // zapped the kernel's page tables): no mapping at a kernel address is EFAULT; an old length
  // reaching past TASK_SIZE from a real mapping is EINVAL, and the mapping is left alone.
  wrong += raw(25, (long)0xffff888000000000UL, 0x1bb000, 0x8c000, 1, 0, 0) != -14;
  long m = raw(9, 0, 0x4000, 3, 0x22, -1, 0);
  if(m > 0) {
    *(volatile char *)m = 1;
    wrong += raw(25, m, 0x800000000000L, 0x3000, 0, 0, 0) != -22;
    wrong += *(volatile char *)m != 1;
    raw(11, m, 0x4000, 0, 0, 0, 0);
  }
  calls_made += 2;
  // The top page below 2^47 is never mapped (Linux's TASK_SIZE_MAX): a hint there is placed
  // elsewhere. (Growing into it is host-tested: the stack lies just below it here.)
  long top = raw(9, 0x7ffffffff000L, 4096, 3, 0x22, -1, 0);
  wrong += top == 0x7ffffffff000L || top < 0;
  if(top > 0)
    raw(11, top, 4096, 0, 0, 0, 0);
  // Sizes from user space reach no panic: poll and ppoll of 600,000 fds at NULL with the
  // fd limit at its most fail with EFAULT (Linux) or ENOMEM (here: no array that large).
  long lim[2], big[2] = { 1048576, 1048576 };
  if(raw(97, 7, (long)lim, 0, 0, 0, 0) == 0 && raw(160, 7, (long)big, 0, 0, 0, 0) == 0) {
    long zero[2] = { 0, 0 };
    long r = raw(7, 0, 600000, 0, 0, 0, 0);
    wrong += r != -14 && r != -12;
    r = raw(271, 0, 600000, (long)zero, 0, 8, 0);
    wrong += r != -14 && r != -12;
    raw(160, 7, (long)lim, 0, 0, 0, 0);
    calls_made += 2;
  }
  printf("hostile: %ld calls answered, %ld wrong errnos\n", calls_made, wrong);
  return wrong != 0;
}
