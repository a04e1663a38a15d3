// Spinlocks: a ticket lock, FIFO fair, for short critical sections.
// spin_lock_irqsave also keeps interrupt handlers on this CPU out (they may take the same lock).
#pragma once
#include "compiler.h"
#include "types.h"

typedef struct spinlock {
  u32 next;    // ticket handed to the next arrival
  u32 owner;   // ticket now served
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }
#define DEFINE_SPINLOCK(x) spinlock_t x = SPINLOCK_INIT

void spin_lock_init(spinlock_t *l);
void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
bool spin_trylock(spinlock_t *l);
bool spin_is_locked(spinlock_t *l);

#include "x86.h"
// Linux's calling convention: flags is an lvalue the macro fills in.
#define spin_lock_irqsave(l, flags) \
  do { (flags) = local_irq_save(); spin_lock(l); } while(0)
#define spin_unlock_irqrestore(l, flags) \
  do { spin_unlock(l); local_irq_restore(flags); } while(0)
