// The IDT and the C side of every interrupt: exceptions panic, device and IPI vectors dispatch.
// Gates are interrupt gates (IF cleared on entry); #DF, NMI and #MC switch to their IST stacks.
#include "panic.h"
#include "preempt.h"
#include "process.h"
#include "printk.h"
#include "sched.h"
#include "tick.h"
#include "vm.h"
#include <asm/cpu.h>
#include <asm/traps.h>
#include <asm/uaccess.h>
#include <asm/vsyscall.h>
#include <asm/x86.h>

struct gate {
  u16 off_lo;
  u16 sel;
  u8 ist;
  u8 type;      // 0x8e: present, DPL 0, 64-bit interrupt gate
  u16 off_mid;
  u32 off_hi;
  u32 reserved;
} __packed;

static struct gate idt[256] __aligned(16);
static irq_handler_t handlers[256];

static const char *const exc_names[32] = {
  "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range exceeded",
  "invalid opcode", "device not available", "double fault", "coprocessor segment overrun",
  "invalid TSS", "segment not present", "stack-segment fault", "general protection fault",
  "page fault", "reserved", "x87 floating-point error", "alignment check", "machine check",
  "SIMD floating-point error", "virtualization exception", "control protection exception",
};

const char *
trap_name(u64 vector)
{
  if(vector < 32)
    return exc_names[vector] ? exc_names[vector] : "reserved exception";
  return "interrupt";
}

void
idt_init(void)
{
  for(int v = 0; v < 256; v++) {
    u64 a = vectors[v];
    idt[v] = (struct gate){ .off_lo = a & 0xffff, .sel = 0x08, .type = 0x8e,
                            .off_mid = (a >> 16) & 0xffff, .off_hi = a >> 32 };
  }
  idt[T_DBLFLT].ist = IST_DF;
  idt[T_NMI].ist = IST_NMI;
  idt[T_MCHK].ist = IST_MC;
  idt[T_DEBUG].ist = IST_DB;
}

void
idt_load(void)
{
  struct {
    u16 limit;
    u64 base;
  } __packed idtr = { sizeof(idt) - 1, (u64)idt };
  __asm__ volatile("lidt %0" ::"m"(idtr));
}

void
set_irq_handler(int vector, irq_handler_t fn)
{
  handlers[vector] = fn;
}


#define PF_WRITE (1UL << 1)   // page-fault error code bits (SDM vol. 3A, 4.7)
#define PF_INSTR (1UL << 4)

// A lower-half fault of a thread that adopted an mm is demand paging (mm/memory.c); one
// that paging cannot resolve, at an instruction listed in __ex_table, resumes at its
// fixup with -EFAULT. Paging may sleep, so only code that could (interrupts were on,
// not atomic) gets it; anything else goes straight to the fixup (Linux's
// faulthandler_disabled).
static bool
page_fault(struct trapframe *tf)
{
  u64 addr = read_cr2();
  struct thread *t = this_cpu_info()->curr;
  bool may_sleep = (tf->rflags & X86_EFLAGS_IF) && !in_interrupt() && this_cpu(preempt_count) == 0;
  // A present user page touched outside stac/clac is a kernel bug, not demand paging: paging
  // would find nothing to do and the access would fault again for ever (Linux's
  // smap_violation).
  if(smap_enabled && (tf->error & 1) && !(tf->rflags & (1UL << 18)) && addr < USER_END)
    return fixup_exception(tf);
  if(addr < USER_END && t && t->mm && may_sleep && !(tf->error & PF_INSTR)) {
    local_irq_enable();
    int err = handle_mm_fault(t->mm, addr, tf->error & PF_WRITE ? FAULT_WRITE : 0);
    local_irq_disable();
    if(err == 0 && t->proc)   // copy_to_user and friends fault for the process too
      __atomic_fetch_add(&t->proc->min_flt, 1, __ATOMIC_RELAXED);
    if(err == 0)
      return true;
  }
  return fixup_exception(tf);
}

