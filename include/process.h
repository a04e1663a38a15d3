// User processes: an address space (struct mm), its threads running static x86-64 Linux ELF
// binaries in ring 3, and the exit status a shell would see (kernel/process.c, fs/binfmt_elf.c).
#pragma once
#include "list.h"
#include "rcupdate.h"
#include "signal.h"
#include "spinlock.h"
#include "timer.h"
#include "types.h"
#include "vm.h"
#include "wait.h"

struct trapframe;
struct thread;
struct file;
struct files;
struct cpumask;
struct sighand_struct;

#define PROC_NAME 16
#define RLIM_NLIMITS 16             // getrlimit(2)'s resources, RLIMIT_CPU (0) .. RLIMIT_RTTIME (15)
#define RLIMIT_STACK 3
#define RLIMIT_NOFILE 7
#define RLIM_INFINITY (~0UL)
#define CONSOLE_LINE_MAX 4096   // a longer line goes to the console in pieces this long
#define USER_STACK_TOP  TASK_SIZE              // the stack's top: below the page never mapped
#define USER_STACK_SIZE (8UL << 20)            // RLIMIT_STACK's default
// argv and envp with their pointers: RLIMIT_STACK / 4, as Linux's bprm_stack_limits (execve
// checks it as it copies the strings, the ELF loader again as it lays out the stack).
#define ARG_MAX_BYTES (USER_STACK_SIZE / 4)
#define PIE_BASE        0x0000555555554000UL   // where a static-PIE is loaded (Linux's ELF_ET_DYN_BASE)

struct process {
  int pid;
  char name[PROC_NAME];       // the program's file name, for console lines
  char path[256];             // the program's file (/proc/<pid>/exe), under lock: fs/exec.c
  // argv as /proc/<pid>/cmdline gives it (fs/proc_pid.c): its strings, each with its NUL, the
  // first 4 KiB (Linux reads the process's memory: all of it, as changed since). Replaced at
  // exec (published with a release store, the old freed after a grace period), read under RCU.
  struct proc_cmdline *cmdline;
  struct mm *mm;
  struct files *files;         // fds and working directory, shared by the threads (CLONE_FILES)
  struct sem_undo_list *sysvsem;   // SEM_UNDO's adjustments (ipc/sem.c), made at the first;
                                   // set once (atomic), freed at exit
  u32 umask;                  // umask(2), taken from new files' and directories' modes:
                              // 022 at spawn (Linux's init), copied at fork, kept at execve;
                              // atomic (its threads share it, as CLONE_FS shares Linux's)
  spinlock_t lock;            // threads, nr_live, exiting, exit_status, path
  struct list_head threads;   // every thread, live or dead until process_wait reaps it
  int nr_live;                // threads not yet past user_thread_exit
  int nr_started;             // threads ever made (nr_started - nr_live have exited)
  bool exiting;               // exit_group or a fatal signal: every thread leaves at its next kernel exit
  int exit_status;            // what a shell shows: the exit code, or 128 + signal
  struct wait_queue_head exit_wq;   // process_wait: nr_live reaches 0
  // The rest is the process's own (its threads serialize on lock where noted).
  unsigned long brk_start, brk;     // the heap: [brk_start, brk), under mm->mmap_sem's owner
  char line[CONSOLE_LINE_MAX]; // console output not yet ended by a newline, under
  int line_len;               // console_lock (drivers/tty/console.c)
  struct rlimit64 {            // setrlimit(2): copied at fork, kept at execve (kernel/rlimit.c)
    u64 cur, max;
  } rlim[RLIM_NLIMITS];       // under lock; a lone cur may be read with READ_ONCE
  u64 bytes_written;          // to fds 1 and 2
  u64 min_flt;                // page faults that mapped a page (getrusage's ru_minflt)
  int killed_by;              // the wait status's low byte: the fatal signal, | 0x80 with core
  struct list_head tasks;     // in process_list, under process_list_lock
  // Signals (kernel/signal.c). siglock is taken with interrupts off (the console's Ctrl-C
  // sends from its interrupt handler); it also guards every change to threads, after lock.
  spinlock_t siglock;
  int pgid, sid;              // process group and session (setpgid, setsid), under siglock
  struct sighand_struct *sighand;     // the handlers, shared by the threads and by clone's
                                      // CLONE_SIGHAND; its locking: include/sighand.h
  struct sigpending shared_pending;   // process-directed signals (kill); under siglock
  // Job control (kernel/jobctl.c), under siglock: a group stop is in force from the stop
  // signal's dequeue until SIGCONT or the end; stopped once every thread has parked.
  bool stopping;              // in force: each thread parks at its next signal check
  bool stopped;               // every thread has parked (Linux's SIGNAL_STOP_STOPPED)
  int stop_sig;               // the signal that stopped it (Linux's group_exit_code)
  int group_stop_count;       // threads yet to park
  bool stop_report;           // a stop that wait's WUNTRACED has not seen yet
  bool cont_report;           // a SIGCONT that WCONTINUED has not seen yet
  bool cont_notify;           // a SIGCONT the parent's SIGCHLD has not told yet
  // ITIMER_REAL and alarm (kernel/itimer.c): kept at execve, not inherited by fork (fork(2),
  // execve(2)), cancelled at the process's end (itimer_exit). Armed and cancelled under
  // siglock; the callback takes siglock to send SIGALRM.
  struct timer_list real_timer;
  u64 it_real_incr;           // it_interval in ns, 0: one-shot; under siglock
  struct thread *exec_thread; // execve's thread while it replaces the program, under lock:
                              // every other thread leaves (de_thread, fs/exec.c)
  u32 *set_child_tid;         // fork's CLONE_CHILD_SETTID, written by the child in its own mm
  // The process tree (kernel/exit.c): fields under tasklist_lock unless noted.
  struct process *parent;     // NULL: started by the kernel (init=, a self-test), which
                              // reaps its orphans and kills what is left when it ends;
                              // written by WRITE_ONCE, read by getppid under rcu_read_lock
  struct list_head children;  // of struct process, by sibling
  struct list_head sibling;
  bool dead;                  // every thread has exited: a zombie until its parent reaps it
  bool child_subreaper;       // prctl(PR_SET_CHILD_SUBREAPER): orphans below come here
  bool init;                  // started by the kernel (init=, a self-test): its tree's root,
                              // which kill(-1) spares as Linux spares pid 1; set at spawn
  int exit_signal;            // clone's low byte: the parent's signal at exit (SIGCHLD)
  u64 child_events;           // children that died, stopped or continued; wait4 sleeps
                              // until it changes
  struct wait_queue_head child_wq;   // wait4 and waitid sleep here
  struct vfork_done *vfork_done;   // vfork: the parent's flag, set at execve or exit
  u64 ticks;                  // user ticks of all its threads, summed at exit
  u64 cticks, cmin_flt;       // of reaped children and theirs (RUSAGE_CHILDREN)
  struct rcu_head rcu;        // freed a grace period after release: a child's getppid may
                              // still read pid through its old parent pointer
};

