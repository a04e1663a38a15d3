// The system-call table of the Linux x86-64 ABI (arch/x86/entry/syscalls/syscall_64.tbl) and its
// dispatch; each call lives with its subsystem (doc/syscalls.md says where). An unknown number
// is -ENOSYS, named on the console once; rseq, which glibc probes and copes without, quietly.
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "string.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>

static long
sys_enosys(void)
{
  return -ENOSYS;
}

typedef long (*syscall_fn)(u64, u64, u64, u64, u64, u64);

// args: Linux's type of each argument in order, as far as the last 32-bit one: 'i' an int
// (pid_t, clockid_t), 'u' an unsigned int (an fd Linux takes as unsigned, uid_t, umode_t),
// '.' a full register (a pointer, size_t, long, off_t). The ABI leaves the upper half of a
// register that carries a 32-bit value undefined, and glibc passes an int as an int
// (RUSAGE_CHILDREN arrives in rdi as 0x00000000ffffffff), so each 32-bit argument is
// sign- or zero-extended from its low half before the call, as Linux's SYSCALL_DEFINE
// wrappers do (include/linux/syscalls.h, __SC_LONG and __SC_CAST).
struct syscall {
  syscall_fn fn;
  const char *name;
  const char *args;
};

// The cast through void (*)(void) is GCC's documented way to store functions of fewer
// arguments in one table; the x86-64 calling convention makes the extra ones harmless.
#define SYS(nr, fn, args) [nr] = { (syscall_fn)(void (*)(void))sys_##fn, #fn, args }
// A number whose call is another's function under its own name (fdatasync is fsync here).
#define ALIAS(nr, name, fn, args) [nr] = { (syscall_fn)(void (*)(void))sys_##fn, #name, args }
#define NR_SYSCALLS 440

