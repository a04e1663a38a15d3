// termios: the console as a terminal, from a program's side. Without arguments it checks what
// needs no typing (Linux's default termios, TCSETS/TCSETSW/TCSETSF round trips, window size,
// VMIN/VTIME reads with nothing typed, errnos) and exits 0 when all hold. With "interactive" it
// then runs the session tools/ttydrive.py types into: lines, erase, kill, EOF, raw mode, a
// read that signals interrupt (EINTR) or restart (SA_RESTART), ^\ to a handler, and ^C.
// A pseudo-terminal on the host (Linux) is the oracle for both.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define PROG "termios"
#include "check.h"

static void
say(const char *s)
{
  if(write(1, s, strlen(s)) < 0)
    exit(2);
}

static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// What holds with nothing typed.
static void
quiet_checks(void)
{
  struct termios t, u;
  char buf[16];
  check(isatty(0) && isatty(1), "isatty(0) and isatty(1)");
  check(tcgetattr(0, &t) == 0, "tcgetattr");
  check((t.c_iflag & (ICRNL | IXON)) == (ICRNL | IXON), "iflag ICRNL|IXON");
  check((t.c_oflag & (OPOST | ONLCR)) == (OPOST | ONLCR), "oflag OPOST|ONLCR");
  check((t.c_lflag & (ISIG | ICANON | ECHO | ECHOE | ECHOK | IEXTEN)) ==
        (ISIG | ICANON | ECHO | ECHOE | ECHOK | IEXTEN), "lflag ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN");
  check((t.c_cflag & CSIZE) == CS8 && (t.c_cflag & CREAD), "cflag CS8|CREAD");
  check(t.c_cc[VINTR] == 3 && t.c_cc[VQUIT] == 034 && t.c_cc[VERASE] == 0177 &&
        t.c_cc[VKILL] == 025 && t.c_cc[VEOF] == 4 && t.c_cc[VMIN] == 1 && t.c_cc[VTIME] == 0,
        "c_cc: ^C ^\\ DEL ^U ^D, VMIN 1, VTIME 0");

  // Round trips through each way of setting.
  u = t;
  u.c_lflag &= ~(ICANON | ECHO);
  u.c_cc[VMIN] = 0;
  u.c_cc[VTIME] = 0;
  check(tcsetattr(0, TCSANOW, &u) == 0, "tcsetattr TCSANOW");
  struct termios g;
  check(tcgetattr(0, &g) == 0 && !(g.c_lflag & (ICANON | ECHO)) && g.c_cc[VMIN] == 0,
        "TCSETS then TCGETS");
  // MIN 0, TIME 0: a poll, 0 with nothing typed.
  check(read(0, buf, sizeof(buf)) == 0, "read with VMIN 0 VTIME 0 returns 0");
  u.c_cc[VTIME] = 1;
  check(tcsetattr(0, TCSADRAIN, &u) == 0, "tcsetattr TCSADRAIN");
  double t0 = now();
  check(read(0, buf, sizeof(buf)) == 0, "read with VMIN 0 VTIME 1 returns 0");
  check(now() - t0 < 30, "VTIME 1 read ends");
  u.c_cc[VTIME] = 0;
  u.c_lflag |= ECHO;
  check(tcsetattr(0, TCSAFLUSH, &u) == 0, "tcsetattr TCSAFLUSH");
  check(tcgetattr(0, &g) == 0 && (g.c_lflag & ECHO) && g.c_cc[VTIME] == 0, "TCSETSF then TCGETS");
  check(tcsetattr(0, TCSANOW, &t) == 0, "termios restored");

  struct winsize ws, ws2 = { 30, 100, 0, 0 };
  check(ioctl(0, TIOCGWINSZ, &ws) == 0 && ws.ws_row == 24 && ws.ws_col == 80, "TIOCGWINSZ 24x80");
  check(ioctl(0, TIOCSWINSZ, &ws2) == 0, "TIOCSWINSZ");
  check(ioctl(0, TIOCGWINSZ, &ws2) == 0 && ws2.ws_row == 30 && ws2.ws_col == 100,
        "TIOCGWINSZ after TIOCSWINSZ");
  check(ioctl(0, TIOCSWINSZ, &ws) == 0, "window size restored");
  int n = -1;
  check(ioctl(0, FIONREAD, &n) == 0 && n == 0, "FIONREAD 0");
  check(tcflush(0, TCIFLUSH) == 0 && tcdrain(1) == 0, "tcflush, tcdrain");

  FAILS(ioctl(0, TCGETS, (void *)8), EFAULT);
  FAILS(ioctl(0, TCSETS, (void *)8), EFAULT);
  FAILS(ioctl(0, TIOCGWINSZ, (void *)-4096L), EFAULT);
  FAILS(tcflush(0, 7), EINVAL);
  FAILS(ioctl(0, 0x54ff, &n), ENOTTY);
  FAILS(ioctl(99, TCGETS, &t), EBADF);
}

static int
read_line(char *buf, size_t n)
{
  say("line> ");
  ssize_t r = read(0, buf, n - 1);
  if(r < 0)
    return -1;
  buf[r] = 0;
  if(r && buf[r - 1] == '\n')
    buf[--r] = 0;
  return r;
}

