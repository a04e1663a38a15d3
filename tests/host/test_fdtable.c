// Host test of fs/file.c's fd table: the lowest-free search against a plain model under random
// installs, replaces and closes, growth, RLIMIT_NOFILE, ENOMEM at every allocation, fork's and
// execve's tables, and fget from reader threads (liburcu) while a writer grows the table.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "errno.h"
#include "fdtable.h"
#include "process.h"
#include "sched.h"
#include "check.h"
#include "lib/host.h"

// What fs/file.c calls of the rest of the kernel.
static u64 nofile = 1024;
static long closes;
static long posix_drops, ofd_drops;   // fs/locks.c's calls: every fd's end, every description's
static long ep_releases;              // fs/eventpoll.c's: every description's end

u64 rlimit(int resource);
void vfs_close(struct file *f);   // fs.h's, whose types clash with the host's <sys/types.h>
void locks_remove_posix(struct ufile *uf, struct files *owner);
void locks_remove_ofd(struct ufile *uf);
void eventpoll_release(struct ufile *uf);
struct dentry *get_root(void);
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);

// The working directory's references (files_alloc takes the root, fork one more, the last
// put drops it): a stand-in dentry counts them, and the test ends with none held.
static long root_refs;
static char root_dentry;   // never dereferenced by fs/file.c

struct dentry *
get_root(void)
{
  return dget((struct dentry *)&root_dentry);
}

struct dentry *
dget(struct dentry *d)
{
  __atomic_fetch_add(&root_refs, 1, __ATOMIC_RELAXED);
  return d;
}

void
dput(struct dentry *d)
{
  if(d)
    __atomic_fetch_sub(&root_refs, 1, __ATOMIC_RELAXED);
}

u64
rlimit(int resource)
{
  return resource == RLIMIT_NOFILE ? __atomic_load_n(&nofile, __ATOMIC_RELAXED) : ~0UL;
}

void
vfs_close(struct file *f)
{
  __atomic_fetch_add(&closes, 1, __ATOMIC_RELAXED);
}

void
locks_remove_posix(struct ufile *uf, struct files *owner)
{
  __atomic_fetch_add(&posix_drops, 1, __ATOMIC_RELAXED);
}

void
locks_remove_ofd(struct ufile *uf)
{
  __atomic_fetch_add(&ofd_drops, 1, __ATOMIC_RELAXED);
}

// Each description it is called for must still be whole: its epoll list set up by
// ufile_alloc and empty (no epoll in this test).
void
eventpoll_release(struct ufile *uf)
{
  if(uf->f_ep.next == &uf->f_ep)
    __atomic_fetch_add(&ep_releases, 1, __ATOMIC_RELAXED);
}

static struct process proc;

// Each host thread is a kernel thread of its own: it joins the test's process.
static void
enter(void)
{
  current->proc = &proc;
}

static struct ufile *
new_ufile(void)
{
  struct ufile *uf = ufile_alloc(NULL, 0);
  if(!uf)
    abort();
  return uf;
}

static unsigned
max_fds(void)
{
  return proc.files->fdt->max_fds;
}

