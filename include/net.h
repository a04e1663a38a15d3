// Sockets (net/): struct socket, the file side of one (its fd, its type, its family's
// operations), and struct sock, the protocol side, which lives on while the other end or a
// queued message holds it. One family exists, AF_UNIX (man 7 unix), so struct sock carries
// its fields too (Linux's struct unix_sock around struct sock).
#pragma once
#include "list.h"
#include "mutex.h"
#include "types.h"
#include "wait.h"

#include "uapi/socket.h"
#include "uapi/uio.h"

struct file;
struct ufile;
struct dentry;
struct inode;
struct poll_table;

// Linux's TCP_* states as AF_UNIX uses them (sk_state).
enum {
  TCP_ESTABLISHED = 1,   // connected (a stream's or seqpacket's peer, or socketpair)
  TCP_SYN_SENT = 2,      // a stream connect under way (other connects get EALREADY)
  TCP_CLOSE = 7,         // unconnected, or the peer went
  TCP_LISTEN = 10,
};
#define RCV_SHUTDOWN  1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

// Linux's default for net.core.wmem_default and rmem_default: what SO_SNDBUF and SO_RCVBUF
// report, and the bound on what one socket's receive queue holds (see struct sock).
#define UNIX_BUF_DEFAULT 212992
// What a message costs its receiver's queue beyond its bytes: Linux's skb truesize of a
// small message is about 768 bytes (measured on the host: 278 one-byte datagrams or stream
// writes fill a socketpair's 212992), so a flood of tiny messages is bounded as there.
#define SKB_OVERHEAD 768
// A stream write goes as messages of at most this many bytes: a kmalloc of 4 pages each.
#define UNIX_SKB_MAX (4 * 4096 - 256)
// Datagrams queued at a receiver from senders it is not connected to (net.unix.max_dgram_qlen).
#define UNIX_MAX_DGRAM_QLEN 10

// A bound name (immutable once made, shared by the socket, its accepted sockets and the
// messages it sent): len is what getsockname returns, sun_path[0] == 0 for an abstract one.
struct unix_address {
  int refcnt;               // atomic
  int len;
  struct sockaddr_un name;
};

// The files of an SCM_RIGHTS message in flight: each description referenced (fget's), so a
// file lives while it is queued even after every fd of it is closed.
struct scm_fp_list {
  int count;
  bool inflight;                // its sockets' inflight counts it (net/garbage.c), under unix_gc_lock
  struct ufile *fp[SCM_MAX_FD];
};

// One message on a receive queue (Linux's struct sk_buff, cut to what AF_UNIX needs).
struct sk_buff {
  struct list_head list;        // in the receiver's sk_receive_queue, under its sk_lock
  struct sock *sk;              // the sender, referenced: woken when its bytes are read
  struct unix_address *addr;    // the sender's name at send time (recvfrom's), or NULL
  struct scm_fp_list *fp;       // SCM_RIGHTS files, or NULL
  u32 len;                      // bytes in data
  u32 consumed;                 // a stream's bytes read so far, under the receiver's sk_lock
  u32 truesize;                 // what it costs the receiver's queue (len + SKB_OVERHEAD)
  char data[];
};

struct sock {
  int sk_refcnt;                // atomic: the socket's, the peer's pointer, each sent skb's,
                                // a connecter's while it waits, a listener's queue's
  u16 sk_type;                  // SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET; fixed
  struct mutex sk_lock;         // everything below marked "lock" (Linux's unix_state_lock);
                                // never held with another sock's, so no order between them
  u8 sk_state;                  // lock; read without it by poll (READ_ONCE)
  u8 sk_shutdown;               // lock: RCV_SHUTDOWN and SEND_SHUTDOWN; poll reads it
  bool dead;                    // lock: released (Linux's SOCK_DEAD): no more messages
  bool passcred;                // SO_PASSCRED (autobind at connect and send)
  int sk_err;                   // lock: the pending error SO_ERROR and a read return once
  int sk_sndbuf, sk_rcvbuf;     // SO_SNDBUF and SO_RCVBUF as set (reported, not enforced)
  struct ucred sk_peer_cred;    // lock: SO_PEERCRED: the other end's at connect or socketpair
  struct sock *peer;            // lock: the other end, referenced (a datagram socket's
                                // default destination), or NULL
  struct unix_address *addr;    // set once under bindlock (then read without a lock), or NULL
  struct dentry *path;          // a bound path's dentry, referenced: its inode is the name
  struct mutex bindlock;        // bind and autobind
  struct list_head link;        // in unix_socket_table while bound, under unix_table_lock
  // The receive queue: lock. A sender may queue while rcv_charge < UNIX_BUF_DEFAULT (one
  // message may go past it, as Linux lets sk_wmem_alloc pass sk_sndbuf once): a bounded
  // memory per socket, 208 KiB as Linux's default, so that programs that fill a socketpair
  // without reading see EAGAIN or block where they do on Linux. Charged at the receiver
  // (Linux charges the sender's sk_wmem_alloc): the same bound for one sender.
  struct list_head sk_receive_queue;
  u32 rcv_charge, rcv_qlen;
  // A listener's: connections not yet accepted (each an embryo sock, referenced) and how many;
  // lock. A connect waits while sk_ack_backlog > sk_max_ack_backlog (Linux's test).
  struct list_head accept_queue;
  struct list_head accept_link;  // an embryo's place in its listener's accept_queue
  u32 sk_ack_backlog, sk_max_ack_backlog;
  struct wait_queue_head sk_wq;      // its readers, acceptors and pollers: data, a
                                     // connection, the peer's going, room at its peer
  struct wait_queue_head peer_wait;  // writers and connecters waiting for room in this one
  // The garbage collector's (net/garbage.c, Linux's unix_sock fields), all under unix_gc_lock:
  long inflight;                // references of this socket's file held by messages in flight
  struct ufile *gc_file;        // that file while inflight > 0 (those references keep it)
  struct list_head gc_link;     // in gc_inflight_list while inflight > 0 (or a collection's)
  bool gc_candidate;            // a collection's: every reference of the file was in flight
  bool gc_maybe_cycle;          // a collection's: a candidate not (yet) found held from outside
  long gc_count;                // a collection's: inflight less the references in candidates
};

