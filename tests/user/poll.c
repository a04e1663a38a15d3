// poll: poll, ppoll, select and pselect6 against Linux's results: a pipe's readiness as it
// fills, empties and loses its other end (POLLIN, POLLOUT, POLLHUP, POLLERR; readable and
// writable sets), POLLNVAL, ignored negative fds, files that are always ready, timeouts of
// zero, of some milliseconds (the time left written back) and none (a thread's write ends the
// wait), EBADF, EFAULT and EINVAL, and signals: EINTR, SA_RESTART, ppoll's mask, a SIGPIPE
// handler. At the end threads are left blocked in read, write, poll and select: returning from
// main must still end the process. Exits 0 when all hold.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "poll"
#include "check.h"

// The events of one fd after a zero-timeout poll (-1 if poll failed).
static int
events(int fd, short want)
{
  struct pollfd p = { fd, want, 0 };
  int r = poll(&p, 1, 0);
  return r < 0 ? -1 : p.revents;
}

static void
pipe_readiness(void)
{
  int p[2];
  char buf[4096];
  check(pipe(p) == 0, "pipe");
  struct pollfd fds[2] = { { p[0], POLLIN, 0 }, { p[1], POLLOUT, 0 } };
  check(poll(fds, 2, 0) == 1 && fds[0].revents == 0 && fds[1].revents == POLLOUT,
        "empty: writable, not readable");
  check(write(p[1], "x", 1) == 1, "write");
  check(poll(fds, 2, 0) == 2 && fds[0].revents == POLLIN, "with data: readable");
  check(events(p[0], 0) == 0, "no events asked: none reported");
  check(events(p[0], POLLIN | POLLRDNORM) == (POLLIN | POLLRDNORM), "POLLRDNORM");
  check(read(p[0], buf, 1) == 1 && events(p[0], POLLIN) == 0, "drained: not readable");

  fcntl(p[1], F_SETFL, O_NONBLOCK);
  while(write(p[1], buf, sizeof(buf)) > 0)
    ;
  check(events(p[1], POLLOUT) == 0, "full: not writable");
  check(read(p[0], buf, sizeof(buf)) == sizeof(buf) && events(p[1], POLLOUT) == POLLOUT,
        "a page read: writable again");
  check(events(p[0], POLLIN) == POLLIN, "full: readable");

  close(p[1]);
  check(events(p[0], POLLIN) == (POLLIN | POLLHUP), "writer gone, data left: POLLIN|POLLHUP");
  while(read(p[0], buf, sizeof(buf)) > 0)
    ;
  check(events(p[0], POLLIN) == POLLHUP, "writer gone, drained: POLLHUP");
  check(events(p[0], 0) == POLLHUP, "POLLHUP even when not asked");
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  struct timeval tv = { 0, 0 };
  check(select(p[0] + 1, &rd, NULL, NULL, &tv) == 1 && FD_ISSET(p[0], &rd),
        "select: end of file is readable");
  close(p[0]);

  check(pipe(p) == 0, "pipe");
  close(p[0]);
  check(events(p[1], POLLOUT) == (POLLOUT | POLLERR), "reader gone: POLLOUT|POLLERR");
  check(events(p[1], 0) == POLLERR, "POLLERR even when not asked");
  fd_set wr;
  FD_ZERO(&wr);
  FD_SET(p[1], &wr);
  check(select(p[1] + 1, NULL, &wr, NULL, &tv) == 1 && FD_ISSET(p[1], &wr),
        "select: a broken pipe is writable");
  close(p[1]);
}

