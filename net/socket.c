// The socket system calls (man 2 socket, socketpair, bind, listen, accept, connect, send,
// recv, shutdown, getsockopt) and a socket's file: fds, addresses and messages copied in and
// out, then the family's work (net/unix.c, net/unix_msg.c). Linux's net/socket.c.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "net.h"
#include "poll.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "uapi/fcntl.h"
#include "uapi/limits.h"
#include "vsprintf.h"
#include <asm/uaccess.h>

// sockfs: the superblock of every socket's inode, never mounted (Linux's sock_mnt). fstat
// of a socket gives S_IFSOCK from it.
static struct super_block sock_sb = { .s_free = FREE_NOW };

bool
is_socket(struct file *f)
{
  return f && f->f_op == &socket_file_ops;
}

// The user's segments as one run of bytes (Linux's iov_iter): n bytes moved from or to buf,
// the iterator advanced past them; short at a fault.
static size_t
iter_copy(char *buf, size_t n, struct iov_iter *it, bool to_user)
{
  size_t done = 0;
  while(done < n && it->count) {
    const struct iovec *v = it->iov;
    char *ubuf = (char *)v->iov_base + it->iov_offset;
    size_t c = MIN(n - done, (size_t)v->iov_len - it->iov_offset), left = 0;
    if(c)
      left = to_user ? copy_to_user(ubuf, buf + done, c) : copy_from_user(buf + done, ubuf, c);
    done += c - left;
    it->iov_offset += c - left;
    it->count -= c - left;
    if(left)
      break;
    if(it->iov_offset == v->iov_len) {
      it->iov++;
      it->nr_segs--;
      it->iov_offset = 0;
    }
  }
  return done;
}

size_t
copy_from_iter(void *dst, size_t n, struct iov_iter *it)
{
  return iter_copy(dst, n, it, false);
}

size_t
copy_to_iter(const void *src, size_t n, struct iov_iter *it)
{
  return iter_copy((char *)src, n, it, true);
}

static void
iov_iter_init(struct iov_iter *it, const struct iovec *iov, unsigned long nr, size_t count)
{
  it->iov = iov;
  it->nr_segs = nr;
  it->iov_offset = 0;
  it->count = count;
}

// The socket behind fd, with the caller's reference on its description in *ufp: EBADF for
// no such fd, ENOTSOCK for any other file (Linux's sockfd_lookup).
struct socket *
sockfd_lookup(u64 fd, struct ufile **ufp, long *err)
{
  struct ufile *uf = fget((int)fd);
  if(!uf) {
    *err = -EBADF;
    return NULL;
  }
  if(!is_socket(uf->file)) {
    fput(uf);
    *err = -ENOTSOCK;
    return NULL;
  }
  *ufp = uf;
  return uf->file->private_data;
}

static struct socket *
sock_alloc(void)
{
  struct socket *sock = kzalloc(sizeof(*sock), GFP_KERNEL);
  return sock;
}

static void
sock_release(struct socket *sock)
{
  if(sock->sk)
    unix_release(sock);
  kfree(sock);
}

static ssize_t sock_read_user(struct file *f, char *ubuf, size_t len, unsigned flags);
static ssize_t sock_write_user(struct file *f, const char *ubuf, size_t len, unsigned flags);

static unsigned
sock_poll(struct file *f, struct poll_table *pt)
{
  return unix_poll(f->private_data, pt);
}

static void
sock_close(struct file *f)
{
  sock_release(f->private_data);
  iput(f->f_inode);
}

// /proc/<pid>/fd's name of it (Linux's sockfs_dname).
static int
sock_dname(struct file *f, char *buf, size_t len)
{
  return scnprintf(buf, len, "socket:[%lu]", f->f_inode->i_ino);
}

const struct file_operations socket_file_ops = {
  .dname = sock_dname,
  .read_user = sock_read_user,
  .write_user = sock_write_user,
  .poll = sock_poll,
  .release = sock_close,
};

