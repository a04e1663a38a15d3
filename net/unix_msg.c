// AF_UNIX's messages (man 7 unix): a stream's bytes, a datagram's or seqpacket's records,
// each queued whole at the receiver as an skb with the files SCM_RIGHTS passes. Linux's
// unix_stream_sendmsg, unix_dgram_sendmsg and their recvmsg, with the errnos and signals
// measured on the host: EPIPE and SIGPIPE to a stream whose peer is gone, ECONNREFUSED to a
// datagram peer that closed, EMSGSIZE past the buffer, MSG_TRUNC of a record.
#include "errno.h"
#include "fdtable.h"
#include "net.h"
#include "process.h"
#include "signal.h"
#include "slab.h"
#include "string.h"

static struct sk_buff *
alloc_skb(size_t len)
{
  struct sk_buff *skb = kmalloc(sizeof(*skb) + len, GFP_KERNEL);
  if(skb) {
    memset(skb, 0, sizeof(*skb));
    INIT_LIST_HEAD(&skb->list);
    skb->len = (u32)len;
    skb->truesize = (u32)(len + SKB_OVERHEAD);
  }
  return skb;
}

// A message of len bytes from the user's vector, from sk (not yet queued): NULL with *err
// (-ENOMEM, -EFAULT).
static struct sk_buff *
unix_skb_from_iter(struct sock *sk, struct iov_iter *it, size_t len, long *err)
{
  struct sk_buff *skb = alloc_skb(len);
  if(!skb) {
    *err = -ENOMEM;
    return NULL;
  }
  if(copy_from_iter(skb->data, len, it) != len) {
    kfree(skb);
    *err = -EFAULT;
    return NULL;
  }
  skb->sk = sock_hold(sk);
  skb->addr = __atomic_load_n(&sk->addr, __ATOMIC_ACQUIRE);
  if(skb->addr)
    __atomic_add_fetch(&skb->addr->refcnt, 1, __ATOMIC_RELAXED);
  return skb;
}

// A message read whole or dropped: its sender learns of the room (writers and pollers).
static void
kfree_skb(struct sk_buff *skb)
{
  if(skb->sk) {
    wake_up_all(&skb->sk->sk_wq);
    sock_put(skb->sk);
  }
  unix_address_put(skb->addr);
  if(skb->fp)
    scm_destroy(skb->fp);
  kfree(skb);
}

void
unix_purge_queue(struct list_head *queue)
{
  while(!list_empty(queue)) {
    struct sk_buff *skb = list_first_entry(queue, struct sk_buff, list);
    list_del(&skb->list);
    kfree_skb(skb);
  }
}

// Onto other's queue: sk_lock of other held.
static void
unix_queue_skb(struct sock *other, struct sk_buff *skb)
{
  list_add_tail(&skb->list, &other->sk_receive_queue);
  WRITE_ONCE(other->rcv_charge, other->rcv_charge + skb->truesize);
  WRITE_ONCE(other->rcv_qlen, other->rcv_qlen + 1);
}

// Off sk's queue (sk_lock held): room for writers that wait on it.
void
unix_unlink_skb(struct sock *sk, struct sk_buff *skb)
{
  list_del_init(&skb->list);
  WRITE_ONCE(sk->rcv_charge, sk->rcv_charge - skb->truesize);
  WRITE_ONCE(sk->rcv_qlen, sk->rcv_qlen - 1);
}

struct room_wait {
  struct sock *sk;   // the writer
};

// A writer waiting at other (its sk_lock dropped) goes on when there is room, or when other
// is gone or shut for reading (the send then fails).
static bool
room_or_gone(struct sock *other, void *arg)
{
  struct room_wait *w = arg;
  return unix_may_queue(w->sk, other) || READ_ONCE(other->dead) ||
         (READ_ONCE(other->sk_shutdown) & RCV_SHUTDOWN);
}

static void
send_sigpipe(unsigned flags)
{
  if(!(flags & MSG_NOSIGNAL))
    send_signal_thread(current, SIGPIPE);
}