static volatile sig_atomic_t handled, stop_poking;
static pthread_t main_thread;

static void
on_signal(int sig)
{
  handled++;
  if(sig == SIGUSR2)
    say("handled\n");   // write(2) is async-signal-safe
}

// Signals the main thread every 200 ms until it says stop: one lands inside its read.
static void *
poke(void *arg)
{
  int sig = (int)(long)arg;
  while(!stop_poking) {
    usleep(200000);
    if(!stop_poking)
      pthread_kill(main_thread, sig);
    if(sig == SIGUSR2)
      break;   // one only: the restarted read then waits for typing
  }
  return NULL;
}

static void
catch(int sig, int flags)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sa.sa_flags = flags;
  sigaction(sig, &sa, NULL);
}

// A blocked read and signals: without SA_RESTART it fails with EINTR, with it the read goes on
// and returns the line typed after the handler ran; ^\ reaches a SIGQUIT handler.
static void
signal_steps(void)
{
  char buf[256], out[300];
  pthread_t th;
  main_thread = pthread_self();
  catch(SIGUSR1, 0);
  stop_poking = 0;
  pthread_create(&th, NULL, poke, (void *)(long)SIGUSR1);
  say("eintr> ");
  ssize_t r = read(0, buf, sizeof(buf));
  int e = errno;
  stop_poking = 1;
  pthread_join(th, NULL);
  say(r == -1 && e == EINTR ? "got eintr\n" : "got no eintr\n");

  catch(SIGUSR2, SA_RESTART);
  handled = 0;
  stop_poking = 0;
  pthread_create(&th, NULL, poke, (void *)(long)SIGUSR2);
  r = read_line(buf, sizeof(buf));
  pthread_join(th, NULL);
  snprintf(out, sizeof(out), "got restarted [%s] handled %d\n", buf, (int)handled);
  say(out);

  catch(SIGQUIT, 0);
  handled = 0;
  say("quit> ");
  while(!handled)   // until ^\ arrives
    __asm__ volatile("" ::: "memory");
  say("got sigquit\n");
  signal(SIGQUIT, SIG_DFL);
}

// The session the driver types into; each step prints what it got for the driver to compare.
static void
interactive(void)
{
  char buf[256], out[300];
  struct termios t, raw;
  pid_t pg = tcgetpgrp(0);
  check(pg > 0 && tcsetpgrp(0, pg) == 0, "tcgetpgrp, tcsetpgrp to itself");
  say("termios: ready\n");
  for(int i = 0; i < 3; i++) {   // a line; erase; kill
    int r = read_line(buf, sizeof(buf));
    snprintf(out, sizeof(out), "got [%s] %d\n", buf, r);
    say(out);
  }
  int r = read_line(buf, sizeof(buf));   // ^D at the start of a line
  say(r == 0 ? "got eof\n" : "got no eof\n");

  tcgetattr(0, &t);
  raw = t;
  raw.c_lflag &= ~(ICANON | ECHO);
  raw.c_cc[VMIN] = 3;
  raw.c_cc[VTIME] = 0;
  tcsetattr(0, TCSANOW, &raw);
  say("raw> ");
  size_t got = 0;
  while(got < 3) {   // VMIN 3: one read, unless the bytes arrive split
    ssize_t k = read(0, buf + got, 3 - got);
    if(k <= 0)
      break;
    got += k;
  }
  buf[got] = 0;
  snprintf(out, sizeof(out), "got raw [%s]\n", buf);
  say(out);
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 2;
  tcsetattr(0, TCSANOW, &raw);
  say(read(0, buf, sizeof(buf)) == 0 ? "got timeout\n" : "got no timeout\n");
  int fl = fcntl(0, F_GETFL);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  tcsetattr(0, TCSANOW, &raw);
  fcntl(0, F_SETFL, fl | O_NONBLOCK);
  r = read(0, buf, sizeof(buf));
  say(r == -1 && errno == EAGAIN ? "got eagain\n" : "got no eagain\n");
  fcntl(0, F_SETFL, fl);
  tcsetattr(0, TCSANOW, &t);
  // poll: nothing typed is not readable, the output always writable; then a typed line is.
  struct pollfd pfd[2] = { { 0, POLLIN, 0 }, { 1, POLLOUT, 0 } };
  r = poll(pfd, 2, 0);
  say(r == 1 && !pfd[0].revents && (pfd[1].revents & POLLOUT) ? "poll idle\n" : "poll not idle\n");
  say("poll> ");
  r = poll(pfd, 1, -1);
  int ready = r == 1 && (pfd[0].revents & POLLIN);
  r = read(0, buf, sizeof(buf) - 1);
  buf[r > 0 ? r - 1 : 0] = 0;
  snprintf(out, sizeof(out), "got polled [%s] %d\n", buf, ready);
  say(out);
  signal_steps();
  if(fails)
    exit(1);
  say("spinning\n");
  for(;;)   // until ^C
    __asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
  quiet_checks();
  if(argc > 1 && strcmp(argv[1], "interactive") == 0)
    interactive();
  printf("termios: %s\n", fails ? "failed" : "all checks passed");
  return fails != 0;
}
