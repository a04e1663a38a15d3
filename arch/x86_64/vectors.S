// The 256 interrupt entry stubs and the common path that saves a struct trapframe.
// Vectors 8, 10-14, 17, 21, 29 and 30 push an error code; the others get a 0 (SDM vol. 3A, 6.13).
// From ring 3 %gs holds the user's base: swapgs on the way in and out. #DB, NMI, #DF and #MC
// run on IST stacks and may hit the few instructions of syscall_entry or the SYSRET path where
// CS is the kernel's but GS is not yet (or no longer): for them the GS base MSR decides, a
// kernel base being negative (Linux's paranoid_entry).
#include <asm/frame.h>

  .text
  .macro stub n
  .balign 16
vector\n:
  .if (\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
  .else
  pushq $0
  .endif
  pushq $\n
  jmp alltraps
  .endm

  .altmacro
  .set i, 0
  .rept 256
  stub %i
  .set i, i + 1
  .endr

alltraps:
  // Ring 3 may have set AC, which interrupt gates keep: with SMAP that would let the kernel
  // reach user pages unchecked until the IRET. Clear it first (Linux's ASM_CLAC); clac is
  // #UD on a CPU without SMAP, hence the test.
  testb $1, smap_enabled(%rip)
  jz 0f
  clac
0:
  PUSH_REGS
  xorl %ebx, %ebx                // 1: swapgs again on the way out (callee-saved over trap)
  movq TF_VECTOR(%rsp), %rax
  cmpq $1, %rax
  je .Lparanoid
  cmpq $2, %rax
  je .Lparanoid
  cmpq $8, %rax
  je .Lparanoid
  cmpq $18, %rax
  je .Lparanoid
  testb $3, TF_CS(%rsp)
  jz 1f
  swapgs
  movl $1, %ebx
  jmp 1f
  // .L: no symbol, so a stack walk names the code from alltraps to trap_return alltraps.
.Lparanoid:
  testb $3, TF_CS(%rsp)
  jz 2f
  // From ring 3: move the frame to the thread's stack, where it may sleep or exit like any
  // other entry from user mode, and the IST stack is free again (Linux's sync_regs).
  swapgs
  movl $1, %ebx
  cld
  movq %gs:CPU_KSTACK, %rdi
  subq $TF_SIZE, %rdi
  movq %rsp, %rsi
  movl $TF_SIZE / 8, %ecx
  rep movsq
  movq %gs:CPU_KSTACK, %rsp
  subq $TF_SIZE, %rsp
  jmp 1f
2:
  movl $0xc0000101, %ecx         // MSR_GS_BASE
  rdmsr
  testl %edx, %edx
  js 1f
  swapgs
  movl $1, %ebx
1:
  // The CPU aligned %rsp to 16 before its pushes; 22 quadwords keep it aligned for the call.
  mov %rsp, %rdi
  cld
  call trap
  // trap()'s return address: a stack walk that meets it finds the trap frame just above it
  // and goes on into the interrupted code (arch/x86_64/unwind.c).
  .globl trap_return
trap_return:
  testl %ebx, %ebx
  jz trap_pop_iret
  cli
  swapgs
  .globl trap_pop_iret
trap_pop_iret:
  POP_REGS
  add $16, %rsp                  // vector and error code
  iretq

  // vectors[i]: the address of stub i, for the IDT.
  .section .rodata
  .balign 8
  .globl vectors
vectors:
  .macro vecaddr n
  .quad vector\n
  .endm
  .set i, 0
  .rept 256
  vecaddr %i
  .set i, i + 1
  .endr
