// Clocks, sleeps, futex timeouts, and what a process asks about the machine: uname, sysinfo,
// getrusage, random bytes, CPU affinity (resource limits: kernel/rlimit.c). Structures as the
// x86-64 ABI lays them out (man 2 clock_gettime, uname, sysinfo, getrusage, sched_setaffinity).
#include "cpumask.h"
#include "errno.h"
#include "mm.h"
#include "process.h"
#include "random.h"
#include "sched.h"
#include "signal.h"
#include "smp.h"
#include "string.h"
#include "syscalls.h"
#include "tick.h"
#include "time.h"
#include <asm/uaccess.h>

#define NS 1000000000UL
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME 7
#define TIMER_ABSTIME 1
#define FUTEX_CMD_MASK 0x7f
#define FUTEX_WAIT 0
#define FUTEX_WAIT_BITSET 9
#define FUTEX_CLOCK_REALTIME 256

struct timespec {
  s64 tv_sec, tv_nsec;
};

// CLOCK_REALTIME less CLOCK_MONOTONIC (Linux's wall_to_monotonic, negated): one word, so a
// reader sees the old offset or the new one whole. The RTC's date at boot (rtc_init), moved
// by clock_settime; a sleep already converted to a ktime deadline does not move with it.
static u64 realtime_offset;

