// poll, ppoll, select and pselect6 (man 2 poll, man 2 select), as Linux's fs/select.c: each
// pass asks every file for its events, registering on its wait queues (include/poll.h);
// with nothing ready the caller sleeps until a queue is woken, the timeout passes, or a
// signal comes (EINTR after a handler, else a restart). A zero timeout makes one pass; none
// waits for ever.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "poll.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "time.h"
#include "tty.h"
#include <asm/uaccess.h>

#define MAX_TIMEOUT_SEC (1UL << 32)   // longer timeouts are for ever (136 years)

// Which events make select's sets true (Linux's POLLIN_SET, POLLOUT_SET, POLLEX_SET): a
// hung-up pipe is readable (read gives end-of-file), a broken one writable (write fails).
#define POLLIN_SET (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET POLLPRI

struct pollfd {   // include/uapi/asm-generic/poll.h
  int fd;
  short events, revents;
};

// The console behind fds 0-2: its terminal's readiness (drivers/tty/tty.c), as /dev/console's poll
// operation gives it.
static unsigned
console_poll(struct poll_table *pt)
{
  return tty_poll(NULL, pt);
}

unsigned
vfs_poll(struct ufile *uf, struct poll_table *pt)
{
  if(!uf->file)
    return console_poll(pt);
  const struct file_operations *op = uf->file->f_op;
  return op && op->poll ? op->poll(uf->file, pt) : DEFAULT_POLLMASK;
}

bool
file_can_poll(struct ufile *uf)
{
  return !uf->file || (uf->file->f_op && uf->file->f_op->poll);
}

// One pass over what the caller asks: the number ready, or -errno. Every file asked stays
// referenced in held[] until the pass's waits are gone (its queues must outlive them).
typedef long (*pass_fn)(void *arg, struct poll_table *pt, struct ufile **held);

// Deadlines are ktime ns; 0 asks once, FOREVER never times out.
static long
poll_loop(pass_fn pass, void *arg, struct ufile **held, size_t nheld, u64 deadline)
{
  struct thread *t = current;
  for(;;) {
    struct poll_table pt;
    poll_initwait(&pt);
    pt.queue = deadline != 0;
    memset(held, 0, nheld * sizeof(*held));
    long r = pass(arg, &pt, held);
    u64 now = ktime_ns();
    bool again = false;
    if(r == 0 && pt.error)
      r = pt.error;
    else if(r == 0 && signal_pending(t))
      r = -ERESTARTNOHAND;   // Linux's do_poll and do_select
    else if(r == 0 && deadline && now < deadline) {
      // T_SLEEPING before the check, so a wake-up after it finds this thread asleep.
      set_current_state(T_SLEEPING);
      t->wait_on = "poll";
      t->idle_wait = true;   // a user wait may last for ever by design
      if(!poll_triggered(&pt) && !signal_pending(t)) {
        if(deadline == FOREVER)
          schedule();
        else
          schedule_timeout(deadline - now);
      }
      set_current_state(T_RUNNING);
      t->wait_on = NULL;
      t->idle_wait = false;
      again = true;
    }
    poll_freewait(&pt);
    for(size_t i = 0; i < nheld; i++)
      if(held[i])
        fput(held[i]);
    if(!again)
      return r;
  }
}

// A relative timeout to a deadline: -EINVAL unless 0 <= nsec < 1 s and sec >= 0.
static long
timeout_deadline(s64 sec, s64 nsec, u64 *deadline)
{
  if(sec < 0 || nsec < 0 || nsec >= (s64)NSEC_PER_SEC)
    return -EINVAL;
  if(!sec && !nsec)
    *deadline = 0;
  else if((u64)sec >= MAX_TIMEOUT_SEC)
    *deadline = FOREVER;
  else
    *deadline = ktime_ns() + sec * NSEC_PER_SEC + nsec;
  return 0;
}

// The time left of a timeout, for ppoll, select and pselect6 to write back as Linux does.
static u64
time_left(u64 deadline)
{
  u64 now = ktime_ns();
  return deadline > now ? deadline - now : 0;
}

struct poll_args {
  struct pollfd *fds;
  u64 n;
};

static long
poll_pass(void *arg, struct poll_table *pt, struct ufile **held)
{
  struct poll_args *a = arg;
  long count = 0;
  for(u64 i = 0; i < a->n; i++) {
    struct pollfd *p = &a->fds[i];
    p->revents = 0;
    if(p->fd < 0)
      continue;   // poll(2): ignored, revents 0
    struct ufile *uf = fget(p->fd);
    if(!uf) {
      p->revents = POLLNVAL;
      count++;
      continue;
    }
    held[i] = uf;
    unsigned mask = vfs_poll(uf, pt) & ((u16)p->events | POLLERR | POLLHUP);
    p->revents = (short)mask;
    if(mask) {
      count++;
      pt->queue = false;   // the call returns after this pass: no more waits
    }
  }
  return count;
}

