// A process's open files: the fd table its threads share (CLONE_FILES), its working
// directory, and the open file descriptions fds point at (fs/file.c, fs/file_table.c).
#pragma once
#include "list.h"
#include "rcupdate.h"
#include "spinlock.h"
#include "types.h"

struct dentry;
struct file;
struct process;

// The table a process starts with holds one word of fds (Linux's NR_OPEN_DEFAULT,
// BITS_PER_LONG); it grows in powers of two as fds past its end are asked for, up to Linux's
// fs.nr_open default (sysctl_nr_open), which caps RLIMIT_NOFILE too (kernel/rlimit.c).
#define NR_OPEN_DEFAULT 64
#define NR_OPEN_MAX (1024 * 1024)

// An open file description (open(2)): what dup'd fds share, offset and status flags.
struct ufile {
  int refs;                 // fds pointing here, from every table (atomic: fork shares it)
  struct file *file;        // NULL: the console (fds 0-2 at spawn: drivers/tty/console.c)
  u32 flags;                // Linux's O_ACCMODE | O_APPEND | O_NONBLOCK; F_SETFL changes the latter
  u32 dots;                 // getdents64: "." and ".." given so far (the VFS gives the rest)
  struct list_head f_ep;    // the epoll items that watch it (fs/eventpoll.c, its f_ep_lock)
  struct rcu_head rcu;      // freed a grace period after the last reference: fget reads it
                            // under rcu_read_lock alone
};

// One size of the fd table (Linux's struct fdtable). A bigger one replaces it whole
// (fs/file.c, expand_files): its size never changes, so a reader that loaded the pointer sees
// max_fds and arrays that agree.
struct fdtable {
  unsigned max_fds;         // slots: 64, then a power of two; fixed
  struct ufile **fd;        // written under files->lock (a new description with a release
                            // store), read by fget under rcu_read_lock
  u64 *open_fds;            // bit n: fd[n] is set; under files->lock
  u64 *close_on_exec;       // bit n: fd n has FD_CLOEXEC; under files->lock
  u64 *full_fds_bits;       // bit n: word n of open_fds is all ones (the lowest-free search
                            // skips it: Linux's find_next_fd); under files->lock
  struct rcu_head rcu;      // a replaced table is freed a grace period later: fget may read it
};

struct files {
  spinlock_t lock;          // the table's fds and bits, fdt, pwd, and the refs of what fd
                            // points at
  int refs;                 // processes sharing this table (clone's CLONE_FILES), under lock
  struct fdtable *fdt;      // the current table: replaced under lock (rcu_assign_pointer),
                            // read under lock or rcu_read_lock
  struct fdtable fdtab;     // the first one, in here (Linux's files_struct.fdtab)
  struct ufile *fd_array[NR_OPEN_DEFAULT];
  u64 open_fds_init, close_on_exec_init, full_fds_bits_init;
  struct dentry *pwd;       // the working directory, referenced (Linux's fs->pwd): where
                            // relative paths start; written under lock, read under it
                            // with a reference taken (files_pwd)
  struct rcu_head rcu;      // freed a grace period after the last put: /proc/<pid>/fd reads
                            // the table under rcu_read_lock and lock (files_next_fd), and
                            // refs 0 means empty
};

struct files *files_alloc(void);      // fds 0-2 on the console, pwd "/"; NULL if no memory
void files_put(struct files *fs);     // the last put closes every file
struct files *files_dup(struct files *src);   // fork: the same descriptions; NULL if no memory
void files_get(struct files *fs);     // one more process shares it
int files_exec(struct files **fsp);   // execve: unshared, close-on-exec fds closed; 0 or -ENOMEM
// The description behind fd with a reference of the caller's, or NULL (EBADF).
struct ufile *fget(int fd);
void fput(struct ufile *uf);
// Installs uf (the caller's reference moves) at the lowest free fd >= from: the fd, -EMFILE
// (none below RLIMIT_NOFILE) or -ENOMEM (the table could not grow); the reference stays the
// caller's on failure.
int fd_install(struct ufile *uf, int from, bool cloexec);
// dup2/dup3: uf (reference moves, even on failure) at newfd, closing what was there; -EBADF
// at or past RLIMIT_NOFILE, -ENOMEM if the table could not grow.
int fd_replace(int newfd, struct ufile *uf, bool cloexec);
int fd_close(int fd);
// fs/locks.c: record locks (fcntl's F_GETLK, F_SETLK, F_SETLKW, F_OFD_*); a closing fd drops
// its table's POSIX locks on the file, a description's last reference its OFD locks.
long fcntl_lock(u64 fd, u64 cmd, u64 arg);
void locks_remove_posix(struct ufile *uf, struct files *owner);
void locks_remove_ofd(struct ufile *uf);
// fs/fd_link.c: /dev/fd/N, /dev/std{in,out,err}, /proc/<pid>/fd/N as open(2) and stat(2) see
// them: whether path is one (*l: whose fd, which), and its open: a new file on what the fd has
// (*f), or the console again (*console). fd_link_entry: only the names of the fd directories
// themselves (not /dev/stdin, a link to one), which readlink(2) and lstat(2) see as the links:
// their target (fd_link_readlink), their own stat.
struct kstat;
struct fd_link {
  int pid, fd;
};
bool fd_link_parse(const char *path, struct fd_link *l);
bool fd_link_entry(const char *path, struct fd_link *l);
int fd_link_open(const struct fd_link *l, u32 flags, struct file **f, bool *console);
int fd_link_stat(const struct fd_link *l, struct kstat *k);   // access(2)'s look at it
int fd_link_lstat(const struct fd_link *l, struct kstat *k);
int fd_link_readlink(const struct fd_link *l, char *buf, size_t len);
struct ufile *fd_link_get(const struct fd_link *l);   // what it names, referenced; or NULL
// Another process's fd (/proc/<pid>/fd), fs read from it under the caller's rcu_read_lock:
// its description, referenced, or NULL (not open, or the table is closing).
struct ufile *files_fget_rcu(struct files *fs, int fd);
// fs/readdir.c: a directory's place, as getdents' d_off and lseek give it, and a move there.
u64 dir_pos(struct ufile *uf);
void dir_seek(struct ufile *uf, u64 pos);
int fd_cloexec(int fd, int set);      // set < 0: just read the bit; -EBADF
// A table of its own for the caller when another process shares *fsp (a copy replaces it),
// Linux's unshare_files; -ENOMEM. Only while nothing else uses *fsp (a single thread).
int files_unshare(struct files **fsp);
struct ufile *ufile_alloc(struct file *f, u32 flags);
unsigned files_max_fds(void);   // the caller's table's size now (select clamps nfds to it)
// The lowest open fd >= from in fs, or -1 (none, or the table is being closed); fs may be
// another process's, read under rcu_read_lock (/proc/<pid>/fd: fs/proc_pid.c).
int files_next_fd(struct files *fs, unsigned from);
// The working directory, referenced; chdir and fchdir's change of it (d's reference moves
// to the table, the old one is dropped).
struct dentry *files_pwd(struct files *fs);
struct dentry *files_pwd_live(struct files *fs);   // under RCU: NULL once being freed
void files_set_pwd(struct files *fs, struct dentry *d);
