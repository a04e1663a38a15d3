// x86-64 signal delivery: Linux's rt_sigframe on the user stack with the saved registers and
// FPU state (arch/x86/kernel/signal.c and signal_64.c, arch/x86/include/uapi/asm/sigcontext.h,
// include/uapi/asm-generic/ucontext.h), rt_sigreturn with its checks, and the restart of a
// system call a signal interrupted (-ERESTART*: rip back over the 2-byte syscall instruction).
#include "errno.h"
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "string.h"
#include "syscalls.h"
#include "vm.h"
#include <asm/fpu.h>
#include <asm/segment.h>
#include <asm/traps.h>
#include <asm/uaccess.h>
#include <asm/x86.h>

#define NR_restart_syscall 219

// uc_flags (arch/x86/include/uapi/asm/ucontext.h).
#define UC_FP_XSTATE         0x1
#define UC_SIGCONTEXT_SS     0x2
#define UC_STRICT_RESTORE_SS 0x4

// The software-reserved bytes 464..511 of the FXSAVE image in a signal frame say that an
// XSAVE image follows, of what size and with which features; MAGIC2 ends it (struct
// _fpx_sw_bytes, uapi/asm/sigcontext.h).
#define FP_XSTATE_MAGIC1      0x46505853u
#define FP_XSTATE_MAGIC2      0x46505845u
#define FP_XSTATE_MAGIC2_SIZE 4
#define FX_SW_OFFSET          464

struct fpx_sw_bytes {
  u32 magic1;
  u32 extended_size;   // the XSAVE image plus MAGIC2
  u64 xfeatures;
  u32 xstate_size;     // the XSAVE image
  u32 padding[7];
};
_Static_assert(sizeof(struct fpx_sw_bytes) == 48, "struct _fpx_sw_bytes");

// struct sigcontext (64-bit): glibc's mcontext_t gregs[] in the same order.
struct sigcontext64 {
  u64 r8, r9, r10, r11, r12, r13, r14, r15;
  u64 rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip;
  u64 eflags;
  u16 cs, gs, fs, ss;
  u64 err, trapno, oldmask, cr2;
  u64 fpstate;         // the FXSAVE/XSAVE image's user address, 0 if none
  u64 reserved1[8];
};
_Static_assert(sizeof(struct sigcontext64) == 256, "struct sigcontext");

struct ucontext64 {
  u64 uc_flags;
  u64 uc_link;
  struct user_stack uc_stack;
  struct sigcontext64 uc_mcontext;
  u64 uc_sigmask;
};

// What the handler finds at its rsp: the return address (sa_restorer: glibc's __restore_rt,
// "mov $15, %eax; syscall"), then the context and the siginfo (arch/x86/include/asm/sigframe.h).
struct rt_sigframe {
  u64 pretcode;
  struct ucontext64 uc;
  struct user_siginfo info;
};
_Static_assert(sizeof(struct rt_sigframe) == 440, "struct rt_sigframe");

// The flags rt_sigreturn may change (Linux's FIX_EFLAGS): the arithmetic ones, DF, TF, AC, RF.
#define FIX_EFLAGS 0x50dd5UL

bool planted_sigreturn_fpu;   // planted-signal-fpu: rt_sigreturn keeps the handler's FPU state

static bool
on_sig_stack(struct sigthread *s, u64 sp)
{
  return sp > s->ss_sp && sp - s->ss_sp <= s->ss_size;
}

static int
sas_ss_flags(struct sigthread *s, u64 sp)
{
  if(!s->ss_size)
    return SS_DISABLE;
  return on_sig_stack(s, sp) ? SS_ONSTACK : 0;
}

// The size of the FPU image in a frame: FXSAVE's 512 bytes, or the XSAVE area and MAGIC2.
static u64
fpu_frame_size(void)
{
  return fpu_xsave ? fpu_size + FP_XSTATE_MAGIC2_SIZE : 512;
}