// Linux's signal and si_code for each exception raised in ring 3, with si_addr the faulting
// instruction where Linux gives it (arch/x86/kernel/traps.c).
static int
user_trap_signal(struct trapframe *tf, int *code, u64 *addr)
{
  *addr = 0;
  *code = SI_KERNEL;
  switch(tf->vector) {
  case 0: *code = FPE_INTDIV; *addr = tf->rip; return SIGFPE;      // #DE
  case 16: case 19: *code = FPE_FLTINV; *addr = tf->rip; return SIGFPE;   // #MF, #XM
  case 1: case 3: return SIGTRAP;                                  // #DB, #BP
  case 6: *code = ILL_ILLOPN; *addr = tf->rip; return SIGILL;      // #UD
  case 17: *code = 1; return SIGBUS;                               // #AC: BUS_ADRALN
  default: return SIGSEGV;                   // #GP, #SS, #NP, bound, overflow: SI_KERNEL
  }
}

// SIGSEGV's si_code for an unresolved user page fault, as Linux's bad_area (no mapping:
// SEGV_MAPERR) and bad_area_access_error (a mapping that forbids the access: SEGV_ACCERR).
static int
segv_code(struct mm *mm, u64 addr)
{
  down_read(&mm->mmap_sem);
  struct vma *v = find_vma(mm, addr);
  bool mapped = v && v->start <= addr;
  up_read(&mm->mmap_sem);
  return mapped ? SEGV_ACCERR : SEGV_MAPERR;
}

// An exception in ring 3: demand paging, or a signal.
static void
user_trap(struct trapframe *tf)
{
  u64 v = tf->vector;
  if(v == T_MCHK || v == T_DBLFLT)
    panic_trap(tf, "%s in user mode", trap_name(v));
  if(v == T_PGFLT) {
    u64 addr = read_cr2();
    local_irq_enable();
    if(is_vsyscall_vaddr(addr)) {   // no mapping: an old program's call, or SIGSEGV
      struct vsyscall_segv segv;
      bool done = emulate_vsyscall(tf, addr, &segv);
      local_irq_disable();
      if(!done)
        user_fault(tf, SIGSEGV, segv.code, segv.addr);
      return;
    }
    enter_lazy_tlb();   // paging reaches pages by the direct map: shootdowns may wait for it
    int err = handle_mm_fault(current->mm, addr, (tf->error & PF_WRITE ? FAULT_WRITE : 0) |
                              (tf->error & PF_INSTR ? FAULT_INSTR : 0) | FAULT_USER);
    leave_lazy_tlb();
    local_irq_disable();
    if(err == 0) {
      __atomic_fetch_add(&current->proc->min_flt, 1, __ATOMIC_RELAXED);
      return;
    }
    if(err == -ENOMEM)
      user_oom_kill(tf);
    if(err == -EIO) {   // past a mapped file's end
      user_fault(tf, SIGBUS, BUS_ADRERR, addr);
      return;
    }
    local_irq_enable();
    int code = segv_code(current->mm, addr);
    local_irq_disable();
    user_fault(tf, SIGSEGV, code, addr);
    return;
  }
  int code;
  u64 addr;
  int sig = user_trap_signal(tf, &code, &addr);
  user_fault(tf, sig, code, addr);
}

void
trap(struct trapframe *tf)
{
  u64 v = tf->vector;
  if(v == T_NMI) {
    nmi_handler(tf);
    return;
  }
  if(handlers[v]) {
    this_cpu_info()->irq_count++;
    irq_enter();
    handlers[v](tf);
    irq_exit();
    if(user_mode(tf))   // preemption: only ring 3 is ever interrupted to switch
      exit_to_user_mode(tf);
    return;
  }
  if(user_mode(tf) && v < 32) {
    user_trap(tf);
    exit_to_user_mode(tf);
    return;
  }
  if(v == T_PGFLT && page_fault(tf))
    return;
  if(v == T_PGFLT)
    panic_trap(tf, "page fault at %#lx (%s, %s%s)", read_cr2(),
               tf->error & 1 ? "protection violation" : "not present",
               tf->error & 2 ? "write" : "read", tf->error & 16 ? ", instruction fetch" : "");
  if(v < 32)
    panic_trap(tf, "%s (error %#lx)", trap_name(v), tf->error);
  panic_trap(tf, "unexpected interrupt vector %lu", v);
}