// poll and ppoll: the fds in, the events out, deadline as timeout_deadline.
static long
do_poll(u64 ufds, u64 nfds, u64 deadline)
{
  if(nfds > rlimit(RLIMIT_NOFILE))   // poll(2): EINVAL; at most 1M (kernel/rlimit.c)
    return -EINVAL;
  struct pollfd *fds = kmalloc(nfds * sizeof(*fds) + 1, GFP_KERNEL);
  struct ufile **held = kmalloc(nfds * sizeof(*held) + 1, GFP_KERNEL);
  long r = -ENOMEM;
  if(!fds || !held)
    goto out;
  r = -EFAULT;
  if(copy_from_user(fds, (void *)ufds, nfds * sizeof(*fds)))
    goto out;
  struct poll_args a = { fds, nfds };
  r = poll_loop(poll_pass, &a, held, nfds, deadline);
  if(r < 0)
    goto out;
  for(u64 i = 0; i < nfds; i++)
    if(put_user(fds[i].revents, &((struct pollfd *)ufds)[i].revents))
      r = -EFAULT;
out:
  kfree(fds);
  kfree(held);
  return r;
}

// A poll a signal interrupted goes on with the same deadline when no handler runs (Linux's
// do_restart_poll through restart_syscall).
static long restart_poll(struct restart_block *rb);

static long
poll_restartable(u64 ufds, u64 nfds, u64 deadline)
{
  long r = do_poll(ufds, nfds, deadline);
  if(r == -ERESTARTNOHAND) {
    struct restart_block *rb = &current->sig->restart;
    rb->fn = restart_poll;
    rb->arg[0] = ufds, rb->arg[1] = nfds, rb->arg[2] = deadline;
    r = -ERESTART_RESTARTBLOCK;
  }
  return r;
}

static long
restart_poll(struct restart_block *rb)
{
  return poll_restartable(rb->arg[0], rb->arg[1], rb->arg[2]);
}

long
sys_poll(u64 ufds, u64 nfds, u64 timeout_ms)
{
  int ms = (int)timeout_ms;
  u64 deadline = ms < 0 ? FOREVER : ms == 0 ? 0 : ktime_ns() + (u64)ms * 1000000;
  return poll_restartable(ufds, nfds, deadline);
}

// A struct timespec at uts to a deadline (NULL: for ever).
static long
get_timespec_deadline(u64 uts, u64 *deadline)
{
  s64 ts[2];
  if(!uts) {
    *deadline = FOREVER;
    return 0;
  }
  if(copy_from_user(ts, (void *)uts, sizeof(ts)))
    return -EFAULT;
  return timeout_deadline(ts[0], ts[1], deadline);
}

// Linux writes the time left back to a non-zero timeout, on every return; a failed write
// does not change the result.
static void
put_timespec_left(u64 uts, u64 deadline)
{
  if(!uts || deadline == 0 || deadline == FOREVER)
    return;
  u64 left = time_left(deadline);
  s64 ts[2] = { (s64)(left / NSEC_PER_SEC), (s64)(left % NSEC_PER_SEC) };
  copy_to_user((void *)uts, ts, sizeof(ts));
}

long
sys_ppoll(u64 ufds, u64 nfds, u64 uts, u64 umask, u64 sigsetsize)
{
  u64 deadline;
  long r = get_timespec_deadline(uts, &deadline);
  if(r)
    return r;
  if((r = set_user_sigmask(umask, sigsetsize)))
    return r;
  r = do_poll(ufds, nfds, deadline);
  restore_sigmask_unless(r == -ERESTARTNOHAND);
  put_timespec_left(uts, deadline);   // a restart goes on with the time left
  return r;
}

// select's sets, n bits each (Linux's fd_set_bits): in, out and ex asked, rin, rout and rex
// answered.
struct select_args {
  int n;
  u64 *in, *out, *ex;
  u64 *rin, *rout, *rex;
};

// Every fd set in a set is polled; one not open is EBADF (Linux's max_select_fd checks
// open_fds first; a pass ends at the first one). held[] gets one description per fd polled,
// in order: at most as many as bits set.
static long
select_pass(void *arg, struct poll_table *pt, struct ufile **held)
{
  struct select_args *a = arg;
  long count = 0;
  size_t nheld = 0;
  int words = (a->n + 63) / 64;
  for(int w = 0; w < words; w++) {
    a->rin[w] = a->rout[w] = a->rex[w] = 0;
    u64 all = a->in[w] | a->out[w] | a->ex[w];
    while(all) {
      int b = __builtin_ctzl(all);
      all &= all - 1;
      u64 bit = 1UL << b;
      struct ufile *uf = fget(w * 64 + b);
      if(!uf)
        return -EBADF;
      held[nheld++] = uf;
      unsigned mask = vfs_poll(uf, pt);
      if((a->in[w] & bit) && (mask & POLLIN_SET)) {
        a->rin[w] |= bit;
        count++;
      }
      if((a->out[w] & bit) && (mask & POLLOUT_SET)) {
        a->rout[w] |= bit;
        count++;
      }
      if((a->ex[w] & bit) && (mask & POLLEX_SET)) {
        a->rex[w] |= bit;
        count++;
      }
      if(count)
        pt->queue = false;
    }
  }
  return count;
}

