// System V semaphores (man 2 semget, semop, semctl; Linux's ipc/sem.c): sets of counters that
// semop changes all at once or not at all, sleeping until it can; SEM_UNDO's adjustments are
// undone when the process ends. As Linux's update_queue, whoever changes a value completes the
// operations of the sleepers that can now go, under the set's lock, before it returns: a
// sleeper woken so has its semop done even if the set is removed before it runs (dbench's
// barrier: release, then IPC_RMID at once). Every sleeper is tried at each change (Linux
// keeps a queue per semaphore; sets here are small and their users few).
#include "errno.h"
#include "ipc.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "time.h"
#include "wait.h"
#include <asm/uaccess.h>
#include "uapi/ipc.h"

struct sem {
  int val;   // 0..SEMVMX
  int pid;   // the last process to change it (GETPID)
};

struct sem_array {
  struct kern_ipc_perm perm;   // perm.lock: every sem, pending, the times
  struct list_head pending;    // semop's sleepers, oldest first
  s64 otime, ctime;
  int nsems;
  struct sem sems[];
};

struct sem_undo;

// A sleeper in semop: its operation, and the semaphore and operation its last try stopped at
// (GETNCNT, GETZCNT). status is 1 while it sleeps; whoever takes it off pending sets the
// result (0 done, -ERANGE, -EIDRM) and then wakes it.
struct sem_queue {
  struct list_head list;   // in pending, under perm.lock
  struct thread *thread;
  const struct sembuf *sops;
  int nsops, pid;
  struct sem_undo *un;
  bool alter;              // it changes a value (a wait for zero does not)
  int status;
  int sem_num;
  short sem_op;
};

// SEM_UNDO: per process, the adjustment of each semaphore of each set it changed so, applied
// at its exit (exit_sem). Threads share it; fork does not (Linux, without CLONE_SYSVSEM).
struct sem_undo {
  struct list_head list;   // in the process's sem_undo_list
  int semid, nsems;
  short adj[];
};

struct sem_undo_list {
  spinlock_t lock;         // list
  struct list_head list;
};

static void
sem_free(struct kern_ipc_perm *p)
{
  kfree(container_of(p, struct sem_array, perm));
}

static struct ipc_ids sem_ids = { .mutex = MUTEX_INIT(sem_ids.mutex), .free = sem_free };

static s64
now_sec(void)
{
  return (s64)(realtime_ns() / NSEC_PER_SEC);
}

static struct kern_ipc_perm *
sem_make(void *arg, long *err)
{
  int nsems = *(int *)arg;
  if(nsems <= 0 || nsems > SEMMSL) {
    *err = -EINVAL;
    return NULL;
  }
  struct sem_array *sma = kzalloc(sizeof(*sma) + nsems * sizeof(struct sem), GFP_KERNEL);
  if(!sma) {
    *err = -ENOMEM;
    return NULL;
  }
  INIT_LIST_HEAD(&sma->pending);
  sma->nsems = nsems;
  sma->ctime = now_sec();
  return &sma->perm;
}

// An existing set with fewer semaphores than asked for is EINVAL (semget(2)).
static long
sem_check(struct kern_ipc_perm *p, void *arg)
{
  return container_of(p, struct sem_array, perm)->nsems < *(int *)arg ? -EINVAL : 0;
}

long
sys_semget(u64 key, u64 nsems, u64 flg)
{
  int n = (int)nsems;
  if(n < 0 || n > SEMMSL)
    return -EINVAL;
  // nsems may be 0 when the set exists already (semget(2)); a new one needs one at least.
  return ipcget(&sem_ids, (int)key, (int)flg, sem_make, n ? sem_check : NULL, &n);
}

static struct sem_array *
sem_obtain(int id)
{
  struct kern_ipc_perm *p = ipc_obtain(&sem_ids, id);
  return p ? container_of(p, struct sem_array, perm) : NULL;
}

static void
sem_put(struct sem_array *sma)
{
  ipc_put(&sem_ids, &sma->perm);
}

// The process's undo record for set semid (made when missing: un, from the caller, is taken
// and set to NULL), or NULL when there is none and un is NULL.
static struct sem_undo *
find_undo(struct process *p, int semid, struct sem_undo **un)
{
  struct sem_undo_list *ul = READ_ONCE(p->sysvsem);
  if(!ul)
    return NULL;
  struct sem_undo *u, *found = NULL;
  spin_lock(&ul->lock);
  list_for_each_entry(u, &ul->list, list)
    if(u->semid == semid)
      found = u;
  if(!found && un && *un) {
    found = *un;
    *un = NULL;
    list_add(&found->list, &ul->list);
  }
  spin_unlock(&ul->lock);
  return found;
}

