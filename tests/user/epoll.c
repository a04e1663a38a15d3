// epoll: the epoll calls against Linux's answers, on pipes: level-triggered, edge-triggered and
// one-shot reports, EPOLLOUT and EPOLLHUP, a sleeper woken by another thread's write, EINTR,
// epoll_pwait's mask, what a close removes, maxevents, poll of an epoll fd, and the errnos.
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define PROG "epoll"
#include "check.h"

static int
add(int ep, int fd, unsigned events, unsigned long data)
{
  struct epoll_event ev = { .events = events, .data.u64 = data };
  return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

// One epoll_wait with timeout ms: the count, the first event in *ev.
static int
wait1(int ep, struct epoll_event *ev, int ms)
{
  struct epoll_event evs[8];
  int n = epoll_wait(ep, evs, 8, ms);
  if(n > 0 && ev)
    *ev = evs[0];
  return n;
}

static void
errnos(void)
{
  int p[2], f = open("epoll.file", O_CREAT | O_RDWR | O_TRUNC, 0600);
  check(pipe(p) == 0 && f >= 0, "a pipe and a file");
  FAILS(epoll_create(0), EINVAL);
  FAILS(epoll_create(-1), EINVAL);
  FAILS(epoll_create1(1), EINVAL);
  int ep = epoll_create1(EPOLL_CLOEXEC), ep2 = epoll_create(1);
  check(ep >= 0 && ep2 >= 0 && fcntl(ep, F_GETFD) == FD_CLOEXEC && fcntl(ep2, F_GETFD) == 0,
        "epoll_create1(EPOLL_CLOEXEC) and epoll_create(1)");
  struct epoll_event ev = { .events = EPOLLIN };
  FAILS(epoll_ctl(999, EPOLL_CTL_ADD, p[0], &ev), EBADF);
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev), EBADF);
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev), EPERM);
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, open(".", O_RDONLY), &ev), EPERM);
  FAILS(epoll_ctl(p[1], EPOLL_CTL_ADD, p[0], &ev), EINVAL);
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL);
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], (struct epoll_event *)8), EFAULT);
  FAILS(epoll_ctl(ep, 7, p[0], &ev), EINVAL);
  FAILS(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), ENOENT);
  FAILS(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), ENOENT);
  check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "add the read end");
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST);
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  FAILS(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), EINVAL);
  ev.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT;
  FAILS(epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev), EINVAL);
  check(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], (struct epoll_event *)8) == 0,
        "EPOLL_CTL_DEL reads no event");
  struct epoll_event out[4];
  FAILS(epoll_wait(ep, out, 0, 0), EINVAL);
  volatile int minus = -1;   // (a constant -1 is a compile-time warning)
  FAILS(epoll_wait(ep, out, minus, 0), EINVAL);
  FAILS(epoll_wait(p[0], out, 4, 0), EINVAL);
  FAILS(epoll_wait(999, out, 4, 0), EBADF);
  FAILS(epoll_wait(ep, (struct epoll_event *)0xffffffffffff0000UL, 4, 0), EFAULT);
  close(ep);
  close(ep2);
  close(p[0]);
  close(p[1]);
  close(f);
  unlink("epoll.file");
}

