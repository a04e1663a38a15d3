// epoll (man 7 epoll): a set of files to watch, kept in the kernel. Each watched file's wait
// queues get a watcher entry (wait.h's func) that puts the item on the set's ready list at
// every wake-up; epoll_wait reports the ready items after asking each file again, level- or
// edge-triggered, or once (Linux's fs/eventpoll.c: ep_poll_callback, ep_send_events).
#include "errno.h"
#include "eventpoll.h"
#include "fdtable.h"
#include "fs.h"
#include "mutex.h"
#include "poll.h"
#include "process.h"
#include "signal.h"
#include "slab.h"
#include "syscalls.h"
#include "time.h"
#include <asm/uaccess.h>
#include "uapi/eventpoll.h"
#include "vsprintf.h"

// The bits that say how an item reports, not what (Linux's EP_PRIVATE_BITS); an item whose
// events hold nothing else is a one-shot already reported, disabled until EPOLL_CTL_MOD.
#define EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
// What EPOLLEXCLUSIVE may come with (Linux's EPOLLEXCLUSIVE_OK_BITS).
#define EPOLLEXCLUSIVE_OK_BITS (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | \
                                EPOLLET | EPOLLEXCLUSIVE)
#define EP_MAX_EVENTS (0x7fffffff / sizeof(struct epoll_event))

struct eventpoll {
  struct mutex mtx;            // items, and each item's events and data: epoll_ctl, the
                               // transfer of epoll_wait, the release of the set or of a file
  spinlock_t lock;             // rdllist and every item's rdlink (the watchers take it, from
                               // any wake-up, interrupts off)
  struct list_head rdllist;    // items a wake-up or a look found ready, not yet reported
  struct list_head items;      // every item; under mtx
  struct wait_queue_head wq;   // epoll_wait's sleepers, and poll's of the epoll fd itself
};

// One wait queue an item's file registered from its poll operation, and the item's watcher
// on it (Linux's eppoll_entry).
struct eppoll_entry {
  struct list_head link;           // in its item's pwqlist
  struct wait_queue_entry wait;    // on whead; func is ep_poll_callback
  struct wait_queue_head *whead;
  struct epitem *epi;
};

// A watched file: the open file description and the fd it was added as (Linux's
// epoll_filefd), what to report and the user's data.
struct epitem {
  struct list_head link;       // in ep->items, under ep->mtx
  struct list_head rdlink;     // in ep->rdllist or a transfer's list, or empty; under ep->lock
  struct list_head fllink;     // in uf->f_ep, under f_ep_lock
  struct list_head pwqlist;    // its eppoll_entries; under ep->mtx
  struct eventpoll *ep;
  struct ufile *uf;            // no reference: the description's last put removes the item
  int fd;
  u32 events;                  // written under ep->mtx; the watchers read it (READ_ONCE)
  u64 data;
};

// Every description's f_ep list. epmutex orders the two ways an item goes without epoll_ctl:
// its set's release and its file's (Linux's epmutex); each takes the set's mtx after it.
static DEFINE_SPINLOCK(f_ep_lock);
static DEFINE_MUTEX(epmutex);

// anon_inodefs: the superblock of every epoll fd's inode (st_mode 0600 and no type, as
// Linux's anonymous inode); never mounted, so its inodes are freed at once.
static struct super_block anon_sb = { .s_free = FREE_NOW };

static const struct file_operations eventpoll_fops;

static struct eventpoll *
ep_of(struct ufile *uf)
{
  return uf->file && uf->file->f_op == &eventpoll_fops ? uf->file->private_data : NULL;
}

// Puts epi on the ready list unless it is on one already, and wakes the set's sleepers.
static void
ep_ready(struct eventpoll *ep, struct epitem *epi)
{
  u64 flags;
  spin_lock_irqsave(&ep->lock, flags);
  bool add = list_empty(&epi->rdlink);
  if(add)
    list_add_tail(&epi->rdlink, &ep->rdllist);
  spin_unlock_irqrestore(&ep->lock, flags);
  if(add)
    wake_up_all(&ep->wq);
}

// A watched queue was woken (under its lock, interrupts off): the item may be ready. Which
// events, epoll_wait asks the file itself; a wake-up for another (a pipe's writers, say) costs
// a look and no report.
static void
ep_poll_callback(struct wait_queue_entry *wait)
{
  struct epitem *epi = container_of(wait, struct eppoll_entry, wait)->epi;
  if(READ_ONCE(epi->events) & ~EP_PRIVATE_BITS)
    ep_ready(epi->ep, epi);
}

// ep_insert's poll table: each queue the file's poll operation names gets a watcher.
struct ep_pqueue {
  struct poll_table pt;
  struct epitem *epi;
};