// Stream and seqpacket sends: the bytes in messages of at most UNIX_SKB_MAX (a seqpacket's
// record whole, EMSGSIZE past the buffer), the files with the first. Waits for room unless
// nonblocking (then what went, or EAGAIN); a peer gone or shut for reading is EPIPE with
// SIGPIPE (not with MSG_NOSIGNAL), after what went.
static long
unix_stream_sendmsg(struct socket *sock, struct msghdr *msg, unsigned flags)
{
  struct sock *sk = sock->sk, *other;
  size_t len = msg->msg_iter.count, sent = 0;
  long err = 0;
  if(flags & MSG_OOB)
    return -EOPNOTSUPP;
  mutex_lock(&sk->sk_lock);
  other = sk->peer ? sock_hold(sk->peer) : NULL;
  u8 state = sk->sk_state, shut = sk->sk_shutdown;
  mutex_unlock(&sk->sk_lock);
  if(msg->msg_name) {
    err = state == TCP_ESTABLISHED ? -EISCONN : -EOPNOTSUPP;
    goto out;
  }
  if(!other) {
    err = -ENOTCONN;
    goto out;
  }
  if(shut & SEND_SHUTDOWN) {
    err = -EPIPE;
    send_sigpipe(flags);
    goto out;
  }
  bool seqpacket = sock->type == SOCK_SEQPACKET;
  if(!len && !seqpacket)
    goto out;   // a stream's empty write queues nothing (its files are dropped, as Linux's)
  if(seqpacket && len > UNIX_BUF_DEFAULT - 32) {
    err = -EMSGSIZE;
    goto out;
  }
  struct room_wait w = { sk };
  do {
    size_t n = seqpacket ? len : MIN(len - sent, (size_t)UNIX_SKB_MAX);
    struct sk_buff *skb = unix_skb_from_iter(sk, &msg->msg_iter, n, &err);
    if(!skb)
      break;
    skb->fp = msg->fp;   // the files go with the first message
    msg->fp = NULL;
    unix_attach_fds(skb->fp);   // in flight from before the queue (net/garbage.c)
    mutex_lock(&other->sk_lock);
    for(;;) {
      if(other->dead || (other->sk_shutdown & RCV_SHUTDOWN)) {
        err = -EPIPE;
        break;
      }
      if(unix_may_queue(sk, other))
        break;
      err = -EAGAIN;
      if((flags & MSG_DONTWAIT) ||
         (err = unix_wait(other, &other->peer_wait, room_or_gone, &w)))
        break;
    }
    if(!err)
      unix_queue_skb(other, skb);
    mutex_unlock(&other->sk_lock);
    if(err) {
      msg->fp = skb->fp;   // not sent: dropped with the message's below
      skb->fp = NULL;
      sock_put(skb->sk);
      skb->sk = NULL;
      kfree_skb(skb);
      if(err == -EPIPE && !sent)
        send_sigpipe(flags);
      break;
    }
    wake_up_all(&other->sk_wq);
    sent += n;
  } while(sent < len);
out:
  if(other)
    sock_put(other);
  return sent ? (long)sent : err;
}

