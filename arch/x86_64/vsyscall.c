// The vsyscall page, emulated as Linux's vsyscall=xonly (arch/x86/entry/vsyscall/vsyscall_64.c):
// old static programs (dietlibc, glibc before 2.14) call gettimeofday, time and getcpu at fixed
// addresses in 0xffffffffff600000's page. Nothing is mapped there; the instruction fetch faults,
// and the fault runs the call and then the caller's `ret`. Reading the page is SIGSEGV, as there.
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "syscalls.h"
#include "uapi/signal.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include <asm/vsyscall.h>

// The three entries, 1024 bytes apart: gettimeofday, time, getcpu (the legacy ABI's layout).
#define VSYSCALL_ENTRY(n) (VSYSCALL_ADDR + (n) * 0x400)

bool
is_vsyscall_vaddr(u64 addr)
{
  return (addr & ~0xfffUL) == VSYSCALL_ADDR;
}

// Linux's warn_bad_vsyscall line, before the SIGSEGV.
static void
warn_bad_vsyscall(struct trapframe *tf, const char *why)
{
  struct process *p = current->proc;
  printk("%s[%d] %s ip:%lx cs:%lx sp:%lx ax:%lx si:%lx di:%lx\n", p->name, p->pid, why,
         tf->rip, tf->cs, tf->rsp, tf->rax, tf->rsi, tf->rdi);
}

// Whether a call may store size bytes at ptr, as Linux's write_ok_or_segv: NULL (the call
// stores nothing) or below the user half's end. Otherwise the SIGSEGV is SEGV_MAPERR at ptr; a
// pointer that passes and still faults fails the call itself with EFAULT.
static bool
write_ok(u64 ptr, u64 size, struct vsyscall_segv *segv)
{
  if(ptr == 0 || access_ok((const void *)ptr, size))
    return true;
  *segv = (struct vsyscall_segv){ SEGV_MAPERR, ptr };
  return false;
}

// A ring-3 page fault at addr in the vsyscall page: true when it was an entry's call, done
// (rax the result, rip and rsp as after the `ret` the entry would have run). False when the
// program gets SIGSEGV instead, with *segv's si_code and si_addr, as Linux 6.18 measured on the
// host (tests/user/vsyscall.c): a read or write of the page is SEGV_MAPERR at addr; a jump into
// the middle of it, a stack the return address cannot be read from, or a pointer the call
// faults on is SI_KERNEL at 0 (Linux's force_sig), each with a console line. Interrupts on.
bool
emulate_vsyscall(struct trapframe *tf, u64 addr, struct vsyscall_segv *segv)
{
  *segv = (struct vsyscall_segv){ SI_KERNEL, 0 };
  if(addr != tf->rip) {   // a read or write of the page, not a call into it
    *segv = (struct vsyscall_segv){ SEGV_MAPERR, addr };
    return false;
  }
  int nr = -1;
  for(int i = 0; i < 3; i++)
    if(addr == VSYSCALL_ENTRY(i))
      nr = i;
  if(nr < 0) {
    warn_bad_vsyscall(tf, "misaligned vsyscall (exploit attempt or buggy program)");
    return false;
  }
  u64 caller;
  if(get_user(caller, (u64 *)tf->rsp)) {
    warn_bad_vsyscall(tf, "vsyscall with bad stack (exploit attempt?)");
    return false;
  }
  long ret;
  switch(nr) {
  case 0:
    if(!write_ok(tf->rdi, 16, segv) || !write_ok(tf->rsi, 8, segv))   // timeval, timezone
      return false;
    ret = sys_gettimeofday(tf->rdi, tf->rsi);
    break;
  case 1:
    if(!write_ok(tf->rdi, 8, segv))
      return false;
    ret = sys_time(tf->rdi);
    break;
  default:
    if(!write_ok(tf->rdi, 4, segv) || !write_ok(tf->rsi, 4, segv))
      return false;
    ret = sys_getcpu(tf->rdi, tf->rsi, 0);   // the third argument, a cache, is unused
    break;
  }
  if(ret == -EFAULT) {
    warn_bad_vsyscall(tf, "vsyscall fault (exploit attempt?)");
    return false;
  }
  tf->rax = (u64)ret;
  tf->rip = caller;
  tf->rsp += 8;
  return true;
}