// Tries the operations at once, under the set's lock: 0 when all went (the values, the
// pids and the undo adjustments changed), -ERANGE when one would pass SEMVMX, or 1 + the index
// of the first that must wait (each change already made is put back).
static int
try_semop(struct sem_array *sma, const struct sembuf *sops, int nsops, struct sem_undo *un,
          int pid)
{
  int i, r = 0;
  for(i = 0; i < nsops; i++) {
    struct sem *s = &sma->sems[sops[i].sem_num];
    int op = sops[i].sem_op;
    if((op == 0 && s->val != 0) || (op < 0 && s->val + op < 0)) {
      r = 1 + i;
      break;
    }
    if(s->val + op > SEMVMX) {
      r = -ERANGE;
      break;
    }
    s->val += op;
  }
  if(r) {
    while(--i >= 0)
      sma->sems[sops[i].sem_num].val -= sops[i].sem_op;
    return r;
  }
  for(i = 0; i < nsops; i++) {
    sma->sems[sops[i].sem_num].pid = pid;
    if((sops[i].sem_flg & SEM_UNDO) && un)
      un->adj[sops[i].sem_num] -= sops[i].sem_op;
  }
  sma->otime = now_sec();
  return 0;
}

// A value changed: every sleeper whose operation can go now has it done and is woken, again
// and again while one that goes changes a value in turn. Under perm.lock.
static void
update_queue(struct sem_array *sma)
{
  struct sem_queue *q, *n;
again:
  list_for_each_entry_safe(q, n, &sma->pending, list) {
    int r = try_semop(sma, q->sops, q->nsops, q->un, q->pid);
    if(r > 0) {
      q->sem_num = q->sops[r - 1].sem_num;
      q->sem_op = q->sops[r - 1].sem_op;
      continue;
    }
    list_del_init(&q->list);
    WRITE_ONCE(q->status, r);
    wake_up_thread(q->thread);
    if(r == 0 && q->alter)
      goto again;   // the ones tried before it may go now
  }
}

// The set is gone: every sleeper leaves with EIDRM. Under perm.lock.
static void
wake_removed(struct sem_array *sma)
{
  struct sem_queue *q, *n;
  list_for_each_entry_safe(q, n, &sma->pending, list) {
    list_del_init(&q->list);
    WRITE_ONCE(q->status, -EIDRM);
    wake_up_thread(q->thread);
  }
}

// semtimedop(2): the timeout is relative; a sleeper that it ends gets EAGAIN, a signal EINTR
// (semop is never restarted, signal(7)), a removal of its set EIDRM.
long
sys_semtimedop(u64 semid, u64 usops, u64 nsops, u64 uts)
{
  if((int)nsops < 1)
    return -EINVAL;
  if(nsops > SEMOPM)
    return -E2BIG;
  u64 deadline = FOREVER;
  if(uts) {
    u64 ns;
    long err = get_timespec(uts, &ns);
    if(err)
      return err;
    deadline = ktime_ns() + ns;
  }
  struct sembuf *sops = kmalloc(nsops * sizeof(*sops), GFP_KERNEL);
  if(!sops)
    return -ENOMEM;
  long r = -EFAULT;
  if(copy_from_user(sops, (const void *)usops, nsops * sizeof(*sops)))
    goto out_free;
  bool undo = false, alter = false;
  int max = 0;
  for(u64 i = 0; i < nsops; i++) {
    undo |= sops[i].sem_flg & SEM_UNDO;
    alter |= sops[i].sem_op != 0;
    max = MAX(max, (int)sops[i].sem_num);
  }
  r = -EINVAL;
  struct sem_array *sma = sem_obtain((int)semid);
  if(!sma)
    goto out_free;
  struct process *p = current->proc;
  struct sem_undo *un = NULL, *fresh = NULL;
  r = -EFBIG;
  if(max >= sma->nsems)
    goto out_put;
  if(undo) {
    r = -ENOMEM;
    if(!READ_ONCE(p->sysvsem)) {
      struct sem_undo_list *ul = kzalloc(sizeof(*ul), GFP_KERNEL);
      if(!ul)
        goto out_put;
      spin_lock_init(&ul->lock);
      INIT_LIST_HEAD(&ul->list);
      if(__atomic_compare_exchange_n(&p->sysvsem, &(struct sem_undo_list *){ NULL }, ul, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) == false)
        kfree(ul);   // another thread made it first
    }
    fresh = kzalloc(sizeof(*fresh) + sma->nsems * sizeof(short), GFP_KERNEL);
    if(!fresh)
      goto out_put;
    fresh->semid = (int)semid;
    fresh->nsems = sma->nsems;
    un = find_undo(p, (int)semid, &fresh);
  }
  struct thread *t = current;
  struct sem_queue q = { .list = LIST_HEAD_INIT(q.list), .thread = t, .sops = sops,
                         .nsops = (int)nsops, .pid = p->pid, .un = un, .alter = alter };
  spin_lock(&sma->perm.lock);
  for(;;) {
    if(sma->perm.deleted) {
      r = -EIDRM;
      break;
    }
    int blocked = try_semop(sma, sops, (int)nsops, un, p->pid);
    if(blocked <= 0) {
      r = blocked;
      if(r == 0 && alter)
        update_queue(sma);
      break;
    }
    if(sops[blocked - 1].sem_flg & IPC_NOWAIT) {
      r = -EAGAIN;
      break;
    }
    q.sem_num = sops[blocked - 1].sem_num;
    q.sem_op = sops[blocked - 1].sem_op;
    q.status = 1;
    list_add_tail(&q.list, &sma->pending);
    // Asleep before the unlock: a waker's wake_up_thread after it finds this thread so.
    set_current_state(T_SLEEPING);
    t->wait_on = "semop";
    t->idle_wait = true;   // a user wait may last for ever by design
    spin_unlock(&sma->perm.lock);
    u64 now = ktime_ns();
    if(!signal_pending(t)) {
      if(deadline == FOREVER)
        schedule();
      else if(now < deadline)
        schedule_timeout(deadline - now);
    }
    set_current_state(T_RUNNING);
    t->wait_on = NULL;
    t->idle_wait = false;
    spin_lock(&sma->perm.lock);
    if(READ_ONCE(q.status) != 1) {   // a waker did it (or the set went): off pending already
      r = q.status;
      break;
    }
    list_del_init(&q.list);
    if(signal_pending(t)) {
      r = -EINTR;
      break;
    }
    if(deadline != FOREVER && ktime_ns() >= deadline) {
      r = -EAGAIN;
      break;
    }
  }
  spin_unlock(&sma->perm.lock);
out_put:
  kfree(fresh);
  sem_put(sma);
out_free:
  kfree(sops);
  return r;
}

