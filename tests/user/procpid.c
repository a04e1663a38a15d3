// procpid: /proc/<pid>/stat and /proc/<pid>/fd/ (proc(5)), as trinity reads them: a child's
// stat while it runs (pid, name, state, parent, its 52 fields), as a zombie (state Z) and gone
// once reaped; the caller's fd directory listing every open fd and no other; a child's
// cmdline, comm and status, and the machine's files ps, df and free read (mounts, /etc/mtab,
// meminfo, uptime, filesystems, sys/kernel, cpuinfo); the links (/proc/self, exe, cwd, the fd
// entries, /dev/fd) and maps. Linux is the oracle (tests/host/test_user_native.sh). Exits 0
// when all hold; names each check that does not.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
  // /proc's names are the kernel's: none made, removed or renamed by a program (trinity
  // opens /proc/self/oom_score_adj with O_CREAT, which must not leave a file in the pid's
  // directory).
  FAILS(open("/proc/self/oom_score_adj.x", O_WRONLY | O_CREAT, 0600), ENOENT);
  FAILS(mkdir("/proc/self/d", 0700), ENOENT);
  FAILS(mkdir("/proc/d", 0700), ENOENT);
  FAILS(symlink("x", "/proc/sys/kernel/l"), ENOENT);
  FAILS(unlink("/proc/self/stat"), EPERM);
  FAILS(rmdir("/proc/self/fd"), EPERM);
  FAILS(rename("/proc/self/stat", "/proc/self/stat2"), ENOENT);
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

