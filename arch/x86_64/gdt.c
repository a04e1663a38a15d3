// Segments: one GDT and TSS per CPU (the TSS holds that CPU's interrupt stacks), and loading %gs.
// Long mode ignores segment bases and limits except for %fs/%gs and the TSS (SDM vol. 3A, 3.2.4).
#include <asm/cpu.h>
#include <asm/paging.h>
#include <asm/traps.h>
#include <asm/x86.h>

#define IST_STACK_SIZE 8192

static void
set_tss_desc(u64 *gdt, struct tss *tss)
{
  u64 base = (u64)tss;
  u64 limit = sizeof(*tss) - 1;
  // A 16-byte system descriptor, type 9 = available 64-bit TSS (SDM vol. 3A, 8.2.3).
  gdt[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
           ((limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
  gdt[1] = base >> 32;
}

void
cpu_alloc_ist(struct cpu *c)
{
  c->tss.ist[IST_DF - 1] = stack_alloc(IST_STACK_SIZE);
  c->tss.ist[IST_NMI - 1] = stack_alloc(IST_STACK_SIZE);
  c->tss.ist[IST_MC - 1] = stack_alloc(IST_STACK_SIZE);
  c->tss.ist[IST_DB - 1] = stack_alloc(IST_STACK_SIZE);
}

void
cpu_init(struct cpu *c)
{
  c->self = c;
  c->gdt[0] = 0;
  c->gdt[1] = 0x00af9a000000ffff;   // kernel code: long mode, present, DPL 0
  c->gdt[2] = 0x00cf92000000ffff;   // kernel data
  c->gdt[3] = 0;
  // 32-bit user code: only its place counts (SYSRET to 64-bit mode takes CS = STAR[63:48] + 16).
  // It stays null, so ring 3 cannot far-jump into compatibility mode, where SYSCALL would go
  // through CSTAR, which nothing here handles.
  c->gdt[4] = 0;
  c->gdt[5] = 0x00cff2000000ffff;   // user data, DPL 3
  c->gdt[6] = 0x00affa000000ffff;   // 64-bit user code, DPL 3
  c->tss.iomap_base = sizeof(c->tss);   // no I/O bitmap
  if(!c->tss.ist[IST_DF - 1])
    cpu_alloc_ist(c);   // the boot CPU; APs' stacks are allocated before they start
  set_tss_desc(&c->gdt[SEG_TSS / 8], &c->tss);

  struct {
    u16 limit;
    u64 base;
  } __packed gdtr = { sizeof(c->gdt) - 1, (u64)c->gdt };
  __asm__ volatile("lgdt %0" ::"m"(gdtr));
  // Reload %cs with a far return, then the data segments and the task register.
  __asm__ volatile("pushq %0\n"
                   "leaq 1f(%%rip), %%rax\n"
                   "pushq %%rax\n"
                   "lretq\n"
                   "1:\n"
                   "movw %w1, %%ds\n"
                   "movw %w1, %%es\n"
                   "movw %w1, %%ss\n"
                   ::"i"(SEG_KCODE), "r"(SEG_KDATA) : "rax", "memory");
  __asm__ volatile("ltr %w0" ::"r"(SEG_TSS));
  // %gs:0 is c->self; writing %gs zeroes the base, so set the MSR after it.
  __asm__ volatile("movw %w0, %%gs" ::"r"(0));
  wrmsr(MSR_GS_BASE, (u64)c);
  idt_load();
  cpu_user_init(c);   // SYSCALL, the FPU, SMEP and SMAP (arch/x86_64/syscall.c, fpu.c)
}
