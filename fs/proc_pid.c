// /proc/<pid>/stat, status, comm, cmdline, exe, cwd, maps, mounts and fd/: a directory per listed
// process, made at fork and spawn and removed at the release, generated at each read (proc(5)).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "proc_internal.h"
#include "process.h"
#include "rcupdate.h"
#include "sched.h"
#include "slab.h"
#include "string.h"
#include "vsprintf.h"

struct process *
pid_process_rcu(int pid)
{
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p = find_process(pid);
  spin_unlock_irqrestore(&process_list_lock, flags);
  return p;
}

// What one read needs of the process, copied while it cannot go away.
struct pid_view {
  char name[PROC_NAME];
  char state;
  int ppid, pgid, sid, nr_threads;
  u32 umask;
  u64 min_flt;
};

// The state letter of proc(5): Z once every thread has exited (a zombie until reaped), T in
// a group stop, R when a thread is on a CPU or a run queue, else S (every thread waits).
static char
pid_state(struct process *p)
{
  if(READ_ONCE(p->dead))
    return 'Z';
  if(READ_ONCE(p->stopped))
    return 'T';
  char c = 'S';
  struct thread *t;
  spin_lock(&p->lock);
  list_for_each_entry(t, &p->threads, proc_node) {
    int s = READ_ONCE(t->state);
    if(s == T_RUNNING || s == T_RUNNABLE)
      c = 'R';
  }
  spin_unlock(&p->lock);
  return c;
}

// false when no listed process has this pid (gone: ESRCH, as Linux's reads of a dead
// task's files). The process and its fd table are freed a grace period after they are
// unlisted and put (release_process, files_put), so both may be read here under RCU.
static bool
pid_view(int pid, struct pid_view *v)
{
  memset(v, 0, sizeof(*v));
  rcu_read_lock();
  struct process *p = pid_process_rcu(pid);
  if(!p) {
    rcu_read_unlock();
    return false;
  }
  memcpy(v->name, p->name, sizeof(v->name));
  v->name[PROC_NAME - 1] = '\0';
  v->state = pid_state(p);
  struct process *parent = READ_ONCE(p->parent);
  v->ppid = parent ? READ_ONCE(parent->pid) : 0;   // kernel-started: Linux's init has 0
  v->pgid = READ_ONCE(p->pgid);
  v->sid = READ_ONCE(p->sid);
  v->nr_threads = READ_ONCE(p->nr_live);
  v->min_flt = READ_ONCE(p->min_flt);
  v->umask = READ_ONCE(p->umask);
  rcu_read_unlock();
  return true;
}

// The lowest open fd >= from of process pid: the fd, -1 when there is none (or the table is
// being closed), -ENOENT when no listed process has the pid.
static int
pid_next_fd(int pid, u64 from)
{
  rcu_read_lock();
  struct process *p = pid_process_rcu(pid);
  int fd = -ENOENT;
  if(p) {
    struct files *fs = READ_ONCE(p->files);   // NULL once exit has put it
    fd = fs && from < NR_OPEN_MAX ? files_next_fd(fs, (unsigned)from) : -1;
  }
  rcu_read_unlock();
  return fd;
}

// proc(5)'s 52 fields in their order. What this kernel does not keep (per-process CPU times,
// start time, memory sizes, scheduling class, addresses) is 0, as Linux shows for a zombie or
// for fields hidden from an unprivileged reader; tty_nr 0 and tpgid -1: no controlling
// terminal is recorded per process; priority 20 and nice 0: there is one scheduling class.
static ssize_t
stat_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  struct pid_view v;
  if(!pid_view((int)f->f_inode->i_private, &v))
    return -ESRCH;
  char text[512];
  size_t n = scnprintf(text, sizeof(text),
                       "%d (%s) %c %d %d %d 0 -1 0 %llu 0 0 0 0 0 0 0 20 0 %d 0 0 0 0 "
                       "18446744073709551615",
                       (int)f->f_inode->i_private, v.name, v.state, v.ppid, v.pgid, v.sid,
                       (unsigned long long)v.min_flt, v.nr_threads);
  for(int field = 26; field <= 52; field++)   // startcode .. exit_code
    n += scnprintf(text + n, sizeof(text) - n, " 0");
  n += scnprintf(text + n, sizeof(text) - n, "\n");
  return proc_read_text(text, n, buf, len, pos);
}

