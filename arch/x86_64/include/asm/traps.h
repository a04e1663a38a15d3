// Trap frames, interrupt vectors and the handler table.
// Exceptions 0-31 are the CPU's (Intel SDM vol. 3A, table 6-1); the rest are ours to assign.
#pragma once
#include "types.h"
#include <asm/frame.h>

struct trapframe {
  u64 r15, r14, r13, r12, r11, r10, r9, r8;
  u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
  u64 vector, error;
  u64 rip, cs, rflags, rsp, ss;   // pushed by the CPU
};
// The entry code's offsets (asm/frame.h).
_Static_assert(__builtin_offsetof(struct trapframe, vector) == TF_VECTOR, "asm/frame.h");
_Static_assert(__builtin_offsetof(struct trapframe, cs) == TF_CS, "asm/frame.h");
_Static_assert(sizeof(struct trapframe) == TF_SIZE, "asm/frame.h");

#define T_DEBUG     1
#define T_NMI       2
#define T_DBLFLT    8
#define T_PGFLT     14
#define T_MCHK      18

#define IRQ_BASE        0x30   // I/O APIC interrupts: 0x30 + GSI
#define VEC_TIMER       0xe0   // local APIC timer
#define VEC_CALL        0xe1   // smp_call_function
#define VEC_RESCHED     0xe2   // wake an idle CPU to run a thread
#define VEC_TEST        0xf0   // raised by `int` in self-tests (tests/kernel/stackwalk_test.c)
#define VEC_SPURIOUS    0xff   // local APIC spurious vector (low 4 bits set: SDM 10.9)

typedef void (*irq_handler_t)(struct trapframe *tf);

extern u64 vectors[];   // vectors.S: the entry stub of each vector, for the IDT

void idt_init(void);
void idt_load(void);
void set_irq_handler(int vector, irq_handler_t fn);
void trap(struct trapframe *tf);
const char *trap_name(u64 vector);

void nmi_init(void);                      // LINT1 and the NMI vector (arch/x86_64/nmi.c)
void nmi_handler(struct trapframe *tf);   // from trap() for vector 2
