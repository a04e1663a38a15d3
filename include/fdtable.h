// A process's open files: the fd table its threads share (CLONE_FILES), its working
// directory, and the open file descriptions fds point at (fs/file.c, fs/file_table.c).
#pragma once
#include "rcupdate.h"
#include "spinlock.h"
#include "types.h"

struct file;
struct process;

#define NR_OPEN 64          // fds per process: RLIMIT_NOFILE, smaller than Linux's 1024
#define CWD_MAX 256

// An open file description (open(2)): what dup'd fds share, offset and status flags.
struct ufile {
  int refs;                 // fds pointing here, from every table (atomic: fork shares it)
  struct file *file;        // NULL: the console (fds 0-2 at spawn: drivers/tty/console.c)
  u32 flags;                // Linux's O_ACCMODE | O_APPEND | O_NONBLOCK; F_SETFL changes the latter
  u32 dots;                 // getdents64: "." and ".." given so far (the VFS gives the rest)
  char *path;               // absolute, for *at calls relative to this directory
  struct rcu_head rcu;      // freed a grace period after the last reference: fget reads it
                            // under rcu_read_lock alone
};

struct files {
  spinlock_t lock;          // fd, cloexec, cwd, and the refs of what fd points at
  int refs;                 // processes sharing this table (clone's CLONE_FILES), under lock
  struct ufile *fd[NR_OPEN];   // written under lock (a new description with a release
                               // store), read by fget under rcu_read_lock
  u64 cloexec;              // bit n: fd n has FD_CLOEXEC
  char cwd[CWD_MAX];        // absolute, normalised ("/a/b", no "." or "..")
  struct rcu_head rcu;      // freed a grace period after the last put: /proc/<pid>/fd reads
                            // fd under rcu_read_lock and lock, and refs 0 means empty
};

struct files *files_alloc(void);      // fds 0-2 on the console, cwd "/"; NULL if no memory
void files_put(struct files *fs);     // the last put closes every file
struct files *files_dup(struct files *src);   // fork: the same descriptions; NULL if no memory
void files_get(struct files *fs);     // one more process shares it
int files_exec(struct files **fsp);   // execve: unshared, close-on-exec fds closed; 0 or -ENOMEM
// The description behind fd with a reference of the caller's, or NULL (EBADF).
struct ufile *fget(int fd);
void fput(struct ufile *uf);
// Installs uf (the caller's reference moves) at the lowest free fd >= from: the fd, or -EMFILE.
int fd_install(struct ufile *uf, int from, bool cloexec);
// dup2/dup3: uf (reference moves) at newfd, closing what was there.
int fd_replace(int newfd, struct ufile *uf, bool cloexec);
int fd_close(int fd);
int fd_cloexec(int fd, int set);      // set < 0: just read the bit; -EBADF
struct ufile *ufile_alloc(struct file *f, u32 flags, const char *path);