// A socket's file and open description (Linux's sock_alloc_file): O_RDWR, O_NONBLOCK from
// SOCK_NONBLOCK; the socket is the file's from here, released with it. NULL if no memory
// (the socket then is the caller's still).
static struct ufile *
sock_alloc_file(struct socket *sock, unsigned flags)
{
  struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);
  struct inode *inode = f ? new_inode(&sock_sb, S_IFSOCK | 0777) : NULL;
  struct ufile *uf = inode ? ufile_alloc(f, O_RDWR | (flags & SOCK_NONBLOCK ? O_NONBLOCK : 0)) : NULL;
  if(!uf) {
    if(inode) {
      inode->i_nlink = 0;
      iput(inode);
    }
    kfree(f);
    return NULL;
  }
  inode->i_nlink = 0;   // no name: the last iput frees it
  f->f_count = 1;
  f->f_inode = inode;
  f->f_op = &socket_file_ops;
  f->private_data = sock;
  sock->file = f;
  return uf;
}

// A new fd for sock (its file made): the fd, or -errno with the socket released.
static long
sock_map_fd(struct socket *sock, unsigned flags)
{
  struct ufile *uf = sock_alloc_file(sock, flags);
  if(!uf) {
    sock_release(sock);
    return -ENOMEM;
  }
  int fd = fd_install(uf, 0, flags & SOCK_CLOEXEC);
  if(fd < 0)
    fput(uf);
  return fd;
}

// socket(2)'s checks in Linux's order (__sys_socket, __sock_create): flags other than
// SOCK_NONBLOCK and SOCK_CLOEXEC EINVAL; a family out of range or not AF_UNIX EAFNOSUPPORT
// (no network here, so AF_INET and AF_INET6 too); a type out of range EINVAL.
static long
sock_create(int family, int type, int protocol, struct socket **res)
{
  if((type & ~SOCK_TYPE_MASK) & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
    return -EINVAL;
  if(family < 0 || family >= AF_MAX || family != AF_UNIX)
    return -EAFNOSUPPORT;
  type &= SOCK_TYPE_MASK;
  if(type >= SOCK_MAX)
    return -EINVAL;
  struct socket *sock = sock_alloc();
  if(!sock)
    return -ENOMEM;
  long err = unix_create(sock, type, protocol);
  if(err) {
    kfree(sock);
    return err;
  }
  *res = sock;
  return 0;
}

long
sys_socket(u64 family, u64 type, u64 protocol)
{
  struct socket *sock;
  long err = sock_create((int)family, (int)type, (int)protocol, &sock);
  if(err)
    return err;
  return sock_map_fd(sock, (unsigned)type);
}

long
sys_socketpair(u64 family, u64 type, u64 protocol, u64 usv)
{
  struct socket *a, *b;
  long err = sock_create((int)family, (int)type, (int)protocol, &a);
  if(err)
    return err;
  if((err = sock_create((int)family, (int)type, (int)protocol, &b))) {
    sock_release(a);
    return err;
  }
  unix_socketpair(a, b);
  int fds[2];
  fds[0] = (int)sock_map_fd(a, (unsigned)type);
  if(fds[0] < 0) {
    sock_release(b);
    return fds[0];
  }
  fds[1] = (int)sock_map_fd(b, (unsigned)type);
  if(fds[1] < 0) {
    fd_close(fds[0]);
    return fds[1];
  }
  // As pipe2: a bad pointer leaves no fd behind.
  if(copy_to_user((void *)usv, fds, sizeof(fds))) {
    fd_close(fds[0]);
    fd_close(fds[1]);
    return -EFAULT;
  }
  return 0;
}

// An address from user space into *addr (zeroed first): EINVAL for a length below 0 or past
// sockaddr_storage, EFAULT for a bad pointer (Linux's move_addr_to_kernel). A length past
// sockaddr_un is copied in part: the family's check says EINVAL.
static long
move_addr_to_kernel(u64 uaddr, u64 ulen, struct sockaddr_un *addr, int *len)
{
  int n = (int)ulen;
  if(n < 0 || n > SOCKADDR_STORAGE_SIZE)
    return -EINVAL;
  memset(addr, 0, sizeof(*addr));
  *len = n;
  if(n && copy_from_user(addr, (void *)uaddr, (size_t)MIN(n, (int)sizeof(*addr))))
    return -EFAULT;
  return 0;
}

// An address out: *ulen read (EINVAL below 0), as much of addr as it has room for written,
// and the address's whole length put back (Linux's move_addr_to_user). A NULL uaddr skips it.
static long
move_addr_to_user(const struct sockaddr_un *addr, int len, u64 uaddr, u64 ulen)
{
  if(!uaddr)
    return 0;
  int have;
  if(get_user(have, (int *)ulen))
    return -EFAULT;
  if(have < 0)
    return -EINVAL;
  if(len > 0 && have > 0 && copy_to_user((void *)uaddr, addr, (size_t)MIN(have, MIN(len, (int)sizeof(*addr)))))
    return -EFAULT;
  return put_user(len, (int *)ulen) ? -EFAULT : 0;
}

long
sys_bind(u64 fd, u64 uaddr, u64 ulen)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  struct sockaddr_un addr;
  int len;
  if(!(err = move_addr_to_kernel(uaddr, ulen, &addr, &len)))
    err = unix_bind(sock, &addr, len);
  fput(uf);
  return err;
}

