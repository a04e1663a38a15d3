// Spinlocks: three busy-wait locks (ticket, queued MCS, test-and-test-and-set), and spinlock_t,
// the kernel's lock, which is the ticket or the queued one as the build picks (SPINLOCK=).
#pragma once
#include "compiler.h"
#include "lock_stat.h"
#include "preempt.h"
#include "types.h"
#include <asm/irqflags.h>   // local_irq_save for the _irqsave forms

// Ticket lock: FIFO. Each arrival takes the next ticket and waits until owner reaches it.
struct ticket_lock {
  u32 next;    // ticket handed to the next arrival
  u32 owner;   // ticket now served
};
#define TICKET_LOCK_INIT { .next = 0, .owner = 0 }

void ticket_lock(struct ticket_lock *l);
void ticket_unlock(struct ticket_lock *l);
bool ticket_trylock(struct ticket_lock *l);
bool ticket_is_locked(struct ticket_lock *l);

// Queued lock (MCS): FIFO, each waiter spins on its own per-CPU node (kernel/locking/qspinlock.c).
// One 32-bit word: the locked byte, and the tail of the waiting queue as (cpu + 1, nesting level).
struct qspinlock {
  union {
    u32 val;
    struct {
      u8 locked;   // 1 while held
      u8 unused;   // Linux's pending byte; this lock has no pending state
      u16 tail;    // last waiter's node, 0 if nobody waits
    };
  };
};
#define QSPINLOCK_INIT { .val = 0 }

void queued_spin_lock(struct qspinlock *l);
void queued_spin_unlock(struct qspinlock *l);
bool queued_spin_trylock(struct qspinlock *l);
bool queued_spin_is_locked(struct qspinlock *l);

// Test-and-test-and-set lock: one flag, no order among waiters. For comparison only.
struct tas_lock {
  u32 locked;
};
#define TAS_LOCK_INIT { .locked = 0 }

void tas_lock(struct tas_lock *l);
void tas_unlock(struct tas_lock *l);
bool tas_trylock(struct tas_lock *l);
bool tas_is_locked(struct tas_lock *l);

// The lock under spinlock_t, chosen at build time (Linux calls it arch_spinlock_t).
// Under a hypervisor the queued lock falls back to test-and-set (virt_spin_lock in
// kernel/locking/paravirt.c, as Linux does).
extern bool virt_spin_lock_enabled;
void virt_spin_lock_init(void);
void virt_spin_lock(struct qspinlock *l);
// A fair lock's waiter that is not next in line, under a hypervisor: after VIRT_WAIT_SPINS
// spins it halts till its next interrupt (kernel/locking/paravirt.c).
#define VIRT_WAIT_SPINS 1024
void virt_wait(u32 *spins);

#ifdef CONFIG_SPINLOCK_QUEUED
typedef struct qspinlock arch_spinlock_t;
#define ARCH_SPIN_LOCK_UNLOCKED QSPINLOCK_INIT
static inline void
arch_spin_lock(struct qspinlock *l)
{
  if(virt_spin_lock_enabled)
    virt_spin_lock(l);
  else
    queued_spin_lock(l);
}
#define arch_spin_unlock queued_spin_unlock
#define arch_spin_trylock queued_spin_trylock
#define arch_spin_is_locked queued_spin_is_locked
#else
typedef struct ticket_lock arch_spinlock_t;
#define ARCH_SPIN_LOCK_UNLOCKED TICKET_LOCK_INIT
#define arch_spin_lock ticket_lock
#define arch_spin_unlock ticket_unlock
#define arch_spin_trylock ticket_trylock
#define arch_spin_is_locked ticket_is_locked
#endif