// One name per open fd, in order ("0", "1", ...), each a symbolic link (DT_LNK) as on Linux;
// f_pos is the fd to look from next, so a listing resumed after a full buffer, or after fds
// were opened and closed, neither repeats nor skips one still open. The names are not looked
// up here: only listed (readdir).
static int
fd_iterate(struct file *f, filldir_t fill, void *arg)
{
  int pid = (int)f->f_inode->i_private;
  int fd = pid_next_fd(pid, f->f_pos);
  if(fd == -ENOENT)
    return -ENOENT;   // Linux's readdir of a dead task's fd directory
  for(; fd >= 0; fd = pid_next_fd(pid, f->f_pos)) {
    char name[12];
    int len = scnprintf(name, sizeof(name), "%d", fd);
    // Linux's inode numbers of these names are private to proc; any unique value serves.
    u64 pos = f->f_pos;
    f->f_pos = (u64)fd + 1;   // before fill, as vfs_readdir: the place after the name
    if(!fill(arg, name, len, f->f_inode->i_ino * NR_OPEN_MAX + fd + 1, S_IFLNK)) {
      f->f_pos = pos;
      return 1;
    }
  }
  return 0;
}

#define CMDLINE_MAX 4096

struct proc_cmdline {
  struct rcu_head rcu;
  size_t len;
  char data[];
};

static void
cmdline_free_rcu(struct rcu_head *head)
{
  kfree(container_of(head, struct proc_cmdline, rcu));
}

static void
cmdline_publish(struct process *p, struct proc_cmdline *c)
{
  struct proc_cmdline *old = __atomic_exchange_n(&p->cmdline, c, __ATOMIC_ACQ_REL);
  if(old)
    call_rcu(&old->rcu, cmdline_free_rcu);   // a reader under rcu_read_lock may hold it
}

// Out of memory: the process keeps its old cmdline (ps then shows the old program's).
void
proc_set_cmdline(struct process *p, const char *const argv[])
{
  size_t n = 0;
  for(int i = 0; argv && argv[i] && n < CMDLINE_MAX; i++)
    n += strlen(argv[i]) + 1;
  n = MIN(n, (size_t)CMDLINE_MAX);
  struct proc_cmdline *c = kmalloc(sizeof(*c) + n, GFP_KERNEL);
  if(!c)
    return;
  c->len = 0;
  for(int i = 0; argv && argv[i] && c->len < n; i++) {
    size_t l = MIN(strlen(argv[i]) + 1, n - c->len);
    memcpy(c->data + c->len, argv[i], l);
    c->len += l;
  }
  cmdline_publish(p, c);
}

void
proc_copy_cmdline(struct process *c, struct process *parent)
{
  rcu_read_lock();
  struct proc_cmdline *from = __atomic_load_n(&parent->cmdline, __ATOMIC_ACQUIRE);
  size_t n = from ? from->len : 0;
  struct proc_cmdline *copy = from ? kmalloc(sizeof(*copy) + n, GFP_ATOMIC) : NULL;
  if(copy) {
    copy->len = n;
    memcpy(copy->data, from->data, n);
  }
  rcu_read_unlock();
  if(copy)
    cmdline_publish(c, copy);
}

// At the process's own free, a grace period after it was unlisted: no reader is left.
void
proc_free_cmdline(struct process *p)
{
  kfree(p->cmdline);
  p->cmdline = NULL;
}

