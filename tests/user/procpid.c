// procpid: /proc/<pid>/stat and /proc/<pid>/fd/ (proc(5)), as trinity reads them: a child's
// stat while it runs (pid, name, state, parent, its 52 fields), as a zombie (state Z) and gone
// once reaped; the caller's fd directory listing every open fd and no other; a child's
// cmdline, comm and status, and the machine's files ps, df and free read (mounts, /etc/mtab,
// meminfo, uptime, filesystems, sys/kernel). Linux is the oracle
// (tests/host/test_user_native.sh). Exits 0 when all hold; names each check that does not.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "procpid"
#include "check.h"

// The whole of /proc/<pid>/stat into buf: its length, or -1 with errno.
static int
read_stat(pid_t pid, char *buf, size_t cap)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY);
  if(fd < 0)
    return -1;
  int n = 0, r;
  while(n < (int)cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
    n += r;
  close(fd);
  buf[n] = 0;
  return n;
}

// The fds /proc/self's own pid directory lists, as a bit mask; -1 if it cannot be read.
static long long
listed_fds(int *names)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/fd/", getpid());
  DIR *d = opendir(path);
  if(!d)
    return -1;
  long long mask = 0;
  *names = 0;
  struct dirent *e;
  while((e = readdir(d))) {
    if(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    int fd = atoi(e->d_name);
    if(fd >= 0 && fd < 63) {   // a harness may hold higher ones (this kernel has 64)
      mask |= 1LL << fd;
      (*names)++;
    }
    check(e->d_type == DT_LNK, "an fd's entry is a symbolic link");
  }
  mask &= ~(1LL << dirfd(d));   // the directory's own fd, open while it is read (Linux too)
  (*names)--;
  closedir(d);
  return mask;
}

// The fds open now, by fcntl: what the listing must match.
static long long
open_fds(void)
{
  long long mask = 0;
  for(int fd = 0; fd < 63; fd++)
    if(fcntl(fd, F_GETFD) >= 0)
      mask |= 1LL << fd;
  return mask;
}

static void
test_stat(void)
{
  int p[2];
  if(pipe(p)) {
    check(0, "pipe");
    return;
  }
  pid_t pid = fork();
  if(pid == 0) {   // waits for end of file, then exits 7
    char c;
    close(p[1]);
    while(read(p[0], &c, 1) > 0)
      ;
    _exit(7);
  }
  close(p[0]);
  check(pid > 0, "fork");
  if(pid < 0)
    return;
  char buf[1024], name[64], state = 0;
  int spid = 0, ppid = 0, pgrp = 0;
  check(read_stat(pid, buf, sizeof(buf)) > 0, "read the child's /proc/<pid>/stat");
  check(sscanf(buf, "%d (%63[^)]) %c %d %d", &spid, name, &state, &ppid, &pgrp) == 5,
        "stat: pid (comm) state ppid pgrp");
  check(spid == pid, "stat's pid is the child's");
  check(!strcmp(name, PROG), "stat's name is the program's");
  check(state == 'R' || state == 'S', "a live child is R or S");
  check(ppid == getpid(), "stat's ppid is the caller");
  check(pgrp == getpgrp(), "the child is in the caller's process group");
  // proc(5): 52 fields, the last one ending the line.
  int fields = 0;
  char *paren = strrchr(buf, ')');
  for(char *s = paren ? paren + 1 : buf + strlen(buf); *s; s++)
    if(*s == ' ')
      fields++;
  check(fields == 50, "stat has 52 fields");
  check(buf[0] && buf[strlen(buf) - 1] == '\n', "stat ends with a newline");
  // A read of a few bytes at a time gives the same text.
  char path[64], small[1024];
  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY), n = 0, r;
  while(fd >= 0 && n < (int)sizeof(small) - 1 && (r = read(fd, small + n, 5)) > 0)
    n += r;
  small[n] = 0;
  if(fd >= 0)
    close(fd);
  check(paren && strncmp(small, buf, paren - buf + 1) == 0, "stat read 5 bytes at a time");

  close(p[1]);   // the child exits; WNOWAIT leaves it a zombie
  siginfo_t si;
  check(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0, "waitid WNOWAIT");
  check(read_stat(pid, buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%*d (%63[^)]) %c", name, &state) == 2 && state == 'Z',
        "a zombie's state is Z");
  int st;
  check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7, "reap");
  FAILS(read_stat(pid, buf, sizeof(buf)), ENOENT);
}