// Writes this thread's FPU registers to fp in the user's stack, as Linux's
// copy_fpstate_to_sigframe. The registers are live on this CPU: saved first.
static int
save_fpu_to_frame(u64 fp)
{
  struct thread *t = current;
  u64 flags = local_irq_save();
  fpu_save(t->fpu);
  local_irq_restore(flags);
  struct fpx_sw_bytes sw;
  memset(&sw, 0, sizeof(sw));
  if(fpu_xsave) {
    sw.magic1 = FP_XSTATE_MAGIC1;
    sw.extended_size = fpu_size + FP_XSTATE_MAGIC2_SIZE;
    sw.xfeatures = fpu_xcr0;
    sw.xstate_size = fpu_size;
  }
  // t->fpu may be saved again meanwhile (a fault here sleeps), with the same contents.
  if(copy_to_user((void *)fp, t->fpu, fpu_xsave ? fpu_size : 512) ||
     copy_to_user((void *)(fp + FX_SW_OFFSET), &sw, sizeof(sw)))
    return -EFAULT;
  if(fpu_xsave && put_user(FP_XSTATE_MAGIC2, (u32 *)(fp + fpu_size)))
    return -EFAULT;
  return 0;
}

// The handler starts with the initial FPU state (Linux's fpu__clear_user_states).
static void
fpu_reset_user(void)
{
  struct thread *t = current;
  u64 flags = local_irq_save();
  fpu_init_state(t->fpu);
  fpu_restore(t->fpu);
  local_irq_restore(flags);
}

static int
setup_rt_frame(struct trapframe *tf, int sig, const struct k_sigaction *ka,
               const struct ksiginfo *info)
{
  struct thread *t = current;
  struct sigthread *s = t->sig;
  // x86-64 needs the restorer: there is no vDSO trampoline to return through (Linux fails
  // the same way).
  if(!(ka->flags & SA_RESTORER) || ka->handler >= USER_END)
    return -EFAULT;
  u64 sp = tf->rsp - 128;   // below the psABI's red zone
  bool onstack = on_sig_stack(s, sp);
  if((ka->flags & SA_ONSTACK) && sas_ss_flags(s, sp) == 0) {
    sp = s->ss_sp + s->ss_size;
    onstack = true;
  }
  u64 fp = (sp - fpu_frame_size()) & ~63UL;   // XSAVE images are 64-byte aligned
  // At the handler's entry rsp + 8 is 16-byte aligned, as after a call (psABI 3.2.2).
  u64 frame = ((fp - sizeof(struct rt_sigframe)) & ~15UL) - 8;
  if(frame >= USER_END || frame > sp || (onstack && !on_sig_stack(s, frame)))
    return -EFAULT;
  if(save_fpu_to_frame(fp))
    return -EFAULT;
  struct rt_sigframe f;
  memset(&f, 0, sizeof(f));
  f.pretcode = ka->restorer;
  f.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS | (fpu_xsave ? UC_FP_XSTATE : 0);
  f.uc.uc_stack.ss_sp = s->ss_sp;
  f.uc.uc_stack.ss_flags = sas_ss_flags(s, tf->rsp) | (s->ss_flags & SS_AUTODISARM);
  f.uc.uc_stack.ss_size = s->ss_size;
  struct sigcontext64 *sc = &f.uc.uc_mcontext;
  sc->r8 = tf->r8, sc->r9 = tf->r9, sc->r10 = tf->r10, sc->r11 = tf->r11;
  sc->r12 = tf->r12, sc->r13 = tf->r13, sc->r14 = tf->r14, sc->r15 = tf->r15;
  sc->rdi = tf->rdi, sc->rsi = tf->rsi, sc->rbp = tf->rbp, sc->rbx = tf->rbx;
  sc->rdx = tf->rdx, sc->rax = tf->rax, sc->rcx = tf->rcx, sc->rsp = tf->rsp;
  sc->rip = tf->rip;
  sc->eflags = tf->rflags;
  sc->cs = tf->cs;
  sc->ss = tf->ss;
  // The last fault's details, as Linux's thread.error_code, trap_nr and cr2.
  sc->err = s->fault_error;
  sc->trapno = s->fault_trapno;
  sc->cr2 = s->fault_cr2;
  u64 mask = s->restore_blocked ? s->saved_blocked : s->blocked;
  sc->oldmask = mask;
  sc->fpstate = fp;
  f.uc.uc_sigmask = mask;
  fill_siginfo(&f.info, info);
  if(copy_to_user((void *)frame, &f, sizeof(f)))
    return -EFAULT;
  // The handler's registers: handler(sig, &info, &uc), rax 0 for a varargs handler.
  tf->rdi = sig;
  tf->rsi = frame + __builtin_offsetof(struct rt_sigframe, info);
  tf->rdx = frame + __builtin_offsetof(struct rt_sigframe, uc);
  tf->rax = 0;
  tf->rsp = frame;
  tf->rip = ka->handler;
  tf->cs = SEG_UCODE;
  tf->ss = SEG_UDATA;
  tf->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
  if(s->ss_flags & SS_AUTODISARM) {
    s->ss_sp = s->ss_size = 0;
    s->ss_flags = 0;
  }
  fpu_reset_user();
  return 0;
}