static void
ep_ptable_queue_proc(struct file *f, struct wait_queue_head *whead, struct poll_table *pt)
{
  (void)f;
  struct epitem *epi = container_of(pt, struct ep_pqueue, pt)->epi;
  struct eppoll_entry *pwq = kmalloc(sizeof(*pwq), GFP_KERNEL);
  if(!pwq) {
    pt->error = -ENOMEM;
    return;
  }
  pwq->wait = (struct wait_queue_entry){ NULL, LIST_HEAD_INIT(pwq->wait.entry), ep_poll_callback };
  pwq->whead = whead;
  pwq->epi = epi;
  list_add_tail(&pwq->link, &epi->pwqlist);
  add_wait_queue_watcher(whead, &pwq->wait);
}

// Takes the item out of everything and frees it. Its watchers go first, each under its
// queue's lock, so no wake-up is inside ep_poll_callback for it afterwards. Under ep->mtx.
static void
ep_remove(struct eventpoll *ep, struct epitem *epi)
{
  struct eppoll_entry *pwq, *n;
  list_for_each_entry_safe(pwq, n, &epi->pwqlist, link) {
    u64 flags;
    spin_lock_irqsave(&pwq->whead->lock, flags);
    list_del_init(&pwq->wait.entry);
    spin_unlock_irqrestore(&pwq->whead->lock, flags);
    kfree(pwq);
  }
  list_del(&epi->link);
  spin_lock(&f_ep_lock);
  list_del(&epi->fllink);
  spin_unlock(&f_ep_lock);
  u64 flags;
  spin_lock_irqsave(&ep->lock, flags);
  if(!list_empty(&epi->rdlink))
    list_del(&epi->rdlink);
  spin_unlock_irqrestore(&ep->lock, flags);
  kfree(epi);
}

static struct epitem *
ep_find(struct eventpoll *ep, struct ufile *uf, int fd)
{
  struct epitem *epi;
  list_for_each_entry(epi, &ep->items, link)
    if(epi->uf == uf && epi->fd == fd)
      return epi;
  return NULL;
}

// EPOLL_CTL_ADD: the item, its watchers (the file's poll operation names the queues), and a
// first look. Under ep->mtx.
static int
ep_insert(struct eventpoll *ep, const struct epoll_event *ev, struct ufile *uf, int fd)
{
  struct epitem *epi = kzalloc(sizeof(*epi), GFP_KERNEL);
  if(!epi)
    return -ENOMEM;
  INIT_LIST_HEAD(&epi->rdlink);
  INIT_LIST_HEAD(&epi->pwqlist);
  epi->ep = ep;
  epi->uf = uf;
  epi->fd = fd;
  epi->events = ev->events;
  epi->data = ev->data;
  list_add_tail(&epi->link, &ep->items);
  spin_lock(&f_ep_lock);
  list_add_tail(&epi->fllink, &uf->f_ep);
  spin_unlock(&f_ep_lock);
  struct ep_pqueue epq = { .epi = epi };
  poll_initwait(&epq.pt);
  epq.pt.qproc = ep_ptable_queue_proc;
  unsigned revents = vfs_poll(uf, &epq.pt);
  if(epq.pt.error) {
    ep_remove(ep, epi);
    return epq.pt.error;
  }
  if(revents & ev->events)
    ep_ready(ep, epi);
  return 0;
}

// EPOLL_CTL_MOD: new events and data, and a look with them. Under ep->mtx.
static void
ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_event *ev)
{
  WRITE_ONCE(epi->events, ev->events);
  epi->data = ev->data;
  if(vfs_poll(epi->uf, NULL) & ev->events)
    ep_ready(ep, epi);
}

long
sys_epoll_ctl(u64 epfd, u64 op, u64 fd, u64 uevent)
{
  struct epoll_event ev = { 0 };
  if(op != EPOLL_CTL_DEL && copy_from_user(&ev, (const void *)uevent, sizeof(ev)))
    return -EFAULT;
  struct ufile *euf = fget((int)epfd);
  if(!euf)
    return -EBADF;
  struct ufile *tuf = fget((int)fd);
  long err = -EBADF;
  if(!tuf)
    goto out;
  struct eventpoll *ep = ep_of(euf);
  // Linux's order: a file with no poll operation (a regular file, a directory) is EPERM;
  // a set added to itself or to no set, EINVAL. A set inside another, which Linux allows (to
  // a depth of 4, with a check for loops), is EINVAL here.
  err = -EPERM;
  if(!file_can_poll(tuf))
    goto out;
  err = -EINVAL;
  if(!ep || tuf == euf || ep_of(tuf))
    goto out;
  if((ev.events & EPOLLEXCLUSIVE) &&
     (op == EPOLL_CTL_MOD || (op == EPOLL_CTL_ADD && (ev.events & ~EPOLLEXCLUSIVE_OK_BITS))))
    goto out;
  mutex_lock(&ep->mtx);
  struct epitem *epi = ep_find(ep, tuf, (int)fd);
  ev.events |= EPOLLERR | EPOLLHUP;   // always reported (epoll_ctl(2))
  switch(op) {
  case EPOLL_CTL_ADD:
    err = epi ? -EEXIST : ep_insert(ep, &ev, tuf, (int)fd);
    break;
  case EPOLL_CTL_DEL:
    err = -ENOENT;
    if(epi) {
      ep_remove(ep, epi);
      err = 0;
    }
    break;
  case EPOLL_CTL_MOD:
    err = !epi ? -ENOENT : (epi->events & EPOLLEXCLUSIVE) ? -EINVAL : 0;
    if(!err)
      ep_modify(ep, epi, &ev);
    break;
  default:
    err = -EINVAL;
  }
  mutex_unlock(&ep->mtx);
out:
  if(tuf)
    fput(tuf);
  fput(euf);
  return err;
}

