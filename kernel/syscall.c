// The system-call table of the Linux x86-64 ABI (arch/x86/entry/syscalls/syscall_64.tbl) and
// the calls about threads and identity. An unknown number is -ENOSYS, named on the
// console once; the calls glibc probes and copes without (rseq) are -ENOSYS quietly.
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "string.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

static long
sys_exit(u64 code)
{
  user_thread_exit((int)code);
}

static long
sys_exit_group(u64 code)
{
  process_exit_group((int)code);
}

static long
sys_enosys(void)
{
  return -ENOSYS;
}

static long
sys_arch_prctl(u64 code, u64 addr)
{
  struct thread *t = current;
  switch(code) {
  case ARCH_SET_FS:
    if(addr >= USER_END)
      return -EPERM;
    t->fsbase = addr;
    load_fsbase(addr);
    return 0;
  case ARCH_GET_FS:
    return put_user(t->fsbase, (u64 *)addr);
  // A kernel address is refused as Linux does (EPERM past TASK_SIZE_MAX); here it also keeps
  // the paranoid entries' test right: a negative GS base means the kernel's (vectors.S).
  case ARCH_SET_GS: {
    if(addr >= USER_END)
      return -EPERM;
    u64 irq = local_irq_save();   // thread and MSR agree when it is next switched out
    t->gsbase = addr;
    load_user_gsbase(addr);
    local_irq_restore(irq);
    return 0;
  }
  case ARCH_GET_GS:
    return put_user(t->gsbase, (u64 *)addr);
  default:
    return -EINVAL;
  }
}

#define PR_SET_NAME 15   // include/uapi/linux/prctl.h
#define PR_GET_NAME 16
#define PR_SET_CHILD_SUBREAPER 36   // orphans below come to this process (kernel/exit.c)
#define PR_GET_CHILD_SUBREAPER 37
#define TASK_COMM_LEN 16

// prctl(2): the thread's name (busybox reads it at start) and the child subreaper; other
// options are EINVAL, as Linux answers an option it does not know.
static long
sys_prctl(u64 option, u64 arg2)
{
  char name[TASK_COMM_LEN];
  switch(option) {
  case PR_SET_NAME: {
    long n = strncpy_from_user(name, (const char *)arg2, sizeof(name));
    if(n == -ENAMETOOLONG)   // Linux keeps the first 15 bytes of a longer name
      n = copy_from_user(name, (const char *)arg2, sizeof(name) - 1) ? -EFAULT : 0;
    if(n < 0)
      return -EFAULT;
    name[sizeof(name) - 1] = 0;
    strlcpy(current->name, name, sizeof(name));
    return 0;
  }
  case PR_GET_NAME:
    memset(name, 0, sizeof(name));
    strlcpy(name, current->name, sizeof(name));
    return copy_to_user((void *)arg2, name, sizeof(name)) ? -EFAULT : 0;
  case PR_SET_CHILD_SUBREAPER:
  case PR_GET_CHILD_SUBREAPER:
    return prctl_child_subreaper(option == PR_SET_CHILD_SUBREAPER, arg2);
  default:
    return -EINVAL;
  }
}

static long
sys_set_tid_address(u64 tidptr)
{
  current->clear_child_tid = (u32 *)tidptr;
  return current->tid;
}

// Remembered by glibc, used by the kernel only for robust mutexes of a dying thread: accepted.
static long
sys_set_robust_list(u64 head, u64 len)
{
  return len == 24 ? 0 : -EINVAL;
}

static long sys_getpid(void) { return current->proc->pid; }
static long sys_gettid(void) { return current->tid; }
static long sys_getuid(void) { return 0; }

static long
sys_sched_yield(void)
{
  yield();
  return 0;
}

typedef long (*syscall_fn)(u64, u64, u64, u64, u64, u64);

struct syscall {
  syscall_fn fn;
  const char *name;
};

// The cast through void (*)(void) is GCC's documented way to store functions of fewer
// arguments in one table; the x86-64 calling convention makes the extra ones harmless.
#define SYS(nr, fn) [nr] = { (syscall_fn)(void (*)(void))sys_##fn, #fn }
#define NR_SYSCALLS 436

