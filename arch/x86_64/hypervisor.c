// Are we a guest? CPUID.1:ECX[31] is set by every hypervisor (QEMU too) and never by hardware.
// A guest's spin_lock falls back to test-and-set (kernel/locking/paravirt.c explains why).
#include "printk.h"
#include "spinlock.h"
#include <asm/x86.h>

void
virt_spin_lock_init(void)
{
  u32 a, b, c, d;
  cpuid(1, 0, &a, &b, &c, &d);
  virt_spin_lock_enabled = (c >> 31) & 1;
  if(virt_spin_lock_enabled)
    pr_info("spinlock: running under a hypervisor: spin_lock tests-and-sets (virt_spin_lock)\n");
}
