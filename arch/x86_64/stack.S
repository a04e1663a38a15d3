// call_on_stack(top, fn): switch to a new stack and call fn, which never returns.
// A zero return address and rbp end the backtrace there.
  .text
  .globl call_on_stack
call_on_stack:
  mov %rdi, %rsp
  xor %ebp, %ebp
  pushq $0
  jmp *%rsi
