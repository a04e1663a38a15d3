// The 256 interrupt entry stubs and the common path that saves a struct trapframe.
// Vectors 8, 10-14, 17, 21, 29 and 30 push an error code; the others get a 0 (SDM vol. 3A, 6.13).

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
  // The CPU aligned %rsp to 16 before its pushes; 22 quadwords keep it aligned for the call.
  mov %rsp, %rdi
  cld
  call trap
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
