// The garbage collector of AF_UNIX sockets in flight (Linux's net/unix/garbage.c, unix_gc):
// frees the cycles of sockets that only each other's queued SCM_RIGHTS messages hold.
//
// unix(7): "a file descriptor passed in flight is kept open by the kernel until received", so
// socketpair(a, b), a's fd sent over b into a's own queue, then close(a) and close(b) leaves
// a's file held by a message in a's queue, which nobody can read any more: close never frees
// it. Any program could leak memory so without bound. Linux's answer, done here the same way
// (the old unix_gc of Linux 2.6 to 6.9, with its gc_candidate flags, not the 2024 graph
// rework):
//
// - Each socket counts the references of its file held by messages in flight (inflight: up
//   when unix_attach_fds gives a message the file, down when unix_detach_fds takes it back at
//   a receive or at the message's end), and is on gc_inflight_list while that is not 0. Both
//   under unix_gc_lock, a mutex, taken before any sk_lock (the collection takes queue locks
//   inside it) and never under one.
// - A collection (unix_gc) holds unix_gc_lock from its first look at a socket to the last
//   message it takes out. Candidates are the sockets in flight whose every file reference is
//   in flight (refs == inflight: no fd, no call under way, names them). A candidate's count
//   less the references found in candidates' queues (gc_count) left positive means a message
//   outside, reachable by someone, holds it: it is live, and so is everything its queue
//   holds, transitively (a listener's queue being its embryos' queues, as Linux's
//   scan_children). The rest is garbage: every message in a garbage socket's queue that holds
//   a garbage file is taken out, and those messages are freed after unix_gc_lock is dropped,
//   which releases the sockets (and their queues) as any last close does.
//
// Why no live socket can be taken (Linux's comment in unix_peek_fds says the same): the check
// refs == inflight is made once per socket, at different moments, and the file count is not
// under unix_gc_lock. It holds because a candidate cannot be put into an fd while the lock
// is held. Making a reference that is not in flight needs another one of that kind (fget of
// an fd, dup, fork, a send's fget), which a candidate had none of when checked, or one taken
// from a message: a receive takes it out of flight (unix_detach_fds) under unix_gc_lock before
// the fd is installed, and MSG_PEEK, which copies references and leaves the message in
// flight, takes and drops unix_gc_lock after copying and before installing (unix_peek_fds).
// So the first fd a candidate could gain waits for the end of the collection; before it, no
// reference of a candidate is made (the peeker's count of the queue's own socket also holds
// it out of the candidates while the call runs). A peek that took the lock before us made
// its copy before that: our lock acquire sees the raised count, and the socket is no candidate.
//
// What may still move during a collection, and why it is harmless: a candidate's queue only
// grows (nobody can receive from it: no fd; its release needs refs 0), and a message that
// joins it late carries no candidate's file unless that file was attached before we took the
// lock; such a file's reference was then in no queue when counted, so its socket's gc_count
// stays positive and it is live: a late message only makes the collection keep more. The
// counts themselves are never changed by the collection (gc_count is a copy), so nothing
// late can leave inflight wrong (Linux's restoring pass could). Queues of sockets that are
// not candidates change freely, and are never touched.
#include "fdtable.h"
#include "fs.h"
#include "mutex.h"
#include "net.h"
#include "sched.h"
#include "slab.h"

// Linux's UNIX_INFLIGHT_TRIGGER_GC: a send with files collects first past this many.
#define UNIX_INFLIGHT_TRIGGER_GC 16000

static DEFINE_MUTEX(unix_gc_lock);
static LIST_HEAD(gc_inflight_list);   // under unix_gc_lock: every sock with inflight > 0
static long unix_tot_inflight;        // under unix_gc_lock (read without it by the triggers):
                                      // the sum of the inflight counts
// Under unix_gc_lock: a collection runs (its purge is outside the lock, so the flag spans
// more than the lock). gc_owner is its thread: a release inside its own purge does not start
// another. gc_again: a release by another thread came while one ran: it runs once more.
static bool gc_in_progress, gc_again;
static struct thread *gc_owner;

// The sock of a file, or NULL when it is no socket (Linux's unix_get_socket). The file's
// socket and sock live as long as the file: the caller holds a reference of it.
static struct sock *
unix_get_socket(struct ufile *uf)
{
  if(!uf || !is_socket(uf->file))
    return NULL;
  struct socket *sock = uf->file->private_data;
  return sock->sk;
}