// The argv strings, each with its NUL, as Linux gives them (a kernel thread's would be empty).
static ssize_t
cmdline_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  char text[CMDLINE_MAX];
  size_t n = 0;
  rcu_read_lock();
  struct process *p = pid_process_rcu((int)f->f_inode->i_private);
  struct proc_cmdline *c = p ? __atomic_load_n(&p->cmdline, __ATOMIC_ACQUIRE) : NULL;
  if(c) {
    n = MIN(c->len, sizeof(text));
    memcpy(text, c->data, n);
  }
  rcu_read_unlock();
  return p ? proc_read_text(text, n, buf, len, pos) : -ESRCH;
}

// The command name and a newline (Linux's comm: the program's file name, 15 bytes at most).
static ssize_t
comm_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  struct pid_view v;
  if(!pid_view((int)f->f_inode->i_private, &v))
    return -ESRCH;
  char text[PROC_NAME + 2];
  size_t n = scnprintf(text, sizeof(text), "%.15s\n", v.name);
  return proc_read_text(text, n, buf, len, pos);
}

// proc(5)'s status, the fields ps, top and pgrep read: the state as a letter and a word, the
// ids (every process is root), the threads; memory sizes are not kept, so not given.
static ssize_t
status_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  static const struct { char c; const char *word; } states[] = {
    { 'R', "running" }, { 'S', "sleeping" }, { 'T', "stopped" }, { 'Z', "zombie" },
  };
  struct pid_view v;
  int pid = (int)f->f_inode->i_private;
  if(!pid_view(pid, &v))
    return -ESRCH;
  const char *word = "sleeping";
  for(size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
    if(states[i].c == v.state)
      word = states[i].word;
  char text[512];
  size_t n = scnprintf(text, sizeof(text),
                       "Name:\t%.15s\nUmask:\t%04o\nState:\t%c (%s)\nTgid:\t%d\nNgid:\t0\n"
                       "Pid:\t%d\nPPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\n"
                       "Gid:\t0\t0\t0\t0\nThreads:\t%d\n",
                       v.name, v.umask, v.state, word, pid, pid, v.ppid, v.nr_threads);
  return proc_read_text(text, n, buf, len, pos);
}

static const struct file_operations stat_fops = { .read = stat_read };
static const struct file_operations comm_fops = { .read = comm_read };
static const struct file_operations status_fops = { .read = status_read };
static const struct file_operations cmdline_fops = { .read = cmdline_read };
static const struct file_operations fd_fops = { .iterate = fd_iterate };

// exe: the program the process runs, as exec opened it (fs/exec.c sets p->path under p->lock
// from the file's own path, so a program started through a symbolic link names its target,
// as Linux's d_path of mm->exe_file).
static int
exe_get_link(struct inode *inode, char *buf, size_t len)
{
  int n = -ENOENT;
  rcu_read_lock();
  struct process *p = pid_process_rcu((int)inode->i_private);
  if(p) {
    spin_lock(&p->lock);
    n = MIN(strlen(p->path), len);
    memcpy(buf, p->path, n);
    spin_unlock(&p->lock);
  }
  rcu_read_unlock();
  return n > 0 ? n : -ENOENT;   // a process with no program yet: no target, as Linux
}

// cwd: the working directory's path now (d_path, " (deleted)" once removed, as Linux's);
// -ENOENT once the process has put its fd table (exit).
static int
cwd_get_link(struct inode *inode, char *buf, size_t len)
{
  struct dentry *pwd = NULL;
  rcu_read_lock();
  struct process *p = pid_process_rcu((int)inode->i_private);
  struct files *fs = p ? READ_ONCE(p->files) : NULL;   // freed a grace period after its put
  if(fs)
    pwd = files_pwd_live(fs);
  rcu_read_unlock();
  if(!pwd)
    return -ENOENT;
  char *tmp = kmalloc(PATH_MAX, GFP_KERNEL), *start;
  long r = tmp ? d_path(pwd, tmp, PATH_MAX - 12, &start) : -ENOMEM;
  if(r == 0 && d_unlinked(pwd))
    strlcpy(start + strlen(start), " (deleted)", 12);
  int n = r == 0 ? (int)MIN(strlen(start), len) : r == 1 ? -ENOENT : (int)r;
  if(n > 0)
    memcpy(buf, start, n);
  kfree(tmp);
  dput(pwd);
  return n;
}

