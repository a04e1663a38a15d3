// locks: fcntl's record locks against Linux's: what another process sees (F_GETLK), a conflict
// (EAGAIN), a sleeper woken, a deadlock refused, ranges split and joined, which close drops a
// POSIX lock and which an OFD lock, and the argument checks. Usage: locks [DIR], /tmp by default.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "locks"
#include "check.h"

// A range of the file as a struct flock (from SEEK_SET).
static struct flock
range(short type, off_t start, off_t len)
{
  return (struct flock){ .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
}

static int
lock(int fd, int cmd, short type, off_t start, off_t len)
{
  struct flock l = range(type, start, len);
  return fcntl(fd, cmd, &l);
}

// What another process, opening "f" afresh, is told: F_GETLK's answer for the range, or with
// set, whether its F_SETLK got the range (0) or the errno.
struct seen {
  struct flock l;
  int err;
};

static struct seen
other(short type, off_t start, off_t len, int set)
{
  struct seen s = { .l = range(type, start, len), .err = -1 };
  int p[2];
  if(pipe(p) != 0)
    return s;
  pid_t c = fork();
  if(c == 0) {
    int fd = open("f", O_RDWR);
    s.err = fd < 0 ? errno : fcntl(fd, set ? F_SETLK : F_GETLK, &s.l) == 0 ? 0 : errno;
    if(write(p[1], &s, sizeof(s)) != sizeof(s))
      _exit(1);
    _exit(0);
  }
  close(p[1]);
  int st;
  if(c < 0 || read(p[0], &s, sizeof(s)) != sizeof(s))
    s.err = -1;
  close(p[0]);
  if(c > 0)
    waitpid(c, &st, 0);
  return s;
}

// Whether another process is told of a lock of type over exactly [start, start + len) by pid.
static int
sees(short type, off_t start, off_t len, off_t at, pid_t pid)
{
  struct seen s = other(F_WRLCK, at, 1, 0);
  return s.err == 0 && s.l.l_type == type && s.l.l_whence == SEEK_SET &&
         s.l.l_start == start && s.l.l_len == len && s.l.l_pid == pid;
}

static int
free_at(off_t start, off_t len)
{
  struct seen s = other(F_WRLCK, start, len, 0);
  return s.err == 0 && s.l.l_type == F_UNLCK;
}

static void
posix_ranges(int fd)
{
  pid_t me = getpid();
  check(lock(fd, F_SETLK, F_WRLCK, 0, 100) == 0, "write-lock [0, 100)");
  struct flock l = range(F_WRLCK, 0, 100);
  check(fcntl(fd, F_GETLK, &l) == 0 && l.l_type == F_UNLCK, "an owner's own lock is no conflict");
  check(sees(F_WRLCK, 0, 100, 50, me), "another process sees it, with this pid");
  check(other(F_RDLCK, 99, 1, 1).err == EAGAIN, "and cannot take a part of it: EAGAIN");
  check(other(F_RDLCK, 100, 10, 1).err == 0, "but may take the bytes after it");
  // An unlock in the middle splits it; a lock of the same type over the hole joins it again.
  check(lock(fd, F_SETLK, F_UNLCK, 40, 20) == 0, "unlock [40, 60)");
  check(sees(F_WRLCK, 0, 40, 39, me) && sees(F_WRLCK, 60, 40, 60, me) && free_at(40, 20),
        "the split: [0, 40) and [60, 100)");
  check(lock(fd, F_SETLK, F_WRLCK, 40, 20) == 0 && sees(F_WRLCK, 0, 100, 50, me),
        "relocked: one lock over [0, 100) again");
  // Another type over a part: the part changes, the rest stays; a read lock is shared.
  check(lock(fd, F_SETLK, F_RDLCK, 10, 10) == 0, "downgrade [10, 20)");
  check(sees(F_RDLCK, 10, 10, 15, me) && sees(F_WRLCK, 0, 10, 5, me) &&
        sees(F_WRLCK, 20, 80, 20, me), "[0, 10) write, [10, 20) read, [20, 100) write");
  check(other(F_RDLCK, 10, 10, 1).err == 0 && other(F_WRLCK, 10, 10, 1).err == EAGAIN,
        "a read lock shared, a write lock refused");
  // Length 0 reaches any end; a negative length counts back; SEEK_CUR and SEEK_END bases.
  check(lock(fd, F_SETLK, F_WRLCK, 1000, 0) == 0 && sees(F_WRLCK, 1000, 0, 1 << 30, me),
        "length 0: from 1000 to any end");
  check(lock(fd, F_SETLK, F_UNLCK, 0, 0) == 0 && free_at(0, 0), "unlock everything");
  check(lock(fd, F_SETLK, F_WRLCK, 10, -5) == 0 && sees(F_WRLCK, 5, 5, 7, me),
        "length -5 from 10: [5, 10)");
  struct flock cur = { .l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = 0, .l_len = 10 };
  struct flock end = { .l_type = F_WRLCK, .l_whence = SEEK_END, .l_start = -10, .l_len = 10 };
  check(lseek(fd, 50, SEEK_SET) == 50 && fcntl(fd, F_SETLK, &cur) == 0 &&
        sees(F_WRLCK, 50, 10, 55, me), "SEEK_CUR at 50: [50, 60)");
  check(fcntl(fd, F_SETLK, &end) == 0 && sees(F_WRLCK, 90, 10, 95, me),
        "SEEK_END of 100 bytes, -10: [90, 100)");
  check(lock(fd, F_SETLK, F_UNLCK, 0, 0) == 0 && free_at(0, 0), "unlock everything again");
}

static void
arguments(int fd)
{
  struct flock l = range(F_WRLCK, 0, 1);
  l.l_whence = 7;
  FAILS(fcntl(fd, F_SETLK, &l), EINVAL);
  FAILS(lock(fd, F_SETLK, 9, 0, 1), EINVAL);
  FAILS(lock(fd, F_GETLK, F_UNLCK, 0, 1), EINVAL);
  FAILS(lock(fd, F_SETLK, F_WRLCK, -1, 1), EINVAL);
  FAILS(lock(fd, F_SETLK, F_WRLCK, 2, -5), EINVAL);
  FAILS(lock(fd, F_SETLK, F_WRLCK, INT64_MAX, 2), EOVERFLOW);
  FAILS(fcntl(fd, F_SETLK, (struct flock *)8), EFAULT);
  FAILS(fcntl(fd, F_GETLK, (struct flock *)8), EFAULT);
  FAILS(lock(999, F_SETLK, F_WRLCK, 0, 1), EBADF);
  int ro = open("f", O_RDONLY), wo = open("f", O_WRONLY);
  FAILS(lock(ro, F_SETLK, F_WRLCK, 0, 1), EBADF);
  FAILS(lock(wo, F_SETLK, F_RDLCK, 0, 1), EBADF);
  check(lock(ro, F_SETLK, F_RDLCK, 0, 1) == 0 && lock(wo, F_SETLK, F_WRLCK, 5, 1) == 0,
        "the open mode's own type");
  close(ro);   // any fd of the file: both locks go
  check(free_at(0, 0), "closing one fd drops the process's locks through every fd");
  close(wo);
  l = range(F_WRLCK, 0, 1);
  l.l_pid = 1;
  FAILS(fcntl(fd, F_OFD_SETLK, &l), EINVAL);
  FAILS(fcntl(fd, F_OFD_GETLK, &l), EINVAL);
}

// A process asleep in F_SETLKW is let in when the lock goes.
static void
sleeper(int fd)
{
  int p[2];
  check(pipe(p) == 0 && lock(fd, F_SETLK, F_WRLCK, 0, 10) == 0, "pipe and lock [0, 10)");
  pid_t c = fork();
  if(c == 0) {
    int cfd = open("f", O_RDWR);
    int r = lock(cfd, F_SETLKW, F_WRLCK, 5, 1);
    char b = r == 0 ? 'y' : 'n';
    _exit(write(p[1], &b, 1) == 1 && r == 0 ? 0 : 1);
  }
  close(p[1]);
  usleep(100000);
  check(lock(fd, F_SETLK, F_UNLCK, 0, 10) == 0, "unlock [0, 10)");
  char b = 0;
  int st = -1;
  check(read(p[0], &b, 1) == 1 && b == 'y' && waitpid(c, &st, 0) == c && st == 0,
        "the sleeper got the lock");
  close(p[0]);
}

static void
on_alarm(int sig)
{
  (void)sig;
}

// A sleeper whose signal handler has no SA_RESTART returns EINTR, holding nothing.
static void
interrupted(int fd)
{
  check(lock(fd, F_SETLK, F_WRLCK, 0, 1) == 0, "lock [0, 1)");
  pid_t c = fork();
  if(c == 0) {
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { .it_value = { 0, 100000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    int cfd = open("f", O_RDWR);
    int r = lock(cfd, F_SETLKW, F_WRLCK, 0, 1);
    _exit(r == -1 && errno == EINTR ? 0 : 1);
  }
  int st = -1;
  check(waitpid(c, &st, 0) == c && st == 0, "a signal ends F_SETLKW with EINTR");
  check(lock(fd, F_SETLK, F_UNLCK, 0, 1) == 0, "unlock [0, 1)");
}

// Two processes each holding a byte and each asleep on the other's: one of them, whichever
// asks second, is told EDEADLK instead of sleeping for ever.
static void
deadlock(int fd)
{
  int p[2];
  check(pipe(p) == 0 && lock(fd, F_SETLK, F_WRLCK, 0, 1) == 0, "pipe and lock byte 0");
  pid_t c = fork();
  if(c == 0) {
    int cfd = open("f", O_RDWR);
    if(lock(cfd, F_SETLK, F_WRLCK, 1, 1) != 0 || write(p[1], "1", 1) != 1)
      _exit(3);
    int r = lock(cfd, F_SETLKW, F_WRLCK, 0, 1);
    _exit(r == 0 ? 0 : errno == EDEADLK ? 2 : 3);   // exit drops byte 1: the parent goes on
  }
  close(p[1]);
  char b;
  check(read(p[0], &b, 1) == 1, "the child holds byte 1");
  close(p[0]);
  usleep(100000);   // most often the child sleeps by now; if not, it is the one told
  int r = lock(fd, F_SETLKW, F_WRLCK, 1, 1);
  int mine = r == -1 && errno == EDEADLK;
  check(mine || r == 0, "F_SETLKW on byte 1: EDEADLK or the lock");
  check(lock(fd, F_SETLK, F_UNLCK, 0, 0) == 0, "unlock all");
  int st = -1;
  check(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) != 3, "the child ended");
  int theirs = WIFEXITED(st) && WEXITSTATUS(st) == 2;
  check(mine + theirs == 1, "exactly one of the two was told EDEADLK");
}

// Open-file-description locks: owned by the description, so two opens in one process conflict,
// a dup's close keeps them, the last close drops them.
static void
ofd(void)
{
  int a = open("f", O_RDWR), b = open("f", O_RDWR);
  check(a >= 0 && b >= 0, "open f twice");
  check(lock(a, F_OFD_SETLK, F_WRLCK, 0, 10) == 0, "OFD lock [0, 10) through a");
  FAILS(lock(b, F_OFD_SETLK, F_WRLCK, 5, 1), EAGAIN);
  FAILS(lock(b, F_SETLK, F_WRLCK, 5, 1), EAGAIN);
  struct flock l = range(F_WRLCK, 0, 100);
  check(fcntl(b, F_OFD_GETLK, &l) == 0 && l.l_type == F_WRLCK && l.l_start == 0 &&
        l.l_len == 10 && l.l_pid == -1, "F_OFD_GETLK through b: [0, 10), pid -1");
  l = range(F_WRLCK, 0, 100);
  check(fcntl(b, F_GETLK, &l) == 0 && l.l_type == F_WRLCK && l.l_pid == -1,
        "F_GETLK sees it too");
  check(sees(F_WRLCK, 0, 10, 0, -1), "another process sees it, pid -1");
  int d = dup(a);
  check(d >= 0 && close(d) == 0 && close(b) == 0, "close a dup of a, and b");
  check(sees(F_WRLCK, 0, 10, 0, -1), "the OFD lock stays");
  b = open("f", O_RDWR);
  check(lock(b, F_SETLKW, F_RDLCK, 20, 1) == 0, "a POSIX lock beside it");
  // The last close of a drops the OFD lock and, as any close of the file, the POSIX lock.
  check(close(a) == 0 && free_at(0, 0), "the last close of a drops both");
  close(b);
}

int
main(int argc, char **argv)
{
  const char *at = argc > 1 ? argv[1] : "/tmp";
  char dir[256];
  if(argc < 2 && mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("locks: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  snprintf(dir, sizeof(dir), "%s/locks.%d", at, (int)getpid());
  check(mkdir(dir, 0755) == 0 && chdir(dir) == 0, "mkdir and chdir dir");
  int fd = open("f", O_CREAT | O_RDWR | O_TRUNC, 0644);
  char buf[100] = { 0 };
  check(fd >= 0 && write(fd, buf, sizeof(buf)) == sizeof(buf), "a file of 100 bytes");
  posix_ranges(fd);
  arguments(fd);
  sleeper(fd);
  interrupted(fd);
  deadlock(fd);
  close(fd);
  ofd();
  check(unlink("f") == 0 && chdir("/") == 0 && rmdir(dir) == 0, "remove what it made");
  printf("locks: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 50;
}
