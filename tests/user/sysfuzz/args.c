// sysfuzz's arguments: random numbers, the raw system call, the value generator val() (valid
// and hostile values of each kind), badptr, and fixup() (what depends on another argument).
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "sysfuzz.h"

uint64_t
mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15UL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
  return x ^ (x >> 31);
}
static uint64_t rnd(struct ctx *c) { return c->r = mix(c->r); }
long pick(struct ctx *c, long n) { return (long)(rnd(c) % (uint64_t)n); }
int one_in(struct ctx *c, int n) { return pick(c, n) == 0; }

// The restorer a handler installed by the fuzzer returns through (SA_RESTORER, as glibc's).
extern char fz_restorer[];
__asm__(".text\nfz_restorer:\n\tmov $15, %eax\n\tsyscall\n\tud2\n");
void benign(int sig) { (void)sig; }

// Values wrong as pointers in every way hostile.c knows: kernel, non-canonical, the top page,
// a last byte that crosses TASK_SIZE, a PROT_NONE guard, read-only text, NULL.
static long
badptr(struct ctx *c)
{
  static const long v[] = { 0, 1, 0xfff, (long)0xffff888000000000UL, (long)0xffffffff80000000UL,
    0x800000000000L, 0x7ffffffff000L, 0x7fffffffffffL, (long)0x8000000000000000UL };
  switch(pick(c, 4)) {
  case 0: return (long)arena + pick(c, GUARD) * 4096;
  case 1: return (long)&badptr;
  default: return v[pick(c, sizeof v / sizeof v[0])];
  }
}

// Structures are built in the lower half of the thread's buffer; the upper half, with a guard
// page after it, is where the kernel reads and writes call data, so a huge length stops there.
static void *
st(struct ctx *c, size_t n)
{
  if(c->used + n > HALF)
    c->used = 0;
  void *p = c->buf + c->used;
  c->used += (n + 15) & ~15UL;
  return p;
}

static long
fd_of(struct ctx *c, int w)
{
  static const long bad[] = { -1, 64, 1023, 1024, 4096, 0x7fffffff, (long)0x80000000, -100 };
  int p = pick(c, 100);
  if(p < 80)
    return fds[pick(c, 24)];
  if(p < 83 && !w)
    return pick(c, 3);
  if(p < 95)
    return 3 + pick(c, 61);
  return bad[pick(c, 8)];
}

