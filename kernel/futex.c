// futex(2): WAIT, WAKE, WAIT_BITSET and WAKE_BITSET, with timeouts. Waiters hash by their key
// into buckets; the value is compared with the waiter queued under the bucket's lock, and a
// waker takes the same lock, so no wake-up falls between the compare and the sleep (the
// lost-wake-up rule of Drepper's "Futexes Are Tricky"; Linux's kernel/futex/waitwake.c).
// The key is Linux's get_futex_key's: a private futex (FUTEX_PRIVATE_FLAG) is (mm, address);
// a shared one in a MAP_SHARED mapping is (file, offset), so that processes that map the file,
// or share anonymous memory across fork, meet at whatever address each maps it.
#include "errno.h"
#include "fs.h"
#include "uapi/futex.h"
#include "process.h"
#include "sched.h"
#include "signal.h"
#include "spinlock.h"
#include "syscalls.h"
#include "time.h"
#include "vm.h"
#include <asm/uaccess.h>

#define FUTEX_BUCKETS      64

// What a futex is. Private: (the mm, the address). Shared: (the file's superblock, its inode
// number, the byte offset in the file): numbers that no later inode reuses (each superblock
// counts them up), so a waiter needs no reference on the inode, as Linux's i_sequence. The
// first word is a kernel object's address either way (an mm or a superblock), so the two
// kinds never compare equal.
struct futex_key {
  u64 obj, word, off;
};

struct futex_q {
  struct list_head list;      // in its bucket, under the bucket's lock
  struct thread *thread;
  struct futex_key key;
  u32 bitset;
  bool woken;                 // set by the waker under the lock, before it wakes the thread
};

struct futex_bucket {
  spinlock_t lock;
  struct list_head q;         // its waiters, oldest first (set up on first use)
};

static struct futex_bucket buckets[FUTEX_BUCKETS] = {
  [0 ... FUTEX_BUCKETS - 1] = { .lock = SPINLOCK_INIT(futex_bucket) },
};

static bool
key_eq(const struct futex_key *a, const struct futex_key *b)
{
  return a->obj == b->obj && a->word == b->word && a->off == b->off;
}

// The key of uaddr: its mapping decides, for a shared futex (Linux's get_futex_key). A shared
// futex in a private mapping (anonymous or a MAP_PRIVATE file) is keyed as a private one:
// nobody else can see that memory. (Linux keys a MAP_PRIVATE file's page that is not yet
// copied by the file; a futex there, shared with no one, is woken here by its own process
// alone.) -EFAULT when no mapping holds the address.
static int
get_futex_key(u32 *uaddr, bool shared, struct futex_key *k)
{
  struct mm *mm = current->mm;
  *k = (struct futex_key){ (u64)mm, (u64)uaddr, 0 };
  if(!shared)
    return 0;
  int err = 0;
  down_read(&mm->mmap_sem);
  struct vma *v = find_vma(mm, (u64)uaddr);
  if(!v || v->start > (u64)uaddr) {
    err = -EFAULT;
  } else if((v->flags & VM_SHARED) && v->file) {
    struct inode *inode = v->file->f_inode;
    *k = (struct futex_key){ (u64)inode->i_sb, inode->i_ino,
                             (v->pgoff << PAGE_SHIFT) + ((u64)uaddr - v->start) };
  }
  up_read(&mm->mmap_sem);
  return err;
}

static struct futex_bucket *
bucket_lock(const struct futex_key *k)
{
  u64 h = (k->word >> 2) ^ (k->obj >> 6) ^ (k->off * 0xff51afd7ed558ccdUL);
  h ^= h >> 17;
  struct futex_bucket *b = &buckets[(h * 0x9e3779b97f4a7c15UL) >> 58];
  spin_lock(&b->lock);
  if(!b->q.next)
    INIT_LIST_HEAD(&b->q);
  return b;
}

int
futex_wake(u32 *uaddr, bool shared, int nr, u32 bitset)
{
  struct futex_key k;
  int err = get_futex_key(uaddr, shared, &k);
  if(err)
    return err;
  struct futex_bucket *b = bucket_lock(&k);
  struct futex_q *q, *n;
  int woken = 0;
  list_for_each_entry_safe(q, n, &b->q, list) {
    if(woken >= nr)
      break;
    if(!key_eq(&q->key, &k) || !(q->bitset & bitset))
      continue;
    list_del_init(&q->list);
    WRITE_ONCE(q->woken, true);
    wake_up_thread(q->thread);
    woken++;
  }
  spin_unlock(&b->lock);
  return woken;
}

