// Ring 3 on x86-64: the SYSCALL MSRs, SMEP and SMAP, do_syscall_64 and the checks on the way
// back to user mode (reschedule, process exit), the per-thread state a switch carries (kernel
// stack, FPU, FS base), and a fault in user mode ending its process.
#include <asm/cpu.h>
#include "cpumask.h"
#include <asm/fpu.h>
#include "mm.h"
#include "panic.h"
#include "printk.h"
#include "process.h"
#include "rcupdate.h"
#include "sched.h"
#include "signal.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include "vm.h"
#include "watchdog.h"
#include <asm/x86.h>

void syscall_entry(void);   // entry.S

bool smap_enabled;          // CR4.SMAP on: user accesses need stac/clac (asm/uaccess.h)
static bool smep_enabled;

// Per CPU, from cpu_init. STAR: SYSCALL loads CS from bits 47:32 (SS = +8); SYSRET loads
// CS = bits 63:48 + 16 and SS = +8, with RPL 3 (SDM vol. 2B). FMASK clears IF (no interrupt
// before the stack switch), TF, DF, AC, NT and IOPL on entry, as Linux does.
void
cpu_user_init(struct cpu *c)
{
  bool boot = c->id == 0;
  wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
  wrmsr(MSR_STAR, ((u64)(SEG_UCODE32 & ~3) << 48) | ((u64)SEG_KCODE << 32));
  wrmsr(MSR_LSTAR, (u64)syscall_entry);
  wrmsr(MSR_FMASK, X86_EFLAGS_IF | X86_EFLAGS_TF | X86_EFLAGS_DF | X86_EFLAGS_AC |
                   X86_EFLAGS_NT | X86_EFLAGS_IOPL);
  wrmsr(MSR_KERNEL_GS_BASE, 0);   // the user's GS base until it is swapped in
  fpu_init_cpu(boot);
  // SMEP: the kernel never runs user pages; SMAP: it reads and writes them only inside
  // stac/clac (CPUID.(EAX=7,ECX=0):EBX bits 7 and 20; SDM vol. 3A, 4.6).
  u32 a, b, cx, d;
  cpuid(0, 0, &a, &b, &cx, &d);
  if(a >= 7) {
    cpuid(7, 0, &a, &b, &cx, &d);
    u64 cr4 = read_cr4();
    if(b & (1u << 7))
      cr4 |= CR4_SMEP;
    if(b & (1u << 20))
      cr4 |= CR4_SMAP;
    write_cr4(cr4);
    if(boot) {
      smep_enabled = b & (1u << 7);
      smap_enabled = b & (1u << 20);
    }
  }
  if(boot)
    printk("user: syscall entry %#lx, smep %s, smap %s\n", (u64)syscall_entry,
           smep_enabled ? "on" : "off", smap_enabled ? "on" : "off");
}

bool
user_mode(const struct trapframe *tf)
{
  return (tf->cs & 3) == 3;
}

void
load_fsbase(u64 base)
{
  wrmsr(MSR_FS_BASE, base);
}

// In the kernel the user's GS base waits in KERNEL_GS_BASE for the swapgs back to ring 3.
void
load_user_gsbase(u64 base)
{
  wrmsr(MSR_KERNEL_GS_BASE, base);
}

u64
elf_hwcap(void)
{
  u32 a, b, c, d;
  cpuid(1, 0, &a, &b, &c, &d);
  return d;
}

struct trapframe *
user_regs(struct thread *t)
{
  return (struct trapframe *)(t->stack_top - sizeof(struct trapframe));
}

// From schedule(), interrupts off, before switch_to. Ring 3's next entry on this CPU lands on
// next's stack (TSS rsp0 for interrupts, kstack for syscall_entry). A user thread's FPU
// registers are saved eagerly: nothing else in the kernel touches them in between.
void
switch_user_state(struct thread *prev, struct thread *next)
{
  struct cpu *c = this_cpu_info();
  c->tss.rsp[0] = next->stack_top;
  c->kstack = next->stack_top;
  if(prev->fpu)
    fpu_save(prev->fpu);
  if(next->fpu) {
    fpu_restore(next->fpu);
    wrmsr(MSR_FS_BASE, next->fsbase);
    wrmsr(MSR_KERNEL_GS_BASE, next->gsbase);
  }
}

bool planted_no_user_preempt;   // planted-user-no-preempt: ring 3 keeps its CPU

