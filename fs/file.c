// The per-process file table: fds to open file descriptions, close-on-exec bits and the
// working directory, shared by a process's threads (clone(2) CLONE_FILES), as Linux's fs/file.c.
#include "errno.h"
#include "uapi/fcntl.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "sched.h"
#include "slab.h"
#include "string.h"

struct ufile *
ufile_alloc(struct file *f, u32 flags, const char *path)
{
  struct ufile *uf = kzalloc(sizeof(*uf), GFP_KERNEL);
  if(!uf)
    return NULL;
  if(path) {
    size_t n = strlen(path) + 1;
    uf->path = kmalloc(n, GFP_KERNEL);
    if(!uf->path) {
      kfree(uf);
      return NULL;
    }
    memcpy(uf->path, path, n);
  }
  uf->refs = 1;
  uf->file = f;
  uf->flags = flags;
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
  vfs_close(uf->file);
  kfree(uf->path);
  call_rcu(&uf->rcu, ufile_free_rcu);
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

struct files *
files_alloc(void)
{
  struct files *fs = kzalloc(sizeof(*fs), GFP_KERNEL);
  if(!fs)
    return NULL;
  struct ufile *con = ufile_alloc(NULL, O_RDWR, NULL);
  if(!con) {
    kfree(fs);
    return NULL;
  }
  spin_lock_init(&fs->lock);
  fs->refs = 1;
  con->refs = 3;
  for(int i = 0; i < 3; i++)
    fs->fd[i] = con;
  strlcpy(fs->cwd, "/", sizeof(fs->cwd));
  return fs;
}

static void
files_free_rcu(struct rcu_head *head)
{
  kfree(container_of(head, struct files, rcu));
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
  for(int i = 0; i < NR_OPEN; i++) {
    struct ufile *uf = fs->fd[i];
    if(uf && ufile_put(uf))   // nobody else can see the table now
      ufile_free(uf);
  }
  call_rcu(&fs->rcu, files_free_rcu);
}

// fork: a table of the child's own whose fds point at the same open file descriptions,
// so offsets and status flags stay shared, as in Linux (fork(2): "the child inherits copies
// of the parent's set of open file descriptors ... refer to the same open file
// descriptions"). NULL when out of memory.
struct files *
files_dup(struct files *src)
{
  struct files *fs = kzalloc(sizeof(*fs), GFP_KERNEL);
  if(!fs)
    return NULL;
  spin_lock_init(&fs->lock);
  fs->refs = 1;
  spin_lock(&src->lock);
  for(int i = 0; i < NR_OPEN; i++) {
    fs->fd[i] = src->fd[i];
    if(fs->fd[i])
      __atomic_fetch_add(&fs->fd[i]->refs, 1, __ATOMIC_RELAXED);
  }
  fs->cloexec = src->cloexec;
  memcpy(fs->cwd, src->cwd, sizeof(fs->cwd));
  spin_unlock(&src->lock);
  return fs;
}

void
files_get(struct files *fs)
{
  spin_lock(&fs->lock);
  fs->refs++;
  spin_unlock(&fs->lock);
}

// execve: the fds marked close-on-exec are closed. A table shared with another process
// (clone's CLONE_FILES) is first made private, as Linux's unshare_files does.
int
files_exec(struct files **fsp)
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
    *fsp = fs = copy;
  }
  for(int i = 0; i < NR_OPEN; i++) {
    spin_lock(&fs->lock);
    struct ufile *uf = (fs->cloexec >> i) & 1 ? fs->fd[i] : NULL;
    if(uf) {
      fs->fd[i] = NULL;
      fs->cloexec &= ~(1UL << i);
    }
    spin_unlock(&fs->lock);
    if(uf && ufile_put(uf))
      ufile_free(uf);
  }
  return 0;
}

static struct files *
cur_files(void)
{
  return current->proc->files;
}

