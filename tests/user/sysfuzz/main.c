// sysfuzz, a system-call fuzzer that knows this kernel's ABI (kernel/syscall.c): the forked workers
// whose threads race the calls, their janitor and watchdog; the parent, which reaps and reports.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "sysfuzz.h"

// The run's: the counts (a MAP_SHARED region), the scratch directory, the paths values name.
struct shared *sh;
char scratch[256];
char longpath[5000];
const char *paths_w[24], *paths_r[32];
int npw, npr;

// The worker: its fds (threads share the table, so close and dup2 race with reads), its arena
// of mappings, its threads' tids and whether each is in a call (the watchdog pokes it).
static int widx;
int wthreads;
volatile int fds[24];
char *arena, *body, *body_end;
static char *arena_end;
volatile int tids[MAXT];
static volatile unsigned long seq[MAXT], busy[MAXT];
static uint64_t wseed;
static char *tbuf[MAXT];
static int weight[NCALLS], enabled, trace;   // --calls narrows the table, to find a reproducer
static volatile int go;

// fork, vfork, clone, clone3: the child exits at once without touching memory, since with
// CLONE_VM and no new stack it runs on the parent's stack (what vfork(2) warns about).
static long
forklike(long nr, long a, long b, long c, long d, long e)
{
  long ret;
  register long r10 __asm__("r10") = d, r8 __asm__("r8") = e;
  __asm__ volatile("syscall\n\ttest %%rax, %%rax\n\tjnz 1f\n\tmov $60, %%eax\n\t"
                   "xor %%edi, %%edi\n\tsyscall\n\tud2\n1:"
                   : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return ret;
}

static void
count(int ci, long ret, int w)
{
  int slot = ret >= 0 || ret < -4095 ? 0 : -ret < NRES ? (int)-ret : 149;
  __atomic_fetch_add(&sh->res[ci][slot], 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&sh->beat[w], 1, __ATOMIC_RELAXED);
}

// Runs the call in a forked child; its exit status is the errno, or the signal that ended it.
static int
inchild(struct ctx *c, const struct call *cl, long *a)
{
  long pid = raw(57, 0, 0, 0, 0, 0, 0);
  if(pid == 0) {
    long r = raw(cl->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    raw(231, r < 0 && r > -150 ? 100 - r : 0, 0, 0, 0, 0, 0);   // 100 + errno: not hello's own
  }
  if(pid < 0)
    return pid < -149 ? 149 : (int)-pid;
  int status = 0;
  long r;
  while((r = raw(61, pid, (long)&status, 0, 0, 0, 0)) == -EINTR)
    raw(62, pid, SIGKILL, 0, 0, 0, 0);   // our own unreaped child: its pid is still ours
  if(r < 0)
    return 0;   // another thread's wait reaped it
  if(WIFSIGNALED(status))
    return 150 + WTERMSIG(status) % 65;
  int code = WEXITSTATUS(status);   // below 100: the call worked (exit, or the program exec'd)
  return cl->nr == 60 || cl->nr == 231 || code < 100 ? 0 : code - 100;
}

// Whether a path argument was one of the scratch directory's (the pointer itself, so a
// hostile or code-pointing one never counts).
static int
scratch_path(long p)
{
  for(int i = 0; i < npw; i++)
    if(p == (long)paths_w[i])
      return 1;
  return 0;
}

// After the end, with every worker gone: SIGKILL to each child of this process still alive.
// They are a worker's forks that left its process group (a fuzzed setsid or setpgid), so
// that the group kill of their worker missed them, and came here as orphans (this process
// is their subreaper): past the end such a fork finishes its loop and pauses for good, or
// blocks in a call with no watchdog thread to interrupt it. What is left 20 s after the end
// in spite of SIGKILL is the kernel's failure, and is reported as one. Returns how many.
static int
kill_strays(void)
{
  int n = 0, me = getpid();
  DIR *d = opendir("/proc");
  struct dirent *e;
  while(d && (e = readdir(d))) {
    char path[64], line[512];
    int pid = atoi(e->d_name), ppid = 0;
    char state = 'Z';
    if(pid <= 0)
      continue;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if(!f)
      continue;
    char *close_paren = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
    fclose(f);
    // "pid (comm) state ppid ...": the name may hold anything, the last ')' ends it
    if(close_paren && sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2 && ppid == me &&
       state != 'Z' && kill(pid, SIGKILL) == 0)   // a zombie is the reaping loop's
      n++;
  }
  if(d)
    closedir(d);
  return n;
}

static void
record_fd(struct ctx *c, long fd)
{
  if(fd >= 3 && fd < 1 << 20)
    fds[pick(c, 24)] = (int)fd;
}

static void
janitor(struct ctx *c)
{
  int nopen = 0;
  for(int fd = 3; fd < 64; fd++)
    nopen += fcntl(fd, F_GETFD) >= 0;
  if(nopen > 40)
    for(int fd = 3; fd < 64; fd++)
      if(one_in(c, 2))
        close(fd);
  struct rlimit { long cur, max; } rl;
  for(int res = 0; res < 16; res++)   // lowered limits would cripple the rest of the life
    if(raw(97, res, (long)&rl, 0, 0, 0, 0) == 0 && rl.cur != rl.max) {
      rl.cur = rl.max;
      raw(160, res, (long)&rl, 0, 0, 0, 0);
    }
  char p[300];
  snprintf(p, sizeof p, "%s/d0", scratch); chmod(scratch, 0755); mkdir(p, 0755); chmod(p, 0755);
  snprintf(p, sizeof p, "%s/d1", scratch); mkdir(p, 0755); chmod(p, 0755);
  static const char *f[] = { "f0", "f1", "f2", "d0" };
  static const int fl[] = { O_RDWR | O_CREAT, O_RDWR | O_APPEND | O_CREAT, O_RDONLY | O_CREAT,
    O_RDONLY | O_DIRECTORY };
  for(int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", scratch, f[i]);
    fds[i] = open(p, fl[i] | O_CLOEXEC, 0644);
  }
  fds[4] = open(scratch, O_RDONLY | O_DIRECTORY);
  fds[5] = open("/dev/null", O_RDWR);
  fds[6] = open("/dev/zero", O_RDWR);
  int pp[2];
  if(pipe2(pp, O_NONBLOCK) == 0) fds[7] = pp[0], fds[8] = pp[1];
  if(pipe(pp) == 0) fds[9] = pp[0], fds[10] = pp[1];
  fds[11] = dup(fds[0]);
}

static void *
fuzzer(void *arg)
{
  int t = (int)(long)arg;
  struct ctx c = { mix(wseed * 31 + (uint64_t)t), t, 0, 0 };   // the worker's seed, this thread
  c.buf = tbuf[t];
  tids[t] = (int)raw(186, 0, 0, 0, 0, 0, 0);
  while(!go)   // every stack and buffer exists before the first munmap makes holes to fill
    sched_yield();
  int total = 0;
  for(int i = 0; i < NCALLS; i++)
    total += weight[i];
  for(unsigned long n = 0; !sh->stop; n++) {
    if(t == 0 && n % 1024 == 1023)
      janitor(&c);
    int w = (int)pick(&c, total), ci = 0;
    while(w >= weight[ci])
      w -= weight[ci++];
    const struct call *cl = &calls[ci];
    long a[6] = { 0 }, room = 4096;
    for(int i = 0; i < 6; i++)   // lengths after the buffers they measure
      if(cl->k[i] != K_LEN && cl->k[i] != K_IOVCNT && cl->k[i] != K_NFDS)
        a[i] = val(&c, cl->k[i], &room);
    for(int i = 0; i < 6; i++)
      if(cl->k[i] == K_LEN || cl->k[i] == K_IOVCNT || cl->k[i] == K_NFDS)
        a[i] = val(&c, cl->k[i], &room);
    fixup(&c, cl, a);
    if(cl->how != H_DIRECT)   // reap first: children never pile up
      while(raw(61, -1, 0, WNOHANG | __WALL, 0, 0, 0) > 0 || raw(61, -1, 0, WNOHANG, 0, 0, 0) > 0)
        ;
    if(trace) {   // --trace: each call before it is made, to turn a finding into a program
      char line[300];
      int n = snprintf(line, sizeof line, "sysfuzz: trace w%d t%d %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n",
                       widx, t, cl->name, a[0], a[1], a[2], a[3], a[4], a[5]);
      raw(1, 2, (long)line, n, 0, 0, 0);
    }
    seq[t]++;
    busy[t] = 1;
    long ret;
    if(cl->how == H_FORK)
      ret = forklike(cl->nr, a[0], a[1], a[2], a[3], a[4]);
    else if(cl->how == H_CHILD)
      ret = -(long)inchild(&c, cl, a);
    else
      ret = raw(cl->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    busy[t] = 0;
    if(ret >= 0 && (cl->nr == 2 || cl->nr == 257) && !scratch_path(a[cl->nr == 2 ? 0 : 1]))
      raw(3, ret, 0, 0, 0, 0, 0);   // "/" or /test/bin as a dirfd would let creates escape
    else if(ret >= 0 && (cl->nr == 2 || cl->nr == 257 || cl->nr == 85 || cl->nr == 32 ||
                    cl->nr == 213 || cl->nr == 291 ||
                    cl->nr == 33 || cl->nr == 292 || (cl->nr == 72 && a[1] != F_GETFL &&
                    a[1] != F_GETFD && a[1] != F_GETPIPE_SZ && a[1] != F_SETPIPE_SZ)))
      record_fd(&c, ret);
    if(ret == 0 && (cl->nr == 22 || cl->nr == 293) && a[0] >= (long)c.buf + HALF &&
       a[0] < (long)c.buf + BUFSZ - 8)
      record_fd(&c, ((int *)a[0])[0]), record_fd(&c, ((int *)a[0])[1]);
    if((cl->nr == 9 || cl->nr == 25) && ret > 0 && ret < (1L << 47) &&
       (ret < (long)arena || ret >= (long)arena_end))   // placed outside: not ours to keep
      raw(11, ret, cl->nr == 9 ? a[1] : a[2], 0, 0, 0, 0);
    if(cl->nr == 30 && ret > 0 && ret < (1L << 47) && (ret < (long)arena || ret >= (long)arena_end))
      raw(67, ret, 0, 0, 0, 0, 0);   // shmat placed it outside: detached
    if((cl->nr == 29 || cl->nr == 64) && ret >= 0) {   // for the parent to remove at the end
      int k = cl->nr == 64, i = __atomic_fetch_add(&sh->nipc[k], 1, __ATOMIC_RELAXED);
      if(i < 4096)
        sh->ipc[k][i] = (int)ret;
    }
    count(ci, ret, widx);
  }
  for(;;)
    pause();
  return NULL;
}

static void
worker(int idx, uint64_t seed, int nthreads, double life)
{
  widx = idx, wthreads = nthreads;
  setpgid(0, 0);   // kill(0, ...) from here reaches this worker's group, not the parent's
  struct sigaction sa = { .sa_handler = benign };
  sigaction(WDSIG, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sa.sa_flags = SA_RESTART;
  for(int s = 1; s < 65; s++)
    if(s != SIGKILL && s != SIGSTOP && s != SIGSEGV && s != SIGBUS && s != SIGILL &&
       s != SIGFPE && s != SIGTRAP && s != SIGSYS && s != SIGABRT && s != 32 && s != 33 && s != WDSIG)
      sigaction(s, &sa, NULL);
  long total = (GUARD * 2 + BODY) * 4096L;
  arena = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if(arena == MAP_FAILED)
    _exit(3);
  body = arena + GUARD * 4096, body_end = body + BODY * 4096L, arena_end = arena + total;
  mmap(body, 256 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  mmap(body + 256 * 4096, 256 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  struct ctx c = { mix(seed) };
  for(int i = 0; i < 24; i++)
    fds[i] = -1;
  janitor(&c);
  ftruncate(fds[0], 64 * 4096);
  mmap(body + 512 * 4096, 64 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[0], 0);
  wseed = seed;
  for(int t = 0; t < nthreads; t++) {
    tbuf[t] = mmap(NULL, BUFSZ + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if(tbuf[t] == MAP_FAILED || mprotect(tbuf[t] + BUFSZ, 4096, PROT_NONE) != 0)
      _exit(3);
  }
  for(int t = 0; t < nthreads; t++) {
    pthread_t th;
    if(pthread_create(&th, NULL, fuzzer, (void *)(long)t) != 0)
      break;
    while(!tids[t])
      sched_yield();
  }
  go = 1;
  // The watchdog: a thread in one call for 100 ms gets WDSIG, whose handler makes the call
  // return EINTR (no SA_RESTART); a timed-out worker life ends the whole process.
  unsigned long last[MAXT] = { 0 };
  struct timespec tick = { 0, 20 * 1000 * 1000 }, t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int stuck[MAXT] = { 0 };
  for(;;) {
    nanosleep(&tick, NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if(sh->stop || now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 > life)
      raw(231, 0, 0, 0, 0, 0, 0);
    for(int t = 0; t < nthreads; t++) {
      stuck[t] = busy[t] && seq[t] == last[t] ? stuck[t] + 1 : 0;
      last[t] = seq[t];
      if(stuck[t] >= 5 && tids[t]) {
        raw(234, getpid(), tids[t], WDSIG, 0, 0, 0);
        __atomic_fetch_add(&sh->pokes, 1, __ATOMIC_RELAXED);
      }
    }
  }
}

// Removes the scratch directory: every file the run made is gone before the leak check.
// Relative to directory fds, since names may be 255 bytes of anything (a path argument that
// pointed at code); renames nest directories without bound, so one deeper than 24 (this
// kernel has 64 fds) is moved up under the scratch directory, for the next pass.
static int moved;

static void
rmtree(int dirfd, const char *name, int depth, int rootfd)
{
  char up[32];
  if(depth > 24) {
    snprintf(up, sizeof up, "deep%d", moved++);
    renameat(dirfd, name, rootfd, up);
    return;
  }
  fchmodat(dirfd, name, 0700, 0);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if(d) {
    struct dirent *e;
    while((e = readdir(d)))
      if(strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        struct stat sb;
        if(fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode))
          rmtree(fd, e->d_name, depth + 1, rootfd < 0 ? fd : rootfd);
        else
          unlinkat(fd, e->d_name, 0);
      }
    closedir(d);
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

// Counts a directory's entries; with seen, names each one that seen (a "/"-joined list of the
// names at the start) lacks: what escaped the scratch directory.
static int
entries(const char *p, char *names, size_t size, const char *seen)
{
  int n = 0;
  DIR *d = opendir(p);
  for(struct dirent *e; d && (e = readdir(d)); n++) {
    char key[300];
    snprintf(key, sizeof key, "/%s/", e->d_name);
    if(names && strlen(names) + strlen(key) < size)
      strcat(names, key + 1);
    if(seen && !strstr(seen, key))
      printf("sysfuzz: %s/%s was made outside the scratch directory\n", p, e->d_name);
  }
  if(d)
    closedir(d);
  return n;
}

// sysfuzz --ipc-clean: every System V segment and semaphore set it may remove, named and
// removed (SHM_STAT and SEM_STAT walk the slots), for what fuzzers leave behind: trinity's,
// and those of a worker killed before it said what it made. The number removed.
static int
ipc_clean(void)
{
  int n = 0;
  struct shm_info si;
  int hi = shmctl(0, SHM_INFO, (struct shmid_ds *)&si);
  for(int i = 0; i <= hi && i < 4096; i++) {
    struct shmid_ds ds;
    int id = shmctl(i, SHM_STAT, &ds);
    if(id >= 0 && shmctl(id, IPC_RMID, NULL) == 0) {
      printf("sysfuzz: left behind: shm id %d key %#x, %zu bytes\n", id, ds.shm_perm.__key,
             (size_t)ds.shm_segsz);
      n++;
    }
  }
  struct seminfo info;
  hi = semctl(0, 0, SEM_INFO, &info);
  for(int i = 0; i <= hi && i < 4096; i++) {
    struct semid_ds ds;
    int id = semctl(i, 0, SEM_STAT, &ds);
    if(id >= 0 && semctl(id, 0, IPC_RMID) == 0) {
      printf("sysfuzz: left behind: semaphore set id %d key %#x, %lu semaphores\n", id,
             ds.sem_perm.__key, (unsigned long)ds.sem_nsems);
      n++;
    }
  }
  return n;
}

static double
now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
  uint64_t seed = 0;
  int procs = 4, threads = 4, secs = 60, seeded = 0;
  const char *dir = NULL, *only = NULL;
  if(argc == 2 && !strcmp(argv[1], "--ipc-clean")) {
    printf("sysfuzz: %d System V objects removed\n", ipc_clean());
    return 0;
  }
  for(int i = 1; i + 1 < argc; i += 2) {
    if(!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 0), seeded = 1;
    else if(!strcmp(argv[i], "--secs")) secs = atoi(argv[i + 1]);
    else if(!strcmp(argv[i], "--procs")) procs = atoi(argv[i + 1]);
    else if(!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
    else if(!strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if(!strcmp(argv[i], "--calls")) only = argv[i + 1];
    else if(!strcmp(argv[i], "--trace")) trace = atoi(argv[i + 1]);
    else break;
  }
  if(argc % 2 == 0 || procs < 1 || procs > MAXW || threads < 1 || threads > MAXT || secs < 1) {
    fprintf(stderr, "usage: sysfuzz [--seed N] [--secs S] [--procs 1-%d] [--threads 1-%d] [--dir D] "
            "[--calls name,name,...] [--trace 0|1]\n       sysfuzz --ipc-clean\n",
            MAXW, MAXT);
    return 2;
  }
  for(int i = 0; i < NCALLS; i++) {
    char name[40];
    snprintf(name, sizeof name, ",%s,", calls[i].name);
    char list[1000];
    snprintf(list, sizeof list, ",%s,", only ? only : "");
    weight[i] = !only || strstr(list, name) ? calls[i].w : 0;
    enabled += weight[i] > 0;
  }
  if(!enabled) {
    fprintf(stderr, "sysfuzz: --calls %s names no call of the table\n", only);
    return 2;
  }
  if(!seeded) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    seed = (uint64_t)t.tv_sec;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("sysfuzz: seed=%llu procs=%d threads=%d secs=%d%s%s\n", (unsigned long long)seed, procs,
         threads, secs, only ? " calls=" : "", only ? only : "");
  char cwd[200];
  if(!dir && !getcwd(cwd, sizeof cwd))
    return 3;
  snprintf(scratch, sizeof scratch, "%s/sysfuzz-scratch-%d", dir ? dir : strcmp(cwd, "/") ? cwd : "",
           (int)getpid());
  char top[256];
  snprintf(top, sizeof top, "%s", scratch);
  *strrchr(top, '/') = 0;
  static char names[8192] = "/";
  int before = entries(top[0] ? top : "/", names, sizeof names, NULL);
  if(mkdir(scratch, 0755) != 0) {
    printf("sysfuzz: FAILED mkdir %s: %s\n", scratch, strerror(errno));
    return 3;
  }
  // Paths: scratch ones for calls that change things, system ones only to read.
  static const char *w[] = { "f0", "f1", "f2", "d0", "d1", "d0/f0", "d0/f1", "d1/d2", "l0", "l1",
    "d0/l2", "p0", "f0/x", "d1/d2/f3", "d0/f0/", "f1" };
  static char wb[16][300];
  for(int i = 0; i < 16; i++) {
    snprintf(wb[i], 300, "%s/%s", scratch, w[i]);
    paths_w[npw++] = i == 15 ? w[i] : wb[i];   // one relative name: the cwd is in scratch too
  }
  static const char *r[] = { "/", "/dev/null", "/dev/zero", "/proc/self/exe", "/test/bin/hello",
    "/test/bin", "/nonexistent", "/dev/null/x", "", "." };
  for(int i = 0; i < 10; i++)
    paths_r[npr++] = r[i];
  for(int i = 0; i < npw; i++)
    paths_r[npr++] = paths_w[i];
  memset(longpath, 'a', sizeof longpath - 1);
  memcpy(longpath, scratch, strlen(scratch));
  longpath[strlen(scratch)] = '/';
  if(chdir(scratch) != 0)
    return 3;
  for(int fd = 3; fd < 64; fd++)   // nothing inherited is ours to fuzz
    close(fd);

  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if(sh == MAP_FAILED)
    return 3;
  sh->ppid = getpid(), sh->ppgrp = getpgrp();
  // Orphaned grandchildren come back here to be reaped (a worker's forks, CLONE_PARENT ones).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTTOU, SIG_IGN);
  int gen[MAXW] = { 0 }, started = 0, died = 0, killed = 0, reaped_other = 0;
  unsigned long lastbeat[MAXW] = { 0 };
  double since[MAXW] = { 0 }, t0 = now_s(), end = t0 + secs;
  int sigs[65] = { 0 }, leftover = 0, strays = 0;
  for(;;) {
    double t = now_s();
    for(int i = 0; i < procs && t < end; i++)
      if(!sh->pids[i]) {
        uint64_t ws = mix(seed ^ mix(((uint64_t)i << 32) | (uint64_t)gen[i]));
        double life = 2 + (ws % 4000) / 1000.0;
        gen[i]++;
        pid_t p = fork();
        if(p == 0)
          worker(i, ws, threads, life);
        if(p > 0) {
          sh->pids[i] = p, started++, since[i] = t, lastbeat[i] = sh->beat[i];
        }
      }
    // Reap: look first (WNOWAIT) and forget the pid before it can be reused, so that no
    // worker ever signals a pid that is no longer this run's.
    siginfo_t si;
    for(;;) {
      memset(&si, 0, sizeof si);
      if(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 &&
         waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        break;
      if(si.si_pid == 0)
        break;
      int mine = 0;
      for(int i = 0; i < MAXW; i++)
        if(sh->pids[i] == si.si_pid)
          sh->pids[i] = 0, mine = 1;
      // What the worker left in its group (a child stopped or spinning after a bad
      // rt_sigreturn) dies with it: while the worker is unreaped its pid, the group's id, is
      // still this run's, so the signal reaches no one else.
      if(mine)
        kill(-si.si_pid, SIGKILL);
      int st = 0;
      if(waitpid(si.si_pid, &st, __WALL) < 0)
        waitpid(si.si_pid, &st, 0);
      if(!mine)
        reaped_other++;
      else if(WIFSIGNALED(st))
        died++, sigs[WTERMSIG(st) % 65]++;
      else if(WEXITSTATUS(st) != 0)
        died++;
    }
    t = now_s();
    int live = 0;
    for(int i = 0; i < procs; i++) {
      if(!sh->pids[i])
        continue;
      live++;
      if(sh->beat[i] != lastbeat[i]) {
        lastbeat[i] = sh->beat[i], since[i] = t;
      } else if(t - since[i] > 4 || (sh->stop && t - since[i] > 2)) {
        kill(sh->pids[i], SIGKILL), killed++, since[i] = t;   // stuck: still ours (unreaped)
      } else if(t - since[i] > 0.5) {
        kill(sh->pids[i], SIGCONT);   // stopped by a fuzzed SIGSTOP
      }
    }
    if(t >= end) {
      sh->stop = 1;
      if(!live && t > end + 2)
        strays += kill_strays();
      if(!live) {   // this kernel has no __WALL (doc/syscalls.md): EINVAL, then without it
        pid_t r = waitpid(-1, NULL, WNOHANG | __WALL);
        if(r < 0 && errno == EINVAL)
          r = waitpid(-1, NULL, WNOHANG);
        if(r < 0 && errno == ECHILD)
          break;
      }
      if(t > end + 20) {   // say who is left, then report what was done all the same
        for(int i = 0; i < procs; i++)
          if(sh->pids[i])
            printf("sysfuzz: worker %d pid %d still there 20 s after the end (beat %lu)\n", i,
                   sh->pids[i], sh->beat[i]);
        memset(&si, 0, sizeof si);
        int r = waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT);
        printf("sysfuzz: FAILED children left 20 s after the end (waitid %d errno %d pid %d "
               "code %d status %d)\n", r, r ? errno : 0, si.si_pid, si.si_code, si.si_status);
        leftover = 1;
        break;
      }
    }
    usleep(20000);
  }
  double el = now_s() - t0;
  if(strays)
    printf("sysfuzz: %d SIGKILLs to stray descendants after the end\n", strays);
  // The System V objects the workers made outlive them: removed here (twice named is fine).
  for(int k = 0; k < 2; k++)
    for(int i = 0; i < sh->nipc[k] && i < 4096; i++)
      raw(k ? 66 : 31, sh->ipc[k][i], 0, 0, 0, 0, 0);   // semctl(id, 0, IPC_RMID), shmctl(...)
  struct stat sb;
  for(int pass = 0; pass < 1000 && lstat(scratch, &sb) == 0; pass++)
    rmtree(AT_FDCWD, scratch, 0, -1);
  // Everything the run made was in the scratch directory, now gone: nothing more in its parent.
  int after = entries(top[0] ? top : "/", NULL, 0, names);
  if(after != before) {
    static char now[8192] = "/";
    entries(top[0] ? top : "/", now, sizeof now, NULL);
    printf("sysfuzz: FAILED %s held %d entries before the run and %d after it: %s then %s\n",
           top[0] ? top : "/", before, after, names, now);
    leftover = 1;
  }

  unsigned long total = 0;
  int distinct = 0, pairs = 0, sigpairs = 0;
  for(int i = 0; i < NCALLS; i++) {
    unsigned long n = 0;
    char line[2048];
    int len = snprintf(line, sizeof line, "sysfuzz: call=%s", calls[i].name);
    for(int j = 0; j < NRES; j++) {
      unsigned long v = sh->res[i][j];
      if(!v)
        continue;
      n += v;
      if(j == 0)
        len += snprintf(line + len, sizeof line - len, " ok=%lu", v);
      else if(j < 150) {
        const char *e = strerrorname_np(j);
        pairs++;
        len += e ? snprintf(line + len, sizeof line - len, " %s=%lu", e, v)
                 : snprintf(line + len, sizeof line - len, " errno%d=%lu", j, v);
      } else {
        sigpairs++;
        len += snprintf(line + len, sizeof line - len, " signal%d=%lu", j - 150, v);
      }
    }
    total += n;
    distinct += n > 0;
    printf("%s n=%lu\n", line, n);
  }
  // "of": the calls the table, or --calls, let it make.
  printf("sysfuzz: calls=%lu distinct_calls=%d of %d errnos=%d child_signals=%d "
         "workers_started=%d workers_died=%d watchdog_kills=%d pokes=%lu grandchildren=%d "
         "secs=%.1f\n", total, distinct, enabled, pairs, sigpairs, started, died, killed, sh->pokes,
         reaped_other, el);
  for(int s = 1; s < 65; s++)
    if(sigs[s])
      printf("sysfuzz: workers killed by signal %d: %d\n", s, sigs[s]);
  // Enough work for the verdict to mean something: most of the table reached, and calls
  // in the thousands; otherwise the fuzzer itself is broken, whatever the kernel did.
  if(leftover)
    return 1;
  if(distinct * 10 < enabled * 9 || total < 1000) {
    printf("sysfuzz: FAILED too little work: %d of %d calls reached, %lu calls\n", distinct,
           enabled, total);
    return 1;
  }
  printf("sysfuzz: done\n");
  return 0;
}