// The ready items to user memory, at most max: each file asked again, level-triggered items
// put back on the list for the next call, one-shot items disabled. An item is off every list
// while its file is asked, so a wake-up meanwhile queues it again rather than being lost.
// The count, or -EFAULT when not even the first could be stored.
static int
ep_send_events(struct eventpoll *ep, struct epoll_event *uevents, int max)
{
  LIST_HEAD(txlist);
  u64 flags;
  int n = 0;
  mutex_lock(&ep->mtx);
  spin_lock_irqsave(&ep->lock, flags);
  list_splice_init(&ep->rdllist, &txlist);
  spin_unlock_irqrestore(&ep->lock, flags);
  while(n < max) {
    spin_lock_irqsave(&ep->lock, flags);
    struct epitem *epi = list_first_entry_or_null(&txlist, struct epitem, rdlink);
    if(epi)
      list_del_init(&epi->rdlink);
    spin_unlock_irqrestore(&ep->lock, flags);
    if(!epi)
      break;
    struct epoll_event ev = { vfs_poll(epi->uf, NULL) & epi->events, epi->data };
    if(!ev.events)
      continue;
    if(copy_to_user(&uevents[n], &ev, sizeof(ev))) {
      spin_lock_irqsave(&ep->lock, flags);
      if(list_empty(&epi->rdlink))
        list_add(&epi->rdlink, &txlist);
      spin_unlock_irqrestore(&ep->lock, flags);
      if(!n)
        n = -EFAULT;
      break;
    }
    n++;
    if(epi->events & EPOLLONESHOT)
      WRITE_ONCE(epi->events, epi->events & EP_PRIVATE_BITS);
    else if(!(epi->events & EPOLLET))
      ep_ready(ep, epi);
  }
  spin_lock_irqsave(&ep->lock, flags);
  list_splice(&txlist, &ep->rdllist);   // not reached: first next time
  spin_unlock_irqrestore(&ep->lock, flags);
  mutex_unlock(&ep->mtx);
  return n;
}

static bool
ep_events_available(struct eventpoll *ep)
{
  return !list_empty_careful(&ep->rdllist);
}

// epoll_wait's loop (Linux's ep_poll): report what is ready, else sleep until a watcher
// queues an item, the deadline (ktime ns; 0 asks once) or a signal (EINTR: never restarted,
// epoll_wait(2)).
static long
ep_poll(struct eventpoll *ep, struct epoll_event *uevents, int max, u64 deadline)
{
  struct thread *t = current;
  struct wait_queue_entry we = { t, LIST_HEAD_INIT(we.entry), NULL };
  for(;;) {
    if(ep_events_available(ep)) {
      int n = ep_send_events(ep, uevents, max);
      if(n)
        return n;
    }
    if(!deadline)
      return 0;
    prepare_to_wait(&ep->wq, &we, T_SLEEPING);   // before the look: a wake-up after it counts
    u64 now = ktime_ns();
    bool ready = ep_events_available(ep);
    long r = 1;   // look again
    if(!ready && signal_pending(t))
      r = -EINTR;
    else if(!ready && deadline != FOREVER && now >= deadline)
      r = 0;
    else if(!ready) {
      t->idle_wait = true;   // a user wait may last for ever by design
      if(deadline == FOREVER)
        schedule();
      else
        schedule_timeout(deadline - now);
      t->idle_wait = false;
    }
    finish_wait(&ep->wq, &we);
    if(r <= 0)
      return r;
  }
}

