// The signal handlers of a process, in a struct of their own that clone(CLONE_SIGHAND) shares
// between processes and execve unshares (Linux's struct sighand_struct; kernel/sighand.c).
#pragma once
#include "signal.h"
#include "spinlock.h"
#include "types.h"

struct process;

// Locking. Linux guards all signal state with sighand->siglock; here each process keeps its
// own siglock for its pending sets, masks and threads (taken from interrupt handlers), and
// lock below guards only action[], the one thing the sharers have in common. Order:
// a sharer's p->siglock (where held), then lock; lock is innermost (nothing is taken under it) and is
// only ever taken with interrupts off, never from an interrupt handler (senders read one
// word under p->siglock, below). So two sharers never hold each other's siglock.
//   Writing an entry: p->siglock of the writer's process (rt_sigaction flushes its own
//   pending sets in the same section, and a sender to it sees the old or the new handler
//   with the flush) and lock (against the other sharers' writers and whole-entry readers).
//   Reading a whole entry (get_signal, rt_sigaction's old value, fork's copy): lock.
//   Reading one word for a decision (is it SIG_IGN? SA_NOCLDSTOP?): READ_ONCE under
//   p->siglock (send_sig_info_locked; sig_handler and sig_flags take it). p->sighand itself
//   changes only at execve, under p->siglock, once p has one thread left (unshare_sighand),
//   so p->siglock, or being a thread of p, keeps it from being swapped and freed under the
//   reader.
struct sighand_struct {
  int count;                        // processes holding it; __atomic (fork, execve, release)
  spinlock_t lock;                  // action[] as above; inside p->siglock, interrupts off
  struct k_sigaction action[NSIG];  // rt_sigaction's dispositions, index sig - 1
};

// A table of SIG_DFL, count 1; NULL without memory.
struct sighand_struct *sighand_alloc(void);
void sighand_put(struct sighand_struct *sh);   // at the process's release: the last frees it
// fork: with CLONE_SIGHAND the child shares p's table, else it gets a copy; 0 or -ENOMEM.
int copy_sighand(u64 clone_flags, struct process *c, struct process *p);
// execve, once p has only the calling thread: a table shared with another process is replaced
// by a copy of its own before signal_exec resets it (Linux's unshare_sighand in de_thread).
int unshare_sighand(struct process *p);
// One word of p's action for sig, read now; takes p->siglock (interrupts off).
u64 sig_handler(struct process *p, int sig);
u64 sig_flags(struct process *p, int sig);