static void
fd_kinds(void)
{
  int p[2], q[2];
  check(pipe(p) == 0 && pipe(q) == 0, "two pipes");
  check(write(q[1], "y", 1) == 1, "write to the second");
  int closed = 50;   // never opened here
  struct pollfd fds[4] = {
    { p[0], POLLIN, 7 }, { q[0], POLLIN, 7 }, { -1, POLLIN, 7 }, { closed, POLLIN, 7 },
  };
  check(poll(fds, 4, 0) == 2, "poll: two of four");
  check(fds[0].revents == 0 && fds[1].revents == POLLIN, "only the pipe with data");
  check(fds[2].revents == 0, "a negative fd is ignored");
  check(fds[3].revents == POLLNVAL, "a closed fd: POLLNVAL");

  int nul = open("/dev/null", O_RDWR);
  check(events(nul, POLLIN | POLLOUT) == (POLLIN | POLLOUT), "/dev/null: always ready");
  int dir = open("/", O_RDONLY | O_DIRECTORY);
  check(events(dir, POLLIN | POLLOUT) == (POLLIN | POLLOUT), "a directory: always ready");
  check(events(1, POLLOUT) == POLLOUT, "stdout: writable");

  fd_set rd, wr;
  FD_ZERO(&rd);
  FD_ZERO(&wr);
  FD_SET(p[0], &rd);
  FD_SET(q[0], &rd);
  FD_SET(p[1], &wr);
  FD_SET(nul, &wr);
  int n = (nul > q[1] ? nul : q[1]) + 1;
  struct timeval tv = { 0, 0 };
  check(select(n, &rd, &wr, NULL, &tv) == 3, "select: three ready");
  check(!FD_ISSET(p[0], &rd) && FD_ISSET(q[0], &rd) && FD_ISSET(p[1], &wr) &&
        FD_ISSET(nul, &wr), "select: the right ones");
  FD_ZERO(&rd);
  FD_SET(closed, &rd);
  FAILS(select(closed + 1, &rd, NULL, NULL, &tv), EBADF);
  FAILS(select(-1, NULL, NULL, NULL, &tv), EINVAL);
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  struct timeval bad = { 0, -1 };
  FAILS(syscall(SYS_select, p[0] + 1, &rd, NULL, NULL, &bad), EINVAL);
  FAILS(syscall(SYS_select, p[0] + 1, (void *)8, NULL, NULL, &tv), EFAULT);
  close(nul);
  close(dir);
  for(int i = 0; i < 2; i++) {
    close(p[i]);
    close(q[i]);
  }
}

static void *
write_later(void *arg)
{
  usleep(20000);
  if(write(*(int *)arg, "late", 4) != 4)
    return (void *)1;
  return NULL;
}

