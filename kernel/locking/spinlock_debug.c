// spinlock_t with CONFIG_DEBUG_SPINLOCK: each lock remembers its holder's CPU and call site, so
// taking a lock twice on one CPU (a certain deadlock) or releasing another's lock panics at once.
//
// A CPU reads owner_cpu without a lock, and that is exact for the question asked: only this
// CPU ever writes its own id there, and it clears it before letting go. Once a panic has
// started the checks stay quiet: the panic path's printk only tries the log lock, and a
// second panic would hide the first.
#include "ksyms.h"
#include "lockdep.h"
#include "panic.h"
#include "spinlock.h"
#include <asm/cpu.h>

#ifdef CONFIG_DEBUG_SPINLOCK

static void __noreturn
spin_bug(spinlock_t *l, const char *what, void *caller)
{
  u64 off = 0, holder_off = 0;
  const char *fn = ksym_lookup((u64)caller, &off);
  int holder = READ_ONCE(l->owner_cpu) - 1;
  if(holder < 0)
    panic("%s: lock %p, called at %s+%#lx, not held", what, l, fn ? fn : "?", off);
  const char *taken = ksym_lookup((u64)READ_ONCE(l->owner), &holder_off);
  panic("%s: lock %p, called at %s+%#lx, held by cpu %d, taken at %s+%#lx", what, l,
        fn ? fn : "?", off, holder, taken ? taken : "?", holder_off);
}

static void
set_owner(spinlock_t *l, void *caller)
{
  WRITE_ONCE(l->owner_cpu, smp_processor_id() + 1);
  WRITE_ONCE(l->owner, caller);
}

// Lockdep checks the order before the lock is taken, so that a real deadlock is reported
// rather than spun on.
static void
__spin_lock(spinlock_t *l, int subclass, void *caller)
{
  if(READ_ONCE(l->owner_cpu) == smp_processor_id() + 1 && !panic_in_progress())
    spin_bug(l, "recursive spin_lock", caller);
  lockdep_acquire(&l->dep_map, subclass, 0, (u64)caller);
  preempt_disable();
  if(lock_stat_enabled())
    spin_lock_stat(l);
  else
    arch_spin_lock(&l->raw_lock);
  set_owner(l, caller);
}

void
spin_lock(spinlock_t *l)
{
  __spin_lock(l, 0, __builtin_return_address(0));
}

void
spin_lock_nested(spinlock_t *l, int subclass)
{
  __spin_lock(l, subclass, __builtin_return_address(0));
}

bool
spin_trylock(spinlock_t *l)
{
  // No check: trying a lock this CPU holds just fails, and printk's panic mode relies on it.
  preempt_disable();
  if(!arch_spin_trylock(&l->raw_lock)) {
    preempt_enable();
    return false;
  }
  set_owner(l, __builtin_return_address(0));
  lockdep_acquire(&l->dep_map, 0, LOCKDEP_TRY, _RET_IP_);
  if(lock_stat_enabled())
    lock_acquired(&l->dep_map, 0);
  return true;
}

void
spin_unlock(spinlock_t *l)
{
  if(READ_ONCE(l->owner_cpu) != smp_processor_id() + 1 && !panic_in_progress())
    spin_bug(l, "spin_unlock of a lock this cpu does not hold", __builtin_return_address(0));
  lockdep_release(&l->dep_map);
  if(lock_stat_enabled())
    lock_release(&l->dep_map);
  // Cleared while still held: the unlock's release store orders these before the next holder.
  WRITE_ONCE(l->owner_cpu, 0);
  WRITE_ONCE(l->owner, NULL);
  arch_spin_unlock(&l->raw_lock);
  preempt_enable();
}

#endif
