// The interrupt flag: local_irq_* and the idle halt, the only way generic code turns
// interrupts on and off or waits for one (Linux's asm/irqflags.h).
#pragma once
#include "types.h"

#define X86_EFLAGS_IF 0x200

static inline u64
read_rflags(void)
{
  u64 f;
  __asm__ volatile("pushfq; popq %0" : "=r"(f)::"memory");
  return f;
}

static inline void local_irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void local_irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }
static inline bool irqs_disabled(void) { return !(read_rflags() & X86_EFLAGS_IF); }
// Whether flags from local_irq_save had interrupts off (lockdep asks what they were).
static inline bool irqs_disabled_flags(u64 flags) { return !(flags & X86_EFLAGS_IF); }

static inline u64
local_irq_save(void)
{
  u64 f = read_rflags();
  local_irq_disable();
  return f;
}

static inline void
local_irq_restore(u64 flags)
{
  if(flags & X86_EFLAGS_IF)
    local_irq_enable();
}

// Wait for an interrupt with interrupts on (Linux's arch_safe_halt). Called with them off,
// after the last check that there is nothing to do: sti's one-instruction shadow means an
// interrupt pending at the sti is taken once hlt starts, not lost (SDM vol. 2B, STI).
static inline void arch_safe_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
