// vsyscall: the legacy vsyscall page as Linux's vsyscall=xonly emulates it: gettimeofday, time
// and getcpu called at 0xffffffffff600000, 0x...400 and 0x...800 return what the system calls
// return; reading the page is SIGSEGV with SEGV_MAPERR at its address; jumping into its middle,
// or giving a call a pointer it faults on, SIGSEGV with SI_KERNEL; a pointer past the user
// half, SEGV_MAPERR at the pointer.
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "vsyscall"
#include "check.h"

#define VSYSCALL 0xffffffffff600000UL

typedef long (*gtod_fn)(struct timeval *, struct timezone *);
typedef long (*time_fn)(time_t *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

// Runs what in a child: the signal that ended it and its si_code and si_addr (written to a
// pipe by the handler), or 0 when it exited.
struct death {
  int sig, code;
  uintptr_t addr;
};
static int report_fd;

static void
on_segv(int sig, siginfo_t *si, void *uc)
{
  (void)uc;
  struct death d = { sig, si->si_code, (uintptr_t)si->si_addr };
  if(write(report_fd, &d, sizeof(d)) != sizeof(d))
    _exit(3);
  _exit(2);
}

static struct death
dies(void (*what)(void))
{
  struct death d = { 0 };
  int p[2];
  if(pipe(p) != 0)
    return d;
  pid_t c = fork();
  if(c == 0) {
    report_fd = p[1];
    struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
    sigaction(SIGSEGV, &sa, NULL);
    what();
    _exit(0);
  }
  close(p[1]);
  if(read(p[0], &d, sizeof(d)) != sizeof(d))
    d.sig = 0;
  close(p[0]);
  waitpid(c, NULL, 0);
  return d;
}

static void
read_page(void)
{
  volatile unsigned char *p = (volatile unsigned char *)VSYSCALL;
  (void)*p;
}

static void
call_middle(void)
{
  ((time_fn)(VSYSCALL + 0x100))(NULL);
}

static void
bad_pointer(void)
{
  ((gtod_fn)VSYSCALL)((struct timeval *)8, NULL);
}

static void
bad_time_pointer(void)
{
  ((time_fn)(VSYSCALL + 0x400))((time_t *)16);
}

#define HIGH 0x7fffffffffffff00UL   // below 2^63, past the user half's end

static void
high_pointer(void)
{
  ((gtod_fn)VSYSCALL)((struct timeval *)HIGH, NULL);
}

int
main(void)
{
  struct timeval a, b, c;
  struct timezone tz;
  check(gettimeofday(&a, NULL) == 0 && ((gtod_fn)VSYSCALL)(&b, &tz) == 0 &&
        gettimeofday(&c, NULL) == 0, "gettimeofday through the page returns 0");
  check(timercmp(&a, &b, <=) && timercmp(&b, &c, <=), "and a time between two system calls'");
  check(((gtod_fn)VSYSCALL)(NULL, NULL) == 0, "gettimeofday(NULL, NULL) through the page");
  time_t t0 = time(NULL), t1, r = ((time_fn)(VSYSCALL + 0x400))(&t1), t2 = time(NULL);
  check(r == t1 && t0 <= r && r <= t2, "time through the page: returned and stored");
  check(((time_fn)(VSYSCALL + 0x400))(NULL) >= t0, "time(NULL) through the page");
  unsigned cpu = ~0u, node = ~0u;
  check(((getcpu_fn)(VSYSCALL + 0x800))(&cpu, &node, NULL) == 0 && node == 0 &&
        cpu < (unsigned)sysconf(_SC_NPROCESSORS_CONF), "getcpu through the page");
  // Many calls in a row: the emulated `ret` keeps the stack balanced.
  long sum = 0;
  for(int i = 0; i < 1000; i++)
    sum += ((time_fn)(VSYSCALL + 0x400))(NULL) > 0;
  check(sum == 1000, "1000 calls in a row");
  struct death d = dies(read_page);
  check(d.sig == SIGSEGV && d.code == SEGV_MAPERR && d.addr == VSYSCALL,
        "reading the page: SIGSEGV, SEGV_MAPERR at its address");
  d = dies(call_middle);
  check(d.sig == SIGSEGV && d.code == SI_KERNEL && d.addr == 0,
        "a call into its middle: SIGSEGV, SI_KERNEL");
  d = dies(bad_pointer);
  check(d.sig == SIGSEGV && d.code == SI_KERNEL && d.addr == 0,
        "gettimeofday through the page with an unmapped pointer: SIGSEGV, SI_KERNEL");
  d = dies(bad_time_pointer);
  check(d.sig == SIGSEGV && d.code == SI_KERNEL, "time with an unmapped pointer: SIGSEGV");
  d = dies(high_pointer);
  check(d.sig == SIGSEGV && d.code == SEGV_MAPERR && d.addr == HIGH,
        "a pointer past the user half: SEGV_MAPERR at it");
  printf("vsyscall: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 10;
}
