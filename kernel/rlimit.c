// Resource limits (getrlimit(2), setrlimit, prlimit64): each process's soft and hard limits,
// Linux's defaults at spawn, copied at fork, kept at execve. RLIMIT_NOFILE is enforced by the
// fd table (fs/file.c) and poll; the others are reported and kept.
#include "errno.h"
#include "fdtable.h"
#include "process.h"
#include "sched.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// NR_OPEN_MAX (include/fdtable.h) is Linux's fs.nr_open default (fs/file.c, sysctl_nr_open):
// no RLIMIT_NOFILE goes above it, root or not; the fd table grows up to it.

// Linux's defaults for a process started by the kernel (include/asm-generic/resource.h,
// INIT_RLIMITS): RLIMIT_STACK 8 MiB soft, RLIMIT_NOFILE 1024 soft and 4096 hard (INR_OPEN_CUR,
// INR_OPEN_MAX), RLIMIT_CORE 0 soft, RLIMIT_MEMLOCK 8 MiB, RLIMIT_MSGQUEUE 800 KiB, RLIMIT_NICE
// and RLIMIT_RTPRIO 0; the rest unlimited.
void
rlimit_init(struct process *p)
{
  for(int i = 0; i < RLIM_NLIMITS; i++)
    p->rlim[i] = (struct rlimit64){ RLIM_INFINITY, RLIM_INFINITY };
  p->rlim[RLIMIT_STACK].cur = USER_STACK_SIZE;
  p->rlim[RLIMIT_NOFILE] = (struct rlimit64){ 1024, 4096 };
  p->rlim[4].cur = 0;                                   // RLIMIT_CORE
  p->rlim[8] = (struct rlimit64){ 8 << 20, 8 << 20 };   // RLIMIT_MEMLOCK
  p->rlim[12] = (struct rlimit64){ 819200, 819200 };    // RLIMIT_MSGQUEUE
  p->rlim[13] = (struct rlimit64){ 0, 0 };              // RLIMIT_NICE
  p->rlim[14] = (struct rlimit64){ 0, 0 };              // RLIMIT_RTPRIO
}

// fork: the child starts with the parent's limits (getrlimit(2): "A child process created via
// fork(2) inherits its parent's resource limits").
void
rlimit_fork(struct process *c, struct process *p)
{
  spin_lock(&p->lock);
  memcpy(c->rlim, p->rlim, sizeof(c->rlim));
  spin_unlock(&p->lock);
}

// The calling process's soft limit (Linux's rlimit()).
u64
rlimit(int resource)
{
  return READ_ONCE(current->proc->rlim[resource].cur);
}

// Linux's do_prlimit: the old pair copied out, then the new one checked and set. Raising a
// hard limit needs CAP_SYS_RESOURCE, which every process here has (all run as root).
static long
do_prlimit(u64 resource, u64 unew, u64 uold)
{
  if(resource >= RLIM_NLIMITS)
    return -EINVAL;
  struct rlimit64 new;
  if(unew && copy_from_user(&new, (void *)unew, sizeof(new)))
    return -EFAULT;
  if(unew && new.cur > new.max)
    return -EINVAL;
  if(unew && resource == RLIMIT_NOFILE && new.max > NR_OPEN_MAX)
    return -EPERM;
  struct process *p = current->proc;
  spin_lock(&p->lock);
  struct rlimit64 old = p->rlim[resource];
  if(unew) {
    WRITE_ONCE(p->rlim[resource].cur, new.cur);
    p->rlim[resource].max = new.max;
  }
  spin_unlock(&p->lock);
  return uold && copy_to_user((void *)uold, &old, sizeof(old)) ? -EFAULT : 0;
}

long
sys_getrlimit(u64 resource, u64 rlim)
{
  return do_prlimit(resource, 0, rlim);
}

long
sys_setrlimit(u64 resource, u64 rlim)
{
  return do_prlimit(resource, rlim, 0);
}

// Another process's limits would need its lock and a permission check: only the caller's.
long
sys_prlimit64(u64 pid, u64 resource, u64 new, u64 old)
{
  if(pid && (int)pid != current->proc->pid)
    return -ESRCH;
  return do_prlimit(resource, new, old);
}