// select's fd sets are arrays of longs, n bits used: whole longs are read (the bits past n
// in the last one ignored) and written back, as Linux's get_fd_set and set_fd_set; no set is
// all zeroes.
static long
get_fd_set(u64 uset, int n, u64 *set)
{
  int words = (n + 63) / 64;
  memset(set, 0, words * sizeof(*set));
  if(!uset || !n)
    return 0;
  if(copy_from_user(set, (void *)uset, words * sizeof(*set)))
    return -EFAULT;
  if(n % 64)
    set[words - 1] &= (1UL << (n % 64)) - 1;
  return 0;
}

static long
put_fd_set(u64 uset, int n, u64 *set)
{
  if(!uset || !n)
    return 0;
  return copy_to_user((void *)uset, set, (n + 63) / 64 * sizeof(*set)) ? -EFAULT : 0;
}

// Sets this small, and the descriptions they hold, stay on the stack (Linux's
// SELECT_STACK_ALLOC does the same for its bitmaps).
#define SELECT_STACK_FDS 256
#define SELECT_STACK_HELD 32

// An nfds past the fd table's size is cut to it (Linux's core_sys_select): no fd there is
// open, and the bits past it are neither read nor written back.
static long
do_select(u64 n, u64 uin, u64 uout, u64 uex, u64 deadline)
{
  if((int)n < 0)   // select(2)'s nfds is an int
    return -EINVAL;
  struct select_args a = { .n = (int)MIN(n, (u64)files_max_fds()) };
  size_t words = ((size_t)a.n + 63) / 64;
  u64 stack_bits[6 * SELECT_STACK_FDS / 64];
  struct ufile *stack_held[SELECT_STACK_HELD];
  u64 *bits = stack_bits;
  struct ufile **held = stack_held;
  long r = -ENOMEM;
  if(a.n > SELECT_STACK_FDS && !(bits = kmalloc(6 * words * sizeof(u64), GFP_KERNEL)))
    goto out;
  a.in = bits, a.out = bits + words, a.ex = bits + 2 * words;
  a.rin = bits + 3 * words, a.rout = bits + 4 * words, a.rex = bits + 5 * words;
  r = -EFAULT;
  if(get_fd_set(uin, a.n, a.in) || get_fd_set(uout, a.n, a.out) ||
     get_fd_set(uex, a.n, a.ex))
    goto out;
  size_t nheld = 0;
  for(size_t w = 0; w < words; w++)
    nheld += (size_t)__builtin_popcountl(a.in[w] | a.out[w] | a.ex[w]);
  r = -ENOMEM;
  if(nheld > SELECT_STACK_HELD && !(held = kmalloc(nheld * sizeof(*held), GFP_KERNEL)))
    goto out;
  r = poll_loop(select_pass, &a, held, nheld, deadline);
  if(r >= 0 && (put_fd_set(uin, a.n, a.rin) || put_fd_set(uout, a.n, a.rout) ||
                put_fd_set(uex, a.n, a.rex)))
    r = -EFAULT;
out:
  if(bits != stack_bits)
    kfree(bits);
  if(held != stack_held)
    kfree(held);
  return r;
}

long
sys_select(u64 n, u64 uin, u64 uout, u64 uex, u64 utv)
{
  u64 deadline = FOREVER;
  if(utv) {
    s64 tv[2];
    if(copy_from_user(tv, (void *)utv, sizeof(tv)))
      return -EFAULT;
    // Linux carries whole seconds of tv_usec over before it checks (kern_select).
    long err = timeout_deadline(tv[0] + tv[1] / 1000000, (tv[1] % 1000000) * 1000, &deadline);
    if(err)
      return err;
  }
  long r = do_select(n, uin, uout, uex, deadline);
  if(utv && deadline && deadline != FOREVER) {
    u64 left = time_left(deadline);
    s64 tv[2] = { (s64)(left / NSEC_PER_SEC), (s64)(left % NSEC_PER_SEC / 1000) };
    copy_to_user((void *)utv, tv, sizeof(tv));
  }
  return r;
}

long
sys_pselect6(u64 n, u64 uin, u64 uout, u64 uex, u64 uts, u64 usig)
{
  u64 deadline;
  long r = get_timespec_deadline(uts, &deadline);
  if(r)
    return r;
  if(usig) {   // { const sigset_t *ss; size_t ss_len; }
    u64 sig[2];
    if(copy_from_user(sig, (void *)usig, sizeof(sig)))
      return -EFAULT;
    if((r = set_user_sigmask(sig[0], sig[1])))
      return r;
  }
  r = do_select(n, uin, uout, uex, deadline);
  restore_sigmask_unless(r == -ERESTARTNOHAND);
  put_timespec_left(uts, deadline);
  return r;
}
