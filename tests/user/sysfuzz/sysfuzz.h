// sysfuzz's shared types (argument kinds, a call of the table, a thread's random state, the
// counts workers share with the parent) and what table.c, args.c and main.c give each other.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "../raw.h"

// Like trinity and syzkaller, each argument has a KIND that knows its valid values (an fd the
// worker opened, a mapping it made, a path in the scratch directory) and its hostile ones.
enum {
  K_0, K_FD, K_FDW, K_DIRFD, K_PATH, K_PATHW, K_CWD, K_SYMT, K_EXEC, K_BUF, K_LEN, K_SLEN,
  K_OUT, K_OFF, K_MOFF, K_MODE, K_UID, K_INT, K_MSEC, K_PID, K_PGID, K_TID, K_SIG, K_ADDR,
  K_MADDR, K_MLEN, K_IOV, K_IOVCNT, K_TS, K_TV, K_TIMES, K_SIGSET, K_SIGSZ, K_SIGACT, K_POLLFD,
  K_NFDS, K_SELN, K_FDSET, K_PSMASK, K_FUTEX, K_RLIMP, K_ARGV, K_STACKT, K_CLARGS, K_CASZ,
  K_ROBLEN, K_BRK, K_IPCID, K_SUN, K_SUNLEN,
  L_PROT, L_MAPFL, L_OFL, L_ATFL, L_WHENCE, L_FCNTL, L_IOCTL, L_MADV, L_MSYNC, L_MREMAP,
  L_WAIT, L_CLOCK, L_FUTEXOP, L_RLIM, L_PRCTL, L_ARCH, L_CLONE, L_SIGHOW, L_IDTYPE, L_GRND,
  L_RENAME, L_STATX, L_PIPE, L_CLOEXEC, L_TIMER, L_WHO, L_AMODE, L_XNAME, L_FADV, L_EPOP, L_IPCKEY, L_IPCFL, L_SHMAT, L_SHMCMD,
  L_SEMCMD, L_CLRANGE, L_MPOL, L_AF, L_SOCKTYPE, L_MSGFL, L_SOCKOPT, L_SHUT, L_END
};

// A list: the first nenum values are alternatives (one is taken), the rest flag bits (each
// taken a quarter of the time); an eighth of the time one random bit more, to reach the checks
// of unknown bits. The values are the real ones of each call (doc/syscalls.md, the man pages).
struct list { int nenum, n; long v[24]; };

// How a call runs: directly; fork-like (the child leaves at once, in assembly, touching no
// memory: it may share the parent's stack); or in a forked child whose exit status is the errno
// (execve, exit, rt_sigreturn: calls that would end the worker).
enum { H_DIRECT, H_FORK, H_CHILD };
struct call { int nr; const char *name; int w, how; unsigned char k[6]; };

// The table (table.c): NCALLS calls, the values of each L_ kind (lists[k - L_PROT]).
#define NCALLS 183
extern const struct call calls[NCALLS];
extern const struct list lists[L_END - L_PROT];

#define WDSIG 40          // the watchdog's poke: no mask or handler the fuzzer sets touches it
#define MAXW 32
#define MAXT 16
#define NRES 215          // per call: [0] success, [1..149] errno, [150 + s] child killed by s
#define BUFSZ 65536       // each thread's buffer: structures below HALF, call data above
#define HALF 32768
#define GUARD 16          // PROT_NONE pages around the arena's body
#define BODY 1024         // the arena's pages that mappings come and go in

// Counts, in a MAP_SHARED region the workers write and the parent reads.
struct shared {
  volatile int stop;
  int ppid, ppgrp;
  volatile int pids[MAXW];                // 0 once the worker is being reaped
  volatile unsigned long beat[MAXW];      // calls the worker finished
  unsigned long pokes;
  unsigned long res[NCALLS][NRES];
  // System V IPC objects the workers made: they outlive their makers, so the parent removes
  // them at the end (a leak check would see them otherwise). [0] segments, [1] semaphore sets.
  int nipc[2];
  int ipc[2][4096];
};
extern struct shared *sh;

// The run's paths (main sets them up) and the worker's state (main.c's), which values name.
extern char scratch[256];
extern char longpath[5000];
extern const char *paths_w[24], *paths_r[32];
extern int npw, npr;
extern int wthreads;
extern volatile int fds[24];
extern char *arena, *body, *body_end;
extern volatile int tids[MAXT];

// A thread's state while it draws a call: its random number, index, buffer and how much of
// the buffer's structure half is in use.
struct ctx { uint64_t r; int t; char *buf; size_t used; };

// args.c: random numbers, the handler, values and their fixup (the raw call: ../raw.h).
uint64_t mix(uint64_t x);
long pick(struct ctx *c, long n);
int one_in(struct ctx *c, int n);
void benign(int sig);
long val(struct ctx *c, int k, long *room);
void fixup(struct ctx *c, const struct call *cl, long *a);