// The lowest-free search (full_fds_bits, open_fds) against a model of which fds are set,
// through growth to 4096 slots.
static void
test_model(void)
{
  enum { N = 4096 };
  static bool model[N], cloexec[N];
  memset(model, 0, sizeof(model));
  memset(cloexec, 0, sizeof(cloexec));
  for(int i = 0; i < 3; i++)
    model[i] = true;
  srand(1);
  nofile = N;
  for(int step = 0; step < 40000; step++) {
    int op = rand() % 10, fd = rand() % N;
    if(step < 20000 && op < 3)
      fd = rand() % 300;   // first the low words fill, some all ones, and empty again
    if(op < 5) {
      int from = op == 0 ? fd : 0, want = from;
      while(want < N && model[want])
        want++;
      struct ufile *uf = new_ufile();
      int got = fd_install(uf, from, false);
      CHECK(got == (want < N ? want : -EMFILE));
      if(got < 0)
        fput(uf);   // the caller's on failure
      else
        model[got] = true, cloexec[got] = false;
    } else if(op < 7) {
      CHECK(fd_replace(fd, new_ufile(), fd % 2) == fd);
      model[fd] = true, cloexec[fd] = fd % 2;
    } else {
      CHECK(fd_close(fd) == (model[fd] ? 0 : -EBADF));
      model[fd] = false;
    }
  }
  CHECK(max_fds() == N);
  for(int fd = 0; fd < N; fd++) {
    struct ufile *uf = fget(fd);
    CHECK(!uf == !model[fd]);
    CHECK(fd_cloexec(fd, -1) == (model[fd] ? cloexec[fd] : -EBADF));
    if(uf)
      fput(uf);
  }
  nofile = 1024;
}

// Exactly RLIMIT_NOFILE fds, growth in powers of two from 128, EBADF past the limit.
static void
test_limits(struct files *fs)
{
  CHECK(fs->fdt == &fs->fdtab && max_fds() == 64);
  nofile = 100;
  int n = 0, last = -1, fd;
  struct ufile *uf;
  while((fd = fd_install(uf = new_ufile(), 0, false)) >= 0)
    last = fd, n++;
  CHECK(fd == -EMFILE && last == 99 && n == 97 && max_fds() == 128);
  fput(uf);   // the caller's on failure
  CHECK(fd_replace(100, new_ufile(), false) == -EBADF);   // the reference went
  nofile = 1024;
  CHECK(fd_install(new_ufile(), 500, false) == 500 && max_fds() == 512);
  CHECK(fd_replace(1000, new_ufile(), true) == 1000 && max_fds() == 1024);
  CHECK(fd_cloexec(1000, -1) == 1 && fd_cloexec(999, -1) == -EBADF);
  CHECK(fget(1024) == NULL && fget(-1) == NULL && fd_close(5000) == -EBADF);
}

// Every allocation that growth, fork and execve make may fail: ENOMEM (NULL), nothing
// changed, nothing leaked.
static void
test_enomem(struct files *fs)
{
  struct fdtable *before = fs->fdt;
  nofile = 4096;
  for(unsigned nth = 1; nth <= 3; nth++) {
    rcu_barrier();   // descriptions put before are gone before counting
    long live = slab_nr_live();
    struct ufile *uf = new_ufile();
    slab_fail_nth(nth);
    int r = fd_replace(1500, uf, false);
    slab_fail_nth(0);
    CHECK(r == -ENOMEM && fs->fdt == before);
    rcu_barrier();   // the description fput freed goes after a grace period
    CHECK(slab_nr_live() == live);
    uf = new_ufile();
    slab_fail_nth(nth);
    r = fd_install(uf, 2000, false);
    slab_fail_nth(0);
    CHECK(r == -ENOMEM && fs->fdt == before);
    fput(uf);
    rcu_barrier();
    CHECK(slab_nr_live() == live);
  }
  for(unsigned nth = 1; nth <= 4; nth++) {
    long live = slab_nr_live();
    slab_fail_nth(nth);
    struct files *child = files_dup(fs);
    slab_fail_nth(0);
    CHECK(!child);
    CHECK(slab_nr_live() == live);
  }
  nofile = 1024;
}

