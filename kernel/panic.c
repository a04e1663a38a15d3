// panic: stop the other CPUs, print why with registers and a symbolized backtrace, end the run.
// Only the first CPU to panic reports; a panic inside the panic path ends the run at once.
#include <asm/cpu.h>
#include <asm/irqflags.h>
#include "panic.h"
#include "power.h"
#include "printk.h"
#include "smp.h"
#include <asm/stacktrace.h>
#include <stdarg.h>
#include "syscalls.h"
#include <asm/traps.h>
#include "vsprintf.h"

static int panic_cpu = -1;

bool
panic_in_progress(void)
{
  return READ_ONCE(panic_cpu) != -1;
}

static void __noreturn
vpanic(struct trapframe *tf, u64 rbp, const char *fmt, va_list ap)
{
  local_irq_disable();
  int me = smp_processor_id();
  int none = -1;
  if(!__atomic_compare_exchange_n(&panic_cpu, &none, me, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED)) {
    if(none == me) {   // the panic path itself faulted
      printk(KERN_EMERG "PANIC cpu=%d nested panic while panicking\n", me);
      printk(KERN_EMERG "END result=fail\n");
      machine_exit(false);
    }
    machine_halt();    // another CPU is reporting; stay out of its way
  }
  printk_panic_mode();
  smp_stop_others();

  char reason[256];
  vsnprintf(reason, sizeof(reason), fmt, ap);
  for(char *p = reason; *p; p++)   // the PANIC line is one line
    if(*p == '\n' || *p == '\r')
      *p = ' ';
  printk(KERN_EMERG "kernel panic on cpu %d: %s\n", me, reason);
  if(tf) {
    show_regs(tf);
    show_backtrace(tf->rbp, tf->rip, tf->rsp);
  } else {
    show_backtrace(rbp, 0, 0);
  }
#ifdef CONFIG_DEBUG
  syscall_history_show();
#endif
  printk(KERN_EMERG "PANIC cpu=%d %s\n", me, reason);
  kernel_end(false);
}

void
panic(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vpanic(NULL, (u64)__builtin_frame_address(0), fmt, ap);
}

void
panic_trap(struct trapframe *tf, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vpanic(tf, 0, fmt, ap);
}
