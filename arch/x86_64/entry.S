// Ring 3's way in by SYSCALL and the ways out: SYSRET when it is safe, IRET otherwise, and
// ret_to_user for a thread's first entry. The frame built here is a struct trapframe, as the
// interrupt path's, so clone and exec can copy and write one layout.
#include <asm/frame.h>
#include <asm/segment.h>

  .text
// SYSCALL put the user's rip in %rcx and rflags in %r11, cleared the flags in FMASK (IF among
// them: nothing interrupts until the stack is ours) and left %rsp alone (SDM vol. 2B, SYSCALL).
  .globl syscall_entry
syscall_entry:
  swapgs
  movq %rsp, %gs:CPU_USER_RSP    // struct cpu's user_rsp
  movq %gs:CPU_KSTACK, %rsp      // and kstack, the thread's stack top (tss.rsp0)
  pushq $SEG_UDATA               // ss
  pushq %gs:CPU_USER_RSP         // rsp
  pushq %r11                     // rflags
  pushq $SEG_UCODE               // cs
  pushq %rcx                     // rip
  pushq $0                       // error
  pushq $256                     // vector: none, a system call
  PUSH_REGS
  xorl %ebp, %ebp                // backtraces end here, not in user memory
  movq %rsp, %rdi
  // FMASK cleared AC: SMAP holds from the first instruction. do_syscall_64 returns with
  // interrupts off; nonzero: SYSRET is safe.
  call do_syscall_64
  testl %eax, %eax
  jz ret_to_user_iret
  POP_REGS
  movq 16(%rsp), %rcx            // rip (do_syscall_64 checked it equals the saved rcx)
  movq 32(%rsp), %r11            // rflags
  movq 40(%rsp), %rsp            // the user's stack; an NMI from here on takes its IST stack
  swapgs
  sysretq

// ret_to_user(tf): a thread's first return to ring 3, through the frame at the top of its
// kernel stack (rdi); with interrupts off.
  .globl ret_to_user
ret_to_user:
  movq %rdi, %rsp
ret_to_user_iret:
  cli
  swapgs
  jmp trap_pop_iret