// The frame's FPU image back into the thread's registers, checked first as XRSTOR and
// FXRSTOR would refuse it (#GP in the kernel): MXCSR's reserved bits, the XSAVE header.
// An image without the XSAVE magic is taken as FXSAVE only, the rest at its initial state
// (Linux's __fpu_restore_sig). -EFAULT for a bad image.
static int
restore_fpu_from_frame(u64 fp)
{
  struct thread *t = current;
  if(!fp) {
    fpu_reset_user();
    return 0;
  }
  if(READ_ONCE(planted_sigreturn_fpu))
    return 0;
  u8 *buf = (u8 *)__get_free_page(GFP_KERNEL);
  if(!buf)
    return -EFAULT;
  int err = -EFAULT;
  memset(buf, 0, fpu_size);
  if(copy_from_user(buf, (void *)fp, 512))
    goto out;
  if(fpu_xsave) {
    struct fpx_sw_bytes *sw = (struct fpx_sw_bytes *)(buf + FX_SW_OFFSET);
    u32 magic2;
    bool full = sw->magic1 == FP_XSTATE_MAGIC1 && sw->xstate_size == fpu_size &&
                sw->extended_size == fpu_size + FP_XSTATE_MAGIC2_SIZE &&
                !copy_from_user(buf + 512, (void *)(fp + 512), fpu_size - 512) &&
                !get_user(magic2, (u32 *)(fp + fpu_size)) && magic2 == FP_XSTATE_MAGIC2;
    if(!full) {
      memset(buf + 512, 0, fpu_size - 512);
      *(u64 *)(buf + 512) = 3;   // XSTATE_BV: x87 and SSE from the image, the rest initial
    }
    u64 *hdr = (u64 *)(buf + 512);   // XSTATE_BV, XCOMP_BV, reserved (SDM vol. 1, 13.4.2)
    if(hdr[0] & ~fpu_xcr0)
      goto out;
    for(int i = 1; i < 8; i++)
      if(hdr[i])
        goto out;
  }
  if(*(u32 *)(buf + 24) & ~fpu_mxcsr_mask)
    goto out;
  u64 flags = local_irq_save();
  memcpy(t->fpu, buf, fpu_size);
  fpu_restore(t->fpu);
  local_irq_restore(flags);
  err = 0;
out:
  free_page((unsigned long)buf);
  return err;
}

// Linux's signal_fault: the line for a frame rt_sigreturn cannot use, then SIGSEGV.
static long
bad_frame(struct trapframe *tf, u64 frame)
{
  struct process *p = current->proc;
  printk("%s[%d] bad frame in rt_sigreturn frame:%lx ip:%lx sp:%lx orax:%lx\n", p->name, p->pid,
         frame, tf->rip, tf->rsp, tf->error);
  force_sigsegv(0);
  tf->error = -1UL;
  return 0;
}