// The work before every return to ring 3, with interrupts off at the end so nothing can set
// need_resched between the check and the IRET/SYSRET (Linux's exit_to_user_mode_loop).
void
exit_to_user_mode(struct trapframe *tf)
{
  for(;;) {
    local_irq_disable();
    struct thread *t = current;
    if(thread_must_exit(t, t->proc)) {
      local_irq_enable();
      user_thread_exit(0);
    }
    if(signal_work(t, tf)) {
      local_irq_enable();
      do_signal(tf);
      continue;
    }
    if(!cpumask_test_cpu(t->cpu, &t->affinity)) {   // sched_setaffinity moved it
      int cpu = affinity_cpu(&t->affinity);
      if(cpu >= 0) {
        local_irq_enable();
        sched_migrate(cpu);
        continue;
      }
    }
    if(!need_resched() || READ_ONCE(planted_no_user_preempt))
      break;
    schedule();   // ring 3 is a quiescent state: preempting it holds nothing
  }
  // Every way a user rip is set (exec's entry, sigreturn, a handler, the instruction after a
  // syscall, which the never-mapped top page keeps below 2^47) gives a user address; a
  // non-canonical one would make IRET fault in ring 0 on Intel CPUs, where nothing fixes it
  // up (Linux's fixup_bad_iret): a kernel bug, caught here instead.
  if(tf->rip >= USER_END)
    panic("exit_to_user_mode: %s[%d] would return to rip %#lx, not a user address",
          current->name, current->tid, tf->rip);
}

// SYSRET only for a frame it can restore exactly; otherwise IRET. A non-canonical rip would
// make an Intel CPU raise #GP in ring 0 on the user's stack (CVE-2012-0217): Linux requires
// rip below TASK_SIZE_MAX, rcx == rip, r11 == rflags, the user selectors, and RF and TF clear.
static bool
sysret_ok(const struct trapframe *tf)
{
  return tf->rcx == tf->rip && tf->r11 == tf->rflags && tf->cs == SEG_UCODE &&
         tf->ss == SEG_UDATA && tf->rip < USER_STACK_TOP &&
         !(tf->rflags & (X86_EFLAGS_RF | X86_EFLAGS_TF));
}

// From syscall_entry with interrupts off, on the thread's own stack.
bool
do_syscall_64(struct trapframe *tf)
{
  local_irq_enable();
  tf->error = tf->rax;   // orig_ax, as Linux's pt_regs: a restart calls it again
  tf->rax = syscall_dispatch(tf);
  exit_to_user_mode(tf);
  return sysret_ok(tf);
}

// No page for a fault: the faulting process is the one killed, with SIGKILL and Linux's line
// (mm/oom_kill.c's "Out of memory: Killed process"); there is no other process to choose.
void
user_oom_kill(struct trapframe *tf)
{
  struct process *p = current->proc;
  printk("Out of memory: Killed process %d (%s) rss %lu pages\n", p->pid, p->name,
         READ_ONCE(p->mm->rss));
  process_kill(p, 9);
  local_irq_enable();
  user_thread_exit(0);
}

// A fault in ring 3 that paging did not resolve: the signal, to the program's handler if it
// has one that may run now. Otherwise Linux's console line, and the process ends as if
// killed by sig (show_signal_msg in arch/x86/mm/fault.c; do_trap's "traps:" line).
void
user_fault(struct trapframe *tf, int sig, int code, u64 addr)
{
  struct thread *t = current;
  struct process *p = t->proc;
  t->sig->fault_error = tf->error;
  t->sig->fault_trapno = tf->vector;
  if(tf->vector == T_PGFLT)
    t->sig->fault_cr2 = addr;
  if(sig_handler_installed(t, sig)) {
    force_sig_fault(sig, code, addr, tf->vector);
    return;
  }
  if(tf->vector == T_PGFLT)
    printk("%s[%d]: %s at %lx ip %016lx sp %016lx error %lx\n", p->name, p->pid,
           sig == SIGBUS ? "bus error" : "segfault", addr, tf->rip, tf->rsp, tf->error);
  else
    printk("traps: %s[%d] trap %s ip:%lx sp:%lx error:%lx\n", p->name, p->pid,
           trap_name(tf->vector), tf->rip, tf->rsp, tf->error);
  process_kill(p, sig | 0x80);   // each of these dumps core by default (signal(7))
  local_irq_enable();
  user_thread_exit(0);
}