long
sys_connect(u64 fd, u64 uaddr, u64 ulen)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  struct sockaddr_un addr;
  int len;
  if(!(err = move_addr_to_kernel(uaddr, ulen, &addr, &len)))
    err = unix_connect(sock, &addr, len, uf->flags & O_NONBLOCK);
  fput(uf);
  return err;
}

long
sys_listen(u64 fd, u64 backlog)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  err = unix_listen(sock, (int)backlog);
  fput(uf);
  return err;
}

// accept4(2): the new socket's file is made first, so a connection is only taken when it can
// be given (an fd table full at the end drops it: the peer sees the connection reset, where
// Linux reserves the fd first and answers EMFILE before taking it).
long
sys_accept4(u64 fd, u64 uaddr, u64 ulen, u64 flags)
{
  if(flags & ~(u64)(SOCK_CLOEXEC | SOCK_NONBLOCK))
    return -EINVAL;
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  struct socket *newsock = sock_alloc();
  struct ufile *nuf = newsock ? sock_alloc_file(newsock, (unsigned)flags) : NULL;
  if(!nuf) {
    kfree(newsock);
    fput(uf);
    return -ENOMEM;
  }
  struct sock *newsk;
  err = unix_accept(sock, &newsk, uf->flags & O_NONBLOCK);
  fput(uf);
  if(err) {
    fput(nuf);   // its socket has no sock: released as nothing
    return err;
  }
  newsock->sk = newsk;
  newsock->type = (short)newsk->sk_type;
  struct sockaddr_un addr;
  int len = unix_getname(newsock, &addr, true);
  if(len < 0) {   // the connecter left already: Linux gives the family alone then
    len = (int)sizeof(addr.sun_family);
    addr.sun_family = AF_UNIX;
  }
  if((err = move_addr_to_user(&addr, len, uaddr, ulen))) {
    fput(nuf);
    return err;
  }
  int nfd = fd_install(nuf, 0, flags & SOCK_CLOEXEC);
  if(nfd < 0)
    fput(nuf);
  return nfd;
}

long
sys_accept(u64 fd, u64 uaddr, u64 ulen)
{
  return sys_accept4(fd, uaddr, ulen, 0);
}

static long
getname(u64 fd, u64 uaddr, u64 ulen, bool peer)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  struct sockaddr_un addr;
  int len = unix_getname(sock, &addr, peer);
  fput(uf);
  if(len < 0)
    return len;
  if(!uaddr)
    return -EFAULT;
  return move_addr_to_user(&addr, len, uaddr, ulen);
}

long
sys_getsockname(u64 fd, u64 uaddr, u64 ulen)
{
  return getname(fd, uaddr, ulen, false);
}

long
sys_getpeername(u64 fd, u64 uaddr, u64 ulen)
{
  return getname(fd, uaddr, ulen, true);
}

long
sys_shutdown(u64 fd, u64 how)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  err = unix_shutdown(sock, (int)how);
  fput(uf);
  return err;
}

// One send: msg's vector, its destination, its files. O_NONBLOCK on the description is
// MSG_DONTWAIT. The files are dropped if the message did not take them.
static long
sock_sendmsg(struct ufile *uf, struct msghdr *msg, unsigned flags)
{
  struct socket *sock = uf->file->private_data;
  if(uf->flags & O_NONBLOCK)
    flags |= MSG_DONTWAIT;
  long r = unix_sendmsg(sock, msg, flags);
  if(msg->fp) {
    scm_destroy(msg->fp);
    msg->fp = NULL;
  }
  return r;
}

static long
sock_recvmsg(struct ufile *uf, struct msghdr *msg, size_t len, unsigned flags)
{
  struct socket *sock = uf->file->private_data;
  if(uf->flags & O_NONBLOCK)
    flags |= MSG_DONTWAIT;
  return unix_recvmsg(sock, msg, len, flags);
}

