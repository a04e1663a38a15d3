// pipeproc: pipes between processes (fork): a child's output read to end of file once it has
// exited, 200 round trips through two pipes, a pipeline of two children joined by dup2 as a
// shell joins them (end of file only when every copy of the write end is closed), poll woken
// by another process and POLLHUP after its exit, and a child killed by SIGPIPE as waitpid
// reports it. Exits 0 when all hold.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "pipeproc"
#include "check.h"

#define LINES 1000

// The status of pid's end: its exit code, or 128 + the signal that ended it.
static int
reap(pid_t pid)
{
  int st;
  if(waitpid(pid, &st, 0) != pid)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -2;
}

// A pipe that could not be made (ENOMEM under fault injection) ends its test: its fds
// would be whatever the array held, and poll(-1) on one of them could wait for ever.
static int
pipe_ok(int ok, const char *what)
{
  check(ok, what);
  return ok;
}

static void
child_output(void)
{
  int p[2];
  static char buf[8192];
  if(!pipe_ok(pipe(p) == 0, "pipe"))
    return;
  pid_t pid = fork();
  if(pid == 0) {
    close(p[0]);
    long sent = 0;
    for(int i = 0; sent < 256 * 1024; i++) {
      int n = 1 + (i * 37) % 5000;
      for(int k = 0; k < n; k++)
        buf[k] = (char)((sent + k) % 253);
      if(write(p[1], buf, n) != n)
        _exit(1);
      sent += n;
    }
    _exit(0);
  }
  close(p[1]);
  long got = 0, bad = 0, r;
  while((r = read(p[0], buf, sizeof(buf))) > 0) {
    for(long k = 0; k < r; k++)
      bad += buf[k] != (char)((got + k) % 253);
    got += r;
  }
  check(r == 0 && got >= 256 * 1024 && bad == 0, "a child's output, whole, then end of file");
  check(reap(pid) == 0, "the writer exited 0");
  close(p[0]);
}

static void
ping_pong(void)
{
  int to[2], from[2];
  if(!pipe_ok(pipe(to) == 0, "two pipes"))
    return;
  if(!pipe_ok(pipe(from) == 0, "two pipes")) {
    close(to[0]);
    close(to[1]);
    return;
  }
  pid_t pid = fork();
  if(pid == 0) {
    close(to[1]);
    close(from[0]);
    int v;
    while(read(to[0], &v, sizeof(v)) == sizeof(v)) {
      v++;
      if(write(from[1], &v, sizeof(v)) != sizeof(v))
        _exit(1);
    }
    _exit(7);   // end of file: the parent closed its end
  }
  close(to[0]);
  close(from[1]);
  int ok = 1;
  for(int i = 0; i < 200 && ok; i++) {
    int v = i * 2, back = -1;
    ok = write(to[1], &v, sizeof(v)) == sizeof(v) && read(from[0], &back, sizeof(back)) ==
         sizeof(back) && back == v + 1;
  }
  check(ok, "200 round trips between two processes");
  close(to[1]);
  check(reap(pid) == 7, "the child saw end of file and exited 7");
  close(from[0]);
}

// producer | consumer: each child's end of the pipe on its stdout or stdin by dup2.
static void
pipeline(void)
{
  int p[2];
  if(!pipe_ok(pipe(p) == 0, "pipe"))
    return;
  pid_t producer = fork();
  if(producer == 0) {
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    for(int i = 0; i < LINES; i++)
      printf("line %d\n", i);
    fflush(stdout);
    _exit(0);
  }
  pid_t consumer = fork();
  if(consumer == 0) {
    dup2(p[0], 0);
    close(p[0]);
    close(p[1]);
    char buf[1024];
    long lines = 0, r;
    while((r = read(0, buf, sizeof(buf))) > 0)
      for(long k = 0; k < r; k++)
        lines += buf[k] == '\n';
    _exit(r == 0 && lines == LINES ? 0 : 1);
  }
  close(p[0]);
  close(p[1]);   // else the consumer never sees end of file
  check(reap(producer) == 0, "the producer exited 0");
  check(reap(consumer) == 0, "the consumer counted every line, then end of file");
}

static void
poll_other_process(void)
{
  int p[2];
  if(!pipe_ok(pipe(p) == 0, "pipe"))
    return;
  pid_t pid = fork();
  if(pid == 0) {
    close(p[0]);
    usleep(20000);
    _exit(write(p[1], "hi", 2) == 2 ? 0 : 1);
  }
  close(p[1]);
  struct pollfd fd = { p[0], POLLIN, 0 };
  check(poll(&fd, 1, -1) == 1 && (fd.revents & POLLIN), "poll woken by another process");
  check(reap(pid) == 0, "the writer exited 0");
  char buf[4];
  check(read(p[0], buf, sizeof(buf)) == 2, "read its data");
  check(poll(&fd, 1, -1) == 1 && fd.revents == POLLHUP, "POLLHUP once it has exited");
  close(p[0]);
}

static void
sigpipe_child(void)
{
  int p[2];
  if(!pipe_ok(pipe(p) == 0, "pipe"))
    return;
  close(p[0]);   // no reader anywhere: the child inherits only the write end
  pid_t pid = fork();
  if(pid == 0) {
    signal(SIGPIPE, SIG_DFL);
    ssize_t r = write(p[1], "x", 1);
    _exit(r < 0 ? 2 : 3);   // not reached: SIGPIPE ends it
  }
  close(p[1]);
  check(reap(pid) == 128 + SIGPIPE, "a child writing to a broken pipe dies of SIGPIPE");
}

int
main(void)
{
  signal(SIGPIPE, SIG_IGN);
  child_output();
  ping_pong();
  pipeline();
  poll_other_process();
  sigpipe_child();
  printf("pipeproc: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 15;
}