static void
timeouts(void)
{
  int p[2];
  pthread_t t;
  check(pipe(p) == 0, "pipe");
  struct pollfd fd = { p[0], POLLIN, 0 };
  check(poll(&fd, 1, 0) == 0, "poll: timeout 0");
  check(poll(&fd, 1, 30) == 0 && fd.revents == 0, "poll: 30 ms pass");
  check(poll(NULL, 0, 10) == 0, "poll: no fds, a sleep");
  pthread_create(&t, NULL, write_later, &p[1]);
  check(poll(&fd, 1, -1) == 1 && fd.revents == POLLIN, "poll: no timeout, a write ends it");
  pthread_join(t, NULL);
  char buf[8];
  check(read(p[0], buf, sizeof(buf)) == 4, "read it");

  struct timespec ts = { 0, 20000000 };
  check(syscall(SYS_ppoll, &fd, 1, &ts, NULL, 8) == 0, "ppoll: 20 ms pass");
  check(ts.tv_sec == 0 && ts.tv_nsec == 0, "ppoll: no time left written back");
  pthread_create(&t, NULL, write_later, &p[1]);
  check(ppoll(&fd, 1, NULL, NULL) == 1 && fd.revents == POLLIN, "ppoll: no timeout");
  pthread_join(t, NULL);
  check(read(p[0], buf, sizeof(buf)) == 4, "read it");

  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(p[0], &rd);
  struct timeval tv = { 0, 20000 };
  check(syscall(SYS_select, p[0] + 1, &rd, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &rd),
        "select: 20 ms pass, the set cleared");
  check(tv.tv_sec == 0 && tv.tv_usec == 0, "select: no time left written back");
  FD_SET(p[0], &rd);
  pthread_create(&t, NULL, write_later, &p[1]);
  check(select(p[0] + 1, &rd, NULL, NULL, NULL) == 1 && FD_ISSET(p[0], &rd),
        "select: no timeout, a write ends it");
  pthread_join(t, NULL);
  check(read(p[0], buf, sizeof(buf)) == 4, "read it");
  FD_SET(p[0], &rd);
  ts = (struct timespec){ 0, 10000000 };
  check(pselect(p[0] + 1, &rd, NULL, NULL, &ts, NULL) == 0, "pselect: 10 ms pass");
  tv = (struct timeval){ 0, 10000 };
  check(select(0, NULL, NULL, NULL, &tv) == 0, "select: no fds, a sleep");

  // errors
  FAILS(syscall(SYS_poll, NULL, 1, 0), EFAULT);
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  FAILS(poll(&fd, rl.rlim_cur + 1, 0), EINVAL);
  ts = (struct timespec){ 0, 1000000000 };
  FAILS(syscall(SYS_ppoll, &fd, 1, &ts, NULL, 8), EINVAL);
  ts = (struct timespec){ -1, 0 };
  FAILS(syscall(SYS_ppoll, &fd, 1, &ts, NULL, 8), EINVAL);
  FAILS(syscall(SYS_ppoll, &fd, 1, (void *)8, NULL, 8), EFAULT);
  ts = (struct timespec){ 0, 0 };
  unsigned long mask = 0;
  FAILS(syscall(SYS_ppoll, &fd, 1, &ts, &mask, 4), EINVAL);
  check(syscall(SYS_ppoll, &fd, 1, &ts, &mask, 8) == 0, "ppoll with a mask");
  struct { void *ss; unsigned long len; } sig = { &mask, 4 };
  FAILS(syscall(SYS_pselect6, p[0] + 1, &rd, NULL, NULL, &ts, &sig), EINVAL);
  sig.len = 8;
  FD_SET(p[0], &rd);
  check(syscall(SYS_pselect6, p[0] + 1, &rd, NULL, NULL, &ts, &sig) == 0, "pselect6 + mask");
  close(p[0]);
  close(p[1]);
}

// Signals: a handler without SA_RESTART makes a blocked read, poll and select fail with
// EINTR; with SA_RESTART the read goes on and gets the data written later (poll never
// restarts after a handler, as Linux); ppoll's mask lets a blocked signal in for the wait
// only; a write to a broken pipe runs the SIGPIPE handler and fails with EPIPE.
static int ipipe[2];
static volatile int handled, which;
static long result, result_errno;
static volatile int finished;

static void
on_signal(int sig)
{
  handled++;
  which = sig;
}

static void *
interrupted_call(void *arg)
{
  char c;
  struct pollfd fd = { ipipe[0], POLLIN, 0 };
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(ipipe[0], &rd);
  long kind = (long)arg;
  errno = 0;
  result = kind == 0 ? read(ipipe[0], &c, 1)
         : kind == 1 ? poll(&fd, 1, -1)
         : select(ipipe[0] + 1, &rd, NULL, NULL, NULL);
  result_errno = errno;
  finished = 1;
  return NULL;
}

// Signals t until it has finished its call (a signal before it blocks only runs the handler).
static void
interrupt(pthread_t t)
{
  for(int i = 0; i < 500 && !finished; i++) {
    pthread_kill(t, SIGUSR1);
    usleep(10000);
  }
}

static void *
ppoll_unblocking(void *arg)
{
  sigset_t usr1, none, now;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigemptyset(&none);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  raise(SIGUSR1);   // pending: blocked
  int before = handled;
  struct pollfd fd = { ipipe[0], POLLIN, 0 };
  errno = 0;
  result = ppoll(&fd, 1, NULL, &none);
  result_errno = errno;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  finished = handled == before + 1 && sigismember(&now, SIGUSR1) ? 1 : 2;
  return NULL;
}

