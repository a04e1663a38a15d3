// The kernel's table of contents: every subsystem's init, in boot order, one line each.
// kmain runs on the boot CPU from boot/entry.S; rest_init continues on a guarded stack.
#include "bench.h"
#include "bootinfo.h"
#include "bootmem.h"
#include "cmdline.h"
#include "fault_inject.h"
#include "fs.h"
#include "leakcheck.h"
#include "lockdep.h"
#include "mm.h"
#include "power.h"
#include "printk.h"
#include "process.h"
#include "profile.h"
#include "rcupdate.h"
#include "reclaim.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "vm.h"
#include "watchdog.h"
#include <asm/cpu.h>
#include <asm/paging.h>
#include <asm/serial.h>
#include <asm/traps.h>
#include <asm/x86.h>

struct cmdline kcmdline;

// Which of make's two images this is (the first console line names it): CONFIG_DEBUG is the
// debug image, with CONFIG_DEBUG_SPINLOCK and slab debugging from boot.
#ifdef CONFIG_DEBUG
#define KERNEL_IMAGE "debug"
#else
#define KERNEL_IMAGE "release"
#endif

// A bad word may hold any bytes: print them as '?' so the console stays readable.
static void
report_bad_word(const char *word, const char *why)
{
  char shown[CMDLINE_WORD_MAX + 1];
  size_t n = 0;
  for(; word[n] && n < CMDLINE_WORD_MAX; n++)
    shown[n] = word[n] >= 0x20 && word[n] < 0x7f ? word[n] : '?';
  shown[n] = 0;
  pr_err("cmdline: ignoring '%s': %s\n", shown, why);
}

static void __noreturn
rest_init(void)
{
  sched_init();                        // this context becomes the thread "init"
  smp_init();                          // ACPI, APICs, and every other CPU
  rtc_init();                          // the wall clock, with the FADT's century register
  local_irq_enable();                  // the tick and IPIs from here on
  rcu_init();                          // the grace-period thread
  hung_task_init();                    // khungtaskd: a thread asleep for ever panics
  vfs_init();                          // the root ramfs at /: inodes, dentries, mounts
  vma_lock_init();                     // vm.fault_lock=: faults lock their VMA, or mmap_sem
  percore_init();                      // vm.pt=: one page table per mm, or one per CPU
  ptlock_init();                       // vm.ptl=: a lock per page table, or one per mm
  munmap_init();                       // vm.munmap=: munmap zaps after mmap_sem, or under it
  populate_rootfs();                   // the initramfs archives unpacked into /, then freed
  reclaim_init();                      // watermarks and kswapd: memory pressure is handled
  leak_check_snapshot();               // what the allocators hold once boot is done
  fault_inject_init();                 // failslab=, failpage=: armed once boot is done
  profile_init();                      // profile=: the NMI sampler, and what it costs
  int failed = selftest_run();         // selftest=: the SELFTEST lines and summary
  failed += bench_run();               // bench=: the BENCH lines, then BENCH-DONE
  failed += run_init_program();        // init=: a user program, its status counts
  fault_inject_end();                  // FAULT-INJECT, and allocations succeed again
  failed += !leak_check();             // LEAK-CHECK: all of it given back
  failed += lockdep_end();             // the debug image: any LOCKDEP report fails the run
  kernel_end(failed == 0);             // END line, then leave QEMU
}

void
kmain(u32 magic, u64 mbi_phys)
{
  tsc_boot = rdtsc();                  // boot_us counts from here
  serial_init();                       // COM1: printk reaches the console from here on
  percpu_early_init();                 // %gs -> the boot CPU's area
  idt_init();                          // every vector has a handler ...
  idt_load();                          // ... so a fault now panics with a backtrace
  multiboot_parse(magic, mbi_phys);    // copy the memory map, command line and RSDP
  printk("kernel: booted by %s, command line '%s', image %s\n", bootinfo.loader,
         bootinfo.cmdline, KERNEL_IMAGE);   // the first line: which image this is
  virt_spin_lock_init();               // under a hypervisor spin_lock tests-and-sets (one CPU yet)
  cmdline_defaults(&kcmdline);         // bench=all selftest=none poweroff=yes panic=exit
  cmdline_parse(&kcmdline, bootinfo.cmdline, report_bad_word);  // bad words named, ignored
  bench_check_cmdline(report_bad_word); // and bench= names that no suite has
  tsc_init();                          // calibrate the TSC: timestamps from here on
  bootmem_init();                      // the early allocator over the memory map
  paging_init();                       // direct map, W^X kernel image, no page 0
  bootmem_print();                     // the memory map and every reserved range
  mm_init();                           // pages, slab: all allocations from here on
  cpu_init(this_cpu_info());           // GDT, TSS and IST stacks of the boot CPU
  this_cpu_info()->stack_top = stack_alloc(KSTACK_SIZE);   // a stack with a guard page ...
  call_on_stack(this_cpu_info()->stack_top, rest_init);    // ... replaces the boot stack
}
