// The per-process file table: fds to open file descriptions, close-on-exec bits and the
// working directory, shared by a process's threads (clone(2) CLONE_FILES), as Linux's fs/file.c.
#include "errno.h"
#include "eventpoll.h"
#include "uapi/fcntl.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "sched.h"
#include "slab.h"
#include "string.h"

struct ufile *
ufile_alloc(struct file *f, u32 flags)
{
  struct ufile *uf = kzalloc(sizeof(*uf), GFP_KERNEL);
  if(!uf)
    return NULL;
  uf->refs = 1;
  uf->file = f;
  uf->flags = flags;
  INIT_LIST_HEAD(&uf->f_ep);
  return uf;
}

// The references of a description are atomic: since fork, tables with different locks
// point at it. True when this was the last one.
static bool
ufile_put(struct ufile *uf)
{
  return __atomic_sub_fetch(&uf->refs, 1, __ATOMIC_ACQ_REL) == 0;
}

static void
ufile_free_rcu(struct rcu_head *head)
{
  kfree(container_of(head, struct ufile, rcu));
}

// The file is closed now; the description's memory waits a grace period, for an fget that
// loaded the pointer before the fd was cleared and will find refs at 0.
static void
ufile_free(struct ufile *uf)
{
  locks_remove_ofd(uf);
  eventpoll_release(uf);
  vfs_close(uf->file);
  call_rcu(&uf->rcu, ufile_free_rcu);
}

// The fd that held uf in fs is gone: its POSIX locks on the file go with it (any fd's close
// releases the process's locks, fcntl(2)), then its reference.
static void
fd_release(struct files *fs, struct ufile *uf)
{
  locks_remove_posix(uf, fs);
  if(ufile_put(uf))
    ufile_free(uf);
}

// A reference, unless the last one is already gone (then the description is being freed).
static bool
ufile_get_unless_zero(struct ufile *uf)
{
  int refs = __atomic_load_n(&uf->refs, __ATOMIC_RELAXED);
  do {
    if(!refs)
      return false;
  } while(!__atomic_compare_exchange_n(&uf->refs, &refs, refs + 1, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED));
  return true;
}

// --- The table's bitmaps, a u64 a word (Linux's BITS_PER_LONG on x86-64).

#define WORDS(bits) (((bits) + 63) / 64)

// The first clear bit of map at or after start, below size; size if none.
static unsigned
find_next_zero_bit(const u64 *map, unsigned size, unsigned start)
{
  for(unsigned i = start / 64; i * 64 < size; i++) {
    u64 w = ~map[i];
    if(i == start / 64)
      w &= ~0UL << (start % 64);
    if(w) {
      unsigned bit = i * 64 + (unsigned)__builtin_ctzl(w);
      return bit < size ? bit : size;
    }
  }
  return size;
}

static bool
test_bit(const u64 *map, unsigned n)
{
  return (map[n / 64] >> (n % 64)) & 1;
}

static void
assign_bit(u64 *map, unsigned n, bool on)
{
  if(on)
    map[n / 64] |= 1UL << (n % 64);
  else
    map[n / 64] &= ~(1UL << (n % 64));
}

// open_fds and full_fds_bits together, as Linux's __set_open_fd and __clear_open_fd.
static void
set_open_fd(struct fdtable *fdt, unsigned fd)
{
  assign_bit(fdt->open_fds, fd, true);
  if(fdt->open_fds[fd / 64] == ~0UL)
    assign_bit(fdt->full_fds_bits, fd / 64, true);
}

static void
clear_open_fd(struct fdtable *fdt, unsigned fd)
{
  assign_bit(fdt->open_fds, fd, false);
  assign_bit(fdt->full_fds_bits, fd / 64, false);
}

// The lowest free fd at or past start, or max_fds: a word of 64 fds all open costs one bit
// test of full_fds_bits (Linux's find_next_fd), so this is O(max_fds / 64) at worst.
static unsigned
find_next_fd(struct fdtable *fdt, unsigned start)
{
  unsigned maxfd = fdt->max_fds;
  unsigned word = find_next_zero_bit(fdt->full_fds_bits, maxfd / 64, start / 64);
  if(word * 64 >= maxfd)
    return maxfd;
  if(word * 64 > start)
    start = word * 64;
  return find_next_zero_bit(fdt->open_fds, maxfd, start);
}

// --- Tables past the first one (Linux's alloc_fdtable, expand_files).

static void
free_fdtable(struct fdtable *fdt)
{
  kfree(fdt->fd);
  kfree(fdt->open_fds);
  kfree(fdt);
}