long
val(struct ctx *c, int k, long *room)
{
  switch(k) {
  case K_FD: return fd_of(c, 0);
  case K_FDW: { long fd = fd_of(c, 1); return fd >= 0 && fd < 3 ? 3 : fd; }
  case K_DIRFD:
    return one_in(c, 3) ? AT_FDCWD : fd_of(c, 0);
  case K_PATH:
    if(one_in(c, 16)) return badptr(c);
    return (long)(one_in(c, 3) ? paths_r[pick(c, npr)] : paths_w[pick(c, npw)]);
  case K_PATHW:
    if(one_in(c, 16)) return badptr(c);
    if(one_in(c, 32)) return (long)longpath;
    if(one_in(c, 32)) { char *e = c->buf + BUFSZ - 3; memcpy(e, "abc", 3); return (long)e; }
    return (long)paths_w[pick(c, npw)];
  case K_CWD: {
    static const char *sub[] = { "", "/d0", "/d1", "/d1/d2", "/f0", "/missing" };
    if(one_in(c, 16)) return badptr(c);
    char *p = st(c, 300);
    snprintf(p, 300, "%s%s", scratch, sub[pick(c, 6)]);
    return (long)p;
  }
  case K_SYMT: {
    // Targets stay inside the scratch directory: a link to / or .. would let a create escape.
    static const char *t[] = { "f0", "d0", "d0/f0", "l1", "missing", "l0", "" };
    return one_in(c, 16) ? badptr(c) : (long)t[pick(c, 7)];
  }
  case K_EXEC: {
    static const char *e[] = { "/test/bin/hello", "/test/bin/hello", "/nonexistent", "/dev/null", "/" };
    if(one_in(c, 8)) return badptr(c);
    return one_in(c, 2) ? (long)e[pick(c, 5)] : (long)paths_w[pick(c, npw)];
  }
  case K_BUF: case K_OUT: {
    if(one_in(c, 12)) { *room = 1L << 40; return badptr(c); }
    if(one_in(c, 8)) {   // the arena: racing munmap and mprotect make the copy fault
      long off = pick(c, BODY) * 4096 + (one_in(c, 4) ? pick(c, 4096) : 0);
      *room = BODY * 4096L - off;
      return (long)body + off;
    }
    long off = HALF + (one_in(c, 3) ? pick(c, HALF) : pick(c, 64) * 8);
    *room = BUFSZ - off;
    return (long)c->buf + off;
  }
  case K_OFF: case K_MOFF: {
    static const long v[] = { 0, 1, 4095, 4096, 1L << 31, 1L << 40, 0x7fffffffffffffffL, -1, -4096 };
    if(one_in(c, 6)) return v[pick(c, 9)];
    return k == K_MOFF ? pick(c, 64) * 4096 : pick(c, 1 << 20);
  }
  case K_MODE: return one_in(c, 8) ? (long)(uint32_t)rnd(c) : pick(c, 01000) | (one_in(c, 4) ? 07000 : 0);
  case K_UID: { static const long u[] = { 0, -1, 65534, 1000 }; return one_in(c, 5) ? (long)rnd(c) : u[pick(c, 4)]; }
  case K_INT: {
    static const long v[] = { 0, 1, -1, 2, 0x7fffffff, (long)-0x80000000L };
    return one_in(c, 4) ? (long)rnd(c) : one_in(c, 2) ? pick(c, 64) : v[pick(c, 6)];
  }
  case K_MSEC: { static const long v[] = { 0, 0, 1, 5, -1 }; return v[pick(c, 5)]; }
  case K_PID: case K_PGID: case K_TID: {
    // Only this run's processes, or numbers past any pid_max: never -1, never another user's.
    static const long bad[] = { 0x7ffffff0, (long)-0x80000000L, 0x7fffffff };
    int p = pick(c, 10);
    if(p == 0) return bad[pick(c, 3)];
    if(p == 1) return 0;
    if(p <= 4 || k == K_TID) { int t = tids[pick(c, wthreads)]; return t ? t : getpid(); }
    if(p <= 7) return getpid();
    int s = sh->pids[pick(c, MAXW)];
    return s ? s : getpid();
  }
  case K_SIG: {
    static const int ok[] = { 0, SIGUSR1, SIGUSR2, SIGCHLD, SIGWINCH, SIGURG, SIGCONT, SIGHUP,
      SIGALRM, SIGTERM, SIGINT, SIGIO, SIGPROF, SIGTSTP, 34, 50, 64 };
    static const long bad[] = { 65, -1, 1000, (long)-0x80000000L };
    int p = pick(c, 100);
    if(p < 90) return ok[pick(c, sizeof ok / sizeof ok[0])];
    if(p < 95) return 1 + pick(c, 64);
    return bad[pick(c, 4)];
  }
  case K_ADDR: case K_MADDR:
    if(one_in(c, 10)) return badptr(c);
    if(k == K_ADDR && one_in(c, 4))
      return (long)arena + pick(c, GUARD * 2 + BODY) * 4096;   // the guards: near, not in
    return (long)body + pick(c, BODY) * 4096 + (one_in(c, 16) ? 1 + pick(c, 4095) : 0);
  case K_MLEN: {
    static const long bad[] = { 0, 1, 4095, -4096, 1L << 47, 1L << 63, -1 };
    if(one_in(c, 10)) return bad[pick(c, 7)];
    return (1 + (one_in(c, 4) ? pick(c, BODY) : pick(c, 16))) * 4096 + (one_in(c, 16) ? 100 : 0);
  }
  case K_IOV: case K_POLLFD: {
    int n = 1 + pick(c, 8);
    *room = n;
    if(one_in(c, 16)) return badptr(c);
    long *v = st(c, n * 16);
    for(int i = 0; i < n; i++) {
      long r = 0;
      if(k == K_IOV) {
        v[2 * i] = val(c, K_BUF, &r);
        v[2 * i + 1] = one_in(c, 10) ? (one_in(c, 2) ? -1L : 1L << 40) : pick(c, 4096);
      } else {
        ((int *)v)[2 * i] = fd_of(c, 0);
        ((int *)v)[2 * i + 1] = one_in(c, 8) ? (int)rnd(c) : (int)(rnd(c) & 0x3f);
      }
    }
    return (long)v;
  }
  case K_IOVCNT: case K_NFDS: {
    static const long v[] = { 0, 1024, 1025, -1, 1L << 20 };
    return one_in(c, 8) ? v[pick(c, 5)] : *room;
  }
  case K_SELN: return one_in(c, 8) ? (one_in(c, 2) ? 1025 : -1) : pick(c, 65);
  case K_FDSET: {
    if(one_in(c, 4)) return one_in(c, 3) ? badptr(c) : 0;
    uint64_t *s = st(c, 128);
    memset(s, 0, 128);
    s[0] = rnd(c);
    return (long)s;
  }
  case K_TS: case K_TV: case K_TIMES: {
    static const long sec[] = { 0, 0, 0, 1, -1, 0x7fffffffffffffffL };
    if(one_in(c, 10)) return one_in(c, 2) ? badptr(c) : 0;
    long *t = st(c, 32);
    for(int i = 0; i < 4; i += 2) {
      t[i] = sec[pick(c, 6)];
      long ns = k == K_TV ? pick(c, 1000) : pick(c, 1000000);
      if(one_in(c, 10)) ns = k == K_TV ? 1000000 : 1000000000;
      if(k == K_TIMES && one_in(c, 3)) ns = one_in(c, 2) ? UTIME_NOW : UTIME_OMIT;
      t[i + 1] = ns;
    }
    return (long)t;
  }
  case K_SIGSET: {
    if(one_in(c, 10)) return one_in(c, 2) ? badptr(c) : 0;
    uint64_t *s = st(c, 16);
    s[0] = rnd(c) & ~(1UL << (WDSIG - 1));
    s[1] = rnd(c);
    return (long)s;
  }
  case K_SIGSZ: return one_in(c, 10) ? (one_in(c, 2) ? 16 : 4) : 8;
  case K_SIGACT: {
    if(one_in(c, 6)) return one_in(c, 2) ? badptr(c) : 0;
    long *a = st(c, 32);
    static const long fl[] = { SA_SIGINFO, SA_RESTART, SA_NODEFER, SA_RESETHAND, SA_ONSTACK,
      SA_NOCLDSTOP, SA_NOCLDWAIT };
    // A handler that cannot run (a bad address, no restorer, an alternate stack that a
    // munmap took) ends the worker at the next signal: rarely, or workers live no time.
    int h = pick(c, 64);
    a[0] = h < 8 ? (long)SIG_DFL : h < 40 ? (long)SIG_IGN : h < 63 ? (long)benign : badptr(c);
    a[1] = one_in(c, 64) ? 0 : 0x04000000;   // SA_RESTORER
    for(int i = 0; i < 7; i++)
      if(one_in(c, i == 3 || i == 4 ? 32 : 4))
        a[1] |= fl[i];
    a[2] = (long)fz_restorer;
    a[3] = rnd(c) & ~(1UL << (WDSIG - 1));
    return (long)a;
  }
  case K_PSMASK: {
    if(one_in(c, 3)) return 0;
    long *m = st(c, 16), r = 0;
    m[0] = val(c, K_SIGSET, &r);
    m[1] = val(c, K_SIGSZ, &r);
    return (long)m;
  }
  case K_FUTEX: {
    if(one_in(c, 10)) return badptr(c);
    if(one_in(c, 3))   // the shared file's pages: the same futex in every worker
      return (long)body + (512 + pick(c, 64)) * 4096 + pick(c, 4) * 4;
    return (long)c->buf + HALF + pick(c, 16) * 4 + (one_in(c, 16) ? 1 : 0);
  }
  case K_RLIMP: {
    static const long v[] = { 0, 1, 64, 1024, 4096, -1, 1L << 40 };
    if(one_in(c, 10)) return badptr(c);
    long *l = st(c, 16);
    l[0] = v[pick(c, 7)];
    l[1] = one_in(c, 2) ? -1 : v[pick(c, 7)];
    return (long)l;
  }
  case K_ARGV: {
    if(one_in(c, 10)) return one_in(c, 2) ? badptr(c) : 0;
    long *a = st(c, 24);
    a[0] = (long)"HOME=/";
    a[1] = one_in(c, 12) ? badptr(c) : 0;
    a[2] = 0;
    return (long)a;
  }
  case K_STACKT: {
    if(one_in(c, 6)) return one_in(c, 2) ? badptr(c) : 0;
    long *s = st(c, 24), r = 0;
    static const long fl[] = { 0, 0, 2 /* SS_DISABLE */, 1 << 31 /* SS_AUTODISARM */, 1 };
    static const long sz[] = { 8192, 16384, 2048, 0, -1 };
    s[0] = val(c, K_BUF, &r);
    ((int *)s)[2] = fl[pick(c, 5)];
    s[2] = sz[pick(c, 5)];
    return (long)s;
  }
  case K_CLARGS: {
    long *a = st(c, 88), r = 0;
    memset(a, 0, 88);
    for(int i = 0; i < 16; i++)
      if(one_in(c, 5))
        a[0] |= lists[L_CLONE - L_PROT].v[i];
    if(one_in(c, 4)) a[1] = val(c, K_OUT, &r);   // pidfd
    a[2] = val(c, K_OUT, &r);
    a[3] = val(c, K_OUT, &r);
    a[4] = one_in(c, 16) ? pick(c, 70) : SIGCHLD;
    if(one_in(c, 3)) { a[5] = (long)c->buf + HALF; a[6] = 4096; }
    return one_in(c, 16) ? badptr(c) : (long)a;
  }
  case K_CASZ: { static const long v[] = { 64, 80, 88, 88, 8, 4096 }; return v[pick(c, 6)]; }
  case K_ROBLEN: return one_in(c, 4) ? pick(c, 64) : 24;
  case K_IPCID: {   // one the workers made, of either kind, or not one
    int k = pick(c, 2), n = __atomic_load_n(&sh->nipc[k], __ATOMIC_RELAXED);
    if(n && !one_in(c, 8))
      return sh->ipc[k][pick(c, n < 4096 ? n : 4096)];
    return one_in(c, 2) ? -1 : pick(c, 1 << 20);
  }
  case K_SUN: {   // a socket name: the scratch directory's (bind may make it), abstract, or
                  // the family alone; never a path outside the scratch directory
    if(one_in(c, 12)) return badptr(c);
    struct sockaddr_un *a = st(c, sizeof(*a) + 16);
    memset(a, 0, sizeof(*a));
    a->sun_family = one_in(c, 10) ? (sa_family_t)pick(c, 50) : AF_UNIX;
    if(one_in(c, 3))
      snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "sysfuzz-%ld", pick(c, 4));
    else
      snprintf(a->sun_path, sizeof(a->sun_path), "%.90s/s%ld", scratch, pick(c, 4));
    return (long)a;
  }
  case K_SUNLEN: {   // the family alone, a name cut short, the whole size and past it; a cut
                     // keeps "<scratch>/s", so that no bind makes a name outside the scratch
                     // directory (a cut at the directory's own name would, once it is gone)
    enum { CUT = -2 };
    static const long v[] = { 0, 1, 2, 3, CUT, 110, 111, 128, 129, -1 };
    long n = v[pick(c, 10)];
    return n == CUT ? (long)(sizeof(sa_family_t) + strlen(scratch) + 2) : n;
  }
  case K_BRK: {
    long cur = raw(12, 0, 0, 0, 0, 0, 0);   // never below the break: glibc's heap is there
    return one_in(c, 4) ? badptr(c) : cur + pick(c, 16) * 4096;
  }
  case K_LEN: case K_SLEN: {
    static const long bad[] = { -1, 1L << 40, 1L << 63, 0x80000000L, 0 };
    long r = *room > (1L << 30) ? 4096 : *room;
    if(k == K_SLEN) return pick(c, 65536);   // sendfile copies to the end of a sparse file
    if(one_in(c, 10)) return bad[pick(c, 5)];
    return one_in(c, 8) ? r + 1 : pick(c, r + 1);
  }
  }
  if(k >= L_PROT && k < L_END) {
    const struct list *l = &lists[k - L_PROT];
    if(one_in(c, 32)) return one_in(c, 2) ? -1 : (long)(uint32_t)rnd(c);
    long v = l->nenum ? l->v[pick(c, l->nenum)] : 0;
    for(int i = l->nenum; i < l->n; i++)
      if(one_in(c, 4))
        v |= l->v[i];
    if(one_in(c, 8))
      v |= 1L << pick(c, 32);
    return v;
  }
  return 0;
}

