// The SOL_SOCKET options (man 7 socket, man 2 setsockopt, getsockopt): the calls and what each
// option is for an AF_UNIX socket. Linux's sock_setsockopt and sock_getsockopt (net/core/sock.c).
#include "errno.h"
#include "fdtable.h"
#include "net.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// getsockopt(2) at SOL_SOCKET: *len in, the bytes written out (an int's, or ucred's for
// SO_PEERCRED, cut to *len as Linux does). SO_ERROR clears the error it gives.
int
sock_getsockopt(struct socket *sock, int name, void *val, int *len)
{
  struct sock *sk = sock->sk;
  int v;
  switch(name) {
  case SO_TYPE: v = sock->type; break;
  case SO_DOMAIN: v = AF_UNIX; break;
  case SO_PROTOCOL: v = 0; break;
  case SO_SNDBUF: v = READ_ONCE(sk->sk_sndbuf); break;
  case SO_RCVBUF: v = READ_ONCE(sk->sk_rcvbuf); break;
  case SO_PASSCRED: v = READ_ONCE(sk->passcred); break;
  case SO_ACCEPTCONN: v = READ_ONCE(sk->sk_state) == TCP_LISTEN; break;
  case SO_ERROR:
    mutex_lock(&sk->sk_lock);
    v = sk->sk_err;
    sk->sk_err = 0;
    mutex_unlock(&sk->sk_lock);
    break;
  case SO_PEERCRED: {
    mutex_lock(&sk->sk_lock);
    struct ucred c = sk->sk_peer_cred;
    mutex_unlock(&sk->sk_lock);
    *len = MIN(*len, (int)sizeof(c));
    memcpy(val, &c, (size_t)*len);
    return 0;
  }
  case SO_REUSEADDR: case SO_KEEPALIVE: case SO_BROADCAST: case SO_DEBUG: case SO_DONTROUTE:
  case SO_OOBINLINE: case SO_PRIORITY: case SO_REUSEPORT:
    v = 0;
    break;
  case SO_RCVLOWAT: case SO_SNDLOWAT: v = 1; break;
  default:
    return -ENOPROTOOPT;
  }
  *len = MIN(*len, (int)sizeof(v));
  memcpy(val, &v, (size_t)*len);
  return 0;
}

// setsockopt(2) at SOL_SOCKET with an int (the caller read it; len at least an int's):
// SO_SNDBUF and SO_RCVBUF are kept as Linux keeps them (doubled, at least its minimum, at
// most twice net.core.wmem_max) for getsockopt, the queue's bound stays; SO_PASSCRED is
// kept (autobind); the generic flags are taken and change nothing; others ENOPROTOOPT.
int
sock_setsockopt(struct socket *sock, int name, int val, int len)
{
  struct sock *sk = sock->sk;
  switch(name) {
  case SO_SNDBUF: case SO_RCVBUF: {
    u32 v = (u32)MIN((u32)val, (u32)UNIX_BUF_DEFAULT) * 2;
    v = MAX(v, name == SO_SNDBUF ? 4608u : 2304u);   // Linux's SOCK_MIN_SNDBUF and RCVBUF
    WRITE_ONCE(*(name == SO_SNDBUF ? &sk->sk_sndbuf : &sk->sk_rcvbuf), (int)v);
    return 0;
  }
  case SO_PASSCRED:
    WRITE_ONCE(sk->passcred, val != 0);
    return 0;
  case SO_REUSEADDR: case SO_KEEPALIVE: case SO_BROADCAST: case SO_DEBUG: case SO_DONTROUTE:
  case SO_OOBINLINE: case SO_PRIORITY: case SO_REUSEPORT: case SO_RCVLOWAT: case SO_SNDLOWAT:
    return 0;
  case SO_LINGER:
    return len < 8 ? -EINVAL : 0;
  default:
    return -ENOPROTOOPT;
  }
}

// setsockopt and getsockopt: SOL_SOCKET only (AF_UNIX has no level of its own: EOPNOTSUPP, as
// Linux's sock_common_setsockopt with no protocol handler); an int's value (EINVAL when
// optlen is shorter).
long
sys_setsockopt(u64 fd, u64 level, u64 name, u64 uval, u64 optlen)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  int val = 0;
  if((int)level != SOL_SOCKET)
    err = -EOPNOTSUPP;
  else if((int)optlen < (int)sizeof(int))
    err = -EINVAL;
  else if(get_user(val, (int *)uval))
    err = -EFAULT;
  else
    err = sock_setsockopt(sock, (int)name, val, (int)optlen);
  fput(uf);
  return err;
}

long
sys_getsockopt(u64 fd, u64 level, u64 name, u64 uval, u64 ulen)
{
  struct ufile *uf;
  long err = 0;
  struct socket *sock = sockfd_lookup(fd, &uf, &err);
  if(!sock)
    return err;
  int len;
  union { int i; struct ucred c; } val;
  if((int)level != SOL_SOCKET)
    err = -EOPNOTSUPP;
  else if(get_user(len, (int *)ulen))
    err = -EFAULT;
  else if(len < 0)
    err = -EINVAL;
  else if(!(err = sock_getsockopt(sock, (int)name, &val, &len)) &&
          (copy_to_user((void *)uval, &val, (size_t)len) || put_user(len, (int *)ulen)))
    err = -EFAULT;
  fput(uf);
  return err;
}
