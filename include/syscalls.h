// The system calls of the Linux x86-64 ABI this kernel answers, grouped by the room that
// implements each (kernel/syscall.c has the table; doc/syscalls.md the list with errnos).
#pragma once
#include "types.h"

struct process;

// What uname(2) says the kernel is (kernel/sys.c), and /proc/sys/kernel/{ostype,osrelease}.
#define UTS_SYSNAME "Linux"
#define UTS_RELEASE "6.1.0-kmm"

// kernel/syscall_names.c (tools/syscall_names.sh): Linux's name of each number, or NULL.
#define NR_SYSCALL_NAMES 463
extern const char *const syscall_names[NR_SYSCALL_NAMES];
// kernel/syscall.c, debug image: every user thread's last system calls, for a panic report.
void syscall_history_show(void);

struct dentry;
// fs/open.c. user_path: upath copied in, and *dir the referenced directory a relative one
// starts from (dirfd's, or the working directory for AT_FDCWD; NULL for an absolute path),
// both freed by user_path_put; NULL with *err (-EFAULT, -ENAMETOOLONG, -ENOENT for "" unless
// empty_ok, -EBADF, -ENOTDIR). user_path_abs: the path made absolute (execve).
char *user_path(int dirfd, u64 upath, bool empty_ok, struct dentry **dir, long *err);
void user_path_put(char *path, struct dentry *dir);
char *user_path_abs(int dirfd, u64 upath, long *err);
struct ufile;
// fs/stat.c: the node a *at call names (AT_EMPTY_PATH: dirfd's own; /dev/fd/N followed: that
// fd's), referenced in *uf or *d; with AT_SYMLINK_NOFOLLOW an fd's link itself in *entry.
struct fd_link;
long resolve_at(u64 dirfd, u64 upath, u64 flags, struct ufile **uf, struct dentry **d,
                struct fd_link *entry);
