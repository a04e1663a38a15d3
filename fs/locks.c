// Record locks (fcntl's F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ forms; man 2 fcntl,
// "Advisory record locking"): byte ranges of a file, shared (F_RDLCK) or exclusive (F_WRLCK),
// that only other lockers see. A POSIX lock belongs to a process's fd table and goes when the
// process closes any fd of the file; an open-file-description (OFD) lock belongs to the
// description and goes with its last fd (Linux's fs/locks.c). SQLite and dbench take them.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "list.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "slab.h"
#include "spinlock.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "uapi/fcntl.h"
#include "uapi/fs.h"
#include "wait.h"

#define OFFSET_MAX 0x7fffffffffffffffULL   // a lock of length 0 reaches here: any file's end

// One lock of one owner over [fl_start, fl_end] of an inode. An owner's locks on an inode
// never overlap: a new lock replaces what it covers, and joins a neighbour of its own type.
struct file_lock {
  struct list_head fl_list;   // in inode->i_flock
  void *fl_owner;             // the fd table (struct files) for POSIX, the ufile for OFD
  int fl_pid;                 // F_GETLK's l_pid: the POSIX owner's pid, -1 for OFD
  short fl_type;              // F_RDLCK or F_WRLCK
  u64 fl_start, fl_end;       // bytes, inclusive
};

// A POSIX owner asleep in F_SETLKW, and the owner it waits for: deadlock detection follows
// these (Linux's blocked_hash).
struct lock_waiter {
  struct list_head list;
  void *owner, *blocker;
};

// Every inode's i_flock list and the waiters (Linux's blocked_lock_lock: one lock, as the
// lists are short and taken only by programs that lock).
static DEFINE_SPINLOCK(file_lock_lock);
static LIST_HEAD(lock_waiters);                // under file_lock_lock
static DECLARE_WAIT_QUEUE_HEAD(file_lock_wq);  // F_SETLKW sleepers, woken at every change

// Whether a lock of owner, type and range meets another owner's lock it cannot share with: the
// first such, or NULL. Under file_lock_lock.
static struct file_lock *
find_conflict(struct inode *inode, void *owner, short type, u64 start, u64 end)
{
  struct file_lock *fl;
  list_for_each_entry(fl, &inode->i_flock, fl_list)
    if(fl->fl_owner != owner && fl->fl_start <= end && fl->fl_end >= start &&
       (type == F_WRLCK || fl->fl_type == F_WRLCK))
      return fl;
  return NULL;
}

// Whether owner waiting for blocker closes a cycle of POSIX owners each asleep on the next
// (Linux's posix_locks_deadlock, as bounded: MAX_DEADLK_ITERATIONS). Under file_lock_lock.
static bool
deadlock(void *owner, void *blocker)
{
  for(int i = 0; i < 10 && blocker; i++) {
    if(blocker == owner)
      return true;
    struct lock_waiter *w, *next = NULL;
    list_for_each_entry(w, &lock_waiters, list)
      if(w->owner == blocker)
        next = w;
    blocker = next ? next->blocker : NULL;
  }
  return false;
}

// Sets (or with F_UNLCK clears) owner's lock over [start, end] on inode, as Linux's
// posix_lock_inode: the owner's locks in the range are cut back or removed, those of the same
// type that meet it joined to it. spare holds the three locks this may need (the new one and
// the two ends of one it splits): those it takes are set to NULL. Under file_lock_lock.
static void
apply_lock(struct inode *inode, void *owner, int pid, short type, u64 start, u64 end,
           struct file_lock *spare[3])
{
  struct file_lock *fl, *tmp;
  int used = 0;
  list_for_each_entry_safe(fl, tmp, &inode->i_flock, fl_list) {
    if(fl->fl_owner != owner)
      continue;
    bool meets = fl->fl_start <= end + 1 && fl->fl_end + 1 >= start;
    bool overlaps = fl->fl_start <= end && fl->fl_end >= start;
    if(fl->fl_type == type && meets) {   // the same type: one lock over both
      start = MIN(start, fl->fl_start);
      end = MAX(end, fl->fl_end);
    } else if(overlaps) {                // another type, or an unlock: keep what lies outside
      if(fl->fl_start < start) {
        struct file_lock *head = spare[used];
        spare[used++] = NULL;
        *head = *fl;
        head->fl_end = start - 1;
        list_add_tail(&head->fl_list, &inode->i_flock);
      }
      if(fl->fl_end > end) {
        struct file_lock *tail = spare[used];
        spare[used++] = NULL;
        *tail = *fl;
        tail->fl_start = end + 1;
        list_add_tail(&tail->fl_list, &inode->i_flock);
      }
    } else {
      continue;
    }
    list_del(&fl->fl_list);
    kfree(fl);
  }
  if(type != F_UNLCK) {
    struct file_lock *nl = spare[used];
    spare[used] = NULL;
    *nl = (struct file_lock){ .fl_owner = owner, .fl_pid = pid, .fl_type = type,
                              .fl_start = start, .fl_end = end };
    list_add_tail(&nl->fl_list, &inode->i_flock);
  }
}