static void
free_fdtable_rcu(struct rcu_head *head)
{
  free_fdtable(container_of(head, struct fdtable, rcu));
}

// A table of at least slots fds (more than NR_OPEN_DEFAULT): the next power of two, as Linux's
// alloc_fdtable on 64-bit, whose smallest grown table is 128 slots (a 1 KiB fd array). The fd
// array is one kmalloc: Linux's kvmalloc falls back to vmalloc, which this kernel has not, so
// past 2^19 slots (4 MiB, MAX_ORDER) the allocation fails and the caller gets ENOMEM. NULL if
// no memory; zeroed.
static struct fdtable *
alloc_fdtable(unsigned slots)
{
  unsigned nr = 128;
  while(nr < slots)
    nr *= 2;
  struct fdtable *fdt = kzalloc(sizeof(*fdt), GFP_KERNEL);
  if(!fdt)
    return NULL;
  fdt->max_fds = nr;
  fdt->fd = kzalloc(nr * sizeof(*fdt->fd), GFP_KERNEL | __GFP_NOWARN);   // a user's size
  // open_fds, close_on_exec and full_fds_bits in one allocation, as Linux's.
  u64 *bits = kzalloc((2 * WORDS(nr) + WORDS(nr / 64)) * sizeof(u64), GFP_KERNEL);
  if(!fdt->fd || !bits) {
    kfree(fdt->fd);
    kfree(bits);
    kfree(fdt);
    return NULL;
  }
  fdt->open_fds = bits;
  fdt->close_on_exec = bits + WORDS(nr);
  fdt->full_fds_bits = bits + 2 * WORDS(nr);
  return fdt;
}

// The first count fds of ofdt (a multiple of 64) into nfdt, which is at least as big: the
// pointers and their bits, no references taken.
static void
copy_fdtable(struct fdtable *nfdt, struct fdtable *ofdt, unsigned count)
{
  memcpy(nfdt->fd, ofdt->fd, count * sizeof(*nfdt->fd));
  memcpy(nfdt->open_fds, ofdt->open_fds, WORDS(count) * sizeof(u64));
  memcpy(nfdt->close_on_exec, ofdt->close_on_exec, WORDS(count) * sizeof(u64));
  for(unsigned w = 0; w < WORDS(count); w++)
    assign_bit(nfdt->full_fds_bits, w, nfdt->open_fds[w] == ~0UL);
}

// Makes fd nr fit in fs's table, with fs->lock held (dropped while allocating, which may
// sleep, and taken again): 0 if it fitted already, 1 if the table was replaced (the caller
// looks again: another thread may have changed it meanwhile), -EMFILE past NR_OPEN_MAX,
// -ENOMEM. As Linux's expand_files, but without its resize_in_progress wait: two threads
// growing at once both allocate, and the later one frees its table when the other's is
// already big enough.
static int
expand_files(struct files *fs, unsigned nr)
{
  if(nr < fs->fdt->max_fds)
    return 0;
  if(nr >= NR_OPEN_MAX)
    return -EMFILE;
  spin_unlock(&fs->lock);
  struct fdtable *nfdt = alloc_fdtable(nr + 1);
  spin_lock(&fs->lock);
  if(!nfdt)
    return -ENOMEM;
  struct fdtable *cur = fs->fdt;
  if(nr < cur->max_fds) {
    free_fdtable(nfdt);
    return 1;
  }
  copy_fdtable(nfdt, cur, cur->max_fds);
  // The copied slots are visible before the table is: pairs with fget's rcu_dereference of
  // fs->fdt. Later writes go to the new table only (every writer holds fs->lock).
  rcu_assign_pointer(fs->fdt, nfdt);
  // An fget may still be reading the old one: freed after a grace period (Linux's
  // __free_fdtable through call_rcu). The first one lives inside fs.
  if(cur != &fs->fdtab)
    call_rcu(&cur->rcu, free_fdtable_rcu);
  return 1;
}

// fs's first table, the one inside it.
static void
files_init_fdtab(struct files *fs)
{
  struct fdtable *fdt = &fs->fdtab;
  fdt->max_fds = NR_OPEN_DEFAULT;
  fdt->fd = fs->fd_array;
  fdt->open_fds = &fs->open_fds_init;
  fdt->close_on_exec = &fs->close_on_exec_init;
  fdt->full_fds_bits = &fs->full_fds_bits_init;
  fs->fdt = fdt;
}

