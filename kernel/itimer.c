// alarm(2), setitimer(2) and getitimer(2): ITIMER_REAL, a process's SIGALRM timer on a kernel
// timer (kernel/timer.c), as Linux's kernel/time/itimer.c keeps it on an hrtimer.
#include "errno.h"
#include "process.h"
#include "signal.h"
#include "syscalls.h"
#include "time.h"
#include "timer.h"
#include "uapi/time.h"
#include <asm/processor.h>
#include <asm/uaccess.h>

#define KTIME_MAX (~0UL / 2)   // Linux's: an itimer of more never expires in practice
#define NSEC_PER_USEC 1000UL

// struct itimerval of the x86-64 ABI: two struct timeval, interval first.
struct itimerval {
  s64 interval_sec, interval_usec;
  s64 value_sec, value_usec;
};

// ITIMER_REAL's expiry: SIGALRM to the process, from the tick interrupt. It is not re-armed
// here but when the signal is dequeued (itimer_real_rearm), as Linux's it_real_fn leaves it
// to dequeue_signal: a process that blocks SIGALRM holds one pending, not a stream.
static void
it_real_fn(struct timer_list *timer)
{
  struct process *p = from_timer(p, timer, real_timer);
  struct ksiginfo info = { .signo = SIGALRM, .code = SI_KERNEL };   // Linux's SEND_SIG_PRIV
  send_sig_info(p, NULL, &info);
}

void
itimer_init(struct process *p)
{
  timer_setup(&p->real_timer, it_real_fn);
  p->it_real_incr = 0;
}

// The next expiry after now, a whole number of intervals after the last one (Linux's
// hrtimer_forward): periods missed while the signal waited are skipped, not made up.
void
itimer_real_rearm(struct process *p)
{
  struct timer_list *timer = &p->real_timer;
  u64 incr = p->it_real_incr;
  if(!incr || timer_pending(timer))
    return;
  u64 now = ktime_ns(), next = timer->expires + incr;
  if(next <= now)
    next += ((now - next) / incr + 1) * incr;
  mod_timer(timer, next);
}

// Every thread has exited, so no setitimer and no dequeue re-arms it any more; after the
// wait for a callback running elsewhere, none can touch p.
void
itimer_exit(struct process *p)
{
  del_timer_sync(&p->real_timer);
}

static u64
timeval_ns(s64 sec, s64 usec)
{
  if((u64)sec >= KTIME_MAX / NSEC_PER_SEC)
    return KTIME_MAX;
  return (u64)sec * NSEC_PER_SEC + (u64)usec * NSEC_PER_USEC;
}

// The time left, under siglock. A timer whose expiry passed but whose callback has not run
// yet reads 1 us, not 0, as in Linux's itimer_get_remtime: it is still armed. The µs are
// truncated (Linux's put_itimerval).
static void
get_real(struct process *p, struct itimerval *v)
{
  u64 left = 0;
  if(timer_pending(&p->real_timer)) {
    u64 now = ktime_ns(), exp = READ_ONCE(p->real_timer.expires);
    left = exp > now ? exp - now : NSEC_PER_USEC;
  }
  v->value_sec = left / NSEC_PER_SEC;
  v->value_usec = left % NSEC_PER_SEC / NSEC_PER_USEC;
  v->interval_sec = p->it_real_incr / NSEC_PER_SEC;
  v->interval_usec = p->it_real_incr % NSEC_PER_SEC / NSEC_PER_USEC;
}

// Sets ITIMER_REAL to v (value 0: disarmed), the old setting to old. The callback takes
// siglock, so the timer cannot be waited for under it: when its callback runs now, the lock
// is dropped and the cancel tried again (Linux's do_setitimer and hrtimer_try_to_cancel).
static void
set_real(struct process *p, const struct itimerval *v, struct itimerval *old)
{
  u64 flags;
  for(;;) {
    spin_lock_irqsave(&p->siglock, flags);
    get_real(p, old);
    if(try_to_del_timer_sync(&p->real_timer) >= 0)
      break;
    spin_unlock_irqrestore(&p->siglock, flags);
    cpu_relax();
  }
  u64 value = timeval_ns(v->value_sec, v->value_usec);
  p->it_real_incr = 0;
  if(value) {
    p->it_real_incr = timeval_ns(v->interval_sec, v->interval_usec);
    u64 now = ktime_ns();
    mod_timer(&p->real_timer, value < KTIME_MAX - now ? now + value : KTIME_MAX);
  }
  spin_unlock_irqrestore(&p->siglock, flags);
}

static bool
timeval_valid(s64 sec, s64 usec)
{
  return sec >= 0 && usec >= 0 && usec < 1000000;
}

// ITIMER_VIRTUAL and ITIMER_PROF are EINVAL: the tick counts a thread's user time but no
// process's system time, and there is no per-tick hook to expire them (doc/syscalls.md).
long
sys_getitimer(u64 which, u64 uvalue)
{
  if(which != ITIMER_REAL)
    return -EINVAL;
  struct process *p = current->proc;
  struct itimerval v;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  get_real(p, &v);
  spin_unlock_irqrestore(&p->siglock, flags);
  return copy_to_user((void *)uvalue, &v, sizeof(v)) ? -EFAULT : 0;
}

// A NULL value disarms the timer, as Linux has taken it since 2.6 (setitimer(2), NOTES);
// the timer is set before the old value is written out, so a bad ovalue is EFAULT with the
// new setting in force, as on Linux.
long
sys_setitimer(u64 which, u64 uvalue, u64 uovalue)
{
  struct itimerval v = { 0 }, old;
  if(uvalue && copy_from_user(&v, (void *)uvalue, sizeof(v)))
    return -EFAULT;
  if(which != ITIMER_REAL)
    return -EINVAL;
  if(!timeval_valid(v.value_sec, v.value_usec) ||
     !timeval_valid(v.interval_sec, v.interval_usec))
    return -EINVAL;
  set_real(current->proc, &v, &old);
  if(uovalue && copy_to_user((void *)uovalue, &old, sizeof(old)))
    return -EFAULT;
  return 0;
}

// alarm(2): a one-shot ITIMER_REAL of whole seconds; the seconds left of the old one, rounded
// to the nearest, and never 0 for an armed one (Linux's alarm_setitimer).
long
sys_alarm(u64 seconds)
{
  struct itimerval v = { .value_sec = (u32)seconds }, old;
  set_real(current->proc, &v, &old);
  u64 left = old.value_sec;
  if((!left && old.value_usec) || old.value_usec >= 500000)
    left++;
  return left;
}
