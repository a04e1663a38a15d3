// Register dumps and frame-pointer backtraces for panics, symbolized from the embedded table.
// The kernel is built with frame pointers: each frame is [saved rbp][return address] (the walk
// itself is arch/x86_64/unwind.c).
#include "ksyms.h"
#include "printk.h"
#include "sections.h"
#include <asm/paging.h>
#include <asm/stacktrace.h>
#include <asm/traps.h>
#include <asm/x86.h>


const char *
ksym_lookup(u64 addr, u64 *offset)
{
  struct ksym_table t = { ksyms_count, ksyms_addr, ksyms_name_off, ksyms_names };
  return ksym_find(&t, (u64)_etext, addr, offset);
}

static void
print_addr(int i, u64 addr)
{
  u64 off;
  const char *name = ksym_lookup(addr, &off);
  if(name)
    printk(KERN_EMERG "  #%-2d 0x%016lx %s+%#lx\n", i, addr, name, off);
  else
    printk(KERN_EMERG "  #%-2d 0x%016lx ?\n", i, addr);
}

void
show_regs(struct trapframe *tf)
{
  printk(KERN_EMERG "  RIP 0x%016lx  RSP 0x%016lx  RFLAGS 0x%08lx\n", tf->rip, tf->rsp, tf->rflags);
  printk(KERN_EMERG "  RAX 0x%016lx  RBX 0x%016lx  RCX 0x%016lx\n", tf->rax, tf->rbx, tf->rcx);
  printk(KERN_EMERG "  RDX 0x%016lx  RSI 0x%016lx  RDI 0x%016lx\n", tf->rdx, tf->rsi, tf->rdi);
  printk(KERN_EMERG "  RBP 0x%016lx  R8  0x%016lx  R9  0x%016lx\n", tf->rbp, tf->r8, tf->r9);
  printk(KERN_EMERG "  R10 0x%016lx  R11 0x%016lx  R12 0x%016lx\n", tf->r10, tf->r11, tf->r12);
  printk(KERN_EMERG "  R13 0x%016lx  R14 0x%016lx  R15 0x%016lx\n", tf->r13, tf->r14, tf->r15);
  printk(KERN_EMERG "  CR2 0x%016lx  CR3 0x%016lx  CS %#lx  vector %lu  error %#lx\n", read_cr2(),
         read_cr3(), tf->cs, tf->vector, tf->error);
}

void
show_backtrace(u64 rbp, u64 rip, u64 rsp)
{
  u64 pcs[32];
  int n = stack_walk(rbp, rip, rsp, pcs, 32, NULL);

  printk(KERN_EMERG "backtrace:\n");
  for(int i = 0; i < n; i++)
    print_addr(i, pcs[i]);
}

void
stack_trace_print(const u64 *pcs, int n)
{
  for(int i = 0; i < n; i++)
    print_addr(i, pcs[i]);
}
