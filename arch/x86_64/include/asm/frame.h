// The trap frame as the entry code (vectors.S, entry.S) builds it: offsets into struct
// trapframe and struct cpu (checked against the C structs in asm/traps.h and asm/cpu.h), and
// the general-register pushes every entry shares, so there is one order to keep in step.
#pragma once

#define TF_VECTOR    120   // offsetof(struct trapframe, vector)
#define TF_CS        144   // offsetof(struct trapframe, cs)
#define TF_SIZE      176   // sizeof(struct trapframe): 22 quadwords, a multiple of 16
#define CPU_USER_RSP 24    // offsetof(struct cpu, user_rsp): %gs:CPU_USER_RSP
#define CPU_KSTACK   32    // offsetof(struct cpu, kstack)

#ifdef __ASSEMBLER__
// struct trapframe's general registers: rax pushed first, r15 last, at the lowest address.
.macro PUSH_REGS
  pushq %rax
  pushq %rbx
  pushq %rcx
  pushq %rdx
  pushq %rsi
  pushq %rdi
  pushq %rbp
  pushq %r8
  pushq %r9
  pushq %r10
  pushq %r11
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
.endm

.macro POP_REGS
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %r11
  popq %r10
  popq %r9
  popq %r8
  popq %rbp
  popq %rdi
  popq %rsi
  popq %rdx
  popq %rcx
  popq %rbx
  popq %rax
.endm
#endif
