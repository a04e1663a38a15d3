// fdtable: the fd table past its first 64 slots (fs/file.c grows it as Linux's expand_files
// does): dup2, dup3 and F_DUPFD at fds 100 and 1000, select and poll on them, select's nfds cut
// to the table's size (Linux's core_sys_select) and EBADF for an unopened fd inside it, EMFILE
// at exactly RLIMIT_NOFILE fds, fork and execve of a process with fds past 900 open, and
// threads opening, closing and dup2ing at high fds while others read through fds they keep
// (fget under RCU while the table is replaced). Exits 0 when all hold.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "fdtable"
#include "check.h"

#define MAXFD 4096              // the sets below hold this many fds (more than FD_SETSIZE)
#define WORDS (MAXFD / 64)

static void
set_bit(unsigned long *s, int fd)
{
  s[fd / 64] |= 1UL << (fd % 64);
}

static int
bit(const unsigned long *s, int fd)
{
  return (s[fd / 64] >> (fd % 64)) & 1;
}

// select through the raw call, so sets bigger than glibc's fd_set can be passed; zero timeout.
static long
sel(int n, unsigned long *rd, unsigned long *wr)
{
  struct timeval tv = { 0, 0 };
  return syscall(SYS_select, n, rd, wr, NULL, &tv);
}

// The soft limit raised (or lowered) to n, at most the hard limit; the limit set.
static long
set_nofile(long n)
{
  struct rlimit r;
  getrlimit(RLIMIT_NOFILE, &r);
  if(r.rlim_max != RLIM_INFINITY && (long)r.rlim_max < n)
    n = (long)r.rlim_max;
  r.rlim_cur = n;
  return setrlimit(RLIMIT_NOFILE, &r) == 0 ? n : -1;
}

// Every fd from 3 up closed (the host's shell may hand over fds of its own), so that the
// table's size is what this program makes it.
static void
close_from3(void)
{
  for(int fd = 3; fd < MAXFD; fd++)
    close(fd);
}