// What no table kind can say: arguments that depend on another argument, and the few narrow
// exclusions that keep the console, the parent and the fuzzer itself alive (each says why).
// Whether the fuzzer may itself touch n bytes at p: only its own buffer, never the arena
// (a racing munmap, mprotect or ftruncate makes that a SIGSEGV or SIGBUS) nor a hostile value.
static int
mine(struct ctx *c, long p, long n)
{
  return p >= (long)c->buf && p + n <= (long)c->buf + BUFSZ;
}

void
fixup(struct ctx *c, const struct call *cl, long *a)
{
  long r = 0;
  // fds 0-2 are the parent's output too (natively a file: an lseek, ftruncate, MAP_SHARED or
  // a dup written at would overwrite the report): read, write, fstat, ioctl and poll only.
  for(int i = 0; i < 6; i++)
    if(cl->k[i] == K_FD && a[i] >= 0 && a[i] < 3 &&
       !(i == 0 && (cl->nr == 0 || cl->nr == 1 || cl->nr == 5 || cl->nr == 16)))
      a[i] = 3 + pick(c, 61);
  switch(cl->nr) {
  case 2: case 257: {   // open for reading may name any path; writing only the scratch dir's
    int i = cl->nr == 2 ? 0 : 1;
    if((a[i + 1] & 3) == O_RDONLY && !(a[i + 1] & (O_CREAT | O_TRUNC)) && one_in(c, 2))
      a[i] = val(c, K_PATH, &r);
    break;
  }
  case 265:   // linkat of an fd's own file (/dev/null) would give chmod a scratch name for it
    a[4] &= ~(long)AT_EMPTY_PATH;
    break;
  case 9: case 10: case 11: case 25: case 28: {
    // Inside the body a range ends at its end: past it are the guard and other mappings.
    if(a[0] >= (long)body && a[0] < (long)body_end && a[1] > 0 && a[1] < (1L << 46) &&
       a[0] + a[1] > (long)body_end)
      a[1] = (long)body_end - a[0];
    if(cl->nr == 25 && (a[3] & MREMAP_FIXED) && a[4] >= (long)body && a[4] < (long)body_end &&
       a[2] > 0 && a[2] < (1L << 46) && a[4] + a[2] > (long)body_end)
      a[2] = (long)body_end - a[4];
    // madvise(MADV_DONTNEED) of a range that reaches past TASK_SIZE empties every page above
    // the address, the worker's stacks included. Not a kernel bug: a program that asks DONTNEED
    // over its own stack dies of it, as on Linux when no VM_PFNMAP mapping stops the walk. It
    // gets an unaligned address (EINVAL) only because it killed most workers young.
    if(cl->nr == 28 && (unsigned long)a[0] < 0x7ffffffff000UL &&
       (unsigned long)a[1] > 0x7ffffffff000UL - a[0])
      a[0] = (long)body + 1;
    if(cl->nr == 28 && (a[2] == 100 || a[2] == 101))   // MADV_HWPOISON, MADV_SOFT_OFFLINE
      a[2] = 1000;
    break;
  }
  case 27: if(a[1] > 0 && a[1] < (1L << 46)) a[1] = a[1] > (long)BODY * 4096 ? BODY * 4096L : a[1]; break;
  case 13: if(a[0] == WDSIG) a[0] = WDSIG + 1;
    if(mine(c, a[1], 8) && *(long *)a[1] == (long)benign &&
       (a[0] == SIGSEGV || a[0] == SIGBUS || a[0] == SIGILL || a[0] == SIGFPE))
      *(long *)a[1] = (long)SIG_DFL;   // returning from these would fault again forever
    break;
  case 16:   // the console is the parent's too: only harmless requests on fds 0-2
    if(a[0] >= 0 && a[0] < 3) {
      long get = a[1] == TCSETS || a[1] == TCSETSW || a[1] == TCSETSF ? TCGETS :
                 a[1] == TIOCSWINSZ ? TIOCGWINSZ : 0;
      if(get)   // set exactly what is already set (into a hostile pointer: EFAULT both)
        raw(16, a[0], get, a[2], 0, 0, 0);
      if(a[1] == TIOCSPGRP)
        a[2] = mine(c, a[2], 4) ? (*(int *)a[2] = 0x7ffffff0, a[2]) : badptr(c);
      if(a[1] == TCFLSH) a[2] = one_in(c, 2) ? TCIFLUSH : 7;
      if(a[1] == TCSBRK) a[2] = 1;
      if(a[1] == TIOCSCTTY || a[1] == TIOCNOTTY || a[1] == FIONBIO) a[1] = TIOCGWINSZ;
    }
    break;
  case 1:   // the console: rarely, one short line, never the random data of a buffer
    if(a[0] >= 0 && a[0] < 3 && !one_in(c, 8)) a[0] = 3 + pick(c, 61);
    if(a[0] >= 0 && a[0] < 3) { a[1] = (long)"sysfuzz: console write\n"; a[2] = 23; }
    break;
  case 72:
    if(a[1] == F_SETOWN || a[1] == F_SETSIG || a[1] == 15 /* F_SETOWN_EX */) a[1] = F_GETFL;
    if(a[1] == F_SETFL) a[2] = (one_in(c, 2) ? O_NONBLOCK : 0) | (one_in(c, 3) ? O_APPEND : 0);
    if(a[1] == F_SETFL && a[0] >= 0 && a[0] < 3) a[1] = F_GETFL;   // shared with the parent
    if(a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC) a[2] = one_in(c, 4) ? a[2] : pick(c, 70);
    if(a[1] == F_GETLK || a[1] == F_SETLK || a[1] == F_SETLKW || a[1] == F_OFD_GETLK ||
       a[1] == F_OFD_SETLK) {
      short *fl = st(c, 32);
      fl[0] = pick(c, 4), fl[1] = pick(c, 4);
      ((long *)fl)[1] = pick(c, 8192), ((long *)fl)[2] = pick(c, 8192);
      ((int *)fl)[6] = 0;
      a[2] = one_in(c, 10) ? badptr(c) : (long)fl;
    }
    break;
  case 157:
    if(a[0] == PR_SET_NAME || a[0] == PR_GET_NAME) a[1] = val(c, K_OUT, &r);
    if(a[0] == 22 /* PR_SET_SECCOMP */ || a[0] == 35 /* PR_SET_MM */) a[0] = PR_GET_NAME;
    break;
  case 158:
    if(a[0] == 0x1002 && !one_in(c, 4))   // ARCH_SET_FS to the TLS it has, or a kernel address
      raw(158, 0x1003, (long)&a[1], 0, 0, 0, 0);
    else if(a[0] == 0x1002)
      a[1] = (long)0xffff888000000000UL;
    if(a[0] == 0x1012) a[0] = 0x1011;   // ARCH_SET_CPUID would make glibc's cpuid fault
    break;
  case 56:   // clone: exit signal in the low byte, SIGCHLD mostly so that waits reap it
    a[0] = (a[0] & ~0xffL) | (one_in(c, 16) ? pick(c, 70) : SIGCHLD);
    a[1] = one_in(c, 2) ? 0 : (long)c->buf + HALF;
    break;
  case 61: case 247:   // mostly WNOHANG: a child stopped by a fuzzed SIGSTOP would hold it
    if(!one_in(c, 4)) a[cl->nr == 61 ? 2 : 3] |= WNOHANG;
    if(cl->nr == 247 && !one_in(c, 8)) a[3] |= WEXITED;
    break;
  case 62: case 109:   // never the parent or its group (kill(0) included), never -1
    if(a[0] == -1 || a[0] == sh->ppid || a[0] == -sh->ppgrp ||
       (a[0] == 0 && getpgrp() == sh->ppgrp))
      a[0] = getpid();
    if(cl->nr == 109 && (a[1] == sh->ppgrp || a[1] < 0)) a[1] = 0;
    break;
  case 227:   // clock_settime: now, or a bad value; a jump would only confuse the log's reader
    if(mine(c, a[1], 16) && !one_in(c, 4))
      raw(228, a[0], a[1], 0, 0, 0, 0);
    break;
  }
}