static void
interrupts(void)
{
  static const char *const what[] = { "read", "poll", "select" };
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGUSR1, &sa, NULL);
  check(pipe(ipipe) == 0, "pipe");
  for(long kind = 0; kind < 3; kind++) {
    pthread_t t;
    finished = 0;
    pthread_create(&t, NULL, interrupted_call, (void *)kind);
    interrupt(t);
    pthread_join(t, NULL);
    char msg[64];
    snprintf(msg, sizeof(msg), "a handler interrupts a blocked %s: EINTR", what[kind]);
    check(result == -1 && result_errno == EINTR && handled > 0, msg);
  }

  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t t;
  finished = 0;
  handled = 0;
  pthread_create(&t, NULL, interrupted_call, (void *)0);
  // Each signal waits for the handler of the one before: two sent while the thread has not
  // run yet (a vCPU the loaded host left idle for 10 ms) are one pending SIGUSR1, one handler.
  for(int i = 0; i < 5; i++) {
    int before = handled;
    pthread_kill(t, SIGUSR1);
    for(int w = 0; w < 5000 && handled == before; w++)
      usleep(1000);
    usleep(10000);   // and back in its read
  }
  check(write(ipipe[1], "r", 1) == 1, "write after the signals");
  pthread_join(t, NULL);
  if(result != 1 || handled != 5)
    printf("poll: SA_RESTART read returned %ld (errno %ld), %d handlers ran\n", result,
           result_errno, handled);
  check(result == 1 && handled == 5, "SA_RESTART: the read goes on and gets the data");

  finished = 0;
  pthread_create(&t, NULL, ppoll_unblocking, NULL);
  pthread_join(t, NULL);
  check(result == -1 && result_errno == EINTR && finished == 1,
        "ppoll's mask lets a pending signal in, the old mask comes back");

  sa.sa_flags = 0;
  sigaction(SIGPIPE, &sa, NULL);
  handled = 0;
  close(ipipe[0]);
  FAILS(write(ipipe[1], "x", 1), EPIPE);
  check(handled == 1 && which == SIGPIPE, "the SIGPIPE handler ran");
  close(ipipe[1]);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
}

// Threads that never wake by themselves: returning from main must end them all.
static int stuck[2], full[2];

static void *
stuck_read(void *arg)
{
  char c;
  return (void *)read(stuck[0], &c, 1);
}

static void *
stuck_write(void *arg)
{
  return (void *)write(full[1], "x", 1);
}

static void *
stuck_poll(void *arg)
{
  struct pollfd fd = { stuck[0], POLLIN, 0 };
  return (void *)(long)poll(&fd, 1, -1);
}

static void *
stuck_select(void *arg)
{
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(stuck[0], &rd);
  return (void *)(long)select(stuck[0] + 1, &rd, NULL, NULL, NULL);
}

static void
leave_stuck(void)
{
  static char page[4096];
  check(pipe(stuck) == 0 && pipe(full) == 0, "pipes for the stuck threads");
  fcntl(full[1], F_SETFL, O_NONBLOCK);
  while(write(full[1], page, sizeof(page)) > 0)
    ;
  fcntl(full[1], F_SETFL, 0);
  void *(*fns[])(void *) = { stuck_read, stuck_write, stuck_poll, stuck_select };
  for(int i = 0; i < 4; i++) {
    pthread_t t;
    check(pthread_create(&t, NULL, fns[i], NULL) == 0, "a thread that will be stuck");
  }
  usleep(20000);
}

int
main(void)
{
  signal(SIGPIPE, SIG_IGN);
  pipe_readiness();
  fd_kinds();
  timeouts();
  interrupts();
  leave_stuck();
  printf("poll: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 60;
}
