// Multiboot2 header and the 32-bit entry: page tables, PAE, long mode, NX, then 64-bit C.
// GRUB enters here in 32-bit protected mode with paging off (Multiboot2 spec, section 3.3).

#include <asm/memlayout.h>

#define MB2_MAGIC   0xe85250d6   // header magic (Multiboot2 spec 3.1.1)
#define MB2_ARCH    0            // i386 protected mode
#define PTE_P       0x1
#define PTE_W       0x2
#define PTE_PS      0x80         // 2 MiB page in a page directory entry
#define EFER        0xc0000080
#define EFER_LME    (1 << 8)
#define EFER_NXE    (1 << 11)

// The header must sit in the first 32 KiB of the file, 8-byte aligned.
  .section .multiboot, "a"
  .balign 8
mb2_header:
  .long MB2_MAGIC
  .long MB2_ARCH
  .long mb2_header_end - mb2_header
  .long -(MB2_MAGIC + MB2_ARCH + (mb2_header_end - mb2_header))
  .short 0, 0                    // end tag: type 0, flags 0, size 8
  .long 8
mb2_header_end:

// Tables the 32-bit code builds, at their physical (= linked) addresses.
  .section .boot.bss, "aw", @nobits
  .balign 4096
boot_pml4:    .skip 4096
boot_pdpt_lo: .skip 4096         // identity map of the first GiB, for the jump
boot_pdpt_hi: .skip 4096         // KERNEL_VMA -> physical 0
boot_pd:      .skip 4096         // 512 x 2 MiB = the first GiB
boot_tables_end:
  .skip 256
boot_stack32:

  .section .boot.data, "a"
  .balign 8
boot_gdt:
  .quad 0
  .quad 0x00af9a000000ffff       // 0x08: 64-bit code
  .quad 0x00cf92000000ffff       // 0x10: data
boot_gdt_ptr:
  .short boot_gdt_ptr - boot_gdt - 1
  .long boot_gdt
no_lm_msg:
  .asciz "boot: this CPU has no long mode; a 64-bit CPU is required\r\n"

  .section .boot.text, "ax"
  .code32
  .globl _start
_start:
  cli
  mov $boot_stack32, %esp
  mov %eax, %edi                 // multiboot2 magic, kept for kmain
  mov %ebx, %esi                 // physical address of the boot information

  // Long mode present? CPUID 0x80000001 EDX bit 29 (Intel SDM vol. 2A, CPUID).
  mov $0x80000000, %eax
  cpuid
  cmp $0x80000001, %eax
  jb no_long_mode
  mov $0x80000001, %eax
  cpuid
  test $(1 << 29), %edx
  jz no_long_mode
  mov %edx, %ebp                 // keep the feature bits: NX is bit 20

  // Zero the tables: .boot.bss is not guaranteed to be cleared by the loader.
  push %edi
  mov $boot_pml4, %edi
  mov $((boot_tables_end - boot_pml4) / 4), %ecx
  xor %eax, %eax
  rep stosl
  pop %edi

  movl $(boot_pdpt_lo + PTE_P + PTE_W), boot_pml4
  movl $(boot_pdpt_hi + PTE_P + PTE_W), boot_pml4 + 511 * 8
  movl $(boot_pd + PTE_P + PTE_W), boot_pdpt_lo
  movl $(boot_pd + PTE_P + PTE_W), boot_pdpt_hi + 510 * 8
  xor %ecx, %ecx
1:
  mov %ecx, %eax
  shl $21, %eax
  or $(PTE_P + PTE_W + PTE_PS), %eax
  mov %eax, boot_pd(, %ecx, 8)
  inc %ecx
  cmp $512, %ecx
  jne 1b

  // PAE, then EFER.LME (and NXE when the CPU has NX), then paging (SDM vol. 3A, 10.8.5).
  mov %cr4, %eax
  or $(1 << 5), %eax
  mov %eax, %cr4
  mov $boot_pml4, %eax
  mov %eax, %cr3
  mov $EFER, %ecx
  rdmsr
  or $EFER_LME, %eax
  test $(1 << 20), %ebp
  jz 2f
  or $EFER_NXE, %eax
2:
  wrmsr
  mov %cr0, %eax
  or $((1 << 31) | (1 << 16) | 1), %eax   // PG, WP (kernel honours read-only), PE
  mov %eax, %cr0

  lgdt boot_gdt_ptr
  ljmp $0x08, $long_entry

no_long_mode:
  mov $no_lm_msg, %esi
3:
  lodsb
  test %al, %al
  jz 5f
  mov %al, %bl
  mov $0x3fd, %dx                // COM1 line status: wait for an empty transmitter
4:
  in %dx, %al
  test $0x20, %al
  jz 4b
  mov $0x3f8, %dx
  mov %bl, %al
  out %al, %dx
  jmp 3b
5:
  hlt
  jmp 5b

  .code64
long_entry:
  mov $0x10, %ax
  mov %ax, %ds
  mov %ax, %es
  mov %ax, %ss
  xor %ax, %ax
  mov %ax, %fs
  mov %ax, %gs
  movabs $(boot_stack + BOOT_STACK_SIZE), %rsp
  xor %ebp, %ebp                 // ends the frame-pointer chain for backtraces
  movabs $kmain, %rax
  call *%rax
6:
  hlt
  jmp 6b

  .section .bss
  .balign 4096
  .globl boot_stack
boot_stack:
  .skip BOOT_STACK_SIZE