struct files *
files_alloc(void)
{
  struct files *fs = kzalloc(sizeof(*fs), GFP_KERNEL);
  if(!fs)
    return NULL;
  struct ufile *con = ufile_alloc(NULL, O_RDWR);
  if(!con) {
    kfree(fs);
    return NULL;
  }
  spin_lock_init(&fs->lock);
  fs->refs = 1;
  files_init_fdtab(fs);
  con->refs = 3;
  for(unsigned i = 0; i < 3; i++) {
    fs->fdt->fd[i] = con;
    set_open_fd(fs->fdt, i);
  }
  fs->pwd = get_root();
  return fs;
}

int
files_next_fd(struct files *fs, unsigned from)
{
  int fd = -1;
  spin_lock(&fs->lock);
  if(fs->refs) {   // 0: files_put is closing every fd, and the table is as good as empty
    struct fdtable *fdt = fs->fdt;
    for(unsigned i = from; i < fdt->max_fds; i++) {
      u64 word = fdt->open_fds[i / 64] >> (i % 64);
      if(word) {
        fd = (int)(i + __builtin_ctzll(word));
        break;
      }
      i |= 63;   // the rest of this word is empty
    }
  }
  spin_unlock(&fs->lock);
  return fd;
}

// A grace period after the last put: /proc/<pid>/fd's readers (files_next_fd) may still hold
// the table and its current fdtable under rcu_read_lock until then.
static void
files_free_rcu(struct rcu_head *head)
{
  struct files *fs = container_of(head, struct files, rcu);
  if(fs->fdt != &fs->fdtab)
    free_fdtable(fs->fdt);
  kfree(fs);
}

void
files_put(struct files *fs)
{
  if(!fs)
    return;
  spin_lock(&fs->lock);
  bool last = --fs->refs == 0;
  spin_unlock(&fs->lock);
  if(!last)
    return;
  // Nobody else can see the table now: no thread of a process that shares it is left.
  struct fdtable *fdt = fs->fdt;
  for(unsigned i = 0; i < fdt->max_fds; i++)
    if(fdt->fd[i])
      fd_release(fs, fdt->fd[i]);
  dput(fs->pwd);
  call_rcu(&fs->rcu, files_free_rcu);
}

// The fds up to the last word of open_fds with an fd in it (Linux's count_open_files): what
// fork copies, so a child's table is no bigger than the parent's open fds need.
static unsigned
count_open_files(struct fdtable *fdt)
{
  unsigned w = fdt->max_fds / 64;
  while(w > 0 && !fdt->open_fds[w - 1])
    w--;
  return w * 64;
}

// fork: a table of the child's own whose fds point at the same open file descriptions,
// so offsets and status flags stay shared, as in Linux (fork(2): "the child inherits copies
// of the parent's set of open file descriptors ... refer to the same open file
// descriptions"). Sized as Linux's dup_fd sizes it: the first table if the parent's open fds
// fit in it, else one grown to hold them (a table allocated while src's lock was dropped is
// checked again: another thread may have opened past it). NULL when out of memory.
struct files *
files_dup(struct files *src)
{
  struct files *fs = kzalloc(sizeof(*fs), GFP_KERNEL);
  if(!fs)
    return NULL;
  spin_lock_init(&fs->lock);
  fs->refs = 1;
  files_init_fdtab(fs);
  struct fdtable *nfdt = fs->fdt;
  spin_lock(&src->lock);
  unsigned count;
  while((count = count_open_files(src->fdt)) > nfdt->max_fds) {
    spin_unlock(&src->lock);
    if(nfdt != &fs->fdtab)
      free_fdtable(nfdt);
    nfdt = alloc_fdtable(count);
    if(!nfdt) {
      kfree(fs);
      return NULL;
    }
    spin_lock(&src->lock);
  }
  struct fdtable *ofdt = src->fdt;
  copy_fdtable(nfdt, ofdt, count);
  for(unsigned i = 0; i < count; i++)
    if(nfdt->fd[i])
      __atomic_fetch_add(&nfdt->fd[i]->refs, 1, __ATOMIC_RELAXED);
  fs->pwd = dget(src->pwd);
  spin_unlock(&src->lock);
  fs->fdt = nfdt;   // nobody else sees fs yet
  return fs;
}

struct dentry *
files_pwd(struct files *fs)
{
  spin_lock(&fs->lock);
  struct dentry *d = dget(fs->pwd);
  spin_unlock(&fs->lock);
  return d;
}