// fork copies what the open fds need; execve closes the close-on-exec ones at any height.
static void
test_dup_exec(struct files *fs)
{
  long c0 = closes, p0 = posix_drops;
  struct files *child = files_dup(fs);
  CHECK(child && child->fdt->max_fds == 1024 && child->fdt->fd[1000] == fs->fdt->fd[1000]);
  CHECK(child && (child->fdt->close_on_exec[1000 / 64] >> (1000 % 64)) & 1);
  struct files *orig = child;
  files_get(orig);
  CHECK(files_exec(&child) == 0);   // shared: made private first, then closed in the copy
  CHECK(child != orig && orig->fdt->fd[1000] == fs->fdt->fd[1000]);
  CHECK(child->fdt->fd[1000] == NULL && child->fdt->fd[500] == fs->fdt->fd[500]);
  files_put(child);
  files_put(orig);
  CHECK(closes == c0);   // every description is still the parent's too
  // Yet each fd the copies closed dropped its table's record locks (fcntl(2): any close).
  CHECK(posix_drops > p0);
  CHECK(ofd_drops == closes);   // a description's locks go exactly when it does
  CHECK(ep_releases == closes);   // and it leaves its epoll sets then too

  struct files *small = files_alloc();
  proc.files = small;
  CHECK(fd_replace(900, new_ufile(), false) == 900 && small->fdt->max_fds == 1024);
  CHECK(fd_close(900) == 0);
  struct files *copy = files_dup(small);
  CHECK(copy && copy->fdt == &copy->fdtab);   // only fds 0-2 open: the first table
  files_put(copy);
  proc.files = fs;
  files_put(small);
}

// --- fget from readers while the writer grows the table (and closes and reopens fds).

enum { READERS = 3, ROUNDS = 200, TOP = 8192 };
static int stop;
static long reads, bad;

static void *
reader(void *arg)
{
  rcu_register_thread();
  enter();
  long n = 0, b = 0;
  while(!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
    for(int fd = 3; fd < 6; fd++) {
      struct ufile *uf = fget(fd);
      if(!uf || uf->flags != (u32)fd)
        b++;
      if(uf)
        fput(uf);
    }
    struct ufile *uf = fget(60 + (int)(n % 4096));   // sometimes set, sometimes not
    if(uf)
      fput(uf);
    n++;
  }
  __atomic_fetch_add(&reads, n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&bad, b, __ATOMIC_RELAXED);
  rcu_unregister_thread();
  return NULL;
}

static void
test_race(void)
{
  nofile = TOP;
  long live = slab_nr_live();
  unsigned grown = 0;
  for(int round = 0; round < ROUNDS; round++) {
    struct files *fs = files_alloc();
    proc.files = fs;
    for(int fd = 3; fd < 6; fd++) {
      struct ufile *uf = ufile_alloc(NULL, (u32)fd);
      CHECK(fd_install(uf, 0, false) == fd);
    }
    stop = 0;
    pthread_t t[READERS];
    for(int i = 0; i < READERS; i++)
      pthread_create(&t[i], NULL, reader, NULL);
    for(int fd = 60; fd < TOP; fd += 7) {
      unsigned before = fs->fdt->max_fds;
      if(fd_replace(fd, new_ufile(), false) != fd)
        bad++;
      grown += fs->fdt->max_fds != before;
      if(fd % 2)
        fd_close(fd);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for(int i = 0; i < READERS; i++)
      pthread_join(t[i], NULL);
    files_put(fs);
  }
  rcu_barrier();
  CHECK(bad == 0);
  CHECK(grown == ROUNDS * 7);   // 64 -> 128 -> ... -> 8192 each round
  CHECK(reads >= ROUNDS * READERS);
  CHECK(slab_nr_live() == live);
  nofile = 1024;
}

int
main(void)
{
  rcu_register_thread();
  enter();
  long live = slab_nr_live();
  struct files *fs = files_alloc();
  proc.files = fs;
  test_limits(fs);
  test_enomem(fs);
  test_dup_exec(fs);
  files_put(fs);

  proc.files = fs = files_alloc();
  test_model();
  files_put(fs);
  rcu_barrier();
  CHECK(slab_nr_live() == live);
  CHECK(root_refs == 0);   // every table's working directory dropped with it

  test_race();
  rcu_unregister_thread();
  return check_summary("test_fdtable");
}