long sys_open(u64 path, u64 flags, u64 mode);
long sys_openat(u64 dirfd, u64 path, u64 flags, u64 mode);
long sys_creat(u64 path, u64 mode);
long sys_close(u64 fd);
long sys_close_range(u64 first, u64 last, u64 flags);
long sys_ftruncate(u64 fd, u64 len);
long sys_access(u64 path, u64 mode);
long sys_faccessat(u64 dirfd, u64 path, u64 mode);
long sys_faccessat2(u64 dirfd, u64 path, u64 mode, u64 flags);
long sys_chdir(u64 path);
long sys_fchdir(u64 fd);
long sys_chmod(u64 path, u64 mode);
long sys_fchmod(u64 fd, u64 mode);
long sys_fchmodat(u64 dirfd, u64 path, u64 mode);
long sys_chown(u64 path, u64 uid, u64 gid);
long sys_fchown(u64 fd, u64 uid, u64 gid);
long sys_lchown(u64 path, u64 uid, u64 gid);
long sys_fchownat(u64 dirfd, u64 path, u64 uid, u64 gid, u64 flags);
// fs/read_write.c
long sys_read(u64 fd, u64 buf, u64 n);
long sys_write(u64 fd, u64 buf, u64 n);
long sys_readv(u64 fd, u64 iov, u64 cnt);
long sys_writev(u64 fd, u64 iov, u64 cnt);
long sys_pread64(u64 fd, u64 buf, u64 n, u64 off);
long sys_pwrite64(u64 fd, u64 buf, u64 n, u64 off);
long sys_lseek(u64 fd, u64 off, u64 whence);
long sys_copy_file_range(u64 fd_in, u64 off_in, u64 fd_out, u64 off_out, u64 len, u64 flags);
long sys_sendfile(u64 out_fd, u64 in_fd, u64 offset, u64 count);
// fs/ioctl.c, fs/fcntl.c, fs/sync.c
long sys_ioctl(u64 fd, u64 cmd, u64 arg);
long sys_dup(u64 fd);
long sys_dup2(u64 oldfd, u64 newfd);
long sys_dup3(u64 oldfd, u64 newfd, u64 flags);
long sys_fcntl(u64 fd, u64 cmd, u64 arg);
long sys_fsync(u64 fd);
long sys_sync(void);
long sys_syncfs(u64 fd);
// fs/stat.c, fs/readdir.c, fs/d_path.c, fs/utimes.c
long sys_fstat(u64 fd, u64 st);
long sys_stat(u64 path, u64 st);
long sys_lstat(u64 path, u64 st);
long sys_statfs(u64 path, u64 buf);                  // fs/statfs.c
long sys_fstatfs(u64 fd, u64 buf);
long sys_getxattr(u64 path, u64 name, u64 value, u64 size);   // fs/xattr.c
long sys_lgetxattr(u64 path, u64 name, u64 value, u64 size);
long sys_fgetxattr(u64 fd, u64 name, u64 value, u64 size);
long sys_setxattr(u64 path, u64 name, u64 value, u64 size, u64 flags);
long sys_lsetxattr(u64 path, u64 name, u64 value, u64 size, u64 flags);
long sys_fsetxattr(u64 fd, u64 name, u64 value, u64 size, u64 flags);
long sys_listxattr(u64 path, u64 list, u64 size);
long sys_llistxattr(u64 path, u64 list, u64 size);
long sys_flistxattr(u64 fd, u64 list, u64 size);
long sys_removexattr(u64 path, u64 name);
long sys_lremovexattr(u64 path, u64 name);
long sys_fremovexattr(u64 fd, u64 name);
long sys_fadvise64(u64 fd, u64 offset, u64 len, u64 advice);   // mm/fadvise.c
long sys_newfstatat(u64 dirfd, u64 path, u64 st, u64 flags);
long sys_statx(u64 dirfd, u64 path, u64 flags, u64 mask, u64 buf);
long sys_readlink(u64 path, u64 buf, u64 size);
long sys_readlinkat(u64 dirfd, u64 path, u64 buf, u64 size);
long sys_getdents64(u64 fd, u64 dirp, u64 count);
long sys_getcwd(u64 buf, u64 size);
long sys_utimensat(u64 dirfd, u64 path, u64 times, u64 flags);
long sys_futimesat(u64 dirfd, u64 path, u64 times);
long sys_utimes(u64 path, u64 times);
long sys_utime(u64 path, u64 times);
// fs/link.c: names made and removed
long sys_mkdir(u64 path, u64 mode);
long sys_mkdirat(u64 dirfd, u64 path, u64 mode);
long sys_rmdir(u64 path);
long sys_unlink(u64 path);
long sys_unlinkat(u64 dirfd, u64 path, u64 flags);
long sys_rename(u64 oldpath, u64 newpath);
long sys_renameat(u64 olddirfd, u64 oldpath, u64 newdirfd, u64 newpath);
long sys_renameat2(u64 olddirfd, u64 oldpath, u64 newdirfd, u64 newpath, u64 flags);
long sys_symlink(u64 target, u64 path);
long sys_symlinkat(u64 target, u64 dirfd, u64 path);
long sys_link(u64 old, u64 new);
long sys_linkat(u64 olddirfd, u64 old, u64 newdirfd, u64 new, u64 flags);
// fs/pipe.c, fs/select.c
long sys_pipe(u64 fds);
long sys_pipe2(u64 fds, u64 flags);
long sys_poll(u64 fds, u64 nfds, u64 timeout_ms);
long sys_ppoll(u64 fds, u64 nfds, u64 ts, u64 sigmask, u64 sigsetsize);
long sys_select(u64 n, u64 in, u64 out, u64 ex, u64 tv);
long sys_pselect6(u64 n, u64 in, u64 out, u64 ex, u64 ts, u64 sig);
// ipc/shm.c, ipc/sem.c: System V shared memory and semaphores
long sys_shmget(u64 key, u64 size, u64 flg);
long sys_shmat(u64 id, u64 addr, u64 flg);
long sys_shmdt(u64 addr);
long sys_shmctl(u64 id, u64 cmd, u64 buf);
long sys_semget(u64 key, u64 nsems, u64 flg);
long sys_semop(u64 semid, u64 sops, u64 nsops);
long sys_semtimedop(u64 semid, u64 sops, u64 nsops, u64 timeout);
long sys_semctl(u64 semid, u64 semnum, u64 cmd, u64 arg);
// net/socket.c: sockets (AF_UNIX only)
long sys_socket(u64 family, u64 type, u64 protocol);
long sys_socketpair(u64 family, u64 type, u64 protocol, u64 sv);
long sys_bind(u64 fd, u64 addr, u64 len);
long sys_connect(u64 fd, u64 addr, u64 len);
long sys_listen(u64 fd, u64 backlog);
long sys_accept(u64 fd, u64 addr, u64 len);
long sys_accept4(u64 fd, u64 addr, u64 len, u64 flags);
long sys_getsockname(u64 fd, u64 addr, u64 len);
long sys_getpeername(u64 fd, u64 addr, u64 len);
long sys_shutdown(u64 fd, u64 how);
long sys_sendto(u64 fd, u64 buf, u64 len, u64 flags, u64 addr, u64 addrlen);
long sys_recvfrom(u64 fd, u64 buf, u64 len, u64 flags, u64 addr, u64 addrlen);
long sys_sendmsg(u64 fd, u64 msg, u64 flags);
long sys_recvmsg(u64 fd, u64 msg, u64 flags);
long sys_setsockopt(u64 fd, u64 level, u64 name, u64 val, u64 len);
long sys_getsockopt(u64 fd, u64 level, u64 name, u64 val, u64 len);
// fs/eventpoll.c
long sys_epoll_create(u64 size);
long sys_epoll_create1(u64 flags);
long sys_epoll_ctl(u64 epfd, u64 op, u64 fd, u64 event);
long sys_epoll_wait(u64 epfd, u64 events, u64 maxevents, u64 timeout);
long sys_epoll_pwait(u64 epfd, u64 events, u64 maxevents, u64 timeout, u64 sigmask, u64 size);
// fs/exec.c
long sys_execve(u64 path, u64 argv, u64 envp);
long sys_execveat(u64 dirfd, u64 path, u64 argv, u64 envp, u64 flags);

