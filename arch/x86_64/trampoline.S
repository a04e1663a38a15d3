// The AP trampoline: copied to TRAMPOLINE_PA below 1 MiB, where a STARTUP IPI starts each AP
// in real mode; it goes 16 -> 32 -> 64-bit and jumps to ap_entry in the higher half.
// Addresses are assembled as TRAMPOLINE_PA + (label - trampoline_start): the code runs at its copy.

#include <asm/smp_boot.h>

#define T(x) (TRAMPOLINE_PA + (x) - trampoline_start)

  .section .rodata
  .globl trampoline_start, trampoline_end, trampoline_cr3, trampoline_efer, trampoline_entry
  .code16
trampoline_start:
  cli
  cld
  xor %ax, %ax
  mov %ax, %ds
  lgdtl T(tgdt_ptr)
  mov %cr0, %eax
  or $1, %eax                   // PE
  mov %eax, %cr0
  ljmpl $0x08, $T(t32)

  .code32
t32:
  mov $0x10, %ax
  mov %ax, %ds
  mov %ax, %es
  mov %ax, %ss
  mov %cr4, %eax
  or $(1 << 5), %eax            // PAE
  mov %eax, %cr4
  mov T(trampoline_cr3), %eax   // the kernel's own tables (below 4 GiB), with this page identity-mapped
  mov %eax, %cr3
  mov $0xc0000080, %ecx         // EFER: LME, and NXE as the boot CPU has it
  rdmsr
  or T(trampoline_efer), %eax
  wrmsr
  mov %cr0, %eax
  or $((1 << 31) | (1 << 16)), %eax   // PG, WP
  mov %eax, %cr0
  ljmp $0x18, $T(t64)

  .code64
t64:
  mov T(trampoline_entry), %rax
  jmp *%rax

  .balign 8
tgdt:
  .quad 0
  .quad 0x00cf9a000000ffff      // 0x08: 32-bit code
  .quad 0x00cf92000000ffff      // 0x10: data
  .quad 0x00af9a000000ffff      // 0x18: 64-bit code
tgdt_ptr:
  .short tgdt_ptr - tgdt - 1
  .long T(tgdt)
  .balign 8
trampoline_cr3:   .long 0       // filled in by start_aps()
trampoline_efer:  .long 0
trampoline_entry: .quad 0
trampoline_end:

// ap_entry: first higher-half code of an AP. Its stack is found by its initial APIC id
// (CPUID.1:EBX[31:24]), so any number of APs can come up at once.
  .text
  .globl ap_entry
ap_entry:
  mov $1, %eax
  cpuid
  shr $24, %ebx
  mov ap_stack_top(, %rbx, 8), %rsp
  xor %ebp, %ebp
  mov %ebx, %edi
  call ap_main
1:
  hlt
  jmp 1b