// Which bytes a struct flock names, as Linux's flock64_to_posix_lock: from l_whence's base,
// l_len bytes (a negative length counts back from l_start; 0 is to any end). -EINVAL for a
// bad l_whence or a start before 0, -EOVERFLOW past OFFSET_MAX.
static int
flock_range(struct file *f, const struct flock *l, u64 *start, u64 *end)
{
  s64 base;
  switch(l->l_whence) {
  case SEEK_SET:
    base = 0;
    break;
  case SEEK_CUR:
    base = (s64)f->f_pos;
    break;
  case SEEK_END:
    base = (s64)READ_ONCE(f->f_inode->i_size);
    break;
  default:
    return -EINVAL;
  }
  if(l->l_start > (s64)OFFSET_MAX - base)
    return -EOVERFLOW;
  s64 s = base + l->l_start, e;
  if(s < 0)
    return -EINVAL;
  if(l->l_len > 0) {
    if(l->l_len - 1 > (s64)OFFSET_MAX - s)
      return -EOVERFLOW;
    e = s + (l->l_len - 1);
  } else if(l->l_len < 0) {
    if(s + l->l_len < 0)
      return -EINVAL;
    e = s - 1;
    s += l->l_len;
  } else {
    e = (s64)OFFSET_MAX;
  }
  *start = (u64)s;
  *end = (u64)e;
  return 0;
}

// F_GETLK and F_OFD_GETLK: the first lock that would stop this one, or l_type F_UNLCK.
static long
getlk(struct ufile *uf, bool ofd, u64 uarg)
{
  struct flock l;
  if(copy_from_user(&l, (const void *)uarg, sizeof(l)))
    return -EFAULT;
  if(l.l_type != F_RDLCK && l.l_type != F_WRLCK)
    return -EINVAL;
  if(ofd && l.l_pid != 0)
    return -EINVAL;
  u64 start, end;
  int err = flock_range(uf->file, &l, &start, &end);
  if(err)
    return err;
  void *owner = ofd ? (void *)uf : (void *)current->proc->files;
  struct inode *inode = uf->file->f_inode;
  spin_lock(&file_lock_lock);
  struct file_lock *fl = find_conflict(inode, owner, l.l_type, start, end);
  if(fl) {
    l.l_type = fl->fl_type;
    l.l_whence = SEEK_SET;
    l.l_start = (s64)fl->fl_start;
    l.l_len = fl->fl_end == OFFSET_MAX ? 0 : (s64)(fl->fl_end - fl->fl_start + 1);
    l.l_pid = fl->fl_pid;
  } else {
    l.l_type = F_UNLCK;
  }
  spin_unlock(&file_lock_lock);
  return copy_to_user((void *)uarg, &l, sizeof(l)) ? -EFAULT : 0;
}