// Another process's working directory (/proc/<pid>/cwd), its table reached under RCU: NULL
// once the last files_put has begun, which drops pwd after it finds refs at 0 under the lock.
struct dentry *
files_pwd_live(struct files *fs)
{
  spin_lock(&fs->lock);
  struct dentry *d = fs->refs > 0 ? dget(fs->pwd) : NULL;
  spin_unlock(&fs->lock);
  return d;
}

// The old directory is dropped outside the lock: its last reference may free it (iput).
void
files_set_pwd(struct files *fs, struct dentry *d)
{
  spin_lock(&fs->lock);
  struct dentry *old = fs->pwd;
  fs->pwd = d;
  spin_unlock(&fs->lock);
  dput(old);
}

void
files_get(struct files *fs)
{
  spin_lock(&fs->lock);
  fs->refs++;
  spin_unlock(&fs->lock);
}

// execve: the fds marked close-on-exec are closed. A table shared with another process
// (clone's CLONE_FILES) is first made private, as Linux's unshare_files does. A word of
// close_on_exec at a time, as Linux's do_close_on_exec; the lock is dropped to close, so the
// table is looked up again for each word.
int
files_unshare(struct files **fsp)
{
  struct files *fs = *fsp;
  spin_lock(&fs->lock);
  bool shared = fs->refs > 1;
  spin_unlock(&fs->lock);
  if(shared) {
    struct files *copy = files_dup(fs);
    if(!copy)
      return -ENOMEM;
    files_put(fs);
    *fsp = copy;
  }
  return 0;
}

int
files_exec(struct files **fsp)
{
  int err = files_unshare(fsp);
  if(err)
    return err;
  struct files *fs = *fsp;
  spin_lock(&fs->lock);
  for(unsigned w = 0; w < WORDS(fs->fdt->max_fds); w++) {
    struct fdtable *fdt = fs->fdt;
    u64 set = fdt->close_on_exec[w];
    while(set) {
      unsigned fd = w * 64 + (unsigned)__builtin_ctzl(set);
      set &= set - 1;
      struct ufile *uf = fdt->fd[fd];
      if(!uf)
        continue;
      __atomic_store_n(&fdt->fd[fd], NULL, __ATOMIC_RELEASE);
      clear_open_fd(fdt, fd);
      assign_bit(fdt->close_on_exec, fd, false);
      spin_unlock(&fs->lock);   // vfs_close may sleep
      fd_release(fs, uf);
      spin_lock(&fs->lock);
      fdt = fs->fdt;
    }
  }
  spin_unlock(&fs->lock);
  return 0;
}

static struct files *
cur_files(void)
{
  return current->proc->files;
}

unsigned
files_max_fds(void)
{
  struct files *fs = cur_files();
  rcu_read_lock();
  unsigned n = rcu_dereference(fs->fdt)->max_fds;
  rcu_read_unlock();
  return n;
}

// Without the table's lock, as Linux's __fget_files_rcu: every read, write and pread of a
// threaded process would otherwise take one spinlock of the whole process (upread's 8
// threads, each on its own fd, did). The table and the pointer are loaded under
// rcu_read_lock (neither a replaced table nor the description can be freed before
// rcu_read_unlock), the description referenced unless its last reference is gone, and kept
// only if the current table's fd still points at it: a close and a new open of the fd in
// between, or a table grown and then changed, would otherwise hand out a description the
// fd no longer names.
struct ufile *
fget(int fd)
{
  struct files *fs = cur_files();
  if(fd < 0)
    return NULL;
  for(;;) {
    rcu_read_lock();
    // Pairs with expand_files' rcu_assign_pointer: the table's size and its copied slots.
    struct fdtable *fdt = rcu_dereference(fs->fdt);
    if((unsigned)fd >= fdt->max_fds) {
      rcu_read_unlock();
      return NULL;
    }
    // Pairs with fd_install's and fd_replace's release stores: the description's fields.
    struct ufile *uf = __atomic_load_n(&fdt->fd[fd], __ATOMIC_ACQUIRE);
    if(!uf) {
      rcu_read_unlock();
      return NULL;
    }
    if(!ufile_get_unless_zero(uf)) {
      rcu_read_unlock();
      continue;
    }
    bool same = rcu_dereference(fs->fdt) == fdt &&
                __atomic_load_n(&fdt->fd[fd], __ATOMIC_ACQUIRE) == uf;
    rcu_read_unlock();
    if(same)
      return uf;
    fput(uf);   // the fd moved on; outside the read section, as closing may sleep
  }
}

