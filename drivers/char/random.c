// getrandom(2): bytes from get_random_bytes (arch/x86_64/random.c: RDRAND where the CPU has it,
// else xorshift64* stirred with the TSC), never blocking; not for cryptography.
#include "errno.h"
#include "random.h"
#include "sched.h"
#include "syscalls.h"
#include <asm/uaccess.h>

long
sys_getrandom(u64 buf, u64 len, u64 flags)
{
  if(flags & ~7UL)   // GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE
    return -EINVAL;
  u8 chunk[256];
  u64 done = 0;
  while(done < len) {
    u64 k = MIN(len - done, sizeof(chunk));
    get_random_bytes(chunk, k);
    if(copy_to_user((u8 *)buf + done, chunk, k))
      return done ? (long)done : -EFAULT;
    done += k;
    cond_resched();
  }
  return done;
}