static const struct syscall table[NR_SYSCALLS] = {
  SYS(0, read), SYS(1, write), SYS(2, open), SYS(3, close), SYS(5, fstat), SYS(8, lseek), SYS(9, mmap),
  SYS(10, mprotect), SYS(11, munmap), SYS(12, brk), SYS(13, rt_sigaction),
  SYS(14, rt_sigprocmask), SYS(15, rt_sigreturn), SYS(16, ioctl), SYS(17, pread64), SYS(18, pwrite64),
  SYS(19, readv), SYS(20, writev), SYS(21, access), SYS(24, sched_yield),
  SYS(25, mremap), SYS(26, msync), SYS(27, mincore), SYS(28, madvise), SYS(32, dup), SYS(33, dup2), SYS(35, nanosleep), SYS(39, getpid), SYS(56, clone),
  SYS(57, fork), SYS(58, vfork), SYS(59, execve), SYS(60, exit), SYS(61, wait4),
  SYS(62, kill), SYS(63, uname), SYS(72, fcntl), SYS(74, fsync),
  [75] = { (syscall_fn)(void (*)(void))sys_fsync, "fdatasync" },
  SYS(77, ftruncate), SYS(79, getcwd), SYS(80, chdir), SYS(83, mkdir), SYS(84, rmdir),
  SYS(85, creat), SYS(87, unlink), SYS(88, symlink), SYS(89, readlink), SYS(96, gettimeofday),
  SYS(97, getrlimit), SYS(98, getrusage), SYS(99, sysinfo), SYS(102, getuid),
  [104] = { (syscall_fn)(void (*)(void))sys_getuid, "getgid" },
  [107] = { (syscall_fn)(void (*)(void))sys_getuid, "geteuid" },
  [108] = { (syscall_fn)(void (*)(void))sys_getuid, "getegid" },
  SYS(109, setpgid), SYS(110, getppid), SYS(111, getpgrp), SYS(112, setsid),
  SYS(121, getpgid), SYS(124, getsid), SYS(127, rt_sigpending), SYS(128, rt_sigtimedwait),
  SYS(130, rt_sigsuspend), SYS(131, sigaltstack), SYS(157, prctl), SYS(158, arch_prctl), SYS(160, setrlimit),
  SYS(186, gettid),
  SYS(200, tkill), SYS(201, time), SYS(202, futex), SYS(203, sched_setaffinity),
  SYS(204, sched_getaffinity), SYS(217, getdents64), SYS(218, set_tid_address), SYS(219, restart_syscall), SYS(227, clock_settime), SYS(228, clock_gettime),
  SYS(229, clock_getres), SYS(230, clock_nanosleep), SYS(231, exit_group), SYS(234, tgkill), SYS(247, waitid),
  SYS(257, openat), SYS(258, mkdirat), SYS(262, newfstatat), SYS(263, unlinkat),
  SYS(266, symlinkat), SYS(267, readlinkat), SYS(269, faccessat), SYS(273, set_robust_list), SYS(292, dup3),
  SYS(302, prlimit64), SYS(309, getcpu), SYS(318, getrandom), SYS(322, execveat),
  [334] = { (syscall_fn)(void (*)(void))sys_enosys, "rseq" },
  SYS(435, clone3),
  // Pipes and readiness (kernel/sys_pipe.c, kernel/sys_poll.c).
  SYS(7, poll), SYS(22, pipe), SYS(23, select), SYS(270, pselect6), SYS(271, ppoll),
  SYS(293, pipe2),
  // Attributes (kernel/sys_attr.c).
  SYS(90, chmod), SYS(91, fchmod), SYS(92, chown), SYS(93, fchown), SYS(94, lchown),
  SYS(95, umask), SYS(162, sync), SYS(260, fchownat), SYS(268, fchmodat), SYS(306, syncfs),
  SYS(332, statx), SYS(132, utime), SYS(235, utimes), SYS(261, futimesat), SYS(280, utimensat),
  // Names and copies (kernel/sys_path.c, kernel/sys_file.c).
  SYS(82, rename), SYS(264, renameat), SYS(316, renameat2), SYS(40, sendfile),
};

static u64 reported[(NR_SYSCALL_NAMES + 63) / 64 + 1];

long
syscall_dispatch(struct trapframe *tf)
{
  u64 nr = tf->rax;
  if(nr < NR_SYSCALLS && table[nr].fn)
    return table[nr].fn(tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9);
  u64 bit = MIN(nr, (u64)NR_SYSCALL_NAMES);   // every number past the table shares one bit
  if(!(__atomic_fetch_or(&reported[bit / 64], 1UL << (bit % 64), __ATOMIC_RELAXED) &
       (1UL << (bit % 64))))
    printk("syscall: %s[%d] called system call %lu (%s), not implemented: ENOSYS\n",
           current->proc->name, current->proc->pid, nr,
           nr < NR_SYSCALL_NAMES && syscall_names[nr] ? syscall_names[nr] : "unknown");
  return -ENOSYS;
}