// /proc/self and the links under /proc/<pid>: exe is the running program's file, cwd the
// working directory (another process's too), an fd entry names what the fd has (readlink,
// lstat as a link with the open mode, ttyname's way); /dev/fd is the link into /proc/self/fd.
static void
test_links(const char *argv0)
{
  char buf[4096], want[4096];
  ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
  snprintf(want, sizeof(want), "%d", getpid());
  check(n == (ssize_t)strlen(want) && !memcmp(buf, want, n), "readlink /proc/self: the pid");
  struct stat a, b;
  check(lstat("/proc/self", &a) == 0 && S_ISLNK(a.st_mode), "/proc/self is a link");
  n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  check(n > 1 && buf[0] == '/' && stat(buf, &a) == 0 && stat(argv0, &b) == 0 &&
        a.st_ino == b.st_ino, "/proc/self/exe: an absolute path to this program");
  snprintf(want, sizeof(want), "/proc/%d/exe", getpid());
  check(stat(want, &a) == 0 && a.st_ino == b.st_ino, "/proc/<pid>/exe followed: the program");
  char dir[64], cwd[4096];
  snprintf(dir, sizeof(dir), "/tmp/procpid.%d", (int)getpid());
  mkdir("/tmp", 0755);
  check(mkdir(dir, 0700) == 0 && getcwd(cwd, sizeof(cwd)) != NULL, "a directory to stand in");
  int p[2], q[2];   // p: the child says it is there; q: the parent lets it go
  check(pipe(p) == 0 && pipe(q) == 0, "pipes");
  pid_t pid = fork();
  if(pid == 0) {
    char c;
    _exit(chdir(dir) != 0 || write(p[1], "x", 1) != 1 || read(q[0], &c, 1) != 1);
  }
  char c;
  check(read(p[0], &c, 1) == 1, "the child stands in it");
  snprintf(want, sizeof(want), "/proc/%d/cwd", pid);
  n = readlink(want, buf, sizeof(buf) - 1);
  check(n == (ssize_t)strlen(dir) && !memcmp(buf, dir, n), "/proc/<pid>/cwd: the child's");
  char theirs[64], pipename[64];   // the child's fds: its copy of q's read end
  snprintf(theirs, sizeof(theirs), "/proc/%d/fd/%d", pid, q[0]);
  n = readlink(theirs, buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  check(fstat(q[0], &a) == 0 && snprintf(pipename, sizeof(pipename), "pipe:[%lu]",
        (unsigned long)a.st_ino) > 0 && !strcmp(buf, pipename),
        "readlink of another process's fd entry: its pipe");
  check(stat(theirs, &b) == 0 && S_ISFIFO(b.st_mode) && b.st_ino == a.st_ino &&
        lstat(theirs, &b) == 0 && S_ISLNK(b.st_mode), "stat and lstat of another process's entry");
  struct statx sx;
  check(statx(AT_FDCWD, theirs, AT_SYMLINK_NOFOLLOW, STATX_MODE, &sx) == 0 &&
        S_ISLNK(sx.stx_mode) && statx(AT_FDCWD, theirs, 0, STATX_MODE, &sx) == 0 &&
        S_ISFIFO(sx.stx_mode), "statx of it, as ls -l asks: the link, and followed the pipe");
  check(write(q[1], "y", 1) == 1, "let the child go");
  close(q[0]);
  close(q[1]);
  int st;
  check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ends");
  n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
  check(n == (ssize_t)strlen(cwd) && !memcmp(buf, cwd, n), "/proc/self/cwd: getcwd's");
  FAILS(readlink(want, buf, sizeof(buf)), ENOENT);   // the child reaped
  // The fd entries as links.
  snprintf(want, sizeof(want), "%s/f", dir);
  int f = open(want, O_CREAT | O_WRONLY, 0600);
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", f);
  n = readlink(path, buf, sizeof(buf) - 1);
  check(f >= 0 && n == (ssize_t)strlen(want) && !memcmp(buf, want, n),
        "readlink of a file's fd entry: its path");
  check(lstat(path, &a) == 0 && S_ISLNK(a.st_mode) && (a.st_mode & 0777) == 0300,
        "lstat of a write-only fd's entry: l-wx------");
  check(stat(path, &a) == 0 && S_ISREG(a.st_mode), "stat of it: the file");
  unlink(want);
  n = readlink(path, buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  strcat(want, " (deleted)");
  check(!strcmp(buf, want), "an unlinked file's entry says (deleted)");
  close(f);
  snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
  n = readlink(path, buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  check(fstat(p[0], &a) == 0 && snprintf(want, sizeof(want), "pipe:[%lu]",
        (unsigned long)a.st_ino) > 0 && !strcmp(buf, want), "a pipe's entry: pipe:[ino]");
  check(lstat(path, &a) == 0 && S_ISLNK(a.st_mode) && (a.st_mode & 0777) == 0500,
        "lstat of a read end's entry: lr-x------");
  close(p[0]);
  close(p[1]);
  int sv[2];
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
  snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
  n = readlink(path, buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = 0;
  check(fstat(sv[0], &a) == 0 && snprintf(want, sizeof(want), "socket:[%lu]",
        (unsigned long)a.st_ino) > 0 && !strcmp(buf, want), "a socket's entry: socket:[ino]");
  close(sv[0]);
  close(sv[1]);
  FAILS(readlink("/proc/self/fd/999", buf, sizeof(buf)), ENOENT);
  n = readlink("/dev/fd", buf, sizeof(buf) - 1);
  check(n == 13 && !memcmp(buf, "/proc/self/fd", 13), "/dev/fd -> /proc/self/fd");
  n = readlink("/dev/stdin", buf, sizeof(buf) - 1);
  check(n == 15 && !memcmp(buf, "/proc/self/fd/0", 15), "/dev/stdin -> /proc/self/fd/0");
  int names = 0, fds = 0;
  DIR *d = opendir("/dev/fd/");
  for(struct dirent *e; d && (e = readdir(d));)
    names += e->d_name[0] != '.';
  if(d)
    closedir(d);
  for(int i = 0; i < 4096; i++)   // a shell may leave one open high (bash's 255)
    fds += fcntl(i, F_GETFD) >= 0;
  check(names == fds + 1, "/dev/fd/ lists the open fds (and opendir's own)");
  rmdir(dir);
}

// One /proc/self/maps line: its fields, and where its name starts (0: none).
struct map {
  unsigned long start, end, off, ino;
  char perms[5];
  int name_at;
  const char *name;
};

static int
parse_map(char *line, struct map *m)
{
  int at = 0;
  unsigned maj, min;
  if(sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &m->start, &m->end, m->perms, &m->off, &maj,
            &min, &m->ino, &at) != 7)
    return -1;
  m->name_at = line[at] ? at : 0;
  m->name = line + at;
  return 0;
}

// maps: the mappings this test makes, found with their addresses, permissions, offsets and
// inode; the program's own file, [heap], [stack], [vsyscall] last; names at column 73, an
// anonymous line ending in "0 "; and the same text read in pieces of 7 bytes.
static void
test_maps(void)
{
  static char whole[1 << 16], pieces[1 << 16];
  char self[4096], name[64];
  ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[sn > 0 ? sn : 0] = 0;
  snprintf(name, sizeof(name), "/tmp/procmap.%d", (int)getpid());
  int f = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
  check(f >= 0 && ftruncate(f, 3 * 4096) == 0, "a file of 3 pages");
  char *shared = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f, 4096);
  char *anon = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(shared != MAP_FAILED && anon != MAP_FAILED, "two mappings");
  struct stat st;
  fstat(f, &st);
  char *heap = malloc(100);
  int local = 0;
  int fd = open("/proc/self/maps", O_RDONLY), n = 0, r;
  while(fd >= 0 && n < (int)sizeof(whole) - 1 && (r = read(fd, whole + n, sizeof(whole) - 1 - n)) > 0)
    n += r;
  whole[n] = 0;
  check(fd >= 0 && lseek(fd, 0, SEEK_SET) == 0, "read /proc/self/maps");
  int m = 0;
  while(fd >= 0 && m < (int)sizeof(pieces) - 8 && (r = read(fd, pieces + m, 7)) > 0)
    m += r;
  pieces[m] = 0;
  close(fd);
  check(n > 0 && m == n && !memcmp(whole, pieces, n), "the same text read 7 bytes at a time");
  int lines = 0, bad = 0, found_shared = 0, found_anon = 0, found_self = 0, found_heap = 0;
  int found_stack = 0, last_vsyscall = 0;
  for(char *line = whole, *nl; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    if(!nl)
      break;
    *nl = 0;
    struct map v;
    lines++;
    last_vsyscall = 0;
    if(parse_map(line, &v) || strlen(v.perms) != 4 || (v.name_at && v.name_at != 73) ||
       (!v.name_at && line[strlen(line) - 1] != ' ')) {
      bad++;
      printf("%s: bad maps line: %s\n", PROG, line);
      continue;
    }
    if(v.start == (unsigned long)shared)
      found_shared = v.end == v.start + 2 * 4096 && !strcmp(v.perms, "rw-s") &&
                     v.off == 4096 && v.ino == st.st_ino && !strcmp(v.name, name);
    if(v.start == (unsigned long)anon)
      found_anon = v.end >= v.start + 3 * 4096 && !strcmp(v.perms, "r--p") && v.ino == 0 &&
                   !v.name_at;
    found_self |= !strcmp(v.name, self) && v.perms[2] == 'x';
    found_heap |= (unsigned long)heap >= v.start && (unsigned long)heap < v.end &&
                  !strcmp(v.name, "[heap]");
    found_stack |= (unsigned long)&local >= v.start && (unsigned long)&local < v.end &&
                   !strcmp(v.name, "[stack]");
    last_vsyscall = v.start == 0xffffffffff600000UL && !strcmp(v.perms, "--xp") &&
                    !strcmp(v.name, "[vsyscall]");
  }
  check(lines > 5 && bad == 0, "every maps line in Linux's format, names at column 73");
  check(found_shared, "the shared file mapping: rw-s, offset 1000, its inode and path");
  check(found_anon, "the anonymous mapping: r--p, no inode, no name");
  check(found_self, "the program's text: its path, executable");
  check(found_heap, "malloc's block in [heap]");
  check(found_stack, "a local variable in [stack]");
  check(last_vsyscall, "[vsyscall] last, execute-only");
  munmap(shared, 2 * 4096);
  munmap(anon, 3 * 4096);
  free(heap);
  close(f);
  unlink(name);
}

// cpuinfo: a block per online CPU with what lscpu and scripts read; pid_max above every pid.
static void
test_cpuinfo(void)
{
  static char buf[1 << 17];
  int fd = open("/proc/cpuinfo", O_RDONLY), n = 0, r;
  while(fd >= 0 && n < (int)sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
    n += r;
  buf[n] = 0;
  close(fd);
  int procs = 0, names = 0, flags = 0;
  for(char *l = buf; (l = strstr(l, "\n")) != NULL; l++) {
    procs += !strncmp(l + 1, "processor\t: ", 12);
    names += !strncmp(l + 1, "model name\t: ", 13);
    flags += !strncmp(l + 1, "flags\t\t: ", 9) && strstr(l, " fpu ") != NULL;
  }
  procs += !strncmp(buf, "processor\t: 0\n", 14);
  check(procs == sysconf(_SC_NPROCESSORS_ONLN) && names == procs && flags == procs,
        "/proc/cpuinfo: processor, model name and flags for every online CPU");
  char pm[32] = { 0 };
  fd = open("/proc/sys/kernel/pid_max", O_RDONLY);
  check(fd >= 0 && read(fd, pm, sizeof(pm) - 1) > 0 && atol(pm) > getpid(),
        "/proc/sys/kernel/pid_max: above this pid");
  close(fd);
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
  test_links(argv[0]);
  test_maps();
  test_cpuinfo();
  printf("%s: %d checks, %d failed\n", PROG, checks, fails);
  return fails != 0 || checks < 20;
}