// read(2) and write(2) on a socket: recv and send with no flags (write's EPIPE raises SIGPIPE).
static ssize_t
sock_read_user(struct file *f, char *ubuf, size_t len, unsigned flags)
{
  struct iovec v = { (u64)ubuf, len };
  struct msghdr msg = { 0 };
  iov_iter_init(&msg.msg_iter, &v, 1, len);
  struct ufile tmp = { .file = f, .flags = flags };
  long r = sock_recvmsg(&tmp, &msg, len, 0);
  if(msg.fp)
    scm_destroy(msg.fp);   // files that came with the bytes: read(2) has nowhere to put them
  return r;
}

static ssize_t
sock_write_user(struct file *f, const char *ubuf, size_t len, unsigned flags)
{
  struct iovec v = { (u64)ubuf, len };
  struct msghdr msg = { 0 };
  iov_iter_init(&msg.msg_iter, &v, 1, len);
  struct ufile tmp = { .file = f, .flags = flags };
  return sock_sendmsg(&tmp, &msg, 0);
}

long
sock_rw_iovec(u64 fd, const struct iovec *iov, u64 cnt, bool write)
{
  struct ufile *uf;
  long err = 0;
  if(!sockfd_lookup(fd, &uf, &err))
    return 1;
  size_t total = 0;
  for(u64 i = 0; i < cnt; i++)
    total += iov[i].iov_len;
  struct msghdr msg = { 0 };
  iov_iter_init(&msg.msg_iter, iov, cnt, total);
  if(write) {
    err = sock_sendmsg(uf, &msg, 0);
  } else {
    err = sock_recvmsg(uf, &msg, total, 0);
    if(msg.fp)
      scm_destroy(msg.fp);
  }
  fput(uf);
  return err;
}

// A user's vector copied in and checked whole (Linux's import_iovec): more than UIO_MAXIOV
// segments is EMSGSIZE, a negative length EINVAL, a segment outside user space EFAULT; the
// total is capped at MAX_RW_COUNT. *iovp: small, or a kmalloc'ed copy for the caller to free.
static long
import_iovec(u64 uiov, u64 cnt, struct iovec *small, struct iovec **iovp, size_t *total)
{
  if(cnt > UIO_MAXIOV)
    return -EMSGSIZE;
  struct iovec *iov = small;
  if(cnt > 8 && !(iov = kmalloc(cnt * sizeof(*iov), GFP_KERNEL)))
    return -ENOMEM;
  *iovp = iov;
  if(cnt && copy_from_user(iov, (void *)uiov, cnt * sizeof(*iov)))
    return -EFAULT;
  size_t sum = 0;
  for(u64 i = 0; i < cnt; i++) {
    if((s64)iov[i].iov_len < 0)
      return -EINVAL;
    if(!access_ok((void *)iov[i].iov_base, iov[i].iov_len))
      return -EFAULT;
    iov[i].iov_len = MIN(iov[i].iov_len, (u64)MAX_RW_COUNT - sum);
    sum += iov[i].iov_len;
  }
  *total = sum;
  return 0;
}

// sendto and sendmsg: a destination (checked as bind's), a vector, and for sendmsg the
// control messages.
static long
do_sendmsg(u64 fd, const struct user_msghdr *um, unsigned flags, const struct iovec *one)
{
  struct ufile *uf;
  long err = 0;
  if(!sockfd_lookup(fd, &uf, &err))
    return err;
  struct sockaddr_un addr;
  struct msghdr msg = { 0 };
  struct iovec small[8], *iov = small;
  size_t total = one ? one->iov_len : 0;
  if(um->msg_name && um->msg_namelen) {
    if((err = move_addr_to_kernel(um->msg_name, (u64)(s64)um->msg_namelen, &addr,
                                  &msg.msg_namelen)))
      goto out;
    msg.msg_name = &addr;
  }
  if(one) {
    if(!access_ok((void *)one->iov_base, one->iov_len)) {
      err = -EFAULT;
      goto out;
    }
    iov_iter_init(&msg.msg_iter, one, 1, MIN(total, (size_t)MAX_RW_COUNT));
  } else {
    if((err = import_iovec(um->msg_iov, um->msg_iovlen, small, &iov, &total)))
      goto out;
    iov_iter_init(&msg.msg_iter, iov, um->msg_iovlen, total);
    if((err = scm_send(um->msg_control, um->msg_controllen, &msg.fp)))
      goto out;
  }
  err = sock_sendmsg(uf, &msg, flags);
out:
  if(iov != small)
    kfree(iov);
  fput(uf);
  return err;
}