// Slots are written under fs->lock, so one read there holds a live reference that is safe
// to take; refs 0 means files_put is closing them all. The caller's RCU keeps fs itself.
struct ufile *
files_fget_rcu(struct files *fs, int fd)
{
  struct ufile *uf = NULL;
  spin_lock(&fs->lock);
  if(fs->refs > 0 && fd >= 0 && (unsigned)fd < fs->fdt->max_fds) {
    uf = fs->fdt->fd[fd];
    if(uf && !ufile_get_unless_zero(uf))
      uf = NULL;
  }
  spin_unlock(&fs->lock);
  return uf;
}

void
fput(struct ufile *uf)
{
  if(ufile_put(uf))
    ufile_free(uf);   // vfs_close may sleep: outside the lock
}

// Below RLIMIT_NOFILE only (Linux's alloc_fd with end = rlimit(RLIMIT_NOFILE)); a from past
// the table grows it, as F_DUPFD's does in Linux.
int
fd_install(struct ufile *uf, int from, bool cloexec)
{
  struct files *fs = cur_files();
  unsigned end = (unsigned)MIN(rlimit(RLIMIT_NOFILE), (u64)NR_OPEN_MAX);
  if(from < 0)
    return -EINVAL;
  spin_lock(&fs->lock);
  int err;
  unsigned fd;
  for(;;) {
    struct fdtable *fdt = fs->fdt;
    fd = (unsigned)from;
    if(fd < fdt->max_fds)
      fd = find_next_fd(fdt, fd);
    err = -EMFILE;
    if(fd >= end)
      goto out;
    err = expand_files(fs, fd);
    if(err < 0)
      goto out;
    if(err == 0)
      break;
  }
  struct fdtable *fdt = fs->fdt;
  set_open_fd(fdt, fd);
  assign_bit(fdt->close_on_exec, fd, cloexec);
  __atomic_store_n(&fdt->fd[fd], uf, __ATOMIC_RELEASE);   // pairs with fget's load
  err = (int)fd;
out:
  spin_unlock(&fs->lock);
  return err;
}

// A newfd at or past RLIMIT_NOFILE is EBADF, as Linux's dup2 and dup3 say; a table that
// cannot grow to it is ENOMEM (Linux's ksys_dup3 turns expand_files' EMFILE into EBADF).
int
fd_replace(int newfd, struct ufile *uf, bool cloexec)
{
  struct files *fs = cur_files();
  if(newfd < 0 || (u64)newfd >= MIN(rlimit(RLIMIT_NOFILE), (u64)NR_OPEN_MAX)) {
    fput(uf);
    return -EBADF;
  }
  spin_lock(&fs->lock);
  int err = expand_files(fs, (unsigned)newfd);
  if(err < 0) {
    spin_unlock(&fs->lock);
    fput(uf);
    return err == -EMFILE ? -EBADF : err;
  }
  struct fdtable *fdt = fs->fdt;
  struct ufile *old = fdt->fd[newfd];
  __atomic_store_n(&fdt->fd[newfd], uf, __ATOMIC_RELEASE);   // pairs with fget's load
  set_open_fd(fdt, (unsigned)newfd);
  assign_bit(fdt->close_on_exec, (unsigned)newfd, cloexec);
  spin_unlock(&fs->lock);
  if(old)
    fd_release(fs, old);
  return newfd;
}

int
fd_close(int fd)
{
  struct files *fs = cur_files();
  if(fd < 0)
    return -EBADF;
  spin_lock(&fs->lock);
  struct fdtable *fdt = fs->fdt;
  struct ufile *uf = (unsigned)fd < fdt->max_fds ? fdt->fd[fd] : NULL;
  if(!uf) {
    spin_unlock(&fs->lock);
    return -EBADF;
  }
  __atomic_store_n(&fdt->fd[fd], NULL, __ATOMIC_RELAXED);   // fget checks refs and rereads
  clear_open_fd(fdt, (unsigned)fd);
  assign_bit(fdt->close_on_exec, (unsigned)fd, false);
  spin_unlock(&fs->lock);
  fd_release(fs, uf);
  return 0;
}

int
fd_cloexec(int fd, int set)
{
  struct files *fs = cur_files();
  if(fd < 0)
    return -EBADF;
  spin_lock(&fs->lock);
  struct fdtable *fdt = fs->fdt;
  if((unsigned)fd >= fdt->max_fds || !fdt->fd[fd]) {
    spin_unlock(&fs->lock);
    return -EBADF;
  }
  if(set >= 0)
    assign_bit(fdt->close_on_exec, (unsigned)fd, set > 0);
  int r = test_bit(fdt->close_on_exec, (unsigned)fd);
  spin_unlock(&fs->lock);
  return r;
}