static void
triggers(void)
{
  int a[2], b[2], c[2];
  check(pipe(a) == 0 && pipe(b) == 0 && pipe(c) == 0, "three pipes");
  int ep = epoll_create1(0);
  struct epoll_event ev;
  check(add(ep, a[0], EPOLLIN, 1) == 0 && add(ep, b[0], EPOLLIN | EPOLLET, 2) == 0 &&
        add(ep, c[0], EPOLLIN | EPOLLONESHOT, 3) == 0, "add level, edge, one-shot");
  check(wait1(ep, NULL, 0) == 0, "nothing ready");
  check(write(a[1], "x", 1) == 1 && wait1(ep, &ev, 0) == 1 && ev.events == EPOLLIN &&
        ev.data.u64 == 1, "level: a byte, EPOLLIN with the data");
  check(wait1(ep, &ev, 0) == 1 && ev.data.u64 == 1, "level: reported again while unread");
  char ch;
  check(read(a[0], &ch, 1) == 1 && wait1(ep, NULL, 0) == 0, "level: read, nothing ready");
  check(write(b[1], "x", 1) == 1 && wait1(ep, &ev, 0) == 1 && ev.data.u64 == 2,
        "edge: a byte, reported");
  check(wait1(ep, NULL, 0) == 0, "edge: not again while nothing new came");
  check(write(b[1], "y", 1) == 1 && wait1(ep, &ev, 0) == 1 && ev.data.u64 == 2,
        "edge: another byte, reported again");
  check(write(c[1], "x", 1) == 1 && wait1(ep, &ev, 0) == 1 && ev.data.u64 == 3,
        "one-shot: reported");
  check(write(c[1], "y", 1) == 1 && wait1(ep, NULL, 0) == 0, "one-shot: then disabled");
  struct epoll_event mod = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 4 };
  check(epoll_ctl(ep, EPOLL_CTL_MOD, c[0], &mod) == 0 && wait1(ep, &ev, 0) == 1 &&
        ev.data.u64 == 4, "one-shot: EPOLL_CTL_MOD arms it again, with new data");
  // maxevents: three ready, two asked.
  check(write(a[1], "x", 1) == 1 && write(b[1], "x", 1) == 1, "a and b ready");
  mod.events = EPOLLIN;
  check(epoll_ctl(ep, EPOLL_CTL_MOD, c[0], &mod) == 0, "c level-triggered");
  struct epoll_event evs[8];
  check(epoll_wait(ep, evs, 2, 0) == 2, "three ready, maxevents 2: two");
  check(epoll_wait(ep, evs, 8, 0) >= 2, "and the rest next time");
  // EPOLLOUT on a write end, full and not; EPOLLHUP when the writers are gone.
  int ep2 = epoll_create1(0);
  check(add(ep2, a[1], EPOLLOUT, 5) == 0 && wait1(ep2, &ev, 0) == 1 && ev.events == EPOLLOUT,
        "a write end with room: EPOLLOUT");
  fcntl(a[1], F_SETFL, O_NONBLOCK);
  static char big[65536];
  while(write(a[1], big, sizeof(big)) > 0)
    ;
  check(wait1(ep2, NULL, 0) == 0, "a full pipe: no EPOLLOUT");
  static char sink[65536];
  fcntl(a[0], F_SETFL, O_NONBLOCK);
  while(read(a[0], sink, sizeof(sink)) > 0)
    ;
  check(wait1(ep2, &ev, 0) == 1 && ev.events == EPOLLOUT, "emptied: EPOLLOUT again");
  close(b[1]);
  read(b[0], sink, sizeof(sink));
  check(epoll_ctl(ep, EPOLL_CTL_DEL, a[0], NULL) == 0 && epoll_ctl(ep, EPOLL_CTL_DEL, c[0], NULL) == 0,
        "a and c out of the set");
  check(wait1(ep, &ev, 0) == 1 && ev.events == EPOLLHUP && ev.data.u64 == 2,
        "no writer left: EPOLLHUP, asked for or not");
  close(ep);
  close(ep2);
  close(a[0]);
  close(a[1]);
  close(b[0]);
  close(c[0]);
  close(c[1]);
}

static int wake_fd;

static void *
writer(void *arg)
{
  (void)arg;
  usleep(100000);
  if(write(wake_fd, "w", 1) != 1)
    return (void *)1;
  return NULL;
}

static volatile int usr1;

static void
on_signal(int sig)
{
  if(sig == SIGUSR1)
    usr1++;
}

