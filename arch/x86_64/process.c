// arch_prctl(2): a thread's FS and GS bases, which glibc's TLS and the user's code read through
// the segment registers (Linux's arch/x86/kernel/process_64.c, do_arch_prctl_64).
#include "errno.h"
#include "process.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>

// Its codes (arch/x86/include/uapi/asm/prctl.h).
#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

long
sys_arch_prctl(u64 code, u64 addr)
{
  struct thread *t = current;
  switch(code) {
  case ARCH_SET_FS:
    if(addr >= USER_END)
      return -EPERM;
    t->fsbase = addr;
    load_fsbase(addr);
    return 0;
  case ARCH_GET_FS:
    return put_user(t->fsbase, (u64 *)addr);
  // A kernel address is refused as Linux does (EPERM past TASK_SIZE_MAX); here it also keeps
  // the paranoid entries' test right: a negative GS base means the kernel's (vectors.S).
  case ARCH_SET_GS: {
    if(addr >= USER_END)
      return -EPERM;
    u64 irq = local_irq_save();   // thread and MSR agree when it is next switched out
    t->gsbase = addr;
    load_user_gsbase(addr);
    local_irq_restore(irq);
    return 0;
  }
  case ARCH_GET_GS:
    return put_user(t->gsbase, (u64 *)addr);
  default:
    return -EINVAL;
  }
}