long
sys_rt_sigreturn(void)
{
  struct thread *t = current;
  struct sigthread *s = t->sig;
  struct trapframe *tf = user_regs(t);
  u64 frame = tf->rsp - 8;   // the handler's ret popped pretcode
  struct rt_sigframe f;
  if(copy_from_user(&f, (void *)frame, sizeof(f)))
    return bad_frame(tf, frame);
  const struct sigcontext64 *sc = &f.uc.uc_mcontext;
  // IRET to a non-canonical rip would fault in the kernel: refuse it here.
  if(sc->rip >= USER_END)
    return bad_frame(tf, frame);
  set_current_blocked(f.uc.uc_sigmask);
  tf->r8 = sc->r8, tf->r9 = sc->r9, tf->r10 = sc->r10, tf->r11 = sc->r11;
  tf->r12 = sc->r12, tf->r13 = sc->r13, tf->r14 = sc->r14, tf->r15 = sc->r15;
  tf->rdi = sc->rdi, tf->rsi = sc->rsi, tf->rbp = sc->rbp, tf->rbx = sc->rbx;
  tf->rdx = sc->rdx, tf->rax = sc->rax, tf->rcx = sc->rcx, tf->rsp = sc->rsp;
  tf->rip = sc->rip;
  tf->rflags = (tf->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
  tf->cs = SEG_UCODE;
  tf->ss = SEG_UDATA;
  tf->error = -1UL;   // orig_ax: what this returns is no system call's result to restart
  if(restore_fpu_from_frame(sc->fpstate))
    return bad_frame(tf, frame);
  // The alternate stack as it was when the signal came (restore_altstack), if still valid.
  const struct user_stack *st = &f.uc.uc_stack;
  if(!on_sig_stack(s, tf->rsp)) {
    u32 mode = (u32)st->ss_flags & ~SS_AUTODISARM;
    if(mode == SS_DISABLE || st->ss_size == 0) {
      s->ss_sp = s->ss_size = 0;
      s->ss_flags = 0;
    } else if(st->ss_size >= MINSIGSTKSZ) {
      s->ss_sp = st->ss_sp;
      s->ss_size = st->ss_size;
      s->ss_flags = (u32)st->ss_flags & SS_AUTODISARM;
    }
  }
  return tf->rax;
}

// A system call's frame (vector 256) whose orig_ax (the error slot, as in Linux's pt_regs)
// still holds its number: its result may be one of the -ERESTART* codes.
static bool
syscall_frame(const struct trapframe *tf)
{
  return tf->vector == 256 && (s64)tf->error >= 0;
}

static bool
restart_code(u64 rax)
{
  s64 r = (s64)rax;
  return r == -ERESTARTSYS || r == -ERESTARTNOINTR || r == -ERESTARTNOHAND ||
         r == -ERESTART_RESTARTBLOCK;
}

bool
signal_work(struct thread *t, const struct trapframe *tf)
{
  return signal_pending(t) || (syscall_frame(tf) && restart_code(tf->rax));
}

// -EINTR, or the call again: rip back over the syscall instruction with rax its number
// (restart_syscall for RESTARTBLOCK); Linux's handle_signal and arch_do_signal_or_restart.
static void
syscall_restart(struct trapframe *tf, const struct k_sigaction *ka)
{
  s64 r = (s64)tf->rax;
  if(!restart_code(tf->rax))
    return;
  if(ka && (r == -ERESTARTNOHAND || r == -ERESTART_RESTARTBLOCK ||
            (r == -ERESTARTSYS && !(ka->flags & SA_RESTART)))) {
    tf->rax = -EINTR;
    return;
  }
  tf->rax = !ka && r == -ERESTART_RESTARTBLOCK ? NR_restart_syscall : tf->error;
  tf->rip -= 2;
}

void
do_signal(struct trapframe *tf)
{
  bool syscall = syscall_frame(tf);
  struct k_sigaction ka;
  struct ksiginfo info;
  int sig;
  while((sig = get_signal(&ka, &info)) != 0) {
    if(syscall) {
      syscall_restart(tf, &ka);
      syscall = false;
    }
    if(setup_rt_frame(tf, sig, &ka, &info) == 0)
      signal_delivered(sig, &ka);
    else
      force_sigsegv(sig);
  }
  if(syscall)
    syscall_restart(tf, NULL);
  tf->error = -1UL;   // restarts are decided once
  restore_saved_sigmask();
}