// mm/mmap.c, mprotect.c, madvise.c, mremap.c, msync.c, mincore.c
long sys_brk(u64 addr);
long sys_mmap(u64 addr, u64 len, u64 prot, u64 flags, u64 fd, u64 off);
long sys_munmap(u64 addr, u64 len);
long sys_mprotect(u64 addr, u64 len, u64 prot);
long sys_madvise(u64 addr, u64 len, u64 advice);
long sys_mremap(u64 addr, u64 old_len, u64 new_len, u64 flags, u64 new_addr);
long sys_msync(u64 addr, u64 len, u64 flags);
long sys_mincore(u64 start, u64 len, u64 vec);
long sys_get_mempolicy(u64 policy, u64 nmask, u64 maxnode, u64 addr, u64 flags);
long sys_set_mempolicy(u64 mode, u64 nmask, u64 maxnode);

// kernel/fork.c, kernel/exit.c
long sys_clone(u64 flags, u64 newsp, u64 ptid, u64 ctid, u64 tls);
long sys_clone3(u64 args, u64 size);
long sys_fork(void);
long sys_vfork(void);
long sys_set_tid_address(u64 tidptr);
long sys_exit(u64 code);
long sys_exit_group(u64 code);
long sys_wait4(u64 pid, u64 status, u64 options, u64 ru);
long sys_waitid(u64 which, u64 id, u64 infop, u64 options, u64 ru);
// kernel/sys_signal.c and arch/x86_64/signal.c
long sys_rt_sigaction(u64 sig, u64 act, u64 oact, u64 size);
long sys_rt_sigprocmask(u64 how, u64 set, u64 oset, u64 size);
long sys_rt_sigpending(u64 set, u64 size);
long sys_rt_sigsuspend(u64 mask, u64 size);
long sys_rt_sigtimedwait(u64 set, u64 info, u64 ts, u64 size);
long sys_rt_sigreturn(void);
long sys_pause(void);
long sys_sigaltstack(u64 ss, u64 oss);
long sys_kill(u64 pid, u64 sig);
long sys_tkill(u64 tid, u64 sig);
long sys_tgkill(u64 tgid, u64 tid, u64 sig);
long sys_restart_syscall(void);
long sys_setpgid(u64 pid, u64 pgid);
long sys_getpgid(u64 pid);
long sys_getpgrp(void);
long sys_setsid(void);
long sys_getsid(u64 pid);
// kernel/time.c
long sys_clock_gettime(u64 clock, u64 tp);
long sys_clock_getres(u64 clock, u64 tp);
long sys_clock_settime(u64 clock, u64 tp);
long sys_gettimeofday(u64 tv, u64 tz);
long sys_time(u64 tloc);
long sys_nanosleep(u64 req, u64 rem);
long sys_getitimer(u64 which, u64 value);
long sys_alarm(u64 seconds);
long sys_setitimer(u64 which, u64 value, u64 ovalue);
long sys_clock_nanosleep(u64 clock, u64 flags, u64 req, u64 rem);
u64 realtime_ns(void);   // CLOCK_REALTIME
u64 realtime_ns_at(u64 now);   // CLOCK_REALTIME at ktime now
u64 cputime_ns(bool process);   // the process's or the thread's CPU time
long get_timespec(u64 uts, u64 *ns);   // a user struct timespec, checked, in ns; -EFAULT, -EINVAL
long put_timespec(u64 uts, u64 ns);
// kernel/futex.c
long sys_futex(u64 uaddr, u64 op, u64 val, u64 utime, u64 uaddr2, u64 val3);
long sys_set_robust_list(u64 head, u64 len);
// kernel/rlimit.c
long sys_getrlimit(u64 resource, u64 rlim);
long sys_prlimit64(u64 pid, u64 resource, u64 new, u64 old);
long sys_setrlimit(u64 resource, u64 rlim);
// kernel/sched.c
long sys_sched_yield(void);
// kernel/sys.c
long sys_getpid(void);
long sys_getppid(void);
long sys_gettid(void);
long sys_getuid(void);
long sys_umask(u64 mask);
long sys_prctl(u64 option, u64 arg2);
long sys_uname(u64 buf);
long sys_sysinfo(u64 info);
long sys_getrusage(u64 who, u64 ru);
long sys_sched_getaffinity(u64 pid, u64 len, u64 mask);
long sys_sched_setaffinity(u64 pid, u64 len, u64 mask);
long sys_getcpu(u64 cpu, u64 node, u64 cache);
// drivers/char/random.c, arch/x86_64/process.c
long sys_getrandom(u64 buf, u64 len, u64 flags);
long sys_arch_prctl(u64 code, u64 addr);

// drivers/tty/console.c: the console behind fds 0, 1 and 2.
long console_write(const char *ubuf, u64 n);
long console_write_kernel(const char *buf, u64 n);
long console_read(char *ubuf, u64 n, bool nonblock);   // the terminal's line discipline
long console_ioctl(u64 cmd, u64 arg);   // termios, window size, foreground group; -ENOTTY
long console_fstat(u64 st);
void console_flush(struct process *p);   // a last line without its newline, at exit