// The file side: what an fd of a socket has in its file's private_data.
struct socket {
  short type;
  struct sock *sk;              // set at creation (accept: the embryo it took), fixed
  struct file *file;
};

// net/socket.c
extern const struct file_operations socket_file_ops;
bool is_socket(struct file *f);
// readv and writev on fd as one recvmsg or sendmsg (iov checked by the caller): the count,
// -errno, or 1 when fd is not a socket (the caller goes on as for any file).
long sock_rw_iovec(u64 fd, const struct iovec *iov, u64 cnt, bool write);
// The socket behind fd, a reference on its description in *ufp for the caller to fput: NULL
// with *err -EBADF (no such fd) or -ENOTSOCK (another kind of file).
struct socket *sockfd_lookup(u64 fd, struct ufile **ufp, long *err);

// A message as the calls hand it to AF_UNIX: the user's vector, the destination or source
// address in kernel memory, the files of SCM_RIGHTS.
struct iov_iter {
  const struct iovec *iov;
  unsigned long nr_segs;
  size_t iov_offset;            // into iov[0]
  size_t count;                 // bytes left
};
size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it);   // short at a fault
size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it);

struct msghdr {
  struct sockaddr_un *msg_name; // sendmsg: the destination or NULL; recvmsg: filled
  int msg_namelen;              // its length (recvmsg: 0 when the sender had no name)
  struct iov_iter msg_iter;
  struct scm_fp_list *fp;       // sendmsg: files to pass (taken by the message); recvmsg: got
  u32 msg_flags;                // recvmsg: MSG_TRUNC, MSG_CTRUNC out
};

// net/unix.c: the family's calls on a socket, each -errno or what the call returns.
int unix_create(struct socket *sock, int type, int protocol);
int unix_socketpair(struct socket *a, struct socket *b);
int unix_bind(struct socket *sock, struct sockaddr_un *addr, int len);
int unix_connect(struct socket *sock, struct sockaddr_un *addr, int len, bool nonblock);
int unix_listen(struct socket *sock, int backlog);
// Takes a connection: *newsk the embryo, referenced, for the caller's new socket.
int unix_accept(struct socket *sock, struct sock **newsk, bool nonblock);
int unix_getname(struct socket *sock, struct sockaddr_un *addr, bool peer);
int unix_shutdown(struct socket *sock, int how);
unsigned unix_poll(struct socket *sock, struct poll_table *pt);
void unix_release(struct socket *sock);
void sock_put(struct sock *sk);
struct sock *sock_hold(struct sock *sk);
void unix_address_put(struct unix_address *a);
// The checks and lookups of net/unix.c that the data path (net/unix_msg.c) shares.
int unix_find_other(struct sockaddr_un *addr, int len, int type, struct sock **other);
int unix_autobind(struct sock *sk);
bool unix_may_queue(struct sock *sk, struct sock *other);   // room for sk's next message
int unix_wait(struct sock *sk, struct wait_queue_head *wq, bool (*ready)(struct sock *, void *),
              void *arg);   // sk_lock held; dropped while asleep; 0 or -ERESTARTSYS

// net/unix_msg.c: sending and receiving.
long unix_sendmsg(struct socket *sock, struct msghdr *msg, unsigned flags);
long unix_recvmsg(struct socket *sock, struct msghdr *msg, size_t len, unsigned flags);
void unix_purge_queue(struct list_head *queue);   // frees every skb (no lock held)
void unix_unlink_skb(struct sock *sk, struct sk_buff *skb);   // off sk's queue, sk_lock held

// net/garbage.c: the collector of sockets in flight in cycles (Linux's unix_gc). None of these
// is called with an sk_lock held.
void unix_attach_fds(struct scm_fp_list *fp);   // a message's files go in flight
void unix_detach_fds(struct scm_fp_list *fp);   // ... and leave it (received, or dropped)
void unix_peek_fds(struct scm_fp_list *fp);     // MSG_PEEK's copies, before they are installed
void unix_gc(void);
void unix_gc_release(void);     // a sock released: collect if any socket is in flight
void wait_for_unix_gc(void);    // a send with files: collect past a threshold

// net/sock.c: the SOL_SOCKET options of a socket.
int sock_getsockopt(struct socket *sock, int name, void *val, int *len);
int sock_setsockopt(struct socket *sock, int name, int val, int len);

// net/scm.c: SCM_RIGHTS.
int scm_send(u64 control, u64 controllen, struct scm_fp_list **fpp);
// Installs the files as fds and writes the SCM_RIGHTS message into the user's control
// buffer; returns bytes of it used, MSG_CTRUNC in *flags when they did not all fit. Drops fp.
long scm_recv(struct scm_fp_list *fp, u64 control, u64 controllen, unsigned flags, u32 *mflags);
struct scm_fp_list *scm_fp_dup(struct scm_fp_list *fp);   // MSG_PEEK's copy; NULL if no memory
void scm_destroy(struct scm_fp_list *fp);
