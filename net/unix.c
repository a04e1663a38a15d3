// AF_UNIX (man 7 unix), the family's side of the socket calls: socket and socketpair, names
// (a path's S_IFSOCK node, the abstract namespace, autobind), connect, listen, accept,
// shutdown, poll, options and release. Messages move in net/unix_msg.c. Linux's
// net/unix/af_unix.c, with the errnos measured on the host's Linux.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "net.h"
#include "poll.h"
#include "process.h"
#include "signal.h"
#include "slab.h"
#include "spinlock.h"
#include "string.h"

// Every bound socket, path or abstract (Linux's unix_socket_table, a list here: connect and
// sendto look one up by walking it, as many as a test binds). Under unix_table_lock.
static LIST_HEAD(unix_socket_table);
static DEFINE_SPINLOCK(unix_table_lock);
static u32 unix_autobind_next;   // under unix_table_lock: the next autobind name to try

struct sock *
sock_hold(struct sock *sk)
{
  __atomic_add_fetch(&sk->sk_refcnt, 1, __ATOMIC_RELAXED);
  return sk;
}

void
unix_address_put(struct unix_address *a)
{
  if(a && __atomic_sub_fetch(&a->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
    kfree(a);
}

static struct unix_address *
unix_address_get(struct unix_address *a)
{
  if(a)
    __atomic_add_fetch(&a->refcnt, 1, __ATOMIC_RELAXED);
  return a;
}

// The last reference: the queues are empty by now (unix_release_sock purged them).
void
sock_put(struct sock *sk)
{
  if(__atomic_sub_fetch(&sk->sk_refcnt, 1, __ATOMIC_ACQ_REL))
    return;
  unix_address_put(sk->addr);
  kfree(sk);
}

static struct sock *
unix_sk_alloc(int type)
{
  struct sock *sk = kzalloc(sizeof(*sk), GFP_KERNEL);
  if(!sk)
    return NULL;
  sk->sk_refcnt = 1;
  sk->sk_type = (u16)type;
  mutex_init(&sk->sk_lock);
  mutex_init(&sk->bindlock);
  sk->sk_state = TCP_CLOSE;
  sk->sk_sndbuf = sk->sk_rcvbuf = UNIX_BUF_DEFAULT;
  sk->sk_peer_cred = (struct ucred){ 0, (u32)-1, (u32)-1 };   // Linux's with no peer
  INIT_LIST_HEAD(&sk->link);
  INIT_LIST_HEAD(&sk->sk_receive_queue);
  INIT_LIST_HEAD(&sk->accept_queue);
  INIT_LIST_HEAD(&sk->accept_link);
  INIT_LIST_HEAD(&sk->gc_link);
  init_waitqueue_head(&sk->sk_wq);
  init_waitqueue_head(&sk->peer_wait);
  return sk;
}

// The caller's credentials as SO_PEERCRED gives them: every process here is root.
static struct ucred
current_cred(void)
{
  return (struct ucred){ (u32)current->proc->pid, 0, 0 };
}

// socket(2)'s part: protocol 0 or PF_UNIX, else EPROTONOSUPPORT; SOCK_RAW is taken as
// SOCK_DGRAM; SOCK_RDM and SOCK_PACKET are not AF_UNIX's: ESOCKTNOSUPPORT (Linux's
// unix_create, in that order).
int
unix_create(struct socket *sock, int type, int protocol)
{
  if(protocol && protocol != AF_UNIX)
    return -EPROTONOSUPPORT;
  if(type == SOCK_RAW)
    type = SOCK_DGRAM;
  if(type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_SEQPACKET)
    return -ESOCKTNOSUPPORT;
  if(!(sock->sk = unix_sk_alloc(type)))
    return -ENOMEM;
  sock->type = (short)type;
  return 0;
}

// socketpair(2): two sockets connected to each other, each with the caller's credentials.
int
unix_socketpair(struct socket *a, struct socket *b)
{
  struct sock *ska = a->sk, *skb = b->sk;
  ska->peer = sock_hold(skb);
  skb->peer = sock_hold(ska);
  ska->sk_peer_cred = skb->sk_peer_cred = current_cred();
  ska->sk_state = skb->sk_state = TCP_ESTABLISHED;
  return 0;
}

// An address from user space, as Linux's unix_validate_addr and unix_mkname_bsd: AF_UNIX,
// more than the family and no more than sockaddr_un; a path is the bytes up to the first
// NUL or the end of the given length (an unterminated sun_path of 108 bytes is a name of 108).
// The path NUL-terminated in *path (a buffer of UNIX_PATH_MAX + 1), or "" for an abstract name.
static int
unix_mkname(struct sockaddr_un *addr, int len, char *path)
{
  if(len <= (int)sizeof(addr->sun_family) || len > (int)sizeof(*addr) ||
     addr->sun_family != AF_UNIX)
    return -EINVAL;
  int n = len - (int)sizeof(addr->sun_family);
  memcpy(path, addr->sun_path, (size_t)n);
  path[n] = 0;
  return 0;
}

static bool
unix_addr_equal(const struct unix_address *a, const struct sockaddr_un *name, int len)
{
  return a->len == len && !memcmp(&a->name, name, (size_t)len);
}

// A bound socket by name: an abstract one by its bytes, a path's by the inode the path names.
// Under unix_table_lock.
static struct sock *
unix_table_find(const struct sockaddr_un *name, int len, struct inode *inode)
{
  struct sock *sk;
  list_for_each_entry(sk, &unix_socket_table, link) {
    if(inode ? sk->path && sk->path->d_inode == inode
             : !sk->path && unix_addr_equal(sk->addr, name, len))
      return sk;
  }
  return NULL;
}

// Relative paths start at the working directory, as every path call's.
static struct dentry *
path_start(const char *path)
{
  return path[0] == '/' ? NULL : files_pwd(current->proc->files);
}

// The socket bound at addr, referenced in *other: ENOENT (and the rest of a walk's errnos)
// for a missing path, ECONNREFUSED for a name that is not a socket or has no socket bound to
// it (Linux's unix_find_bsd: a regular file gives ECONNREFUSED, measured), EPROTOTYPE for a
// socket of another type.
int
unix_find_other(struct sockaddr_un *addr, int len, int type, struct sock **other)
{
  char path[UNIX_PATH_MAX + 1];
  int err = unix_mkname(addr, len, path);
  if(err)
    return err;
  struct dentry *d = NULL;
  if(path[0]) {
    struct dentry *dir = path_start(path);
    err = path_lookup_at(dir, path, 0, &d);
    if(dir)
      dput(dir);
    if(err)
      return err;
    if(!S_ISSOCK(d->d_inode->i_mode)) {
      dput(d);
      return -ECONNREFUSED;
    }
  }
  spin_lock(&unix_table_lock);
  struct sock *sk = unix_table_find(addr, len, d ? d->d_inode : NULL);
  if(sk)
    sock_hold(sk);
  spin_unlock(&unix_table_lock);
  if(d)
    dput(d);
  if(!sk)
    return -ECONNREFUSED;
  if(sk->sk_type != type) {   // an abstract name is looked up by type too: not found
    sock_put(sk);
    return path[0] ? -EPROTOTYPE : -ECONNREFUSED;
  }
  *other = sk;
  return 0;
}

static struct unix_address *
unix_address_new(const struct sockaddr_un *name, int len)
{
  struct unix_address *a = kzalloc(sizeof(*a), GFP_KERNEL);
  if(a) {
    a->refcnt = 1;
    a->len = len;
    memcpy(&a->name, name, (size_t)MIN(len, (int)sizeof(a->name)));
  }
  return a;
}

// An abstract name of its own: "\0" and five hex digits (Linux's unix_autobind), the first
// free after the last one given. Under bindlock; nothing if already bound.
static int
unix_autobind_locked(struct sock *sk)
{
  if(sk->addr)
    return 0;
  struct sockaddr_un name = { .sun_family = AF_UNIX };
  int len = (int)sizeof(name.sun_family) + 6;
  struct unix_address *a = unix_address_new(&name, len);
  if(!a)
    return -ENOMEM;
  spin_lock(&unix_table_lock);
  for(u32 tries = 0;; tries++) {
    if(tries > 0xfffff) {
      spin_unlock(&unix_table_lock);
      kfree(a);
      return -ENOSPC;   // every name in use (Linux's answer too)
    }
    u32 n = unix_autobind_next++ & 0xfffff;
    for(int i = 0; i < 5; i++)
      a->name.sun_path[1 + i] = "0123456789abcdef"[(n >> (16 - 4 * i)) & 0xf];
    if(!unix_table_find(&a->name, len, NULL))
      break;
  }
  list_add_tail(&sk->link, &unix_socket_table);
  __atomic_store_n(&sk->addr, a, __ATOMIC_RELEASE);
  spin_unlock(&unix_table_lock);
  return 0;
}

int
unix_autobind(struct sock *sk)
{
  mutex_lock(&sk->bindlock);
  int err = unix_autobind_locked(sk);
  mutex_unlock(&sk->bindlock);
  return err;
}

// bind(2): addrlen sizeof(sa_family_t) autobinds; a socket is bound once (EINVAL after);
// an abstract name in use, or a path that exists (whatever it is), is EADDRINUSE. A path's
// node is S_IFSOCK with 0777 less the umask, as Linux's unix_bind_bsd; it stays when the
// socket closes, until unlink removes it.
int
unix_bind(struct socket *sock, struct sockaddr_un *addr, int len)
{
  struct sock *sk = sock->sk;
  if(len == (int)sizeof(addr->sun_family) && addr->sun_family == AF_UNIX)
    return unix_autobind(sk);
  char path[UNIX_PATH_MAX + 1];
  int err = unix_mkname(addr, len, path);
  if(err)
    return err;
  if(path[0])   // getsockname gives the path and its NUL (Linux's addr->len)
    len = (int)(sizeof(addr->sun_family) + strlen(path) + 1);
  struct unix_address *a = unix_address_new(addr, len);
  if(!a)
    return -ENOMEM;
  mutex_lock(&sk->bindlock);
  struct dentry *d = NULL;
  if(sk->addr) {
    // Linux makes the node before it looks at the socket: a name that exists is
    // EADDRINUSE even for a socket bound already (measured), a new one EINVAL.
    struct kstat st;
    struct dentry *dir = path[0] ? path_start(path) : NULL;
    err = path[0] && !vfs_stat_at(dir, path, LOOKUP_NOFOLLOW, &st) ? -EADDRINUSE : -EINVAL;
    if(dir)
      dput(dir);
  } else if(path[0]) {
    struct dentry *dir = path_start(path);
    u32 mode = S_IFSOCK | (0777 & ~READ_ONCE(current->proc->umask));
    err = vfs_mknod_get(dir, path, mode, &d);
    if(dir)
      dput(dir);
    if(err == -EEXIST)
      err = -EADDRINUSE;
  }
  if(!err) {
    spin_lock(&unix_table_lock);
    if(!d && unix_table_find(&a->name, len, NULL)) {
      err = -EADDRINUSE;
    } else {
      sk->path = d;
      list_add_tail(&sk->link, &unix_socket_table);
      __atomic_store_n(&sk->addr, a, __ATOMIC_RELEASE);
      a = NULL;
    }
    spin_unlock(&unix_table_lock);
  }
  mutex_unlock(&sk->bindlock);
  kfree(a);
  return err;
}

// Sleeps on wq with sk_lock dropped until ready(sk, arg) holds (0) or a signal comes
// (-ERESTARTSYS: restarted under SA_RESTART, else EINTR, as the pipe's waits). A socket may
// wait for ever by design, so the hung-task check leaves it alone.
int
unix_wait(struct sock *sk, struct wait_queue_head *wq, bool (*ready)(struct sock *, void *),
          void *arg)
{
  return wait_event_interruptible_mutex(*wq, sk->sk_lock, ready(sk, arg));
}

static bool
backlog_room(struct sock *other, void *arg)
{
  return READ_ONCE(other->sk_ack_backlog) <= READ_ONCE(other->sk_max_ack_backlog) ||
         READ_ONCE(other->dead) || READ_ONCE(other->sk_state) != TCP_LISTEN;
}

// A stream or seqpacket connect (Linux's unix_stream_connect): the listener's accept queue
// gets a new sock (the embryo accept will hand out) connected to this one. A full backlog
// waits, or is EAGAIN with O_NONBLOCK (Linux's answer for AF_UNIX, where TCP says
// EINPROGRESS); a name with no listener is ECONNREFUSED.
static int
unix_stream_connect(struct socket *sock, struct sockaddr_un *addr, int len, bool nonblock)
{
  struct sock *sk = sock->sk, *other, *newsk;
  struct ucred cred;
  int err;
  if(sk->passcred && (err = unix_autobind(sk)))
    return err;
  mutex_lock(&sk->sk_lock);
  u8 state = sk->sk_state;
  if(state == TCP_CLOSE)
    sk->sk_state = TCP_SYN_SENT;   // ours to connect
  mutex_unlock(&sk->sk_lock);
  if(state == TCP_ESTABLISHED)
    return -EISCONN;
  if(state == TCP_LISTEN)
    return -EINVAL;
  if(state == TCP_SYN_SENT)
    return -EALREADY;
  if((err = unix_find_other(addr, len, sk->sk_type, &other)))
    goto out;
  if(!(newsk = unix_sk_alloc(sk->sk_type))) {
    sock_put(other);
    err = -ENOMEM;
    goto out;
  }
  mutex_lock(&other->sk_lock);
  for(;;) {
    err = -ECONNREFUSED;
    if(other->dead || other->sk_state != TCP_LISTEN)
      break;
    err = 0;
    if(backlog_room(other, NULL))
      break;
    err = -EAGAIN;
    if(nonblock || (err = unix_wait(other, &other->peer_wait, backlog_room, NULL)))
      break;
  }
  if(!err) {
    newsk->sk_state = TCP_ESTABLISHED;
    newsk->peer = sock_hold(sk);
    newsk->sk_peer_cred = current_cred();
    newsk->addr = unix_address_get(other->addr);   // accept's socket is named as its listener
    list_add_tail(&newsk->accept_link, &other->accept_queue);   // the queue's reference
    other->sk_ack_backlog++;
    cred = other->sk_peer_cred;   // the listener's, from listen()
  }
  mutex_unlock(&other->sk_lock);
  if(err) {
    sock_put(newsk);
  } else {
    wake_up_all(&other->sk_wq);
    mutex_lock(&sk->sk_lock);
    sk->peer = sock_hold(newsk);
    sk->sk_peer_cred = cred;
    // The listener may have closed since, releasing the embryo before this socket named it
    // its peer: unix_release_sock saw no peer to tell, so this side learns it here.
    if(READ_ONCE(newsk->dead)) {
      sk->sk_shutdown = SHUTDOWN_MASK;
      sk->sk_err = ECONNRESET;
    }
    mutex_unlock(&sk->sk_lock);
  }
  sock_put(other);
out:
  mutex_lock(&sk->sk_lock);
  if(sk->sk_state == TCP_SYN_SENT)
    sk->sk_state = err ? TCP_CLOSE : TCP_ESTABLISHED;
  mutex_unlock(&sk->sk_lock);
  return err;
}

// A datagram socket's connect sets its default destination (AF_UNSPEC clears it); the
// receiver must accept from it: a socket connected elsewhere is EPERM (unix_may_send).
static int
unix_dgram_connect(struct socket *sock, struct sockaddr_un *addr, int len)
{
  struct sock *sk = sock->sk, *other = NULL, *old;
  int err;
  if(len < (int)sizeof(addr->sun_family))
    return -EINVAL;
  if(addr->sun_family != AF_UNSPEC) {
    if(sk->passcred && (err = unix_autobind(sk)))
      return err;
    if((err = unix_find_other(addr, len, sk->sk_type, &other)))
      return err;
    mutex_lock(&other->sk_lock);
    err = other->dead ? -ECONNREFUSED : other->peer && other->peer != sk ? -EPERM : 0;
    mutex_unlock(&other->sk_lock);
    if(err) {
      sock_put(other);
      return err;
    }
  }
  mutex_lock(&sk->sk_lock);
  old = sk->peer;
  sk->peer = other;
  sk->sk_state = other ? TCP_ESTABLISHED : TCP_CLOSE;
  mutex_unlock(&sk->sk_lock);
  if(old) {
    wake_up_all(&sk->sk_wq);
    sock_put(old);
  }
  return 0;
}

int
unix_connect(struct socket *sock, struct sockaddr_un *addr, int len, bool nonblock)
{
  if(sock->type == SOCK_DGRAM)
    return unix_dgram_connect(sock, addr, len);
  return unix_stream_connect(sock, addr, len, nonblock);
}

// listen(2): a bound stream or seqpacket socket not connected (EINVAL otherwise; datagram
// sockets EOPNOTSUPP); again on a listener only changes the backlog (cut to SOMAXCONN).
int
unix_listen(struct socket *sock, int backlog)
{
  struct sock *sk = sock->sk;
  if(sock->type == SOCK_DGRAM)
    return -EOPNOTSUPP;
  if(!READ_ONCE(sk->addr))
    return -EINVAL;
  if((unsigned)backlog > SOMAXCONN)
    backlog = SOMAXCONN;
  mutex_lock(&sk->sk_lock);
  int err = 0;
  if(sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN) {
    err = -EINVAL;
  } else {
    if(backlog > (int)sk->sk_max_ack_backlog)
      wake_up_all(&sk->peer_wait);   // room for the connecters that wait
    sk->sk_max_ack_backlog = (u32)backlog;
    sk->sk_state = TCP_LISTEN;
    sk->sk_peer_cred = current_cred();
  }
  mutex_unlock(&sk->sk_lock);
  return err;
}

static bool
acceptable(struct sock *sk, void *arg)
{
  return !list_empty(&sk->accept_queue) || READ_ONCE(sk->sk_state) != TCP_LISTEN;
}

// accept(2)'s part: the oldest connection, waiting for one unless nonblock (EAGAIN); a
// socket not listening is EINVAL, a datagram one EOPNOTSUPP.
int
unix_accept(struct socket *sock, struct sock **newsk, bool nonblock)
{
  struct sock *sk = sock->sk;
  if(sock->type == SOCK_DGRAM)
    return -EOPNOTSUPP;
  int err = 0;
  mutex_lock(&sk->sk_lock);
  for(;;) {
    if(sk->sk_state != TCP_LISTEN) {
      err = -EINVAL;
      break;
    }
    if(!list_empty(&sk->accept_queue))
      break;
    err = -EAGAIN;
    if(nonblock || (err = unix_wait(sk, &sk->sk_wq, acceptable, NULL)))
      break;
  }
  if(!err) {
    *newsk = list_first_entry(&sk->accept_queue, struct sock, accept_link);
    list_del_init(&(*newsk)->accept_link);
    sk->sk_ack_backlog--;
  }
  mutex_unlock(&sk->sk_lock);
  if(!err)
    wake_up_all(&sk->peer_wait);   // a connecter waiting for the backlog
  return err;
}

// getsockname and getpeername: the name (an unbound socket's is the family alone, length
// 2); the peer's of an unconnected socket is ENOTCONN. Returns the length.
int
unix_getname(struct socket *sock, struct sockaddr_un *addr, bool peer)
{
  struct sock *sk = sock->sk, *other = NULL;
  struct unix_address *a;
  if(peer) {
    mutex_lock(&sk->sk_lock);
    if(sk->peer)
      other = sock_hold(sk->peer);
    mutex_unlock(&sk->sk_lock);
    if(!other)
      return -ENOTCONN;
    a = __atomic_load_n(&other->addr, __ATOMIC_ACQUIRE);
  } else {
    a = __atomic_load_n(&sk->addr, __ATOMIC_ACQUIRE);
  }
  int len = (int)sizeof(addr->sun_family);
  memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  if(a) {
    len = a->len;
    memcpy(addr, &a->name, (size_t)MIN(len, (int)sizeof(*addr)));
  }
  if(other)
    sock_put(other);
  return len;
}

// shutdown(2): the socket stops reading or writing or both; a connected stream's or
// seqpacket's peer learns the mirror of it (it reads end of file after SHUT_WR). Linux does
// not ask for a connection: an unconnected socket's shutdown is 0 too (measured).
int
unix_shutdown(struct socket *sock, int how)
{
  struct sock *sk = sock->sk, *other = NULL;
  if(how < SHUT_RD || how > SHUT_RDWR)
    return -EINVAL;
  u8 mode = (u8)(how + 1);   // SHUT_RD -> RCV_SHUTDOWN, SHUT_WR -> SEND_SHUTDOWN
  mutex_lock(&sk->sk_lock);
  sk->sk_shutdown |= mode;
  if(sk->peer && sock->type != SOCK_DGRAM)
    other = sock_hold(sk->peer);
  mutex_unlock(&sk->sk_lock);
  wake_up_all(&sk->sk_wq);
  wake_up_all(&sk->peer_wait);
  if(other) {
    u8 peer_mode = (u8)(((mode & RCV_SHUTDOWN) ? SEND_SHUTDOWN : 0) |
                        ((mode & SEND_SHUTDOWN) ? RCV_SHUTDOWN : 0));
    mutex_lock(&other->sk_lock);
    other->sk_shutdown |= peer_mode;
    mutex_unlock(&other->sk_lock);
    wake_up_all(&other->sk_wq);
    wake_up_all(&other->peer_wait);
    sock_put(other);
  }
  return 0;
}

// Whether this socket may queue another message at other now: charged below the bound and,
// for a datagram receiver not connected back to it, fewer than max_dgram_qlen waiting.
bool
unix_may_queue(struct sock *sk, struct sock *other)
{
  if(READ_ONCE(other->rcv_charge) >= UNIX_BUF_DEFAULT)
    return false;
  return other->sk_type != SOCK_DGRAM || READ_ONCE(other->peer) == sk ||
         READ_ONCE(other->rcv_qlen) <= UNIX_MAX_DGRAM_QLEN;
}

// Linux's unix_poll and unix_dgram_poll: readable with a message, a connection to accept or
// the read side shut; hung up when both sides are shut, or a stream not connected;
// writable while the peer's queue is under a quarter of its bound (Linux's unix_writable).
unsigned
unix_poll(struct socket *sock, struct poll_table *pt)
{
  struct sock *sk = sock->sk;
  poll_wait(sock->file, &sk->sk_wq, pt);
  unsigned mask = 0;
  mutex_lock(&sk->sk_lock);
  u8 shut = sk->sk_shutdown, state = sk->sk_state;
  if(sk->sk_err)
    mask |= POLLERR;
  if(shut == SHUTDOWN_MASK)
    mask |= POLLHUP;
  if(shut & RCV_SHUTDOWN)
    mask |= POLLRDHUP | POLLIN | POLLRDNORM;
  if(!list_empty(&sk->sk_receive_queue) || !list_empty(&sk->accept_queue))
    mask |= POLLIN | POLLRDNORM;
  if(sock->type != SOCK_DGRAM && state == TCP_CLOSE)
    mask |= POLLHUP;
  struct sock *other = sk->peer;
  bool writable = state != TCP_LISTEN;
  if(writable && other) {
    if(sock->type != SOCK_DGRAM)
      writable = READ_ONCE(other->rcv_charge) * 4 <= UNIX_BUF_DEFAULT;
    else
      writable = unix_may_queue(sk, other);
  }
  if(sock->type == SOCK_SEQPACKET && state == TCP_SYN_SENT)
    writable = false;
  mutex_unlock(&sk->sk_lock);
  if(writable)
    mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
  return mask;
}

// The end of a sock (Linux's unix_release_sock): no more messages, its name out of the
// table, a connected stream's peer told (end of file, and ECONNRESET when this side left
// data unread or was never accepted), the queued messages and their files dropped, and the
// connections its listener never accepted released as this one; then, with sockets in
// flight, a collection of their cycles (net/garbage.c, as Linux's).
static void
unix_release_sock(struct sock *sk, bool embryo)
{
  LIST_HEAD(queue);
  LIST_HEAD(embryos);
  spin_lock(&unix_table_lock);
  list_del_init(&sk->link);
  spin_unlock(&unix_table_lock);
  mutex_lock(&sk->sk_lock);
  sk->dead = true;
  sk->sk_state = TCP_CLOSE;
  sk->sk_shutdown = SHUTDOWN_MASK;
  struct sock *peer = sk->peer;
  sk->peer = NULL;
  bool unread = !list_empty(&sk->sk_receive_queue);
  list_splice_init(&sk->sk_receive_queue, &queue);
  list_splice_init(&sk->accept_queue, &embryos);
  sk->rcv_charge = sk->rcv_qlen = 0;
  sk->sk_ack_backlog = 0;
  struct dentry *path = sk->path;
  sk->path = NULL;
  mutex_unlock(&sk->sk_lock);
  wake_up_all(&sk->sk_wq);
  wake_up_all(&sk->peer_wait);
  if(peer) {
    if(sk->sk_type != SOCK_DGRAM) {
      mutex_lock(&peer->sk_lock);
      if(peer->peer == sk) {
        peer->sk_shutdown = SHUTDOWN_MASK;
        if(unread || embryo)
          peer->sk_err = ECONNRESET;
      }
      mutex_unlock(&peer->sk_lock);
    }
    wake_up_all(&peer->sk_wq);
    wake_up_all(&peer->peer_wait);
    sock_put(peer);
  }
  unix_purge_queue(&queue);
  while(!list_empty(&embryos)) {
    struct sock *e = list_first_entry(&embryos, struct sock, accept_link);
    list_del_init(&e->accept_link);
    unix_release_sock(e, true);
    sock_put(e);
  }
  if(path)
    dput(path);
  if(!embryo)
    unix_gc_release();
}

void
unix_release(struct socket *sock)
{
  unix_release_sock(sock->sk, false);
  sock_put(sock->sk);
}