// A pipe's read end at fds 100 and 1000, select and poll on them, F_DUPFD and dup3 there.
static void
high_fds(void)
{
  int p[2];
  check(pipe(p) == 0, "pipe");
  check(dup2(p[0], 100) == 100, "dup2 to fd 100");
  check(dup2(p[0], 1000) == 1000, "dup2 to fd 1000");
  unsigned long rd[WORDS] = { 0 };
  set_bit(rd, 100);
  set_bit(rd, 1000);
  check(sel(1001, rd, NULL) == 0 && !bit(rd, 100) && !bit(rd, 1000),
        "select at 100 and 1000, empty pipe: nothing ready, bits cleared");
  check(write(p[1], "x", 1) == 1, "write");
  memset(rd, 0, sizeof(rd));
  set_bit(rd, 100);
  set_bit(rd, 1000);
  check(sel(1001, rd, NULL) == 2 && bit(rd, 100) && bit(rd, 1000),
        "select at 100 and 1000 after a write: both readable");
  struct pollfd pf[2] = { { 100, POLLIN, 0 }, { 1000, POLLIN, 0 } };
  check(poll(pf, 2, 0) == 2 && pf[0].revents == POLLIN && pf[1].revents == POLLIN,
        "poll at 100 and 1000: readable");
  char c;
  check(read(1000, &c, 1) == 1 && c == 'x', "read through fd 1000");
  check(poll(pf, 2, 0) == 0, "drained: poll says nothing");

  // select writes back whole longs: the bits of fd 1001..1023 in the last word are cleared,
  // though past nfds (Linux's set_fd_set copies FDS_BYTES(n)).
  memset(rd, 0, sizeof(rd));
  set_bit(rd, 1000);
  set_bit(rd, 1010);
  check(write(p[1], "y", 1) == 1 && sel(1001, rd, NULL) == 1 && bit(rd, 1000) && !bit(rd, 1010),
        "select's last word: bits past nfds cleared, not checked");

  // The table is at least 1024 slots now: an unopened fd inside it is EBADF.
  memset(rd, 0, sizeof(rd));
  set_bit(rd, 100);
  set_bit(rd, 200);
  errno = 0;
  check(sel(1024, rd, NULL) == -1 && errno == EBADF, "select with unopened fd 200: EBADF");
  memset(rd, 0, sizeof(rd));
  unsigned long wr[WORDS] = { 0 };
  set_bit(wr, 1023);
  errno = 0;
  check(sel(1024, rd, wr) == -1 && errno == EBADF, "select with unopened fd 1023: EBADF");

  // nfds past the table is cut to its size: a bit past it is neither read nor written.
  long lim = set_nofile(MAXFD);
  check(lim >= 2048, "RLIMIT_NOFILE raised to 2048 or more");
  memset(rd, 0, sizeof(rd));
  set_bit(rd, 1000);
  set_bit(rd, lim - 1);
  long r = sel((int)lim, rd, NULL);
  check(r == 1 && bit(rd, 1000) && bit(rd, lim - 1),
        "select past the table: the bit past it left as it was, no EBADF");
  check(read(100, &c, 1) == 1 && c == 'y', "read through fd 100");

  // F_DUPFD from 1000 takes the lowest free fd at or past it; from 2000 grows the table.
  check(fcntl(p[0], F_DUPFD, 1000) == 1001, "F_DUPFD from 1000: 1001");
  check(fcntl(p[0], F_DUPFD_CLOEXEC, 2000) == 2000, "F_DUPFD_CLOEXEC from 2000: 2000");
  check(fcntl(2000, F_GETFD) == FD_CLOEXEC, "fd 2000 close-on-exec");
  check(dup3(p[1], 1500, O_CLOEXEC) == 1500 && fcntl(1500, F_GETFD) == FD_CLOEXEC,
        "dup3 to 1500 with O_CLOEXEC");
  check(write(1500, "z", 1) == 1 && read(2000, &c, 1) == 1 && c == 'z', "through 1500 and 2000");
  check(close(1500) == 0 && close(2000) == 0 && close(1001) == 0, "close them");
  errno = 0;
  check(close(1500) == -1 && errno == EBADF, "closed twice: EBADF");
  errno = 0;
  check(fcntl(3000, F_GETFD) == -1 && errno == EBADF, "F_GETFD of an unopened high fd: EBADF");

  // poll takes up to RLIMIT_NOFILE entries, EINVAL past it (poll(2)).
  struct pollfd *many = calloc(lim + 1, sizeof(*many));
  for(long i = 0; i <= lim; i++)
    many[i].fd = -1;
  many[lim - 1] = (struct pollfd){ 1000, POLLOUT, 0 };
  many[3] = (struct pollfd){ 100, POLLIN, 0 };
  check(write(p[1], "w", 1) == 1 && poll(many, lim, 0) == 1 && many[3].revents == POLLIN &&
        many[lim - 1].revents == 0, "poll of RLIMIT_NOFILE entries");
  errno = 0;
  check(poll(many, lim + 1, 0) == -1 && errno == EINVAL, "poll of RLIMIT_NOFILE + 1: EINVAL");
  free(many);
  check(read(100, &c, 1) == 1, "drain");
  close(100);
  close(1000);
  close(p[0]);
  close(p[1]);
}

// A child whose open fds are all below 64 gets a first table of 64 (fork copies what the
// open fds need, Linux's dup_fd): there select's nfds 1024 is cut to 64, and fd 100 is
// neither EBADF nor cleared.
static void
select_cut_to_table(void)
{
  pid_t c = fork();
  if(c == 0) {
    unsigned long rd[WORDS] = { 0 };
    set_bit(rd, 100);
    set_bit(rd, 1);   // stdout: not asked to read, its readiness does not matter
    long r = sel(1024, NULL, rd);
    _exit(r >= 0 && bit(rd, 100) ? 0 : 1);
  }
  int status = -1;
  check(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "select in a 64-slot table: nfds 1024 cut to 64, fd 100 ignored");
}

// Opening until EMFILE gives exactly RLIMIT_NOFILE fds, 0 to the limit - 1; with a limit past
// the first tables, every growth on the way is crossed.
static void
emfile_at(long limit)
{
  pid_t c = fork();
  if(c == 0) {
    if(set_nofile(limit) != limit)
      _exit(2);
    int last = -1, n = 0;
    for(;;) {
      int fd = open("/", O_RDONLY);
      if(fd < 0) {
        if(errno != EMFILE)
          _exit(3);
        break;
      }
      last = fd;
      n++;
    }
    if(last != limit - 1 || n < limit - 3)
      _exit(4);
    for(int fd = 0; fd < limit; fd++)
      if(fcntl(fd, F_GETFD) < 0)
        _exit(5);
    errno = 0;
    if(dup2(0, (int)limit) != -1 || errno != EBADF)
      _exit(6);
    errno = 0;
    if(fcntl(0, F_DUPFD, (int)limit) != -1 || errno != EINVAL)
      _exit(7);
    // A lower limit leaves the fds above it open; new ones still stop at it.
    if(set_nofile(limit / 2) != limit / 2 || fcntl(limit - 1, F_GETFD) < 0)
      _exit(8);
    close(10);
    if(open("/", O_RDONLY) != 10 || open("/", O_RDONLY) != -1 || errno != EMFILE)
      _exit(9);
    _exit(0);
  }
  int status = -1;
  check(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "open until EMFILE: exactly RLIMIT_NOFILE fds");
  if(!WIFEXITED(status) || WEXITSTATUS(status))
    printf("fdtable: limit %ld: the child's status was %#x\n", limit, status);
}