extern spinlock_t tasklist_lock;   // every process's tree fields

// Every process from spawn or fork to its release, under process_list_lock (irqsave):
// kill(-1), kill(-pgrp), tgkill and setpgid find their targets here.
extern struct list_head process_list;
extern spinlock_t process_list_lock;
struct process *find_process(int pid);            // caller holds process_list_lock
struct thread *find_thread_in(struct process *p, int tid);   // caller holds p->siglock
// A vfork parent's flag, on its kernel stack while it waits. live is VFORK_LIVE until the
// parent takes the flag back, so a release through a pointer into a frame the parent has
// left (a stale vfork_done) is caught, not written (vfork_release).
#define VFORK_LIVE 0x7f0c4a11u
struct vfork_done {
  bool done;
  u32 live;
};
extern struct wait_queue_head vfork_wq;   // vfork parents: their child execve'd or exited

// Whether t must leave for the kernel exit at once: its process is ending, or another of
// its threads is in execve. Sleeps in system calls end on it.
static inline bool
thread_must_exit(struct thread *t, struct process *p)
{
  struct thread *x = READ_ONCE(p->exec_thread);
  return READ_ONCE(p->exiting) || (x && x != t);
}

// Starts the program at path (an ELF file) as a new process with argv and envp
// (NULL-terminated); NULL with *err set (execve's errnos: -ENOENT, -EACCES, -ENOEXEC and a
// console line naming why, -ENOMEM, ...). The process runs at once.
struct process *process_spawn(const char *path, const char *const argv[],
                              const char *const envp[], int *err);
// Waits until every thread has exited, frees the process and returns its exit status.
int process_wait(struct process *p);
// fs/binfmt_elf.c: maps the program f (and the interpreter it names) into the adopted mm
// and sets the first thread's registers.
int load_elf(struct process *p, struct file *f, const char *const argv[],
             const char *const envp[], struct trapframe *tf);