long
sys_semop(u64 semid, u64 sops, u64 nsops)
{
  return sys_semtimedop(semid, sops, nsops, 0);
}

// Sleepers stopped at semaphore num waiting for it to grow (op < 0) or to reach 0.
static int
count_waiters(struct sem_array *sma, int num, bool zero)
{
  int n = 0;
  struct sem_queue *q;
  list_for_each_entry(q, &sma->pending, list)
    if(q->sem_num == num && (zero ? q->sem_op == 0 : q->sem_op < 0))
      n++;
  return n;
}

static long
sem_stat(struct sem_array *sma, u64 ubuf)
{
  struct semid64_ds ds = { 0 };
  spin_lock(&sma->perm.lock);
  ipc_fill_perm(&sma->perm, &ds.sem_perm);
  ds.sem_otime = sma->otime;
  ds.sem_ctime = sma->ctime;
  ds.sem_nsems = sma->nsems;
  spin_unlock(&sma->perm.lock);
  return copy_to_user((void *)ubuf, &ds, sizeof(ds)) ? -EFAULT : 0;
}

// GETALL and SETALL: the values as unsigned shorts at uarr.
static long
sem_all(struct sem_array *sma, u64 uarr, bool set)
{
  u16 *vals = kmalloc(sma->nsems * sizeof(u16), GFP_KERNEL);
  if(!vals)
    return -ENOMEM;
  long r = 0;
  if(set) {
    if(copy_from_user(vals, (const void *)uarr, sma->nsems * sizeof(u16)))
      r = -EFAULT;
    for(int i = 0; !r && i < sma->nsems; i++)
      if(vals[i] > SEMVMX)
        r = -ERANGE;
  }
  spin_lock(&sma->perm.lock);
  if(!r && sma->perm.deleted)
    r = -EIDRM;
  for(int i = 0; !r && i < sma->nsems; i++) {
    if(set) {
      sma->sems[i].val = vals[i];
      sma->sems[i].pid = current->proc->pid;
    } else {
      vals[i] = (u16)sma->sems[i].val;
    }
  }
  if(!r && set) {
    sma->ctime = now_sec();
    update_queue(sma);
  }
  spin_unlock(&sma->perm.lock);
  if(!r && !set && copy_to_user((void *)uarr, vals, sma->nsems * sizeof(u16)))
    r = -EFAULT;
  kfree(vals);
  return r;
}

