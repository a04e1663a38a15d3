// System V IPC's objects and their ids (ipc/util.c), shared by shared memory (ipc/shm.c) and
// semaphores (ipc/sem.c), as Linux's ipc/util.h: a table per kind, a key to find an object
// by, an id that names one object and is not reused at once for another.
#pragma once
#include "mutex.h"
#include "spinlock.h"
#include "types.h"

struct kern_ipc_perm {
  spinlock_t lock;        // the kind's own state (a set's values and waiters); deleted
  int refs;               // atomic: the table's, and each call's that holds it
  bool deleted;           // IPC_RMID: gone from the table; sleepers leave with EIDRM
  int id, key;
  u32 uid, gid, cuid, cgid;
  u16 mode, seq;
};

struct ipc_ids {
  struct mutex mutex;                   // the table: creation, lookups, removal
  struct kern_ipc_perm *entries[4096];  // IPC_MNI slots
  int in_use;
  u16 seq;                              // each new object's: an id is slot + seq * 32768
  void (*free)(struct kern_ipc_perm *p);   // the kind's, at the last reference
};

// shmget's and semget's common part (Linux's ipcget): key IPC_PRIVATE always makes a new
// object; another key finds its object (EEXIST under IPC_CREAT | IPC_EXCL; check, when given,
// may refuse it) or, under IPC_CREAT, makes one (ENOENT without). make returns a new object
// (mode and key set by the caller from here) or an ERR_PTR-style negative errno cast. The id.
long ipcget(struct ipc_ids *ids, int key, int flg,
            struct kern_ipc_perm *(*make)(void *arg, long *err),
            long (*check)(struct kern_ipc_perm *p, void *arg), void *arg);
// The object named by id, referenced, or NULL (-EINVAL: no such id, or removed).
struct kern_ipc_perm *ipc_obtain(struct ipc_ids *ids, int id);
// The first object match accepts, referenced, or NULL; one hold of the table's mutex.
struct kern_ipc_perm *ipc_find(struct ipc_ids *ids,
                               bool (*match)(struct kern_ipc_perm *p, const void *arg),
                               const void *arg);
// The object in slot idx (SHM_STAT, SEM_STAT), referenced, or NULL.
struct kern_ipc_perm *ipc_obtain_slot(struct ipc_ids *ids, int idx);
void ipc_put(struct ipc_ids *ids, struct kern_ipc_perm *p);
// IPC_RMID: out of the table, marked deleted, the table's reference dropped. Under nothing;
// false when another removal came first.
bool ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *p);
void ipc_fill_perm(const struct kern_ipc_perm *p, void *ipc64_perm);
void ipc_set_perm(struct kern_ipc_perm *p, const void *ipc64_perm);
int ipc_highest_slot(struct ipc_ids *ids);   // -1 for none (IPC_INFO's answer)

// SEM_UNDO's adjustments of a process, applied when it ends (ipc/sem.c).
struct process;
void exit_sem(struct process *p);