void user_thread_exit(int code) __attribute__((noreturn));   // exit(2)
void process_exit_group(int status) __attribute__((noreturn));   // exit_group(2)
// A fatal fault or signal: the whole process ends with 128 + sig.
void process_kill(struct process *p, int sig);
long prctl_child_subreaper(bool set, u64 arg2);   // kernel/exit.c, for sys_prctl
// kernel/fork.c: a new process (fork, vfork, clone without CLONE_THREAD); the pid or -errno.
long do_fork(u64 flags, u64 newsp, u64 ptid, u64 ctid, u64 tls);
// process.c, for fork: a prepared thread of p, and the reaping of exited ones.
// A thread of p, not started; parent (or NULL) gives it its signal mask.
struct thread *new_user_thread(struct process *p, const struct cpumask *allowed,
                               struct thread *parent);
void process_init(struct process *p);   // locks, lists and queues of a zeroed process
// fs/proc_pid.c: p's cmdline becomes argv's (exec), or its parent's (fork); freed at the end.
void proc_set_cmdline(struct process *p, const char *const argv[]);
void proc_copy_cmdline(struct process *c, struct process *parent);
void proc_free_cmdline(struct process *p);
void rlimit_init(struct process *p);    // Linux's default limits (kernel/rlimit.c)
void rlimit_fork(struct process *c, struct process *p);
u64 rlimit(int resource);               // the caller's soft limit
void reap_dead_threads(struct process *p);
bool de_thread(struct process *p);   // execve: the other threads gone; false if p is ending
// kernel/exit.c: the last thread of p has exited; its memory and files go, its children go
// to the reaper, its parent (or process_wait) learns of it. Then p is a zombie.
void exit_notify(struct process *p);
void reap_thread(struct process *p, struct thread *t);   // off p's list, joined, freed
void release_process(struct process *p);    // a reaped zombie: its threads joined, p freed
void process_reap_all(struct process *p);   // a kernel-started process's remaining tree
void vfork_release(struct process *p);
// A stop or continue of the child c for its parent: SIGCHLD (unless SA_NOCLDSTOP) and a wake
// of its wait; takes tasklist_lock.
void notify_parent_cldstop(struct process *c, int code, int sig);
void children_rusage(u64 *ticks, u64 *min_flt);   // the caller's reaped children's      // its vfork parent goes on (execve, exit)
// fs/exec.c: the program at path opened for execve: -ENOENT, -ENOTDIR, -ELOOP (a symbolic link
// under LOOKUP_NOFOLLOW), -EACCES (not a regular file, no execute bit, or not mappable).
int open_exec(const char *path, unsigned lookup, struct file **fp);
int affinity_cpu(const struct cpumask *allowed);   // least loaded allowed online CPU, or -1

// The user frame of a thread: the top of its kernel stack, where ring 3's entries land.
struct trapframe *user_regs(struct thread *t);

// arch/x86_64/syscall.c
void switch_user_state(struct thread *prev, struct thread *next);   // from schedule()
void ret_to_user(struct trapframe *tf) __attribute__((noreturn));  // entry.S
bool do_syscall_64(struct trapframe *tf);      // entry.S; true: SYSRET may return
void exit_to_user_mode(struct trapframe *tf);   // pending exit, rescheduling; returns irqs off
bool user_mode(const struct trapframe *tf);
void load_fsbase(u64 base);   // this CPU's FS base: the running thread's TLS
void load_user_gsbase(u64 base);   // the GS base ring 3 gets at its next swapgs
u64 elf_hwcap(void);          // AT_HWCAP: CPUID.1:EDX, as Linux gives it
// A fault in ring 3: the signal, to the program's handler, or the end of the process with
// Linux's console line when it has none.
void user_fault(struct trapframe *tf, int sig, int code, u64 addr);
void user_oom_kill(struct trapframe *tf) __attribute__((noreturn));   // no page for its fault

// kernel/user_init.c: init= from the command line; 0 when it passed or there is none.
int run_init_program(void);

// kernel/syscall.c
long syscall_dispatch(struct trapframe *tf);
// kernel/futex.c
long do_futex(u32 *uaddr, int op, u32 val, u64 timeout, u32 *uaddr2, u32 val3);
int futex_wake(u32 *uaddr, bool shared, int nr, u32 bitset);   // shared: not FUTEX_PRIVATE_FLAG