// semctl(2). arg is union semun, passed by value: an int for SETVAL, else a pointer.
long
sys_semctl(u64 semid, u64 semnum, u64 cmd, u64 arg)
{
  int num = (int)semnum;
  switch(cmd) {
  case IPC_INFO:
  case SEM_INFO: {
    struct seminfo info = { .semmap = 32000, .semmni = IPC_MNI, .semmns = IPC_MNI * SEMMSL,
                            .semmnu = 32000, .semmsl = SEMMSL, .semopm = SEMOPM,
                            .semume = SEMOPM, .semusz = 20, .semvmx = SEMVMX,
                            .semaem = SEMAEM };
    if(cmd == SEM_INFO)
      info.semusz = sem_ids.in_use;
    if(copy_to_user((void *)arg, &info, sizeof(info)))
      return -EFAULT;
    int hi = ipc_highest_slot(&sem_ids);
    return hi < 0 ? 0 : hi;
  }
  case SEM_STAT:
  case SEM_STAT_ANY: {   // semid is a slot; the answer is the slot's id
    struct kern_ipc_perm *p = ipc_obtain_slot(&sem_ids, (int)semid);
    if(!p)
      return -EINVAL;
    long r = sem_stat(container_of(p, struct sem_array, perm), arg);
    if(!r)
      r = p->id;
    ipc_put(&sem_ids, p);
    return r;
  }
  case IPC_STAT: case IPC_SET: case IPC_RMID: case GETVAL: case GETPID: case GETNCNT:
  case GETZCNT: case GETALL: case SETVAL: case SETALL:
    break;
  default:
    return -EINVAL;
  }
  struct ipc64_perm in;
  if(cmd == IPC_SET && copy_from_user(&in, (const void *)arg, sizeof(in)))
    return -EFAULT;   // struct semid64_ds begins with its ipc64_perm
  struct sem_array *sma = sem_obtain((int)semid);
  if(!sma)
    return -EINVAL;
  long r = 0;
  bool one = cmd == GETVAL || cmd == GETPID || cmd == GETNCNT || cmd == GETZCNT ||
             cmd == SETVAL;
  if(one && (num < 0 || num >= sma->nsems)) {
    r = -EINVAL;
  } else if(cmd == IPC_STAT) {
    r = sem_stat(sma, arg);
  } else if(cmd == IPC_RMID) {
    if(ipc_rmid(&sem_ids, &sma->perm)) {
      spin_lock(&sma->perm.lock);
      wake_removed(sma);
      spin_unlock(&sma->perm.lock);
    }
  } else if(cmd == GETALL || cmd == SETALL) {
    r = sem_all(sma, arg, cmd == SETALL);
  } else if(cmd == SETVAL && (int)arg < 0) {
    r = -ERANGE;
  } else if(cmd == SETVAL && (int)arg > SEMVMX) {
    r = -ERANGE;
  } else {
    spin_lock(&sma->perm.lock);
    struct sem *s = one ? &sma->sems[num] : NULL;
    if(sma->perm.deleted)
      r = -EIDRM;
    else if(cmd == GETVAL)
      r = s->val;
    else if(cmd == GETPID)
      r = s->pid;
    else if(cmd == GETNCNT || cmd == GETZCNT)
      r = count_waiters(sma, num, cmd == GETZCNT);
    else if(cmd == SETVAL) {
      // (Linux also clears every process's undo adjustment of this semaphore; not done here.)
      s->val = (int)arg;
      s->pid = current->proc->pid;
      sma->ctime = now_sec();
      update_queue(sma);
    } else {   // IPC_SET
      ipc_set_perm(&sma->perm, &in);
      sma->ctime = now_sec();
    }
    spin_unlock(&sma->perm.lock);
  }
  sem_put(sma);
  return r;
}

// The process ends: each set it changed with SEM_UNDO gets the changes back, each value kept
// within 0..SEMVMX (Linux's exit_sem); a set removed or replaced since is left alone.
void
exit_sem(struct process *p)
{
  struct sem_undo_list *ul = p->sysvsem;
  if(!ul)
    return;
  p->sysvsem = NULL;
  struct sem_undo *u, *n;
  list_for_each_entry_safe(u, n, &ul->list, list) {
    struct sem_array *sma = sem_obtain(u->semid);
    if(sma && sma->nsems == u->nsems) {
      spin_lock(&sma->perm.lock);
      for(int i = 0; i < sma->nsems && !sma->perm.deleted; i++) {
        if(!u->adj[i])
          continue;
        sma->sems[i].val = MIN(MAX(sma->sems[i].val + u->adj[i], 0), SEMVMX);
        sma->sems[i].pid = p->pid;
      }
      if(!sma->perm.deleted)
        update_queue(sma);
      spin_unlock(&sma->perm.lock);
    }
    if(sma)
      sem_put(sma);
    kfree(u);
  }
  kfree(ul);
}