static bool
fp_has_socket(const struct scm_fp_list *fp)
{
  for(int i = 0; i < fp->count; i++)
    if(unix_get_socket(fp->fp[i]))
      return true;
  return false;
}

// Linux's unix_inflight for each file of a message about to be queued: the message's
// references (the sender's fgets) are counted in flight. Called with no sk_lock held.
void
unix_attach_fds(struct scm_fp_list *fp)
{
  if(!fp || !fp_has_socket(fp))
    return;   // no socket, no cycle: no lock for a pipe's fd
  mutex_lock(&unix_gc_lock);
  for(int i = 0; i < fp->count; i++) {
    struct sock *sk = unix_get_socket(fp->fp[i]);
    if(!sk)
      continue;
    if(sk->inflight++ == 0) {
      sk->gc_file = fp->fp[i];
      list_add_tail(&sk->gc_link, &gc_inflight_list);
    }
    WRITE_ONCE(unix_tot_inflight, unix_tot_inflight + 1);
  }
  fp->inflight = true;
  mutex_unlock(&unix_gc_lock);
}

// Linux's unix_notinflight: the message's references leave flight, before they are installed
// as fds or dropped (an fput before it could free a file still on gc_inflight_list). No
// sk_lock held. Idempotent: fp->inflight says whether they are counted.
void
unix_detach_fds(struct scm_fp_list *fp)
{
  if(!fp || !fp->inflight)
    return;
  mutex_lock(&unix_gc_lock);
  for(int i = 0; i < fp->count; i++) {
    struct sock *sk = unix_get_socket(fp->fp[i]);
    if(!sk)
      continue;
    if(--sk->inflight == 0) {
      list_del_init(&sk->gc_link);
      sk->gc_file = NULL;
    }
    WRITE_ONCE(unix_tot_inflight, unix_tot_inflight - 1);
  }
  fp->inflight = false;
  mutex_unlock(&unix_gc_lock);
}

// MSG_PEEK's copies (scm_fp_dup) are made, not yet installed: the lock taken and dropped puts
// this call wholly before or after any collection (see the top of the file). Pairs with
// unix_gc's mutex_lock: a collection that takes the lock after us sees the copies' counts.
void
unix_peek_fds(struct scm_fp_list *fp)
{
  if(!fp || !fp_has_socket(fp))
    return;
  mutex_lock(&unix_gc_lock);
  mutex_unlock(&unix_gc_lock);
}

// A socket a message in a collected queue names, if it is one of this collection's.
static struct sock *
gc_sock(struct ufile *uf)
{
  struct sock *sk = unix_get_socket(uf);
  return sk && sk->gc_candidate ? sk : NULL;
}

// What a pass does with the candidates a message of a candidate's queue holds: its gc_count
// less one (the subtracting pass), or marked live (the marking pass).
enum gc_pass { GC_SUBTRACT, GC_MARK, GC_TAKE };

// One queue (its sock's sk_lock held): each candidate a message names, as pass says. GC_TAKE
// moves every message that names a garbage socket to hit.
static void
scan_queue(struct sock *x, enum gc_pass pass, struct list_head *live, struct list_head *hit)
{
  struct sk_buff *skb, *n;
  list_for_each_entry_safe(skb, n, &x->sk_receive_queue, list) {
    if(!skb->fp)
      continue;
    bool garbage = false;
    for(int i = 0; i < skb->fp->count; i++) {
      struct sock *c = gc_sock(skb->fp->fp[i]);
      if(!c)
        continue;   // not a candidate: may have come after the selection (Linux's comment)
      if(pass == GC_SUBTRACT) {
        c->gc_count--;
      } else if(pass == GC_MARK && c->gc_maybe_cycle) {
        c->gc_maybe_cycle = false;
        list_move_tail(&c->gc_link, live);   // its own queue is scanned in its turn
      }
      garbage |= c->gc_maybe_cycle;
    }
    if(pass == GC_TAKE && garbage) {
      unix_unlink_skb(x, skb);
      list_add_tail(&skb->list, hit);
    }
  }
}