static void
sleeping(void)
{
  int p[2];
  check(pipe(p) == 0, "a pipe");
  int ep = epoll_create1(0);
  check(add(ep, p[0], EPOLLIN, 9) == 0, "add it");
  wake_fd = p[1];
  pthread_t t;
  struct epoll_event ev;
  check(pthread_create(&t, NULL, writer, NULL) == 0, "a thread that writes in 100 ms");
  check(wait1(ep, &ev, -1) == 1 && ev.data.u64 == 9, "a wait for ever, woken by its write");
  pthread_join(t, NULL);
  char ch;
  read(p[0], &ch, 1);
  check(wait1(ep, NULL, 30) == 0, "a 30 ms wait with nothing: 0");
  // A signal ends a wait with EINTR, SA_RESTART or not (epoll_wait(2)).
  struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
  sigaction(SIGALRM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  struct itimerval it = { .it_value = { 0, 50000 } };
  setitimer(ITIMER_REAL, &it, NULL);
  errno = 0;
  check(wait1(ep, NULL, 5000) == -1 && errno == EINTR, "SIGALRM with SA_RESTART: EINTR");
  // epoll_pwait's mask: SIGUSR1 blocked during the wait stays pending until it ends.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGUSR1);
  struct epoll_event evs[2];
  kill(getpid(), SIGUSR1);   // unblocked now: handled at once
  int before = usr1;
  sigprocmask(SIG_BLOCK, &mask, NULL);
  kill(getpid(), SIGUSR1);   // pending
  sigset_t none;
  sigemptyset(&none);
  sigaddset(&none, SIGUSR2);
  check(epoll_pwait(ep, evs, 2, 1000, &none) == -1 && errno == EINTR && usr1 == before + 1,
        "epoll_pwait with SIGUSR1 unblocked: the pending one interrupts it");
  kill(getpid(), SIGUSR1);
  check(epoll_pwait(ep, evs, 2, 20, &mask) == 0 && usr1 == before + 1,
        "epoll_pwait with SIGUSR1 blocked: it waits out its 20 ms");
  sigprocmask(SIG_UNBLOCK, &mask, NULL);
  check(usr1 == before + 2, "and the signal comes after");
  close(ep);
  close(p[0]);
  close(p[1]);
}

// An item belongs to the open file description: a close of one fd of two leaves it; the
// last close removes it, so the same fd number can be added again.
static void
closes(void)
{
  int p[2];
  check(pipe(p) == 0, "a pipe");
  int ep = epoll_create1(0);
  check(add(ep, p[0], EPOLLIN, 7) == 0, "add the read end");
  int d = dup(p[0]);
  struct epoll_event ev;
  check(close(p[0]) == 0 && write(p[1], "x", 1) == 1 && wait1(ep, &ev, 0) == 1 &&
        ev.data.u64 == 7, "closed, but a dup holds the description: still reported");
  check(close(d) == 0 && wait1(ep, NULL, 0) == 0, "the last close: gone");
  int q[2];
  check(pipe(q) == 0 && add(ep, q[0], EPOLLIN, 8) == 0, "a new pipe, maybe at the same fd: added");
  // poll(2) of the epoll fd: readable while an item is ready.
  struct pollfd pfd = { .fd = ep, .events = POLLIN };
  check(poll(&pfd, 1, 0) == 0, "poll of the epoll fd: not ready");
  check(write(q[1], "x", 1) == 1 && poll(&pfd, 1, 0) == 1 && pfd.revents == POLLIN,
        "poll of the epoll fd: POLLIN when an item is");
  close(ep);
  close(q[0]);
  close(q[1]);
  close(p[1]);
}

int
main(int argc, char **argv)
{
  const char *at = argc > 1 ? argv[1] : "/tmp";
  if(argc < 2 && mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("epoll: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  check(chdir(at) == 0, "chdir to the directory");
  errnos();
  triggers();
  sleeping();
  closes();
  printf("epoll: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 60;
}