// Without the table's lock, as Linux's __fget_files_rcu: every read, write and pread of a
// threaded process would otherwise take one spinlock of the whole process (upread's 8
// threads, each on its own fd, did). The pointer is loaded under rcu_read_lock (the
// description cannot be freed before rcu_read_unlock), referenced unless its last
// reference is gone, and kept only if the fd still points at it: a close and a new open of
// the fd in between would otherwise hand out a description the fd no longer names.
struct ufile *
fget(int fd)
{
  struct files *fs = cur_files();
  struct ufile *uf;
  if(fd < 0 || fd >= NR_OPEN)
    return NULL;
  for(;;) {
    rcu_read_lock();
    // Pairs with fd_install's and fd_replace's release stores: the description's fields.
    uf = __atomic_load_n(&fs->fd[fd], __ATOMIC_ACQUIRE);
    bool got = uf && ufile_get_unless_zero(uf);
    rcu_read_unlock();
    if(!uf)
      return NULL;
    if(!got)
      continue;
    if(__atomic_load_n(&fs->fd[fd], __ATOMIC_ACQUIRE) == uf)
      return uf;
    fput(uf);   // the fd moved on; outside the read section, as closing may sleep
  }
}

void
fput(struct ufile *uf)
{
  if(ufile_put(uf))
    ufile_free(uf);   // vfs_close may sleep: outside the lock
}

// Below RLIMIT_NOFILE only (Linux's alloc_fd with end = rlimit(RLIMIT_NOFILE)).
int
fd_install(struct ufile *uf, int from, bool cloexec)
{
  struct files *fs = cur_files();
  int end = (int)MIN(rlimit(RLIMIT_NOFILE), (u64)NR_OPEN);
  spin_lock(&fs->lock);
  for(int fd = from; fd < end; fd++) {
    if(!fs->fd[fd]) {
      __atomic_store_n(&fs->fd[fd], uf, __ATOMIC_RELEASE);   // pairs with fget's load
      if(cloexec)
        fs->cloexec |= 1UL << fd;
      else
        fs->cloexec &= ~(1UL << fd);
      spin_unlock(&fs->lock);
      return fd;
    }
  }
  spin_unlock(&fs->lock);
  return -EMFILE;
}

// A newfd at or past RLIMIT_NOFILE (or the table) is EBADF, as Linux's dup2 and dup3 say.
int
fd_replace(int newfd, struct ufile *uf, bool cloexec)
{
  struct files *fs = cur_files();
  if(newfd < 0 || (u64)newfd >= MIN(rlimit(RLIMIT_NOFILE), (u64)NR_OPEN)) {
    fput(uf);
    return -EBADF;
  }
  spin_lock(&fs->lock);
  struct ufile *old = fs->fd[newfd];
  __atomic_store_n(&fs->fd[newfd], uf, __ATOMIC_RELEASE);   // pairs with fget's load
  if(cloexec)
    fs->cloexec |= 1UL << newfd;
  else
    fs->cloexec &= ~(1UL << newfd);
  bool last = old && ufile_put(old);
  spin_unlock(&fs->lock);
  if(last)
    ufile_free(old);
  return newfd;
}

int
fd_close(int fd)
{
  struct files *fs = cur_files();
  if(fd < 0 || fd >= NR_OPEN)
    return -EBADF;
  spin_lock(&fs->lock);
  struct ufile *uf = fs->fd[fd];
  if(!uf) {
    spin_unlock(&fs->lock);
    return -EBADF;
  }
  fs->fd[fd] = NULL;
  fs->cloexec &= ~(1UL << fd);
  bool last = ufile_put(uf);
  spin_unlock(&fs->lock);
  if(last)
    ufile_free(uf);
  return 0;
}

int
fd_cloexec(int fd, int set)
{
  struct files *fs = cur_files();
  if(fd < 0 || fd >= NR_OPEN)
    return -EBADF;
  spin_lock(&fs->lock);
  if(!fs->fd[fd]) {
    spin_unlock(&fs->lock);
    return -EBADF;
  }
  if(set > 0)
    fs->cloexec |= 1UL << fd;
  else if(set == 0)
    fs->cloexec &= ~(1UL << fd);
  int r = (fs->cloexec >> fd) & 1;
  spin_unlock(&fs->lock);
  return r;
}
