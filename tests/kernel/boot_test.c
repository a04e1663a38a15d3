// Self-tests of the boot foundation: the kernel image's page protections and stack guards,
// and planted-panic, which proves a kernel fault panics with a symbolized backtrace.
#include "printk.h"
#include "sections.h"
#include "selftest.h"
#include <asm/cpu.h>
#include <asm/memlayout.h>
#include <asm/paging.h>


static u64
pte_of(u64 va)
{
  u64 *pte = pte_walk(kernel_pml4, va, false);
  return pte ? *pte : 0;
}

static bool
paging_test(void)
{
  bool ok = true;
  u64 text = pte_of((u64)_text), ro = pte_of((u64)_rodata), data = pte_of((u64)_data);
  u64 bss = pte_of((u64)_ebss - 1);
  ok &= (text & PTE_P) && !(text & PTE_W) && !(text & PTE_NX);   // read-only, executable
  ok &= (ro & PTE_P) && !(ro & PTE_W) && (ro & PTE_NX) == pte_nx;
  ok &= (data & PTE_P) && (data & PTE_W) && (data & PTE_NX) == pte_nx;
  ok &= (bss & PTE_P) && (bss & PTE_W) && (bss & PTE_NX) == pte_nx;
  ok &= !kernel_addr_mapped(0) && !kernel_addr_mapped(PAGE_SIZE);   // NULL faults
  u64 top = this_cpu_info()->stack_top;
  ok &= kernel_addr_mapped(top - 8);
  ok &= !kernel_addr_mapped(top - KSTACK_SIZE - PAGE_SIZE);   // the guard page
  ok &= kernel_addr_mapped(top - KSTACK_SIZE);
  selftest_extra("nx=%s", pte_nx ? "yes" : "no");
  return ok;
}
SELFTEST("paging", paging_test);

// Planted: a write to an unmapped page must panic, naming this function in the backtrace.
static bool
planted_panic(void)
{
  volatile u64 *unmapped = (volatile u64 *)0x10;
  __asm__("" : "+r"(unmapped));   // hide the constant: GCC rejects a literal bad address
  *unmapped = 1;
  return true;
}
SELFTEST("planted-panic", planted_panic);