// F_SETLK, F_SETLKW and their OFD forms. The type must match the open mode (EBADF); a
// conflict is EAGAIN, or for the W forms a sleep until it is gone: EDEADLK if the owner it
// waits for waits, through others, for this one (POSIX owners only, as Linux), -ERESTARTSYS on
// a signal.
static long
setlk(struct ufile *uf, bool ofd, bool wait, u64 uarg)
{
  struct flock l;
  if(copy_from_user(&l, (const void *)uarg, sizeof(l)))
    return -EFAULT;
  u64 start, end;
  int err = flock_range(uf->file, &l, &start, &end);
  if(err)
    return err;
  if(l.l_type != F_RDLCK && l.l_type != F_WRLCK && l.l_type != F_UNLCK)
    return -EINVAL;
  if(ofd && l.l_pid != 0)
    return -EINVAL;
  u32 acc = uf->flags & O_ACCMODE;
  if((l.l_type == F_RDLCK && acc == O_WRONLY) || (l.l_type == F_WRLCK && acc == O_RDONLY))
    return -EBADF;
  struct process *p = current->proc;
  void *owner = ofd ? (void *)uf : (void *)p->files;
  struct inode *inode = uf->file->f_inode;
  struct file_lock *spare[3] = { 0 };
  for(int i = 0; i < 3; i++)
    if(!(spare[i] = kmalloc(sizeof(struct file_lock), GFP_KERNEL))) {
      err = -ENOMEM;
      goto out;
    }
  struct lock_waiter w = { .owner = owner };
  struct wait_queue_entry we = { current, LIST_HEAD_INIT(we.entry), NULL };
  for(;;) {
    // Asleep before the look, so that a release after it wakes this thread (wait_event's order).
    prepare_to_wait(&file_lock_wq, &we, T_SLEEPING);
    spin_lock(&file_lock_lock);
    struct file_lock *fl = l.l_type == F_UNLCK ? NULL
                           : find_conflict(inode, owner, l.l_type, start, end);
    if(!fl) {
      apply_lock(inode, owner, ofd ? -1 : p->pid, l.l_type, start, end, spare);
      err = 0;
    } else if(!wait) {
      err = -EAGAIN;
    } else if(!ofd && deadlock(owner, fl->fl_owner)) {
      err = -EDEADLK;
    } else if(signal_pending(current) || thread_must_exit(current, p)) {
      err = -ERESTARTSYS;
    } else {
      w.blocker = fl->fl_owner;
      if(!ofd)
        list_add(&w.list, &lock_waiters);
      spin_unlock(&file_lock_lock);
      current->idle_wait = true;   // a lock may be held for as long as its owner likes
      schedule();
      current->idle_wait = false;
      if(!ofd) {
        spin_lock(&file_lock_lock);
        list_del(&w.list);
        spin_unlock(&file_lock_lock);
      }
      continue;
    }
    spin_unlock(&file_lock_lock);
    break;
  }
  finish_wait(&file_lock_wq, &we);
  if(!err)
    wake_up_all(&file_lock_wq);   // a release or a downgrade may let a sleeper in
out:
  for(int i = 0; i < 3; i++)
    kfree(spare[i]);
  return err;
}

long
fcntl_lock(u64 fd, u64 cmd, u64 arg)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  long r;
  if(!uf->file || !uf->file->f_inode) {
    r = -EINVAL;   // the console has no inode to hang a lock on
  } else {
    bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
    if(cmd == F_GETLK || cmd == F_OFD_GETLK)
      r = getlk(uf, ofd, arg);
    else
      r = setlk(uf, ofd, cmd == F_SETLKW || cmd == F_OFD_SETLKW, arg);
    // A close of fd while setlk slept or worked found nothing to drop: the lock just set would
    // outlive its fd (and, at exit, its owner). Drop it as the close would have (Linux's
    // fcntl_setlk does the same check).
    if(!ofd && r == 0 && cmd != F_GETLK) {
      struct ufile *now = fget((int)fd);
      if(now != uf)
        locks_remove_posix(uf, current->proc->files);
      if(now)
        fput(now);
    }
  }
  fput(uf);
  return r;
}

// Removes owner's locks on the file of uf (every POSIX lock of a closing fd's table, or an
// ending description's OFD locks), waking whoever waited for them.
static void
locks_remove(struct ufile *uf, void *owner)
{
  struct inode *inode = uf->file ? uf->file->f_inode : NULL;
  if(!inode || list_empty(&inode->i_flock))   // unlocked: who could add one raced the close
    return;
  bool any = false;
  struct file_lock *fl, *tmp;
  spin_lock(&file_lock_lock);
  list_for_each_entry_safe(fl, tmp, &inode->i_flock, fl_list)
    if(fl->fl_owner == owner) {
      list_del(&fl->fl_list);
      kfree(fl);
      any = true;
    }
  spin_unlock(&file_lock_lock);
  if(any)
    wake_up_all(&file_lock_wq);
}

void
locks_remove_posix(struct ufile *uf, struct files *owner)
{
  locks_remove(uf, owner);
}

void
locks_remove_ofd(struct ufile *uf)
{
  locks_remove(uf, uf);
}
