// The per-CPU area reached through %gs: identity, GDT, TSS and interrupt stacks of one CPU.
// %gs:0 points at the area itself, so C code finds it with one load (Linux's percpu base trick).
#pragma once
#include "compiler.h"
#include <percpu.h>      // include/percpu.h, not the asm/percpu.h beside this file
#include "types.h"
#include <asm/frame.h>
#include <asm/segment.h>

struct tss {
  u32 reserved0;
  u64 rsp[3];
  u64 reserved1;
  u64 ist[7];       // interrupt stack table: #DF, NMI and #MC run on their own stacks
  u64 reserved2;
  u16 reserved3;
  u16 iomap_base;
} __packed;

enum { IST_DF = 1, IST_NMI = 2, IST_MC = 3, IST_DB = 4 };

#define KSTACK_SIZE 16384   // every kernel stack, with an unmapped guard page below it

struct thread;

struct cpu {
  struct cpu *self;          // %gs:0
  u64 percpu_off;            // %gs:8: this CPU's per-CPU offset
  int id;                    // %gs:16: dense CPU number, 0..nr_cpus-1
  u32 apic_id;
  u64 user_rsp;              // %gs:24: the user's %rsp while syscall_entry switches stacks
  u64 kstack;                // %gs:32: the running thread's kernel stack top (= tss.rsp[0])
  u64 gdt[9];                // null, kernel code and data, unused, user code32, data, code, TSS
  struct tss tss;
  u64 stack_top;             // this CPU's boot/idle stack
  struct thread *curr;       // the running kernel thread (NULL until the scheduler starts)
  int online;
  int idle;                  // halted in sched_idle_loop with the tick stopped
  int irq_depth;             // nesting of interrupt handlers (in_interrupt())
  int stopped;               // halted by a panic's NMI
  u64 irq_count;             // interrupts taken
  u64 nmi_count;
};

// entry.S and vectors.S reach these two by %gs (asm/frame.h).
_Static_assert(__builtin_offsetof(struct cpu, user_rsp) == CPU_USER_RSP, "asm/frame.h");
_Static_assert(__builtin_offsetof(struct cpu, kstack) == CPU_KSTACK, "asm/frame.h");

DECLARE_PER_CPU(struct cpu, cpu_info);

static inline struct cpu *
this_cpu_info(void)
{
  struct cpu *c;
  __asm__ volatile("mov %%gs:0, %0" : "=r"(c));
  return c;
}

static inline int
smp_processor_id(void)
{
  int id;
  __asm__ volatile("movl %%gs:16, %0" : "=r"(id));
  return id;
}

void cpu_alloc_ist(struct cpu *c);   // the IST stacks (#DF, NMI, #MC) of a CPU
void cpu_init(struct cpu *c);        // loads this CPU's GDT, TSS, IDT and %gs
void cpu_user_init(struct cpu *c);   // what ring 3 needs: SYSCALL MSRs, FPU, SMEP/SMAP
