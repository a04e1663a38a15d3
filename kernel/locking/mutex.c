// The mutex: free, or owned by one thread; a locker spins a while on an owner that runs, then
// sleeps in a FIFO, and unlock releases it and wakes the oldest, whom a running thread may
// beat to it once (then the next unlock hands it over).
#include "lockdep.h"
#include "mutex.h"
#include "panic.h"
#include "sched.h"
#include "time.h"
#include <asm/processor.h>

// How long a locker watches a running owner before it sleeps: as long as csd_wait spins
// for an IPI's answer (kernel/ipi.c), for the same reason (mutex_spin_on_owner).
#define MUTEX_SPIN_NS 20000

void
__mutex_init(struct mutex *m, const char *name, struct lock_class_key *key)
{
  spin_lock_init(&m->wait_lock);
  m->owner = NULL;
  INIT_LIST_HEAD(&m->waiters);
  m->handoff = false;
  m->name = name;
  lockdep_set_class(&m->dep_map, key);
}

// Lock statistics count a mutex's acquisitions as a spinlock's: contended when the first look
// finds it owned, the wait from then until it is handed over, the hold from then to the
// mutex_unlock (kept on the thread, which sleeps while holding it).

// Optimistic spinning (Linux's "mutex: implement adaptive spinning", Peter Zijlstra, 2009): an
// owner that is running on a CPU is likely to release soon, and watching it costs less than
// sleeping and being woken: a schedule on each side and, for a sleeper whose CPU went idle, an IPI
// and a halted vCPU to rouse. Two threads creating files in one directory at 2 vCPUs ran at 0.58 to
// 0.70 of Linux's rate, whose i_rwsem spins so (rwsem_optimistic_spin), while one thread alone ran
// at 1.6 times; watching made them 2.5 times faster (doc/notebook/2026-12-05-compare-linux-all.md).
// Watches until the owner changes or stops running, this CPU has something else to run, or
// MUTEX_SPIN_NS have passed: on 8 vCPUs over 2 host cores the host may deschedule an owner's vCPU
// while its on_cpu still says running, which nothing here can see (Linux asks the hypervisor,
// vcpu_is_preempted), so the watch is bounded as csd_wait's is, from start, whatever owners come
// and go. Threads are slots that are never freed (kernel/sched.c), so reading a former owner's
// on_cpu is safe; the slot's next thread can only end the watch early or late, within the bound.
// True when the owner changed: worth another look under wait_lock.
static bool
mutex_spin_on_owner(struct mutex *m, struct thread *owner, u64 start)
{
  while(READ_ONCE(m->owner) == owner) {
    if(!READ_ONCE(owner->on_cpu) || need_resched() || ktime_ns() - start > MUTEX_SPIN_NS)
      return false;
    cpu_relax();
  }
  return true;
}

static void
__mutex_lock(struct mutex *m, int subclass, u64 ip)
{
  struct mutex_waiter w = { .thread = current };
  u64 flags, t0 = 0;
  lockdep_might_sleep(ip);
  lockdep_acquire(&m->dep_map, subclass, LOCKDEP_SLEEP, ip);
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner == current)
    panic("mutex_lock: %s is already held by this thread (%s)", m->name, current->name);
  if(!m->owner) {
    m->owner = current;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    if(lock_stat_enabled())
      lock_acquired(&m->dep_map, 0);
    return;
  }
  if(lock_stat_enabled())
    t0 = lock_contended(&m->dep_map);
  u64 start = ktime_ns();
  for(struct thread *owner = m->owner; owner && READ_ONCE(owner->on_cpu); owner = m->owner) {
    spin_unlock_irqrestore(&m->wait_lock, flags);
    bool changed = mutex_spin_on_owner(m, owner, start);
    spin_lock_irqsave(&m->wait_lock, flags);
    if(!changed)
      break;
  }
  if(!m->owner) {   // released while we watched: ours, as a running thread's (mutex_unlock)
    m->owner = current;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    if(lock_stat_enabled())
      lock_acquired(&m->dep_map, t0);
    return;
  }
  list_add_tail(&w.list, &m->waiters);
  for(bool woken = false;; woken = true) {
    if(w.granted)
      break;
    if(!m->owner) {
      m->owner = current;
      list_del(&w.list);
      break;
    }
    // Taken again while this waiter was waking: it is the one unlock wakes, the oldest, and
    // the next unlock hands the mutex to it.
    if(woken && list_first_entry(&m->waiters, struct mutex_waiter, list) == &w)
      m->handoff = true;
    set_current_state(T_SLEEPING);
    current->wait_on = m->name;
    spin_unlock_irqrestore(&m->wait_lock, flags);
    schedule();
    spin_lock_irqsave(&m->wait_lock, flags);
  }
  set_current_state(T_RUNNING);
  current->wait_on = NULL;
  spin_unlock_irqrestore(&m->wait_lock, flags);
  if(lock_stat_enabled())
    lock_acquired(&m->dep_map, t0);
}

void
mutex_lock(struct mutex *m)
{
  __mutex_lock(m, 0, _RET_IP_);
}

void
mutex_lock_nested(struct mutex *m, int subclass)
{
  __mutex_lock(m, subclass, _RET_IP_);
}

bool
mutex_trylock(struct mutex *m)
{
  u64 flags;
  bool ok = false;
  spin_lock_irqsave(&m->wait_lock, flags);
  if(!m->owner) {
    m->owner = current;
    ok = true;
  }
  spin_unlock_irqrestore(&m->wait_lock, flags);
  if(ok)
    lockdep_acquire(&m->dep_map, 0, LOCKDEP_SLEEP | LOCKDEP_TRY, _RET_IP_);
  if(ok && lock_stat_enabled())
    lock_acquired(&m->dep_map, 0);
  return ok;
}

void
mutex_unlock(struct mutex *m)
{
  u64 flags;
  lockdep_release(&m->dep_map);
  if(lock_stat_enabled())
    lock_release(&m->dep_map);
  spin_lock_irqsave(&m->wait_lock, flags);
  if(m->owner != current)
    panic("mutex_unlock: %s is not held by this thread (%s)", m->name, current->name);
  m->owner = NULL;
  if(!list_empty(&m->waiters)) {
    struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, list);
    // Why not always hand over, as strict FIFO would: then every contended acquisition waits
    // for the wakee's CPU to run it, while the threads that are running queue behind it (a
    // lock convoy); with 8 vCPUs on 2 host cores that is a host time slice per create in a
    // shared directory (doc/notebook/2026-12-02-compare-linux.md). Linux releases too and hands over
    // only to a waiter that already lost once (MUTEX_FLAG_HANDOFF in its
    // kernel/locking/mutex.c: "locking/mutex: Add lock handoff to avoid starvation", 2016).
    if(m->handoff) {
      list_del(&w->list);
      m->owner = w->thread;
      w->granted = true;
      m->handoff = false;
    }
    wake_up_thread(w->thread);
  }
  spin_unlock_irqrestore(&m->wait_lock, flags);
}