// fork with fds 900 and 901 open (901 close-on-exec): the child has both, at the same
// descriptions; after execve only 900.
static void
fork_high(const char *self)
{
  int p[2];
  check(pipe(p) == 0 && dup2(p[1], 900) == 900 && dup3(p[1], 901, O_CLOEXEC) == 901,
        "fds 900 and 901");
  pid_t c = fork();
  if(c == 0) {
    if(fcntl(901, F_GETFD) != FD_CLOEXEC || fcntl(900, F_GETFD) != 0)
      _exit(1);
    if(write(900, "a", 1) != 1 || write(901, "b", 1) != 1)
      _exit(2);
    char *const argv[] = { (char *)self, "exec-check", NULL };
    execv("/proc/self/exe", argv);
    execv(self, argv);
    _exit(3);
  }
  int status = -1;
  check(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "fork with fd 900 open; execve closes close-on-exec fd 901 and keeps 900");
  if(!WIFEXITED(status) || WEXITSTATUS(status))
    printf("fdtable: the forked child's status was %#x\n", status);
  char buf[4] = { 0 };
  close(p[1]);
  close(900);
  close(901);
  check(read(p[0], buf, sizeof(buf)) == 3 && strcmp(buf, "abc") == 0,
        "the child wrote through 900 and 901, the execve'd program through 900");
  close(p[0]);
}

// After execve from fork_high.
static int
exec_check(void)
{
  if(fcntl(901, F_GETFD) != -1 || errno != EBADF)
    return 10;
  if(fcntl(900, F_GETFD) != 0 || write(900, "c", 1) != 1)
    return 11;
  return 0;
}

// --- Threads changing the table while others read through fds they keep.

#define ROUNDS 16
#define READERS 2

static int top;                 // the highest fd the churners go to
static int stop;                // set when the churners are done
static int rfd = 9, wfd = 10;   // a pipe the readers use, below 64
static int hfd = 70;            // fd 70: its write end again, in the second table
static long reads_done, reader_errors, churn_done;
static long started;            // reads done so far: the churners wait for some

static void *
reader(void *arg)
{
  (void)arg;
  char c;
  long n = 0, bad = 0;
  while(!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
    // Every one goes through fget, some while the table is being replaced.
    if(write(hfd, "r", 1) != 1 || read(rfd, &c, 1) != 1 || c != 'r')
      bad++;
    if(fcntl(hfd, F_GETFL) != O_WRONLY || fcntl(hfd, F_GETFD) != FD_CLOEXEC)
      bad++;
    n++;
    __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
    // Lets the churners run: on one CPU a reader spinning through its time slices made a
    // round last 5 to 20 s instead of 0.2.
    sched_yield();
  }
  __atomic_fetch_add(&reads_done, n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&reader_errors, bad, __ATOMIC_RELAXED);
  return NULL;
}

// dup2 at rising fds (each power of two past the table's end replaces it), open and close;
// churner 0 takes the even fds, 1 the odd ones, so each closes only its own.
static int last_kept[2];        // the highest fd each left open
static long churn_errors;

static void *
churner(void *arg)
{
  long id = (long)arg, n = 0, bad = 0;
  while(__atomic_load_n(&started, __ATOMIC_RELAXED) < 20 * READERS)
    sched_yield();
  for(int fd = 64 + (int)id; fd < top; fd += 6) {
    if(fd == hfd)
      continue;
    if(dup2(rfd, fd) != fd)
      bad++;
    int o = open("/", O_RDONLY);
    if(o < 0 || close(o) != 0)
      bad++;
    if(n++ % 2 == 0)
      last_kept[id] = fd;
    else if(close(fd) != 0)
      bad++;
  }
  __atomic_fetch_add(&churn_done, n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&churn_errors, bad, __ATOMIC_RELAXED);
  return NULL;
}