static const struct syscall table[NR_SYSCALLS] = {
  SYS(0, read, "u"), SYS(1, write, "u"), SYS(2, open, ".iu"), SYS(3, close, "u"),
  SYS(4, stat, ""), SYS(5, fstat, "u"), SYS(6, lstat, ""), SYS(7, poll, ".ui"), SYS(8, lseek, "u.u"), SYS(9, mmap, ""),
  SYS(10, mprotect, ""), SYS(11, munmap, ""), SYS(12, brk, ""), SYS(13, rt_sigaction, "i"),
  SYS(14, rt_sigprocmask, "i"), SYS(15, rt_sigreturn, ""), SYS(16, ioctl, "uu"),
  SYS(17, pread64, "u"), SYS(18, pwrite64, "u"), SYS(19, readv, "u"), SYS(20, writev, "u"),
  SYS(21, access, ".i"), SYS(22, pipe, ""), SYS(23, select, "i"), SYS(24, sched_yield, ""),
  SYS(25, mremap, ""), SYS(26, msync, "..i"), SYS(27, mincore, ""), SYS(28, madvise, "..i"),
  SYS(29, shmget, "i.i"), SYS(30, shmat, "i.i"), SYS(31, shmctl, "ii"), SYS(32, dup, "u"), SYS(33, dup2, "uu"), SYS(34, pause, ""), SYS(35, nanosleep, ""),
  SYS(36, getitimer, "i"), SYS(37, alarm, "u"), SYS(38, setitimer, "i"),
  SYS(39, getpid, ""), SYS(40, sendfile, "ii"),
  SYS(41, socket, "iii"), SYS(42, connect, "i.i"), SYS(43, accept, "i"), SYS(44, sendto, "i..u.i"),
  SYS(45, recvfrom, "i..u"), SYS(46, sendmsg, "i.u"), SYS(47, recvmsg, "i.u"), SYS(48, shutdown, "ii"),
  SYS(49, bind, "i.i"), SYS(50, listen, "ii"), SYS(51, getsockname, "i"), SYS(52, getpeername, "i"),
  SYS(53, socketpair, "iii"), SYS(54, setsockopt, "iii.i"), SYS(55, getsockopt, "iii"),
  SYS(56, clone, ""), SYS(57, fork, ""), SYS(58, vfork, ""),
  SYS(59, execve, ""), SYS(60, exit, "i"), SYS(61, wait4, "i.i"), SYS(62, kill, "ii"),
  SYS(63, uname, ""), SYS(64, semget, "iii"), SYS(65, semop, "i.u"), SYS(66, semctl, "iii"),
  SYS(67, shmdt, ""), SYS(72, fcntl, "uu"), SYS(74, fsync, "u"),
  ALIAS(75, fdatasync, fsync, "u"), SYS(77, ftruncate, "u"),
  SYS(79, getcwd, ""), SYS(80, chdir, ""), SYS(81, fchdir, "u"),
  SYS(82, rename, ""), SYS(83, mkdir, ".u"),
  SYS(84, rmdir, ""), SYS(85, creat, ".u"), SYS(86, link, ""), SYS(87, unlink, ""), SYS(88, symlink, ""),
  SYS(89, readlink, "..i"), SYS(90, chmod, ".u"), SYS(91, fchmod, "uu"), SYS(92, chown, ".uu"),
  SYS(93, fchown, "uuu"), SYS(94, lchown, ".uu"), SYS(95, umask, "i"), SYS(96, gettimeofday, ""),
  SYS(97, getrlimit, "u"), SYS(98, getrusage, "i"), SYS(99, sysinfo, ""), SYS(102, getuid, ""),
  ALIAS(104, getgid, getuid, ""),
  ALIAS(107, geteuid, getuid, ""),
  ALIAS(108, getegid, getuid, ""), SYS(109, setpgid, "ii"),
  SYS(110, getppid, ""), SYS(111, getpgrp, ""), SYS(112, setsid, ""), SYS(121, getpgid, "i"),
  SYS(124, getsid, "i"), SYS(127, rt_sigpending, ""), SYS(128, rt_sigtimedwait, ""),
  SYS(130, rt_sigsuspend, ""), SYS(131, sigaltstack, ""), SYS(132, utime, ""),
  SYS(137, statfs, ""), SYS(138, fstatfs, "u"), SYS(157, prctl, "i"),
  SYS(158, arch_prctl, "i"), SYS(160, setrlimit, "u"), SYS(162, sync, ""), SYS(186, gettid, ""),
  SYS(188, setxattr, "....i"), SYS(189, lsetxattr, "....i"), SYS(190, fsetxattr, "u...i"),
  SYS(191, getxattr, ""), SYS(192, lgetxattr, ""), SYS(193, fgetxattr, "u"),
  SYS(194, listxattr, ""), SYS(195, llistxattr, ""), SYS(196, flistxattr, "u"),
  SYS(197, removexattr, ""), SYS(198, lremovexattr, ""), SYS(199, fremovexattr, "u"),
  SYS(200, tkill, "ii"), SYS(201, time, ""), SYS(202, futex, ".iu..u"),
  SYS(203, sched_setaffinity, "iu"), SYS(204, sched_getaffinity, "iu"),
  SYS(213, epoll_create, "i"), SYS(217, getdents64, "u.u"), SYS(218, set_tid_address, ""),
  SYS(219, restart_syscall, ""), SYS(220, semtimedop, "i.u"), SYS(221, fadvise64, "u..i"), SYS(227, clock_settime, "i"),
  SYS(228, clock_gettime, "i"), SYS(229, clock_getres, "i"), SYS(230, clock_nanosleep, "ii"),
  SYS(231, exit_group, "i"), SYS(232, epoll_wait, "i.ii"), SYS(233, epoll_ctl, "iii"),
  SYS(234, tgkill, "iii"), SYS(235, utimes, ""), SYS(238, set_mempolicy, "i"), SYS(239, get_mempolicy, ""),
  SYS(247, waitid, "ii.i"), SYS(257, openat, "i.iu"), SYS(258, mkdirat, "i.u"),
  SYS(260, fchownat, "i.uui"), SYS(261, futimesat, "i"), SYS(262, newfstatat, "i..i"),
  SYS(263, unlinkat, "i.i"), SYS(264, renameat, "i.i"), SYS(265, linkat, "i.i.i"),
  SYS(266, symlinkat, ".i"), SYS(267, readlinkat, "i..i"), SYS(268, fchmodat, "i.u"),
  SYS(269, faccessat, "i.i"), SYS(270, pselect6, "i"), SYS(271, ppoll, ".u"),
  SYS(273, set_robust_list, ""), SYS(288, accept4, "i..i"), SYS(280, utimensat, "i..i"), SYS(281, epoll_pwait, "i.ii"),
  SYS(291, epoll_create1, "i"), SYS(292, dup3, "uui"), SYS(293, pipe2, ".i"),
  SYS(302, prlimit64, "iu"), SYS(306, syncfs, "i"), SYS(309, getcpu, ""),
  SYS(316, renameat2, "i.i.u"), SYS(318, getrandom, "..u"), SYS(322, execveat, "i...i"),
  SYS(326, copy_file_range, "i.i..u"),
  SYS(332, statx, "i.uu"), ALIAS(334, rseq, enosys, ""),
  SYS(435, clone3, ""), SYS(436, close_range, "uuu"), SYS(439, faccessat2, "i.ii"),
};