// deadline: ktime_ns at which to give up, 0 for never.
static long
futex_wait(u32 *uaddr, bool shared, u32 val, u64 deadline, u32 bitset)
{
  struct thread *t = current;
  struct futex_q q = { .thread = t, .bitset = bitset };
  int err = get_futex_key(uaddr, shared, &q.key);
  if(err)
    return err;
  struct futex_bucket *b;
  for(;;) {
    b = bucket_lock(&q.key);
    u32 cur;
    // Under the lock a fault cannot page in (the handler only fixes up while atomic): drop
    // it, fault the page in, compare again.
    if(get_user(cur, uaddr) == 0) {
      if(cur != val) {
        spin_unlock(&b->lock);
        return -EAGAIN;
      }
      break;
    }
    spin_unlock(&b->lock);
    if(get_user(cur, uaddr))
      return -EFAULT;
  }
  list_add_tail(&q.list, &b->q);
  set_current_state(T_SLEEPING);   // before the unlock: a waker after it finds us asleep
  t->wait_on = "futex";
  t->idle_wait = true;             // a user wait may last for ever by design
  spin_unlock(&b->lock);
  long ret = 0;
  for(;;) {
    if(READ_ONCE(q.woken))
      break;
    // A signal (or the process ending) interrupts the wait, as Linux's futex_wait: an
    // untimed wait restarts under SA_RESTART, a timed one goes on through restart_syscall
    // with the same deadline when no handler runs, else both say EINTR.
    if(signal_pending(t)) {
      ret = deadline ? -ERESTART_RESTARTBLOCK : -ERESTARTSYS;
      break;
    }
    if(deadline) {
      u64 now = ktime_ns();
      if(now >= deadline) {
        ret = -ETIMEDOUT;
        break;
      }
      schedule_timeout(deadline - now);
    } else {
      schedule();
    }
    set_current_state(T_SLEEPING);
  }
  set_current_state(T_RUNNING);
  t->wait_on = NULL;
  t->idle_wait = false;
  if(ret) {
    b = bucket_lock(&q.key);
    if(q.woken)   // woken after all, between the check and the lock: that wake counts
      ret = 0;
    else
      list_del(&q.list);
    spin_unlock(&b->lock);
  }
  return ret;
}

static long
futex_wait_restart(struct restart_block *r)
{
  return do_futex((u32 *)r->arg[0], (int)r->arg[1], (u32)r->arg[2], r->arg[3], NULL,
                  (u32)r->arg[4]);
}

static long
wait_restartable(long ret, u32 *uaddr, int op, u32 val, u64 deadline, u32 val3)
{
  if(ret == -ERESTART_RESTARTBLOCK) {
    struct restart_block *r = &current->sig->restart;
    r->fn = futex_wait_restart;
    r->arg[0] = (u64)uaddr, r->arg[1] = op, r->arg[2] = val, r->arg[3] = deadline;
    r->arg[4] = val3;
  }
  return ret;
}

long
do_futex(u32 *uaddr, int op, u32 val, u64 deadline, u32 *uaddr2, u32 val3)
{
  int cmd = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
  bool shared = !(op & FUTEX_PRIVATE_FLAG);
  if((u64)uaddr % 4)
    return -EINVAL;
  switch(cmd) {
  case FUTEX_WAIT:
    return wait_restartable(futex_wait(uaddr, shared, val, deadline, ~0u), uaddr, op, val,
                            deadline, val3);
  case FUTEX_WAIT_BITSET:
    if(!val3)
      return -EINVAL;
    return wait_restartable(futex_wait(uaddr, shared, val, deadline, val3), uaddr, op, val,
                            deadline, val3);
  case FUTEX_WAKE:
    return futex_wake(uaddr, shared, (int)val, ~0u);
  case FUTEX_WAKE_BITSET:
    return val3 ? futex_wake(uaddr, shared, (int)val, val3) : -EINVAL;
  default:
    return -ENOSYS;
  }
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
    u64 now = ktime_ns(), wall = realtime_ns_at(now);
    if(cmd == FUTEX_WAIT)
      deadline = now + ns;
    else if(op & FUTEX_CLOCK_REALTIME)
      deadline = ns > wall ? now + (ns - wall) : 1;
    else
      deadline = ns ? ns : 1;
  }
  return do_futex((u32 *)uaddr, (int)op, (u32)val, deadline, (u32 *)uaddr2, (u32)val3);
}

// Remembered by glibc, used by the kernel only for robust mutexes of a dying thread: accepted.
long
sys_set_robust_list(u64 head, u64 len)
{
  return len == 24 ? 0 : -EINVAL;
}