// Each round in a child of its own, whose table starts at 64 slots and grows to top's size:
// with top 4096, six replacements a round.
static void
race(void)
{
  long lim = set_nofile(MAXFD);
  top = (int)(lim < MAXFD ? lim : MAXFD);
  check(top >= 2048, "RLIMIT_NOFILE 2048 or more for the race");
  int ok_rounds = 0;
  for(int round = 0; round < ROUNDS; round++) {
    pid_t c = fork();
    if(c == 0) {
      int p[2];
      if(pipe(p) != 0 || dup2(p[0], rfd) != rfd || dup2(p[1], wfd) != wfd ||
         dup3(p[1], hfd, O_CLOEXEC) != hfd)
        _exit(20);
      pthread_t r[READERS], w[2];
      for(long i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, NULL);
      for(long i = 0; i < 2; i++)
        pthread_create(&w[i], NULL, churner, (void *)i);
      for(int i = 0; i < 2; i++)
        pthread_join(w[i], NULL);
      __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
      for(int i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
      if(reader_errors)
        _exit(21);
      if(churn_errors)
        _exit(24);
      // Enough happened: the churners went through every growth, readers read meanwhile.
      if(churn_done < top / 8 || reads_done < 20 * READERS)
        _exit(22);
      // The churners reached the top: the table grew to its size.
      for(int i = 0; i < 2; i++)
        if(last_kept[i] < top - 32 || fcntl(last_kept[i], F_GETFD) != 0)
          _exit(23);
      _exit(0);
    }
    int status = -1;
    if(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      ok_rounds++;
    else
      printf("fdtable: race round %d: status %#x\n", round, status);
  }
  check(ok_rounds == ROUNDS, "threads racing dup2/open/close at high fds with readers");
}

// close_range(2): a span of fds closed or marked close-on-exec, gaps and fds past the
// table's end allowed; its EINVALs.
static void
close_ranges(void)
{
  int fds[6];
  for(int i = 0; i < 6; i++)
    fds[i] = dup2(0, 200 + i * 10);   // 200, 210, ..., 250
  check(fds[5] == 250, "fds 200 to 250, ten apart");
  check(syscall(SYS_close_range, 215, 235, 0) == 0 && fcntl(210, F_GETFD) == 0 &&
        fcntl(220, F_GETFD) == -1 && fcntl(230, F_GETFD) == -1 && fcntl(240, F_GETFD) == 0,
        "close_range 215..235: 220 and 230 closed, 210 and 240 kept");
  check(syscall(SYS_close_range, 240, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) == 0 &&
        fcntl(240, F_GETFD) == FD_CLOEXEC && fcntl(250, F_GETFD) == FD_CLOEXEC &&
        fcntl(210, F_GETFD) == 0, "CLOSE_RANGE_CLOEXEC marks 240 and 250 only");
  errno = 0;
  check(syscall(SYS_close_range, 10, 5, 0) == -1 && errno == EINVAL, "first > last: EINVAL");
  errno = 0;
  check(syscall(SYS_close_range, 0, 1, 8) == -1 && errno == EINVAL, "an unknown flag: EINVAL");
  check(syscall(SYS_close_range, 200, ~0U, 2 /* CLOSE_RANGE_UNSHARE */) == 0 &&
        fcntl(200, F_GETFD) == -1 && fcntl(250, F_GETFD) == -1, "CLOSE_RANGE_UNSHARE closes too");
}

int
main(int argc, char **argv)
{
  if(argc > 1 && strcmp(argv[1], "exec-check") == 0)
    return exec_check();
  close_from3();
  struct rlimit r;
  check(getrlimit(RLIMIT_NOFILE, &r) == 0, "getrlimit");
  r.rlim_max = 1024 * 1024 + 1;
  errno = 0;
  check(setrlimit(RLIMIT_NOFILE, &r) == -1 && errno == EPERM,
        "RLIMIT_NOFILE hard limit past nr_open (1048576): EPERM");
  select_cut_to_table();
  high_fds();
  emfile_at(100);
  emfile_at(2000);
  fork_high(argv[0]);
  race();
  close_ranges();
  printf("fdtable: %d checks, %d failed\n", checks, fails);
  return fails ? 1 : 0;
}