static long
do_epoll_wait(u64 epfd, u64 uevents, u64 maxevents, u64 timeout)
{
  int max = (int)maxevents, ms = (int)timeout;
  if(max <= 0 || (u64)max > EP_MAX_EVENTS)
    return -EINVAL;
  if(!access_ok((void *)uevents, (size_t)max * sizeof(struct epoll_event)))
    return -EFAULT;
  struct ufile *uf = fget((int)epfd);
  if(!uf)
    return -EBADF;
  struct eventpoll *ep = ep_of(uf);
  u64 deadline = ms < 0 ? FOREVER : ms == 0 ? 0 : ktime_ns() + (u64)ms * 1000000;
  long r = ep ? ep_poll(ep, (struct epoll_event *)uevents, max, deadline) : -EINVAL;
  fput(uf);
  return r;
}

long
sys_epoll_wait(u64 epfd, u64 uevents, u64 maxevents, u64 timeout)
{
  return do_epoll_wait(epfd, uevents, maxevents, timeout);
}

// The mask is the call's while it waits, as ppoll's (kernel/sys_signal.c).
long
sys_epoll_pwait(u64 epfd, u64 uevents, u64 maxevents, u64 timeout, u64 umask, u64 size)
{
  long r = set_user_sigmask(umask, size);
  if(r)
    return r;
  r = do_epoll_wait(epfd, uevents, maxevents, timeout);
  restore_sigmask_unless(r == -EINTR);
  return r;
}

// poll(2) of an epoll fd: readable while an item is on the ready list.
static unsigned
ep_eventpoll_poll(struct file *f, struct poll_table *pt)
{
  struct eventpoll *ep = f->private_data;
  poll_wait(f, &ep->wq, pt);
  return ep_events_available(ep) ? POLLIN | POLLRDNORM : 0;
}

// The set's last close: every item goes (their files stay open).
static void
ep_eventpoll_release(struct file *f)
{
  struct eventpoll *ep = f->private_data;
  mutex_lock(&epmutex);
  mutex_lock(&ep->mtx);
  while(!list_empty(&ep->items))
    ep_remove(ep, list_first_entry(&ep->items, struct epitem, link));
  mutex_unlock(&ep->mtx);
  mutex_unlock(&epmutex);
  iput(f->f_inode);
  kfree(ep);
}

// An anonymous inode's name, as Linux's anon_inode_getfile("[eventpoll]") gives it.
static int
ep_dname(struct file *f, char *buf, size_t len)
{
  return scnprintf(buf, len, "anon_inode:[eventpoll]");
}

static const struct file_operations eventpoll_fops = {
  .dname = ep_dname,
  .poll = ep_eventpoll_poll,
  .release = ep_eventpoll_release,
};

void
eventpoll_release(struct ufile *uf)
{
  // Nobody can add an item for uf now: epoll_ctl holds a reference, and this is the last.
  if(list_empty(&uf->f_ep))
    return;
  mutex_lock(&epmutex);
  for(;;) {
    spin_lock(&f_ep_lock);
    struct epitem *epi = list_first_entry_or_null(&uf->f_ep, struct epitem, fllink);
    spin_unlock(&f_ep_lock);
    if(!epi)
      break;
    struct eventpoll *ep = epi->ep;
    mutex_lock(&ep->mtx);
    ep_remove(ep, epi);
    mutex_unlock(&ep->mtx);
  }
  mutex_unlock(&epmutex);
}

static long
do_epoll_create(u64 flags)
{
  if(flags & ~(u64)EPOLL_CLOEXEC)
    return -EINVAL;
  struct eventpoll *ep = kzalloc(sizeof(*ep), GFP_KERNEL);
  struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);
  struct inode *inode = new_inode(&anon_sb, 0600);
  if(inode)
    inode->i_nlink = 0;   // no name: the release's iput frees it
  if(!ep || !f || !inode) {
    iput(inode);
    kfree(ep);
    kfree(f);
    return -ENOMEM;
  }
  mutex_init(&ep->mtx);
  spin_lock_init(&ep->lock);
  INIT_LIST_HEAD(&ep->rdllist);
  INIT_LIST_HEAD(&ep->items);
  init_waitqueue_head(&ep->wq);
  f->f_count = 1;
  f->f_inode = inode;
  f->f_op = &eventpoll_fops;
  f->private_data = ep;
  struct ufile *uf = ufile_alloc(f, O_RDWR);
  if(!uf) {
    vfs_close(f);
    return -ENOMEM;
  }
  int fd = fd_install(uf, 0, flags & EPOLL_CLOEXEC);
  if(fd < 0)
    fput(uf);
  return fd;
}

// epoll_create's size only has to be positive (epoll_create(2): ignored since 2.6.8).
long
sys_epoll_create(u64 size)
{
  return (int)size <= 0 ? -EINVAL : do_epoll_create(0);
}

long
sys_epoll_create1(u64 flags)
{
  return do_epoll_create(flags);
}
