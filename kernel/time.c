// Clocks and sleeps: clock_gettime, clock_settime, clock_getres, gettimeofday, time, nanosleep
// and clock_nanosleep, with the x86-64 ABI's structures (man 2 clock_gettime, nanosleep;
// Linux's kernel/time/).
#include "errno.h"
#include "mm.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "string.h"
#include "syscalls.h"
#include "tick.h"
#include "time.h"
#include "uapi/time.h"
#include <asm/uaccess.h>

struct timespec {
  s64 tv_sec, tv_nsec;
};

// CLOCK_REALTIME less CLOCK_MONOTONIC (Linux's wall_to_monotonic, negated): one word, so a
// reader sees the old offset or the new one whole. The RTC's date at boot (rtc_init), moved
// by clock_settime; a sleep already converted to a ktime deadline does not move with it.
static u64 realtime_offset;

// CLOCK_REALTIME at the ktime now (futex's absolute timeouts convert with one reading).
u64
realtime_ns_at(u64 now)
{
  return READ_ONCE(realtime_offset) + now;
}

u64
realtime_ns(void)
{
  return realtime_ns_at(ktime_ns());
}

// The offset wraps below zero when ns < ktime (no RTC: the wall clock starts at 1970 at
// boot); the sum in realtime_ns wraps back.
void
realtime_set(u64 ns)
{
  WRITE_ONCE(realtime_offset, ns - ktime_ns());
}

// CPU time: the ticks a thread (or every thread of its process) spent in ring 3, plus, for
// the calling thread, nothing finer: the tick is the resolution.
u64
cputime_ns(bool process)
{
  if(!process)
    return current->user_ticks * TICK_NS;
  struct process *p = current->proc;
  u64 ticks = 0;
  spin_lock(&p->lock);
  struct thread *t;
  list_for_each_entry(t, &p->threads, proc_node)
    ticks += READ_ONCE(t->user_ticks);
  spin_unlock(&p->lock);
  return ticks * TICK_NS;
}

static int
clock_ns(u64 clock, u64 *ns)
{
  switch(clock) {
  case CLOCK_REALTIME:
  case CLOCK_REALTIME_COARSE:
    *ns = realtime_ns();
    return 0;
  case CLOCK_MONOTONIC:
  case CLOCK_MONOTONIC_RAW:
  case CLOCK_MONOTONIC_COARSE:
  case CLOCK_BOOTTIME:
    *ns = ktime_ns();
    return 0;
  case CLOCK_PROCESS_CPUTIME_ID:
  case CLOCK_THREAD_CPUTIME_ID:
    *ns = cputime_ns(clock == CLOCK_PROCESS_CPUTIME_ID);
    return 0;
  default:
    return -EINVAL;
  }
}

long
put_timespec(u64 uts, u64 ns)
{
  struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
  return copy_to_user((void *)uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

// A timespec from user memory, as nanoseconds; EINVAL outside [0, 1e9) nanoseconds.
long
get_timespec(u64 uts, u64 *ns)
{
  struct timespec ts;
  if(copy_from_user(&ts, (void *)uts, sizeof(ts)))
    return -EFAULT;
  if(ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (s64)NSEC_PER_SEC)
    return -EINVAL;
  *ns = (u64)ts.tv_sec > (~0UL / 2) / NSEC_PER_SEC ? ~0UL / 2
                                                 : (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
  return 0;
}

long
sys_clock_gettime(u64 clock, u64 tp)
{
  u64 ns;
  int err = clock_ns(clock, &ns);
  return err ? err : put_timespec(tp, ns);
}

// Only CLOCK_REALTIME can be set (clock_settime(2)); every process runs as root here, so
// none lacks CAP_SYS_TIME. As Linux's do_settimeofday64, a time before the monotonic clock
// (which would put boot before 1970) is EINVAL.
long
sys_clock_settime(u64 clock, u64 tp)
{
  u64 ns;
  if(clock != CLOCK_REALTIME)
    return -EINVAL;
  long err = get_timespec(tp, &ns);
  if(err)
    return err;
  if(ns < ktime_ns() || ns >= ~0UL / 2)   // get_timespec's clamp: past 2262
    return -EINVAL;
  realtime_set(ns);
  return 0;
}

long
sys_clock_getres(u64 clock, u64 tp)
{
  u64 ns;
  if(clock_ns(clock, &ns))
    return -EINVAL;
  bool coarse = clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE ||
                clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID;
  return tp ? put_timespec(tp, coarse ? TICK_NS : 1) : 0;
}

long
sys_gettimeofday(u64 tv, u64 tz)
{
  u64 ns = realtime_ns();
  s64 v[2] = { ns / NSEC_PER_SEC, (ns % NSEC_PER_SEC) / 1000 };
  if(tv && copy_to_user((void *)tv, v, sizeof(v)))
    return -EFAULT;
  s32 z[2] = { 0, 0 };
  if(tz && copy_to_user((void *)tz, z, sizeof(z)))
    return -EFAULT;
  return 0;
}

long
sys_time(u64 tloc)
{
  s64 t = realtime_ns() / NSEC_PER_SEC;
  if(tloc && put_user(t, (s64 *)tloc))
    return -EFAULT;
  return t;
}

// Sleeps until deadline (ktime ns); a signal cuts it short. The sleeper's state is set
// before signal_pending is tested, so a signal sent in between wakes it (kernel/signal.c).
static long
sleep_until(u64 deadline)
{
  struct thread *t = current;
  long ret = 0;
  t->wait_on = "nanosleep";
  for(;;) {
    set_current_state(T_SLEEPING);
    u64 now = ktime_ns();
    if(now >= deadline)
      break;
    if(signal_pending(t)) {
      ret = -EINTR;
      break;
    }
    schedule_timeout(deadline - now);
  }
  set_current_state(T_RUNNING);
  t->wait_on = NULL;
  return ret;
}

// The rest of a relative sleep a signal interrupted: it says EINTR with the time left in rem
// when a handler runs, and goes on to the same deadline through restart_syscall when none
// does (Linux's hrtimer_nanosleep_restart). arg: deadline, rem.
static long relative_sleep(u64 deadline, u64 rem);

static long
nanosleep_restart(struct restart_block *r)
{
  return relative_sleep(r->arg[0], r->arg[1]);
}

static long
relative_sleep(u64 deadline, u64 rem)
{
  if(sleep_until(deadline) == 0)
    return 0;
  u64 now = ktime_ns();
  if(rem && put_timespec(rem, deadline > now ? deadline - now : 0))
    return -EFAULT;
  struct restart_block *r = &current->sig->restart;
  r->fn = nanosleep_restart;
  r->arg[0] = deadline;
  r->arg[1] = rem;
  return -ERESTART_RESTARTBLOCK;
}

long
sys_nanosleep(u64 req, u64 rem)
{
  u64 ns;
  long err = get_timespec(req, &ns);
  if(err)
    return err;
  return relative_sleep(ktime_ns() + ns, rem);
}

// An absolute sleep is simply called again after a signal without a handler (-ERESTARTNOHAND).
long
sys_clock_nanosleep(u64 clock, u64 flags, u64 req, u64 rem)
{
  u64 ns, now;
  if(clock == CLOCK_THREAD_CPUTIME_ID)
    return -EINVAL;
  long err = clock_ns(clock, &now);
  if(err)
    return err;
  if((err = get_timespec(req, &ns)))
    return err;
  if(!(flags & TIMER_ABSTIME))
    return relative_sleep(ktime_ns() + ns, rem);
  err = sleep_until(ns > now ? ktime_ns() + (ns - now) : 0);
  return err ? -ERESTARTNOHAND : 0;
}