// Datagram sends: to msg_name, or the connected peer (ENOTCONN without one). One message
// whole, waiting for room unless nonblocking (EAGAIN); a receiver connected elsewhere is
// EPERM, one closed ECONNREFUSED (and a connected peer's close disconnects this socket, as
// Linux: the next send is ENOTCONN).
static long
unix_dgram_sendmsg(struct socket *sock, struct msghdr *msg, unsigned flags)
{
  struct sock *sk = sock->sk, *other = NULL;
  size_t len = msg->msg_iter.count;
  long err;
  if(flags & MSG_OOB)
    return -EOPNOTSUPP;
  if(len > UNIX_BUF_DEFAULT - 32)
    return -EMSGSIZE;   // Linux: past sk_sndbuf - 32
  if(msg->msg_name) {
    if((err = unix_find_other(msg->msg_name, msg->msg_namelen, SOCK_DGRAM, &other)))
      return err;
  } else {
    mutex_lock(&sk->sk_lock);
    if(sk->peer)
      other = sock_hold(sk->peer);
    mutex_unlock(&sk->sk_lock);
    if(!other)
      return -ENOTCONN;
  }
  if(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) {
    err = -EPIPE;
    goto out;
  }
  if(sk->passcred && (err = unix_autobind(sk)))
    goto out;
  struct sk_buff *skb = unix_skb_from_iter(sk, &msg->msg_iter, len, &err);
  if(!skb)
    goto out;
  skb->fp = msg->fp;
  msg->fp = NULL;
  unix_attach_fds(skb->fp);
  struct room_wait w = { sk };
  mutex_lock(&other->sk_lock);
  for(;;) {
    err = -ECONNREFUSED;
    if(other->dead)
      break;
    err = -EPERM;
    if(other->peer && other->peer != sk)
      break;
    err = -EPIPE;
    if(other->sk_shutdown & RCV_SHUTDOWN)
      break;
    err = 0;
    if(unix_may_queue(sk, other))
      break;
    err = -EAGAIN;
    if((flags & MSG_DONTWAIT) || (err = unix_wait(other, &other->peer_wait, room_or_gone, &w)))
      break;
  }
  if(!err)
    unix_queue_skb(other, skb);
  mutex_unlock(&other->sk_lock);
  if(err) {
    kfree_skb(skb);
    if(err == -ECONNREFUSED) {   // the peer closed: no longer connected to it
      struct sock *old = NULL;
      mutex_lock(&sk->sk_lock);
      if(sk->peer == other) {
        old = other;
        sk->peer = NULL;
        sk->sk_state = TCP_CLOSE;
      }
      mutex_unlock(&sk->sk_lock);
      if(old)
        sock_put(old);
    }
  } else {
    wake_up_all(&other->sk_wq);
    err = (long)len;
  }
out:
  sock_put(other);
  return err;
}

long
unix_sendmsg(struct socket *sock, struct msghdr *msg, unsigned flags)
{
  if(msg->fp)
    wait_for_unix_gc();
  if(sock->type == SOCK_DGRAM)
    return unix_dgram_sendmsg(sock, msg, flags);
  return unix_stream_sendmsg(sock, msg, flags);
}

