// Signal numbers, sigaction flags, sigaltstack and si_code values of the Linux x86-64 ABI
// (include/uapi/asm-generic/signal.h, signal-defs.h, siginfo.h): the one definition of each.
#pragma once

// Signal numbers (include/uapi/asm-generic/signal.h as x86-64 uses them).
#define SIGHUP    1
#define SIGINT    2
#define SIGQUIT   3
#define SIGILL    4
#define SIGTRAP   5
#define SIGABRT   6
#define SIGBUS    7
#define SIGFPE    8
#define SIGKILL   9
#define SIGUSR1   10
#define SIGSEGV   11
#define SIGUSR2   12
#define SIGPIPE   13
#define SIGALRM   14
#define SIGTERM   15
#define SIGSTKFLT 16
#define SIGCHLD   17
#define SIGCONT   18
#define SIGSTOP   19
#define SIGTSTP   20
#define SIGTTIN   21
#define SIGTTOU   22
#define SIGURG    23
#define SIGXCPU   24
#define SIGXFSZ   25
#define SIGVTALRM 26
#define SIGPROF   27
#define SIGWINCH  28
#define SIGIO     29
#define SIGPWR    30
#define SIGSYS    31
#define SIGRTMIN  32   // the kernel's; glibc keeps 32 and 33 for itself
#define NSIG      64   // _NSIG: signals 1..64, one bit each in a u64 set (sigsetsize 8)

// sigaction's sa_flags (include/uapi/asm-generic/signal-defs.h, arch/x86/include/uapi/asm/signal.h).
#define SA_NOCLDSTOP 0x00000001u
#define SA_NOCLDWAIT 0x00000002u
#define SA_SIGINFO   0x00000004u
#define SA_RESTORER  0x04000000u
#define SA_ONSTACK   0x08000000u
#define SA_RESTART   0x10000000u
#define SA_NODEFER   0x40000000u
#define SA_RESETHAND 0x80000000u

#define SIG_DFL 0UL
#define SIG_IGN 1UL

// rt_sigprocmask's how.
#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

// sigaltstack (include/uapi/linux/signal.h; MINSIGSTKSZ of arch/x86/include/uapi/asm/signal.h).
#define SS_ONSTACK    1
#define SS_DISABLE    2
#define SS_AUTODISARM (1u << 31)
#define MINSIGSTKSZ   2048

// si_code values (include/uapi/asm-generic/siginfo.h).
#define SI_USER     0
#define SI_KERNEL   0x80
#define SI_QUEUE    (-1)
#define SI_TKILL    (-6)
#define ILL_ILLOPN  2
#define ILL_PRVOPC  5
#define FPE_INTDIV  1
#define FPE_FLTINV  7
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRERR  2
#define TRAP_BRKPT  1
#define CLD_EXITED  1
#define CLD_KILLED  2
#define CLD_DUMPED  3
#define CLD_STOPPED 5
#define CLD_CONTINUED 6
