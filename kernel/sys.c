// The calls about a process and the machine that no subsystem owns (Linux's kernel/sys.c):
// identity, umask, prctl, uname, sysinfo, getrusage, getcpu, and CPU affinity (kernel/sched/).
#include "errno.h"
#include "fs.h"
#include "uapi/prctl.h"
#include "process.h"
#include "smp.h"
#include "string.h"
#include "syscalls.h"
#include "tick.h"
#include "time.h"
#include <asm/uaccess.h>

// umask(2): the old mask; only the permission bits are kept ("umask & 0777").
long
sys_umask(u64 mask)
{
  return __atomic_exchange_n(&current->proc->umask, (u32)mask & 0777, __ATOMIC_RELAXED);
}

long
sys_uname(u64 buf)
{
  char u[6][65];
  memset(u, 0, sizeof(u));
  strlcpy(u[0], UTS_SYSNAME, 65);   // glibc and programs compare this
  strlcpy(u[1], "kmm", 65);
  strlcpy(u[2], UTS_RELEASE, 65);
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
  si.uptime = ktime_ns() / NSEC_PER_SEC;
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
    r[0] = ns / NSEC_PER_SEC;
    r[1] = (ns % NSEC_PER_SEC) / 1000;
    r[8] = READ_ONCE(current->proc->min_flt);   // ru_minflt, after two timevals and 4 longs
  } else {   // RUSAGE_CHILDREN: the children reaped so far, and theirs (kernel/exit.c)
    u64 ticks, min_flt;
    children_rusage(&ticks, &min_flt);
    r[0] = ticks * TICK_NS / NSEC_PER_SEC;
    r[1] = (ticks * TICK_NS % NSEC_PER_SEC) / 1000;
    r[8] = min_flt;
  }
  return copy_to_user((void *)ru, r, sizeof(r)) ? -EFAULT : 0;
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

// prctl(2): the thread's name (busybox reads it at start) and the child subreaper; other
// options are EINVAL, as Linux answers an option it does not know.
long
sys_prctl(u64 option, u64 arg2)
{
  char name[TASK_COMM_LEN];
  switch(option) {
  case PR_SET_NAME: {
    long n = strncpy_from_user(name, (const char *)arg2, sizeof(name));
    if(n == -ENAMETOOLONG)   // Linux keeps the first 15 bytes of a longer name
      n = copy_from_user(name, (const char *)arg2, sizeof(name) - 1) ? -EFAULT : 0;
    if(n < 0)
      return -EFAULT;
    name[sizeof(name) - 1] = 0;
    strlcpy(current->name, name, sizeof(name));
    return 0;
  }
  case PR_GET_NAME:
    memset(name, 0, sizeof(name));
    strlcpy(name, current->name, sizeof(name));
    return copy_to_user((void *)arg2, name, sizeof(name)) ? -EFAULT : 0;
  case PR_SET_CHILD_SUBREAPER:
  case PR_GET_CHILD_SUBREAPER:
    return prctl_child_subreaper(option == PR_SET_CHILD_SUBREAPER, arg2);
  default:
    return -EINVAL;
  }
}

// Identity: every process runs as uid 0 and gid 0 (no credentials here).
long sys_getpid(void) { return current->proc->pid; }
long sys_gettid(void) { return current->tid; }
long sys_getuid(void) { return 0; }