u64
realtime_ns(void)
{
  return READ_ONCE(realtime_offset) + ktime_ns();
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
static u64
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

static long
put_timespec(u64 uts, u64 ns)
{
  struct timespec ts = { ns / NS, ns % NS };
  return copy_to_user((void *)uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

// A timespec from user memory, as nanoseconds; EINVAL outside [0, 1e9) nanoseconds.
static long
get_timespec(u64 uts, u64 *ns)
{
  struct timespec ts;
  if(copy_from_user(&ts, (void *)uts, sizeof(ts)))
    return -EFAULT;
  if(ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (s64)NS)
    return -EINVAL;
  *ns = (u64)ts.tv_sec > (~0UL / 2) / NS ? ~0UL / 2 : (u64)ts.tv_sec * NS + ts.tv_nsec;
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
  s64 v[2] = { ns / NS, (ns % NS) / 1000 };
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
  s64 t = realtime_ns() / NS;
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

// FUTEX_WAIT's timeout is relative; WAIT_BITSET's absolute, on CLOCK_REALTIME with
// FUTEX_CLOCK_REALTIME, else CLOCK_MONOTONIC (futex(2)). Both become a ktime deadline.
long
sys_futex(u64 uaddr, u64 op, u64 val, u64 utime, u64 uaddr2, u64 val3)
{
  u64 deadline = 0;
  int cmd = op & FUTEX_CMD_MASK;
  if(utime && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
    u64 ns;
    long err = get_timespec(utime, &ns);
    if(err)
      return err;
    u64 now = ktime_ns(), wall = READ_ONCE(realtime_offset) + now;
    if(cmd == FUTEX_WAIT)
      deadline = now + ns;
    else if(op & FUTEX_CLOCK_REALTIME)
      deadline = ns > wall ? now + (ns - wall) : 1;
    else
      deadline = ns ? ns : 1;
  }
  return do_futex((u32 *)uaddr, (int)op, (u32)val, deadline, (u32 *)uaddr2, (u32)val3);
}

long
sys_uname(u64 buf)
{
  char u[6][65];
  memset(u, 0, sizeof(u));
  strlcpy(u[0], "Linux", 65);   // glibc and programs compare this
  strlcpy(u[1], "kmm", 65);
  strlcpy(u[2], "6.1.0-kmm", 65);
  strlcpy(u[3], "#1 SMP", 65);
  strlcpy(u[4], "x86_64", 65);
  strlcpy(u[5], "(none)", 65);
  return copy_to_user((void *)buf, u, sizeof(u)) ? -EFAULT : 0;
}

long
sys_sysinfo(u64 info)
{
  struct {
    s64 uptime;
    u64 loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
    u16 procs, pad;
    u64 totalhigh, freehigh;
    u32 mem_unit;
    char f[4];
  } si;
  memset(&si, 0, sizeof(si));
  si.uptime = ktime_ns() / NS;
  si.totalram = max_pfn * PAGE_SIZE;
  si.freeram = nr_free_pages() * PAGE_SIZE;
  si.procs = 1;
  si.mem_unit = 1;
  return copy_to_user((void *)info, &si, sizeof(si)) ? -EFAULT : 0;
}

// Minor faults as Linux counts them: every fault that mapped a page for the process. who is
// an int (RUSAGE_CHILDREN is -1): only its low 32 bits are the argument (kernel/syscall.c).
long
sys_getrusage(u64 uwho, u64 ru)
{
  int who = (int)uwho;
  if(who != 0 && who != 1 && who != -1)   // RUSAGE_SELF, RUSAGE_THREAD, RUSAGE_CHILDREN
    return -EINVAL;
  s64 r[18];
  memset(r, 0, sizeof(r));
  if(who != -1) {
    u64 ns = cputime_ns(who == 0);
    r[0] = ns / NS;
    r[1] = (ns % NS) / 1000;
    r[8] = READ_ONCE(current->proc->min_flt);   // ru_minflt, after two timevals and 4 longs
  } else {   // RUSAGE_CHILDREN: the children reaped so far, and theirs (kernel/exit.c)
    u64 ticks, min_flt;
    children_rusage(&ticks, &min_flt);
    r[0] = ticks * TICK_NS / NS;
    r[1] = (ticks * TICK_NS % NS) / 1000;
    r[8] = min_flt;
  }
  return copy_to_user((void *)ru, r, sizeof(r)) ? -EFAULT : 0;
}

long
sys_getrandom(u64 buf, u64 len, u64 flags)
{
  if(flags & ~7UL)   // GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE
    return -EINVAL;
  u8 chunk[256];
  u64 done = 0;
  while(done < len) {
    u64 k = MIN(len - done, sizeof(chunk));
    get_random_bytes(chunk, k);
    if(copy_to_user((u8 *)buf + done, chunk, k))
      return done ? (long)done : -EFAULT;
    done += k;
    cond_resched();
  }
  return done;
}

// Linux's cpumask_size(): whole longs covering nr_cpu_ids.
static u64
mask_bytes(void)
{
  return (nr_cpu_ids + 63) / 64 * 8;
}

// The thread pid names in the caller's process (0: the caller); NULL if there is none.
static struct thread *
find_thread(u64 pid)
{
  struct process *p = current->proc;
  if(pid == 0 || (int)pid == current->tid)
    return current;
  struct thread *t, *found = NULL;
  spin_lock(&p->lock);
  list_for_each_entry(t, &p->threads, proc_node)
    if(t->tid == (int)pid && READ_ONCE(t->state) != T_DEAD)
      found = t;
  spin_unlock(&p->lock);
  return found;
}

// The raw call returns the bytes copied, not 0 (sched_getaffinity(2), "C library/kernel
// differences"); glibc's wrapper turns that into 0.
long
sys_sched_getaffinity(u64 pid, u64 len, u64 mask)
{
  if(len * 8 < (u64)nr_cpu_ids || len % 8)
    return -EINVAL;
  struct thread *t = find_thread(pid);
  if(!t)
    return -ESRCH;
  u8 m[NR_CPUS / 8];
  u64 n = mask_bytes();
  memset(m, 0, sizeof(m));
  int cpu;
  for_each_online_cpu(cpu)
    if(cpumask_test_cpu(cpu, &t->affinity))
      m[cpu / 8] |= 1 << (cpu % 8);
  return copy_to_user((void *)mask, m, n) ? -EFAULT : (long)n;
}

// The thread moves to an allowed CPU on its next return to user mode (exit_to_user_mode):
// at once for the caller, within a tick for a sibling in ring 3, on waking for a sleeper.
long
sys_sched_setaffinity(u64 pid, u64 len, u64 mask)
{
  u8 m[NR_CPUS / 8];
  u64 n = MIN(len, sizeof(m));
  memset(m, 0, sizeof(m));
  if(copy_from_user(m, (void *)mask, n))
    return -EFAULT;
  struct cpumask allowed;
  cpumask_clear(&allowed);
  int cpu;
  for_each_online_cpu(cpu)
    if(m[cpu / 8] & (1 << (cpu % 8)))
      cpumask_set_cpu(cpu, &allowed);
  if(cpumask_weight(&allowed) == 0)
    return -EINVAL;
  struct process *p = current->proc;
  struct thread *t = find_thread(pid);
  if(!t)
    return -ESRCH;
  spin_lock(&p->lock);
  t->affinity = allowed;
  spin_unlock(&p->lock);
  return 0;
}

long
sys_getcpu(u64 cpu, u64 node, u64 cache)
{
  if(cpu && put_user((u32)smp_processor_id(), (u32 *)cpu))
    return -EFAULT;
  if(node && put_user(0u, (u32 *)node))
    return -EFAULT;
  return 0;
}
