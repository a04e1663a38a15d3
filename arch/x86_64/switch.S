// switch_to(prev, next): save the callee-saved registers on prev's stack and its stack pointer
// in prev->rsp (offset 0), then load next's and return on its stack (System V ABI: the caller
// saves the rest). A new thread's stack is laid out so this returns into thread_start.
  .text
  .globl switch_to
switch_to:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq (%rsi), %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret

// The first return of a new thread lands here, with the thread in %r12 (set up by
// sched.c); a zero return address above it ends backtraces.
  .globl thread_start
thread_start:
  movq %r12, %rdi
  xorl %ebp, %ebp
  call thread_entry
  ud2
