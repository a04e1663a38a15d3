// The life of a process's handler table: made at spawn, copied or shared at fork
// (CLONE_SIGHAND), unshared at execve, freed by its last process's release (include/sighand.h).
#include "errno.h"
#include "process.h"
#include "sighand.h"
#include "slab.h"
#include "string.h"
#include "uapi/sched.h"

struct sighand_struct *
sighand_alloc(void)
{
  struct sighand_struct *sh = kzalloc(sizeof(*sh), GFP_KERNEL);
  if(!sh)
    return NULL;
  sh->count = 1;
  spin_lock_init(&sh->lock);
  return sh;   // zeroed: every handler SIG_DFL (0)
}

void
sighand_put(struct sighand_struct *sh)
{
  // Acquire-release: every sharer's writes to the table come before the last one frees it.
  if(sh && __atomic_sub_fetch(&sh->count, 1, __ATOMIC_ACQ_REL) == 0)
    kfree(sh);
}

// The caller is a thread of p: p->sighand cannot be swapped under it (unshare_sighand runs
// once every other thread of p has gone).
int
copy_sighand(u64 clone_flags, struct process *c, struct process *p)
{
  struct sighand_struct *old = p->sighand;
  if(clone_flags & CLONE_SIGHAND) {
    __atomic_add_fetch(&old->count, 1, __ATOMIC_RELAXED);   // p's own reference keeps it
    c->sighand = old;
    return 0;
  }
  struct sighand_struct *sh = sighand_alloc();
  if(!sh)
    return -ENOMEM;
  u64 flags;
  spin_lock_irqsave(&old->lock, flags);   // whole entries, against the other sharers' writes
  memcpy(sh->action, old->action, sizeof(sh->action));
  spin_unlock_irqrestore(&old->lock, flags);
  c->sighand = sh;
  return 0;
}

int
unshare_sighand(struct process *p)
{
  struct sighand_struct *old = p->sighand;
  // 1: no other process holds it, and none can take it, as only p's threads could share it
  // by clone and the caller is the last. More than 1 may drop to 1 meanwhile: a copy
  // then is merely unneeded.
  if(__atomic_load_n(&old->count, __ATOMIC_ACQUIRE) == 1)
    return 0;
  struct sighand_struct *sh = sighand_alloc();
  if(!sh)
    return -ENOMEM;
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);   // senders to p read p->sighand under it
  spin_lock(&old->lock);
  memcpy(sh->action, old->action, sizeof(sh->action));
  spin_unlock(&old->lock);
  p->sighand = sh;
  spin_unlock_irqrestore(&p->siglock, flags);
  sighand_put(old);
  return 0;
}

u64
sig_handler(struct process *p, int sig)
{
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  u64 h = READ_ONCE(p->sighand->action[sig - 1].handler);
  spin_unlock_irqrestore(&p->siglock, flags);
  return h;
}

u64
sig_flags(struct process *p, int sig)
{
  u64 flags;
  spin_lock_irqsave(&p->siglock, flags);
  u64 f = READ_ONCE(p->sighand->action[sig - 1].flags);
  spin_unlock_irqrestore(&p->siglock, flags);
  return f;
}