long
sys_sendto(u64 fd, u64 buf, u64 len, u64 flags, u64 uaddr, u64 ulen)
{
  struct iovec one = { buf, len };
  struct user_msghdr um = { .msg_name = uaddr, .msg_namelen = (s32)ulen };
  if((s32)ulen < 0 && uaddr)
    return -EINVAL;
  return do_sendmsg(fd, &um, (unsigned)flags, &one);
}

long
sys_sendmsg(u64 fd, u64 umsg, u64 flags)
{
  struct user_msghdr um;
  if(copy_from_user(&um, (void *)umsg, sizeof(um)))
    return -EFAULT;
  if(um.msg_namelen < 0)
    return -EINVAL;
  return do_sendmsg(fd, &um, (unsigned)flags, NULL);
}

// recvfrom and recvmsg: the sender's name (datagrams), the vector, for recvmsg the files and
// msg_flags. *um is updated for the caller to write back (msg_namelen, msg_controllen,
// msg_flags).
static long
do_recvmsg(u64 fd, struct user_msghdr *um, unsigned flags, const struct iovec *one, u64 ulen)
{
  struct ufile *uf;
  long err = 0;
  if(!sockfd_lookup(fd, &uf, &err))
    return err;
  struct sockaddr_un addr;
  struct msghdr msg = { 0 };
  struct iovec small[8], *iov = small;
  size_t total = 0;
  if(one) {
    total = MIN(one->iov_len, (size_t)MAX_RW_COUNT);
    if(!access_ok((void *)one->iov_base, total)) {
      err = -EFAULT;
      goto out;
    }
    iov_iter_init(&msg.msg_iter, one, 1, total);
  } else {
    if((err = import_iovec(um->msg_iov, um->msg_iovlen, small, &iov, &total)))
      goto out;
    iov_iter_init(&msg.msg_iter, iov, um->msg_iovlen, total);
  }
  if(um->msg_name)
    msg.msg_name = &addr;
  err = sock_recvmsg(uf, &msg, total, flags);
  if(err >= 0 && msg.msg_name) {
    long e = one ? move_addr_to_user(&addr, msg.msg_namelen, um->msg_name, ulen) : 0;
    if(!one) {   // recvmsg: msg_namelen is the caller's to write back
      if(copy_to_user((void *)um->msg_name, &addr,
                      (size_t)MIN(MAX(um->msg_namelen, 0), MIN(msg.msg_namelen, (int)sizeof(addr)))))
        e = -EFAULT;
      um->msg_namelen = msg.msg_namelen;
    }
    if(e)
      err = e;
  } else if(!one) {
    um->msg_namelen = 0;
  }
  if(!one) {
    u64 used = 0;
    if(msg.fp) {
      long r = scm_recv(msg.fp, um->msg_control, um->msg_controllen, flags, &msg.msg_flags);
      msg.fp = NULL;
      if(r < 0 && err >= 0)
        err = r;
      used = r > 0 ? (u64)r : 0;
    }
    um->msg_controllen = used;
    um->msg_flags = msg.msg_flags;
  } else if(msg.fp) {
    scm_destroy(msg.fp);   // recvfrom has no control buffer: the files are closed
  }
out:
  if(msg.fp)
    scm_destroy(msg.fp);
  if(iov != small)
    kfree(iov);
  fput(uf);
  return err;
}

long
sys_recvfrom(u64 fd, u64 buf, u64 len, u64 flags, u64 uaddr, u64 ulen)
{
  struct iovec one = { buf, len };
  struct user_msghdr um = { .msg_name = ulen ? uaddr : 0 };
  return do_recvmsg(fd, &um, (unsigned)flags, &one, ulen);
}

long
sys_recvmsg(u64 fd, u64 umsg, u64 flags)
{
  struct user_msghdr um;
  if(copy_from_user(&um, (void *)umsg, sizeof(um)))
    return -EFAULT;
  if(um.msg_namelen < 0)
    return -EINVAL;
  long r = do_recvmsg(fd, &um, (unsigned)flags, NULL, 0);
  if(r < 0)
    return r;
  struct user_msghdr *u = (struct user_msghdr *)umsg;
  if(put_user(um.msg_namelen, &u->msg_namelen) || put_user(um.msg_controllen, &u->msg_controllen) ||
     put_user(um.msg_flags, &u->msg_flags))
    return -EFAULT;
  return r;
}