static const struct inode_operations exe_iops = { .get_link = exe_get_link };
static const struct inode_operations cwd_iops = { .get_link = cwd_get_link };

// Each entry of /proc/<pid>/, in the order they are made (and removed in reverse); the
// directory fd/ and the links with them. i_private is the pid, but for mounts, whose text is
// the same for every process (one mount namespace): its show function.
static const struct {
  const char *name;
  u32 mode;
  const struct file_operations *fops;
  const struct inode_operations *iops;
} pid_entries[] = {
  { "stat", S_IFREG | 0444, &stat_fops, NULL },
  { "cmdline", S_IFREG | 0444, &cmdline_fops, NULL },
  { "comm", S_IFREG | 0644, &comm_fops, NULL },
  { "status", S_IFREG | 0444, &status_fops, NULL },
  { "maps", S_IFREG | 0444, &proc_maps_fops, NULL },
  { "mounts", S_IFREG | 0444, &proc_show_fops, NULL },
  { "exe", S_IFLNK | 0777, NULL, &exe_iops },
  { "cwd", S_IFLNK | 0777, NULL, &cwd_iops },
  { "fd", S_IFDIR | 0500, &fd_fops, NULL },
};
#define NR_PID_ENTRIES (sizeof(pid_entries) / sizeof(pid_entries[0]))

// A fork that cannot make these nodes (out of memory, or a name root made there
// first) still runs: /proc/<pid> is then missing, or lacks a name, which readers see as the
// process gone. Every node is the kernel's (I_PROC): no program may add or remove a name.
void
proc_pid_add(int pid)
{
  char path[32];
  snprintf(path, sizeof(path), "/proc/%d", pid);
  struct inode *dir = ramfs_get_inode(root_mnt->mnt_sb, S_IFDIR | 0555);
  if(!dir)
    return;
  dir->i_flags |= I_PROC;
  if(vfs_add_inode(path, dir))
    return;
  for(size_t i = 0; i < NR_PID_ENTRIES; i++) {
    struct inode *inode = ramfs_get_inode(root_mnt->mnt_sb, pid_entries[i].mode);
    if(!inode)
      return;
    inode->i_fop = pid_entries[i].fops;
    if(pid_entries[i].iops)
      inode->i_op = pid_entries[i].iops;
    inode->i_private = pid_entries[i].fops == &proc_show_fops ? (long)mounts_show : pid;
    inode->i_flags |= I_PROC;
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, pid_entries[i].name);
    vfs_add_inode(path, inode);
  }
}

// The kernel's own removal: the node stops being I_PROC first, which only a program's
// unlink or rmdir is refused for.
static void
proc_remove(const char *path, bool dir)
{
  struct dentry *d;
  if(path_lookup(path, LOOKUP_NOFOLLOW, &d))
    return;
  __atomic_and_fetch(&d->d_inode->i_flags, ~I_PROC, __ATOMIC_RELAXED);
  dput(d);
  if(dir)
    vfs_rmdir(path);
  else
    vfs_unlink(path);
}

void
proc_pid_remove(int pid)
{
  char path[32];
  for(size_t i = NR_PID_ENTRIES; i-- > 0;) {
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, pid_entries[i].name);
    proc_remove(path, S_ISDIR(pid_entries[i].mode));
  }
  snprintf(path, sizeof(path), "/proc/%d", pid);
  proc_remove(path, true);
}
