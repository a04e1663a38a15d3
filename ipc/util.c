// System V IPC ids (Linux's ipc/util.c): each kind's table of objects, found by key or by id;
// an id is the object's slot plus a sequence number times 32768, so an id whose object was
// removed names nothing for a long while rather than the slot's next object.
#include "errno.h"
#include "ipc.h"
#include "process.h"
#include "string.h"
#include "uapi/ipc.h"

#define SEQ_MULTIPLIER 32768   // Linux's IPCMNI: slots below it

long
ipcget(struct ipc_ids *ids, int key, int flg, struct kern_ipc_perm *(*make)(void *arg, long *err),
       long (*check)(struct kern_ipc_perm *p, void *arg), void *arg)
{
  long r = -ENOENT;
  mutex_lock(&ids->mutex);
  if(key != IPC_PRIVATE) {
    for(int i = 0; i < IPC_MNI; i++) {
      struct kern_ipc_perm *p = ids->entries[i];
      if(!p || p->key != key)
        continue;
      r = (flg & IPC_CREAT) && (flg & IPC_EXCL) ? -EEXIST : check ? check(p, arg) : 0;
      if(!r)
        r = p->id;
      goto out;
    }
    if(!(flg & IPC_CREAT))
      goto out;
  }
  int slot = -1;
  for(int i = 0; i < IPC_MNI && slot < 0; i++)
    if(!ids->entries[i])
      slot = i;
  if(slot < 0) {
    r = -ENOSPC;   // shmget(2), semget(2): the system's limit on ids
    goto out;
  }
  struct kern_ipc_perm *p = make(arg, &r);
  if(!p)
    goto out;
  spin_lock_init(&p->lock);
  p->refs = 1;   // the table's
  p->key = key;
  p->mode = flg & 0777;
  p->uid = p->cuid = 0;   // every process is root (doc/user-mode.md)
  p->gid = p->cgid = 0;
  // Sequence numbers start at 1, so no id is 0: Linux's first one is, on a fresh boot, and
  // dbench takes a semaphore id of 0 for a failure ("failed to create barrier semaphore").
  p->seq = ++ids->seq;
  p->id = slot + (int)(p->seq % (0x7fffffff / SEQ_MULTIPLIER)) * SEQ_MULTIPLIER;
  ids->entries[slot] = p;
  ids->in_use++;
  r = p->id;
out:
  mutex_unlock(&ids->mutex);
  return r;
}

static struct kern_ipc_perm *
get_locked(struct ipc_ids *ids, int slot)
{
  struct kern_ipc_perm *p = slot >= 0 && slot < IPC_MNI ? ids->entries[slot] : NULL;
  if(p)
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
  return p;
}

struct kern_ipc_perm *
ipc_obtain(struct ipc_ids *ids, int id)
{
  if(id < 0)
    return NULL;
  mutex_lock(&ids->mutex);
  struct kern_ipc_perm *p = get_locked(ids, id % SEQ_MULTIPLIER);
  if(p && p->id != id) {
    __atomic_sub_fetch(&p->refs, 1, __ATOMIC_RELAXED);   // the table still holds one
    p = NULL;
  }
  mutex_unlock(&ids->mutex);
  return p;
}

struct kern_ipc_perm *
ipc_find(struct ipc_ids *ids, bool (*match)(struct kern_ipc_perm *p, const void *arg),
         const void *arg)
{
  struct kern_ipc_perm *found = NULL;
  mutex_lock(&ids->mutex);
  for(int i = 0; i < IPC_MNI && !found; i++)
    if(ids->entries[i] && match(ids->entries[i], arg))
      found = get_locked(ids, i);
  mutex_unlock(&ids->mutex);
  return found;
}

struct kern_ipc_perm *
ipc_obtain_slot(struct ipc_ids *ids, int idx)
{
  mutex_lock(&ids->mutex);
  struct kern_ipc_perm *p = get_locked(ids, idx);
  mutex_unlock(&ids->mutex);
  return p;
}

void
ipc_put(struct ipc_ids *ids, struct kern_ipc_perm *p)
{
  if(__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0)
    ids->free(p);
}

bool
ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *p)
{
  mutex_lock(&ids->mutex);
  int slot = p->id % SEQ_MULTIPLIER;
  bool mine = ids->entries[slot] == p;
  if(mine) {
    ids->entries[slot] = NULL;
    ids->in_use--;
    spin_lock(&p->lock);
    p->deleted = true;
    spin_unlock(&p->lock);
  }
  mutex_unlock(&ids->mutex);
  if(mine)
    ipc_put(ids, p);   // the table's reference
  return mine;
}

int
ipc_highest_slot(struct ipc_ids *ids)
{
  int hi = -1;
  mutex_lock(&ids->mutex);
  for(int i = 0; i < IPC_MNI; i++)
    if(ids->entries[i])
      hi = i;
  mutex_unlock(&ids->mutex);
  return hi;
}

void
ipc_fill_perm(const struct kern_ipc_perm *p, void *out)
{
  struct ipc64_perm *u = out;
  memset(u, 0, sizeof(*u));
  u->key = p->key;
  u->uid = p->uid;
  u->gid = p->gid;
  u->cuid = p->cuid;
  u->cgid = p->cgid;
  u->mode = p->mode;
  u->seq = p->seq;
}

// IPC_SET: the owner and the permission bits (every process is root here: no EPERM).
void
ipc_set_perm(struct kern_ipc_perm *p, const void *in)
{
  const struct ipc64_perm *u = in;
  p->uid = u->uid;
  p->gid = u->gid;
  p->mode = (p->mode & ~0777) | (u->mode & 0777);
}