// A candidate's queue, and a listener's embryos' queues (Linux's scan_children): a message
// sent to a connection not yet accepted is reached through the listener. The embryo's lock
// is taken inside the listener's (subclass 1; nowhere else are two sk_locks held). A
// candidate listener cannot be accepted from (no fd), so its embryos stay.
static void
scan_children(struct sock *x, enum gc_pass pass, struct list_head *live, struct list_head *hit)
{
  mutex_lock(&x->sk_lock);
  scan_queue(x, pass, live, hit);
  struct sock *e;
  list_for_each_entry(e, &x->accept_queue, accept_link) {
    mutex_lock_nested(&e->sk_lock, 1);
    scan_queue(e, pass, live, hit);
    mutex_unlock(&e->sk_lock);
  }
  mutex_unlock(&x->sk_lock);
}

// One collection, unix_gc_lock held on entry and exit (dropped for the purge).
static void
unix_gc_once(void)
{
  LIST_HEAD(candidates);
  LIST_HEAD(live);
  LIST_HEAD(hit);
  struct sock *sk, *n;
  // Candidates: every file reference in flight. The count is read once, without its lock
  // (relaxed: no other memory is read on the strength of it); see the top of the file for
  // why a later change cannot matter. A peek before our lock shows in it (unix_peek_fds).
  list_for_each_entry_safe(sk, n, &gc_inflight_list, gc_link) {
    int refs = __atomic_load_n(&sk->gc_file->refs, __ATOMIC_RELAXED);
    if(refs != sk->inflight)
      continue;
    sk->gc_candidate = true;
    sk->gc_maybe_cycle = true;
    sk->gc_count = sk->inflight;
    list_move_tail(&sk->gc_link, &candidates);
  }
  // Take out the references candidates' queues hold: what is left is held from outside.
  list_for_each_entry(sk, &candidates, gc_link)
    scan_children(sk, GC_SUBTRACT, NULL, NULL);
  // Held from outside: live, and everything its queue holds (appended to live as found, so
  // this walk reaches them too).
  list_for_each_entry_safe(sk, n, &candidates, gc_link) {
    if(sk->gc_count > 0) {
      sk->gc_maybe_cycle = false;
      list_move_tail(&sk->gc_link, &live);
    }
  }
  list_for_each_entry(sk, &live, gc_link)
    scan_children(sk, GC_MARK, &live, NULL);
  // What is left in candidates is garbage: out of their queues go the messages that hold it.
  list_for_each_entry(sk, &candidates, gc_link)
    scan_children(sk, GC_TAKE, NULL, &hit);
  list_for_each_entry(sk, &candidates, gc_link)
    sk->gc_candidate = sk->gc_maybe_cycle = false;
  list_for_each_entry(sk, &live, gc_link)
    sk->gc_candidate = false;
  list_splice_init(&candidates, &gc_inflight_list);
  list_splice_init(&live, &gc_inflight_list);
  mutex_unlock(&unix_gc_lock);
  // Freed as any dropped message: its files leave flight and are put; the last put of a
  // garbage socket's file releases it, its queue with the rest of what it held.
  unix_purge_queue(&hit);
  mutex_lock(&unix_gc_lock);
}

// Linux's unix_gc: from a release while sockets are in flight, or a send past the trigger.
// A collection already running in another thread will run once more; one in this thread
// (its purge releasing sockets) needs no other: what it frees holds no new cycle.
void
unix_gc(void)
{
  // Only this thread ever stores its own pointer here: a stale read is another's or NULL.
  if(READ_ONCE(gc_owner) == current)
    return;
  mutex_lock(&unix_gc_lock);
  if(gc_in_progress) {
    gc_again = true;
    mutex_unlock(&unix_gc_lock);
    return;
  }
  gc_in_progress = true;
  WRITE_ONCE(gc_owner, current);
  // A bounded number of passes: one thread does not collect for ever for others' closes; a
  // flag still set is taken up by the next call.
  for(int pass = 0; pass < 8; pass++) {
    gc_again = false;
    unix_gc_once();
    if(!gc_again)
      break;
  }
  WRITE_ONCE(gc_owner, NULL);
  gc_in_progress = false;
  mutex_unlock(&unix_gc_lock);
}

// A socket's last release: collect if anything is in flight (Linux's unix_release_sock).
void
unix_gc_release(void)
{
  if(READ_ONCE(unix_tot_inflight))
    unix_gc();
}

// Linux's wait_for_unix_gc: a send with files collects first once too many are in flight, so
// that a program making cycles faster than closes collect them is bounded.
void
wait_for_unix_gc(void)
{
  if(READ_ONCE(unix_tot_inflight) > UNIX_INFLIGHT_TRIGGER_GC)
    unix_gc();
}