static bool
readable(struct sock *sk, void *arg)
{
  return !list_empty(&sk->sk_receive_queue) || READ_ONCE(sk->sk_err) ||
         (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}

// What a receive waits for, in Linux's order: a message; the pending error (returned once);
// the read side shut (end of file: 0); else EAGAIN or a wait. 1: a message is there.
static long
wait_for_message(struct sock *sk, unsigned flags)
{
  for(;;) {
    if(!list_empty(&sk->sk_receive_queue))
      return 1;
    if(sk->sk_err) {
      long err = -sk->sk_err;
      sk->sk_err = 0;
      return err;
    }
    if(sk->sk_shutdown & RCV_SHUTDOWN)
      return 0;
    if(flags & MSG_DONTWAIT)
      return -EAGAIN;
    long err = unix_wait(sk, &sk->sk_wq, readable, NULL);
    if(err)
      return err;
  }
}

static void
name_from_skb(struct msghdr *msg, struct sk_buff *skb)
{
  if(!msg->msg_name)
    return;
  msg->msg_namelen = 0;   // an unbound sender has no name: Linux gives length 0 (measured)
  if(skb->addr) {
    msg->msg_namelen = skb->addr->len;
    memcpy(msg->msg_name, &skb->addr->name, (size_t)MIN(skb->addr->len, (int)sizeof(struct sockaddr_un)));
  }
}

// Datagram and seqpacket receives: one record, cut to len (MSG_TRUNC in msg_flags; with
// MSG_TRUNC in flags the record's whole length is returned); MSG_PEEK leaves it queued (its
// files given as new fds all the same, as Linux's scm_fp_dup).
static long
unix_dgram_recvmsg(struct socket *sock, struct msghdr *msg, size_t len, unsigned flags)
{
  struct sock *sk = sock->sk;
  mutex_lock(&sk->sk_lock);
  long r = wait_for_message(sk, flags);
  if(r <= 0) {
    mutex_unlock(&sk->sk_lock);
    return r;
  }
  struct sk_buff *skb = list_first_entry(&sk->sk_receive_queue, struct sk_buff, list);
  size_t n = MIN(len, (size_t)skb->len), full = skb->len;
  if(skb->len > len)
    msg->msg_flags |= MSG_TRUNC;
  name_from_skb(msg, skb);
  if(flags & MSG_PEEK) {
    size_t c = copy_to_iter(skb->data, n, &msg->msg_iter);
    if(skb->fp && !(msg->fp = scm_fp_dup(skb->fp)))
      msg->msg_flags |= MSG_CTRUNC;
    mutex_unlock(&sk->sk_lock);
    if(c < n)
      return -EFAULT;
  } else {
    unix_unlink_skb(sk, skb);
    mutex_unlock(&sk->sk_lock);
    wake_up_all(&sk->peer_wait);
    size_t c = copy_to_iter(skb->data, n, &msg->msg_iter);
    msg->fp = skb->fp;   // the message is gone: its files are the caller's to give
    skb->fp = NULL;
    kfree_skb(skb);
    if(c < n)
      return -EFAULT;
  }
  return (flags & MSG_TRUNC) ? (long)full : (long)n;
}

// Stream receives: bytes from as many messages as len takes (MSG_WAITALL: waiting until len
// came, the end of file, an error or a signal), never across a message with files once
// bytes were read, nor past one (its files are this read's). MSG_PEEK copies and leaves them.
static long
unix_stream_recvmsg(struct socket *sock, struct msghdr *msg, size_t len, unsigned flags)
{
  struct sock *sk = sock->sk;
  size_t copied = 0, target = (flags & MSG_WAITALL) ? len : 1;
  long err = 0;
  LIST_HEAD(done);
  mutex_lock(&sk->sk_lock);
  if(sk->sk_state != TCP_ESTABLISHED) {
    mutex_unlock(&sk->sk_lock);
    return -EINVAL;   // Linux's answer for a listener or an unconnected stream
  }
  struct sk_buff *skb = NULL;
  while(copied < len) {
    // The next message: after the one just peeked, or the queue's first.
    struct sk_buff *next = NULL;
    if(!skb)
      next = list_first_entry_or_null(&sk->sk_receive_queue, struct sk_buff, list);
    else if(skb->list.next != &sk->sk_receive_queue)
      next = list_entry(skb->list.next, struct sk_buff, list);
    if(!next) {
      if(copied >= target)
        break;
      if(copied && (flags & MSG_PEEK))
        break;   // peeked to the end of what is there: a wait could lose its place
      long r = wait_for_message(sk, flags);
      if(r <= 0) {
        err = r;
        break;
      }
      continue;
    }
    if(next->fp && copied)
      break;
    skb = next;
    size_t avail = skb->len - skb->consumed;
    size_t n = MIN(avail, len - copied);
    size_t c = copy_to_iter(skb->data + skb->consumed, n, &msg->msg_iter);
    if(!copied)
      name_from_skb(msg, skb);
    copied += c;
    if(c < n) {
      if(!copied)
        err = -EFAULT;
      break;
    }
    bool had_fp = skb->fp != NULL;
    if(flags & MSG_PEEK) {
      if(had_fp && !(msg->fp = scm_fp_dup(skb->fp)))
        msg->msg_flags |= MSG_CTRUNC;
    } else {
      skb->consumed += (u32)n;
      msg->fp = skb->fp;
      skb->fp = NULL;
      if(skb->consumed == skb->len) {
        unix_unlink_skb(sk, skb);
        list_add_tail(&skb->list, &done);
      }
      skb = NULL;
    }
    if(had_fp)
      break;
  }
  mutex_unlock(&sk->sk_lock);
  if(!list_empty(&done)) {
    wake_up_all(&sk->peer_wait);
    unix_purge_queue(&done);
  }
  return copied ? (long)copied : err;
}

long
unix_recvmsg(struct socket *sock, struct msghdr *msg, size_t len, unsigned flags)
{
  long r;
  if(flags & MSG_OOB)
    return -EOPNOTSUPP;
  if(sock->type == SOCK_STREAM)
    r = unix_stream_recvmsg(sock, msg, len, flags);
  else if(sock->type == SOCK_SEQPACKET && READ_ONCE(sock->sk->sk_state) != TCP_ESTABLISHED)
    return -ENOTCONN;
  else
    r = unix_dgram_recvmsg(sock, msg, len, flags);
  // Files taken from a message leave flight, and a peek's copies wait out a collection,
  // before the caller installs any as an fd (net/garbage.c says why).
  if(msg->fp) {
    if(msg->fp->inflight)
      unix_detach_fds(msg->fp);
    else
      unix_peek_fds(msg->fp);
  }
  return r;
}