// With CONFIG_DEBUG_SPINLOCK the lock also remembers who holds it, so that taking it twice
// on one CPU, or releasing a lock this CPU does not hold, panics (kernel/locking/spinlock_debug.c).
// owner_cpu is the CPU id plus one, so a zeroed lock is a free lock.
typedef struct spinlock {
  arch_spinlock_t raw_lock;
#ifdef CONFIG_DEBUG_SPINLOCK
  int owner_cpu;   // holder's CPU + 1; 0 when free
  void *owner;     // where the holder took it
#endif
  struct lockdep_map dep_map;   // its class (include/lockdep_types.h)
} spinlock_t;

// A static lock named n; SPINLOCK_INIT(x) names it after x (a member: SPINLOCK_INIT(lru.lock)).
#define __SPINLOCK_INIT(n) { .raw_lock = ARCH_SPIN_LOCK_UNLOCKED, .dep_map = STATIC_LOCKDEP_MAP(n) }
#define SPINLOCK_INIT(x) __SPINLOCK_INIT(#x)
#define DEFINE_SPINLOCK(x) spinlock_t x = SPINLOCK_INIT(x)

// A lock in memory the caller owns: the class is this call site, named after the expression.
#define spin_lock_init(l)                                                     \
  do {                                                                        \
    static struct lock_class_key __key = { .name = #l };                      \
    __spin_lock_init((l), &__key);                                            \
  } while(0)

static inline void
__spin_lock_init(spinlock_t *l, struct lock_class_key *key)
{
  *l = (spinlock_t){ .raw_lock = ARCH_SPIN_LOCK_UNLOCKED };
  lockdep_set_class(&l->dep_map, key);
}

// spin_lock with lock statistics on (kernel/locking/lock_stat.c): a try first, so that a
// failed one counts the acquisition as contended. Out of line, so the inlined spin_lock
// carries only the flag test.
void spin_lock_stat(spinlock_t *l);

// A holder must not sleep: this kernel never preempts, so only a holder that sleeps can leave
// the others spinning, each on a CPU that its own holder may need. Holding a spinlock counts
// in preempt_count, so schedule() and cond_resched() panic on it (Linux's "scheduling while
// atomic" and might_sleep).
#ifdef CONFIG_DEBUG_SPINLOCK
void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
bool spin_trylock(spinlock_t *l);
#else
static inline void
spin_lock(spinlock_t *l)
{
  preempt_disable();
  if(lock_stat_enabled())
    spin_lock_stat(l);
  else
    arch_spin_lock(&l->raw_lock);
}

static inline void
spin_unlock(spinlock_t *l)
{
  if(lock_stat_enabled())
    lock_release(&l->dep_map);
  arch_spin_unlock(&l->raw_lock);
  preempt_enable();
}

static inline bool
spin_trylock(spinlock_t *l)
{
  preempt_disable();
  if(arch_spin_trylock(&l->raw_lock)) {
    if(lock_stat_enabled())
      lock_acquired(&l->dep_map, 0);
    return true;
  }
  preempt_enable();
  return false;
}
#endif

// A lock of a class this thread may already hold, taken on purpose in a fixed order (a parent
// dentry's d_lock, then its child's): subclass n (< MAX_LOCKDEP_SUBCLASSES) is a class of its
// own for the lock-order checker, so the nesting is checked rather than silenced (Linux's
// spin_lock_nested). Without the checker, spin_lock.
#ifdef CONFIG_LOCKDEP
void spin_lock_nested(spinlock_t *l, int subclass);
#else
#define spin_lock_nested(l, subclass) spin_lock(l)
#endif

// For assertions and the lock tests (tests/common/locks.h): held by anyone, right now.
static inline bool spin_is_locked(spinlock_t *l) { return arch_spin_is_locked(&l->raw_lock); }

// Linux's calling convention: flags is an lvalue the macro fills in. Interrupts go off
// first: a handler on this CPU that wants the same lock would otherwise spin forever.
#define spin_lock_irqsave(l, flags) \
  do { (flags) = local_irq_save(); spin_lock(l); } while(0)
#define spin_unlock_irqrestore(l, flags) \
  do { spin_unlock(l); local_irq_restore(flags); } while(0)