static u64 reported[(NR_SYSCALL_NAMES + 63) / 64 + 1];

long
syscall_dispatch(struct trapframe *tf)
{
  u64 nr = tf->rax;
#ifdef CONFIG_DEBUG
  struct thread *me = current;
  u32 h = me->sys_hist_next++ % SYSCALL_HISTORY;
  me->sys_hist[h].nr = nr;
  u64 raw[6] = { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9 };
  memcpy(me->sys_hist[h].arg, raw, sizeof(raw));
#endif
  if(nr < NR_SYSCALLS && table[nr].fn) {
    u64 a[6] = { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9 };
    for(int i = 0; table[nr].args[i]; i++)
      if(table[nr].args[i] == 'i')
        a[i] = (u64)(s64)(s32)a[i];
      else if(table[nr].args[i] == 'u')
        a[i] = (u32)a[i];
    return table[nr].fn(a[0], a[1], a[2], a[3], a[4], a[5]);
  }
  u64 bit = MIN(nr, (u64)NR_SYSCALL_NAMES);   // every number past the table shares one bit
  if(!(__atomic_fetch_or(&reported[bit / 64], 1UL << (bit % 64), __ATOMIC_RELAXED) &
       (1UL << (bit % 64))))
    printk("syscall: %s[%d] called system call %lu (%s), not implemented: ENOSYS\n",
           current->proc->name, current->proc->pid, nr,
           nr < NR_SYSCALL_NAMES && syscall_names[nr] ? syscall_names[nr] : "unknown");
  return -ENOSYS;
}

#ifdef CONFIG_DEBUG
// For a panic report: every live user thread's last system calls, oldest first, as numbers, names
// and the six argument registers, so that a crash found by a fuzzer can be replayed. Reads
// the thread table without its lock: the other CPUs are stopped.
void
syscall_history_show(void)
{
  for(int i = 0; i < MAX_THREADS; i++) {
    struct thread *t = &threads[i];
    u32 n = READ_ONCE(t->sys_hist_next);
    if(t->state == T_FREE || t->state == T_DEAD || !t->proc || !n)
      continue;
    printk(KERN_EMERG "syscalls of %s[%d], oldest first:\n", t->name, t->tid);
    for(u32 k = n > SYSCALL_HISTORY ? n - SYSCALL_HISTORY : 0; k < n; k++) {
      const u64 *a = t->sys_hist[k % SYSCALL_HISTORY].arg;
      u64 nr = t->sys_hist[k % SYSCALL_HISTORY].nr;
      printk(KERN_EMERG "  %lu %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n", nr,
             nr < NR_SYSCALL_NAMES && syscall_names[nr] ? syscall_names[nr] : "?", a[0], a[1],
             a[2], a[3], a[4], a[5]);
    }
  }
}
#endif
