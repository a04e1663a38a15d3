// raw: a system call by number with six arguments, no libc wrapper between (no errno, no
// argument fixing): what the hostile and fuzzing programs need to pass anything at all.
#pragma once

static inline long
raw(long nr, long a, long b, long c, long d, long e, long f)
{
  long ret;
  register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                   "r"(r9) : "rcx", "r11", "memory");
  return ret;
}