static void
test_fd(void)
{
  int names = 0;
  long long before = listed_fds(&names);
  check(before >= 0, "opendir /proc/<pid>/fd/");
  check(before == open_fds(), "the fd directory lists exactly the open fds");
  check(names == __builtin_popcountll(before), "one name per open fd");
  int p[2];
  if(pipe(p)) {
    check(0, "pipe");
    return;
  }
  int hi = dup2(p[0], 40);
  long long after = listed_fds(&names);
  check(after == (before | 1LL << p[0] | 1LL << p[1] | 1LL << 40), "new fds listed");
  check(after == open_fds(), "the listing follows the table");
  close(p[0]);
  close(p[1]);
  close(hi);
  check(listed_fds(&names) == before, "closed fds are gone from the listing");
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/fd", getpid());
  check(access(path, F_OK) == 0, "/proc/<pid>/fd exists");
}

// The whole of a /proc file into buf (NUL-terminated): its length, or -1.
static int
read_file(const char *path, char *buf, size_t cap)
{
  int fd = open(path, O_RDONLY), n = 0, r;
  if(fd < 0)
    return -1;
  while(n < (int)cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
    n += r;
  close(fd);
  buf[n] = 0;
  return n;
}

static void
test_files(char *self)
{
  int p[2];
  check(pipe(p) == 0, "pipe");
  pid_t pid = fork();
  if(pid == 0) {   // execs itself as "procpid wait one two", which waits for end of file
    close(p[1]);
    dup2(p[0], 0);
    execl(self, "procpid", "wait", "one two", (char *)NULL);
    _exit(1);
  }
  close(p[0]);
  char path[64], buf[4096];
  int n = -1;
  for(int i = 0; i < 500; i++) {   // until the exec is done: its cmdline is the new one
    snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
    n = read_file(path, buf, sizeof(buf));
    if(n == 21)
      break;
    usleep(10000);
  }
  check(n == 21 && memcmp(buf, "procpid\0wait\0one two\0", 21) == 0,
        "cmdline: the strings with their NULs");
  snprintf(path, sizeof(path), "/proc/%d/comm", pid);
  check(read_file(path, buf, sizeof(buf)) == 8 && strcmp(buf, "procpid\n") == 0,
        "comm: the program's name");
  snprintf(path, sizeof(path), "/proc/%d/status", pid);
  char want[128];
  snprintf(want, sizeof(want), "\nPid:\t%d\nPPid:\t%d\n", pid, getpid());
  for(int i = 0; i < 500; i++) {   // until the child sleeps in its read (on 1 CPU it may still run)
    if(read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, "\nState:\tS (sleeping)\n"))
      break;
    usleep(10000);
  }
  check(read_file(path, buf, sizeof(buf)) > 0 && strncmp(buf, "Name:\tprocpid\n", 14) == 0 &&
        strstr(buf, want) && strstr(buf, "\nState:\tS (sleeping)\n") &&
        strstr(buf, "\nThreads:\t1\n"), "status: Name, State, Pid, PPid, Threads");
  close(p[1]);
  int st;
  check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ends");
  check(read_file(path, buf, sizeof(buf)) < 0, "reaped: its status is gone");
  // The machine's files.
  check(read_file("/proc/mounts", buf, sizeof(buf)) > 0 && strstr(buf, " / ") &&
        strstr(buf, " rw"), "/proc/mounts names the root, read-write");
  char mtab[4096];
  check(read_file("/etc/mtab", mtab, sizeof(mtab)) > 0 && strcmp(mtab, buf) == 0,
        "/etc/mtab is the mount table");
  unsigned long total = 0, free = 0;
  check(read_file("/proc/meminfo", buf, sizeof(buf)) > 0 &&
        sscanf(buf, "MemTotal: %lu kB\nMemFree: %lu kB", &total, &free) == 2 && free <= total &&
        strstr(buf, "\nMemAvailable:") && strstr(buf, "\nCached:") &&
        strstr(buf, "\nSReclaimable:"), "/proc/meminfo: what free reads");
  double up = -1, idle = -1;
  check(read_file("/proc/uptime", buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%lf %lf", &up, &idle) == 2 && up > 0 && idle >= 0, "/proc/uptime: two numbers");
  unsigned long long cpu_idle = 0, btime = 0;
  check(read_file("/proc/stat", buf, sizeof(buf)) > 0 &&
        sscanf(buf, "cpu %*u %*u %*u %llu", &cpu_idle) == 1 && strstr(buf, "\ncpu0 ") &&
        strstr(buf, "\nbtime ") && sscanf(strstr(buf, "\nbtime "), "\nbtime %llu", &btime) == 1 &&
        btime > 1600000000ULL, "/proc/stat: the cpu lines and the boot time top reads");
  double l1 = -1;
  int running = 0, tasks = 0, last = 0;
  check(read_file("/proc/loadavg", buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%lf %*f %*f %d/%d %d", &l1, &running, &tasks, &last) == 4 && l1 >= 0 &&
        running >= 1 && tasks >= running && last > 0, "/proc/loadavg: loads, tasks, last pid");
  check(read_file("/proc/filesystems", buf, sizeof(buf)) > 0 && strstr(buf, "nodev\tramfs\n"),
        "/proc/filesystems has ramfs");
  check(read_file("/proc/sys/kernel/ostype", buf, sizeof(buf)) == 6 && !strcmp(buf, "Linux\n"),
        "/proc/sys/kernel/ostype");
  check(read_file("/proc/sys/kernel/osrelease", buf, sizeof(buf)) > 2,
        "/proc/sys/kernel/osrelease");
}

// /dev/fd/N, /proc/self/fd/N and /proc/<pid>/fd/N opened and stat'd: a pipe's ends again (its
// bytes, its end of file), a file opened afresh (an offset of its own), ENOENT for an fd not
// open. bash's <(...) is this.
static void
test_fd_links(void)
{
  int p[2];
  char path[64], buf[16] = { 0 };
  check(pipe(p) == 0 && write(p[1], "abc", 3) == 3, "a pipe with 3 bytes");
  snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
  int r = open(path, O_RDONLY);
  check(r >= 0 && r != p[0] && read(r, buf, 3) == 3 && !memcmp(buf, "abc", 3),
        "/dev/fd/N of a read end: the pipe's bytes");
  struct stat st;
  check(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "stat of /dev/fd/N: a FIFO");
  check(access(path, R_OK) == 0, "access of /dev/fd/N (sort asks it)");
  snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
  int w = open(path, O_WRONLY);
  check(w >= 0 && write(w, "xyz", 3) == 3 && read(p[0], buf, 3) == 3 && !memcmp(buf, "xyz", 3),
        "/proc/self/fd/N of a write end: another writer");
  close(p[1]);
  check(write(w, "q", 1) == 1 && read(r, buf, 1) == 1, "one writer left");
  close(w);
  check(read(r, buf, 1) == 0, "no writer left: end of file through the reopened end");
  close(r);
  close(p[0]);
  char name[64];
  snprintf(name, sizeof(name), "/tmp/fdlink.%d", (int)getpid());
  if(mkdir("/tmp", 0755) != 0 && errno != EEXIST)
    check(0, "mkdir /tmp");
  int f = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
  check(f >= 0 && write(f, "hello", 5) == 5, "a file at offset 5");
  snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), f);
  int g = open(path, O_RDONLY);
  memset(buf, 0, sizeof(buf));
  check(g >= 0 && read(g, buf, 5) == 5 && !strcmp(buf, "hello") && lseek(f, 0, SEEK_CUR) == 5,
        "/proc/<pid>/fd/N of a file: opened afresh, an offset of its own");
  close(g);
  close(f);
  unlink(name);
  FAILS(open("/dev/fd/999", O_RDONLY), ENOENT);
  FAILS(stat("/dev/fd/999", &st), ENOENT);
  FAILS(access("/dev/fd/999", R_OK), ENOENT);
  check(open("/dev/stdin", O_RDONLY) >= 0, "/dev/stdin opens");
}

int
main(int argc, char **argv)
{
  if(argc == 3 && !strcmp(argv[1], "wait")) {   // test_files's child
    char c;
    while(read(0, &c, 1) > 0)
      ;
    return 0;
  }
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[len > 0 ? len : 0] = 0;
  test_fd();
  test_stat();
  test_files(self);
  test_fd_links();
  printf("%s: %d checks, %d failed\n", PROG, checks, fails);
  return fails != 0 || checks < 20;
}
