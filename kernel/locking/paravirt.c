// Locks under a hypervisor: spin_lock's test-and-set fallback (virt_spin_lock) and the halt a
// fair lock's waiter may take while it is not next (virt_wait), as Linux's paravirt spinlocks.
#include "spinlock.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

// Under a hypervisor without paravirtual spinlocks a fair lock is handed to the next waiter
// even when the host is not running that vCPU, and everyone behind it waits a host time
// slice: 8 vCPUs on 2 host cores turn microseconds into seconds. Linux's virt_spin_lock()
// (arch/x86/include/asm/qspinlock.h) makes spinlock_t fall back to test-and-set on the same
// lock word there; so does this kernel. The ticket and queued locks themselves, which the
// locks suite and locktorture measure, stay fair, but let a waiter that is not next halt.
bool virt_spin_lock_enabled;   // set by virt_spin_lock_init (arch/x86_64/hypervisor.c)

void
virt_spin_lock(struct qspinlock *l)
{
  for(;;) {
    u32 free = 0;
    // Acquire: the critical section stays after the successful exchange.
    if(__atomic_compare_exchange_n(&l->val, &free, 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
      return;
    while(READ_ONCE(l->val) != 0)
      cpu_relax();
  }
}

// Linux's paravirtual spinlocks (kernel/locking/qspinlock_paravirt.h, and kvm_wait in
// arch/x86/kernel/kvm.c) let a waiter halt its vCPU: with 64 vCPUs on 2 host cores, 63 waiters
// spinning keep the host from running the one vCPU that would hand the lock on, and the ticket
// and queued locks made 4 hand-overs a second. Here only a waiter that is not next halts, and
// only with interrupts on: it wakes at its next interrupt, its own tick at the latest (a busy
// CPU's tick runs, kernel/tick.c), looks, and halts again; no unlocker needs to kick it. The
// waiter that is next always spins, so a hand-over waits for at most one tick.
void
virt_wait(u32 *spins)
{
  if(!virt_spin_lock_enabled || ++*spins < VIRT_WAIT_SPINS || irqs_disabled()) {
    cpu_relax();
    return;
  }
  *spins = 0;
  local_irq_disable();
  arch_safe_halt();
}
