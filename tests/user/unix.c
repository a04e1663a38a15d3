// unix: AF_UNIX sockets against Linux's answers (man 7 unix): socketpair of each type, names
// (paths, abstract, autobind), connect/listen/accept with backlogs and signals, shutdown,
// EPIPE/SIGPIPE/ECONNRESET, buffers filled, SCM_RIGHTS and the collection of sockets in flight
// in cycles (unix_gc.h), poll and epoll, options, hostile input.
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "unix"
#include "check.h"

static long moved;   // bytes that went through sockets: the verdict needs real traffic

static int
status_of(pid_t c)
{
  int st = -1;
  if(c <= 0 || waitpid(c, &st, 0) != c)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static socklen_t
mkaddr(struct sockaddr_un *a, const char *path)
{
  memset(a, 0, sizeof(*a));
  a->sun_family = AF_UNIX;
  snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

static void
on_alarm(int sig)
{
  (void)sig;
}

static void
errnos(void)
{
  int p[2];
  check(pipe(p) == 0, "a pipe");
  struct sockaddr_un a;
  socklen_t l = sizeof(a);
  FAILS(getpeername(p[0], (struct sockaddr *)&a, &l), ENOTSOCK);
  FAILS(getsockname(999, (struct sockaddr *)&a, &l), EBADF);
  FAILS(send(p[1], "x", 1, 0), ENOTSOCK);
  FAILS(listen(p[0], 1), ENOTSOCK);
  FAILS(socket(99, SOCK_STREAM, 0), EAFNOSUPPORT);
  FAILS(socket(AF_UNIX, 7, 0), ESOCKTNOSUPPORT);
  FAILS(socket(AF_UNIX, SOCK_PACKET, 0), ESOCKTNOSUPPORT);
  FAILS(socket(AF_UNIX, SOCK_STREAM | 0x100, 0), EINVAL);
  FAILS(socket(AF_UNIX, SOCK_STREAM, 2), EPROTONOSUPPORT);
  int s = socket(AF_INET, SOCK_STREAM, 0);   // the host has a network; the kernel has none
  check(s >= 0 || errno == EAFNOSUPPORT, "AF_INET: a socket, or EAFNOSUPPORT");
  if(s >= 0)
    close(s);
  s = socket(AF_UNIX, SOCK_RAW, 0);
  int t = -1;
  socklen_t tl = sizeof(t);
  check(s >= 0 && getsockopt(s, SOL_SOCKET, SO_TYPE, &t, &tl) == 0 && t == SOCK_DGRAM,
        "SOCK_RAW is SOCK_DGRAM");
  close(s);
  FAILS(socketpair(AF_UNIX, SOCK_STREAM, 0, NULL), EFAULT);
  close(p[0]);
  close(p[1]);
}

static void
pairs(void)
{
  int sv[2];
  char buf[256];
  check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "stream socketpair");
  check(fcntl(sv[0], F_GETFD) == FD_CLOEXEC, "SOCK_CLOEXEC");
  struct stat st;
  check(fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode), "fstat: S_IFSOCK");
  FAILS(lseek(sv[0], 0, SEEK_SET), ESPIPE);
  check(write(sv[0], "hello", 5) == 5 && read(sv[1], buf, sizeof(buf)) == 5 &&
        !memcmp(buf, "hello", 5), "write and read");
  struct iovec w[3] = { { "ab", 2 }, { "", 0 }, { "cde", 3 } };
  char r1[2], r2[8];
  struct iovec r[2] = { { r1, 2 }, { r2, 8 } };
  check(writev(sv[1], w, 3) == 5 && readv(sv[0], r, 2) == 5 && !memcmp(r1, "ab", 2) &&
        !memcmp(r2, "cde", 3), "writev and readv");
  check(send(sv[0], "peek", 4, 0) == 4 && recv(sv[1], buf, 4, MSG_PEEK) == 4 &&
        recv(sv[1], buf, 2, 0) == 2 && recv(sv[1], buf, 8, 0) == 2 && !memcmp(buf, "ek", 2),
        "MSG_PEEK leaves the bytes");
  FAILS(recv(sv[1], buf, 8, MSG_DONTWAIT), EAGAIN);
  int v = 0;
  socklen_t vl = sizeof(v);
  check(getsockopt(sv[0], SOL_SOCKET, SO_DOMAIN, &v, &vl) == 0 && v == AF_UNIX, "SO_DOMAIN");
  vl = sizeof(v);
  check(getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, &vl) == 0 && v > 0 && vl == sizeof(v), "SO_SNDBUF");
  vl = sizeof(v);
  check(getsockopt(sv[0], SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) == 0 && v == 0, "SO_ACCEPTCONN 0");
  vl = sizeof(v);
  check(getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &v, &vl) == 0 && v == 0, "SO_ERROR 0");
  struct ucred cr;
  socklen_t cl = sizeof(cr);
  check(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cl == sizeof(cr) &&
        cr.pid == getpid() && cr.uid == getuid() && cr.gid == getgid(), "SO_PEERCRED of a pair");
  vl = sizeof(v);
  FAILS(getsockopt(sv[0], SOL_SOCKET, 9999, &v, &vl), ENOPROTOOPT);
  FAILS(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, NULL), EFAULT);
  v = 1;
  check(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &v, sizeof(v)) == 0, "SO_PASSCRED set");
  v = 65536;
  check(setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0, "SO_RCVBUF set");
  FAILS(setsockopt(sv[0], SOL_SOCKET, 9999, &v, sizeof(v)), ENOPROTOOPT);
  FAILS(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, 2), EINVAL);
  // MSG_WAITALL: a child writes in three pieces.
  pid_t c = fork();
  if(c == 0) {
    for(int i = 0; i < 3; i++) {
      usleep(20000);
      if(write(sv[0], "abc", 3) != 3)
        _exit(1);
    }
    _exit(0);
  }
  check(recv(sv[1], buf, 9, MSG_WAITALL) == 9 && !memcmp(buf, "abcabcabc", 9) &&
        status_of(c) == 0, "MSG_WAITALL waits for all 9 bytes");
  moved += 9;
  // shutdown: the peer reads end of file, this side's sends are EPIPE, the peer polls RDHUP.
  FAILS(shutdown(sv[0], 5), EINVAL);
  check(shutdown(sv[0], SHUT_WR) == 0, "SHUT_WR");
  struct pollfd pf = { sv[1], POLLIN | POLLRDHUP, 0 };
  check(poll(&pf, 1, 0) == 1 && (pf.revents & POLLRDHUP) && (pf.revents & POLLIN),
        "the peer polls POLLRDHUP");
  check(read(sv[1], buf, 8) == 0, "the peer reads end of file");
  FAILS(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
  check(send(sv[1], "y", 1, 0) == 1 && read(sv[0], buf, 1) == 1, "the other way still works");
  close(sv[0]);
  close(sv[1]);
  // The peer closes: reads are 0; sends EPIPE, and SIGPIPE without MSG_NOSIGNAL. Unread data
  // left behind: ECONNRESET once, then 0.
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "another pair");
  send(sv[0], "left", 4, 0);
  close(sv[0]);
  check(recv(sv[1], buf, 8, 0) == 4, "bytes before the close are read");
  check(recv(sv[1], buf, 8, 0) == 0, "then end of file");
  pf = (struct pollfd){ sv[1], POLLIN | POLLOUT, 0 };
  check(poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP), "POLLHUP after the peer's close");
  FAILS(send(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE);
  c = fork();
  if(c == 0) {
    signal(SIGPIPE, SIG_DFL);
    write(sv[1], "x", 1);
    _exit(0);
  }
  check(status_of(c) == 1000 + SIGPIPE, "write to a closed peer: SIGPIPE");
  close(sv[1]);
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && send(sv[0], "unread", 6, 0) == 6,
        "a pair with unread bytes");
  close(sv[1]);
  FAILS(recv(sv[0], buf, 8, 0), ECONNRESET);
  check(recv(sv[0], buf, 8, 0) == 0, "ECONNRESET once, then end of file");
  close(sv[0]);
  // A nonblocking pair fills: EAGAIN after a bounded amount, no POLLOUT, then room again.
  check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0, "a nonblocking pair");
  static char big[65536];
  long total = 0, n;
  while((n = send(sv[0], big, sizeof(big), 0)) > 0)
    total += n;
  check(n == -1 && errno == EAGAIN && total >= 100000 && total <= 4 << 20,
        "the buffer fills after 100 KB to 4 MB");
  pf = (struct pollfd){ sv[0], POLLOUT, 0 };
  check(poll(&pf, 1, 0) == 0, "no POLLOUT when full");
  long got = 0;
  while((n = read(sv[1], big, sizeof(big))) > 0)
    got += n;
  check(got == total, "everything written is read");
  moved += got;
  check(poll(&pf, 1, 0) == 1 && (pf.revents & POLLOUT), "POLLOUT once drained");
  close(sv[0]);
  close(sv[1]);
  // Datagrams keep their boundaries; MSG_TRUNC; a closed peer: ECONNREFUSED, then ENOTCONN.
  check(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "datagram pair");
  check(send(sv[0], "one", 3, 0) == 3 && send(sv[0], "three", 5, 0) == 5 &&
        send(sv[0], "", 0, 0) == 0, "three datagrams, one empty");
  check(recv(sv[1], buf, 8, 0) == 3 && recv(sv[1], buf, 2, MSG_TRUNC) == 5 &&
        recv(sv[1], buf, 8, 0) == 0, "each read alone; MSG_TRUNC gives the whole length");
  FAILS(send(sv[0], big, 300000, 0), EMSGSIZE);
  close(sv[1]);
  FAILS(send(sv[0], "x", 1, 0), ECONNREFUSED);
  FAILS(send(sv[0], "x", 1, 0), ENOTCONN);
  close(sv[0]);
  check(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "seqpacket pair");
  char r3[3];
  struct iovec io = { r3, 3 };
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1 };
  check(send(sv[0], "abcdef", 6, 0) == 6 && recvmsg(sv[1], &m, 0) == 3 &&
        (m.msg_flags & MSG_TRUNC) && !memcmp(r3, "abc", 3), "a record cut: MSG_TRUNC");
  FAILS(recv(sv[1], buf, 8, MSG_DONTWAIT), EAGAIN);
  close(sv[0]);
  check(recv(sv[1], buf, 8, 0) == 0, "seqpacket: end of file after the peer's close");
  close(sv[1]);
}

static void
names(const char *dir)
{
  char path[200], buf[64];
  struct sockaddr_un a, b;
  snprintf(path, sizeof(path), "%s/srv", dir);
  socklen_t al = mkaddr(&a, path);
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(connect(c, (struct sockaddr *)&a, al), ENOENT);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(listen(s, 1), EINVAL);
  check(bind(s, (struct sockaddr *)&a, al) == 0, "bind a path");
  struct stat st;
  check(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "the path is S_IFSOCK");
  FAILS(bind(s, (struct sockaddr *)&a, al), EADDRINUSE);   // the name is checked first
  snprintf(path, sizeof(path), "%s/srv2", dir);
  mkaddr(&b, path);
  FAILS(bind(s, (struct sockaddr *)&b, al + 1), EINVAL);   // bound already
  check(access(path, F_OK) == -1, "the refused bind left no name");
  snprintf(path, sizeof(path), "%s/srv", dir);
  int s2 = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(bind(s2, (struct sockaddr *)&a, al), EADDRINUSE);
  socklen_t bl = sizeof(b);
  check(getsockname(s, (struct sockaddr *)&b, &bl) == 0 && bl == al && !strcmp(b.sun_path, path),
        "getsockname: the path and its NUL");
  FAILS(connect(c, (struct sockaddr *)&a, al), ECONNREFUSED);
  int dg = socket(AF_UNIX, SOCK_DGRAM, 0);
  FAILS(connect(dg, (struct sockaddr *)&a, al), EPROTOTYPE);
  close(dg);
  check(listen(s, 1) == 0, "listen");
  int v = 0;
  socklen_t vl = sizeof(v);
  check(getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) == 0 && v == 1, "SO_ACCEPTCONN 1");
  FAILS(accept4(s, NULL, NULL, SOCK_NONBLOCK | 0x4), EINVAL);
  fcntl(s, F_SETFL, O_NONBLOCK);
  FAILS(accept(s, NULL, NULL), EAGAIN);
  fcntl(s, F_SETFL, 0);
  // The backlog: listen(1) takes two connections, then a nonblocking connect is EAGAIN.
  int n1 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int n2 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int n3 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  check(connect(n1, (struct sockaddr *)&a, al) == 0 && connect(n2, (struct sockaddr *)&a, al) == 0,
        "two connections queued");
  FAILS(connect(n3, (struct sockaddr *)&a, al), EAGAIN);
  struct pollfd pf = { s, POLLIN, 0 };
  check(poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN), "the listener polls POLLIN");
  bl = sizeof(b);
  int a1 = accept4(s, (struct sockaddr *)&b, &bl, SOCK_CLOEXEC);
  check(a1 >= 0 && bl == sizeof(sa_family_t) && fcntl(a1, F_GETFD) == FD_CLOEXEC,
        "accept: an unbound peer's name is the family alone");
  check(send(n1, "to", 2, 0) == 2 && recv(a1, buf, 8, 0) == 2, "the accepted socket talks");
  FAILS(connect(n1, (struct sockaddr *)&a, al), EISCONN);   // (Linux checks the backlog first)
  bl = sizeof(b);
  check(getsockname(a1, (struct sockaddr *)&b, &bl) == 0 && !strcmp(b.sun_path, path),
        "the accepted socket is named as the listener");
  bl = sizeof(b);
  check(getpeername(n1, (struct sockaddr *)&b, &bl) == 0 && !strcmp(b.sun_path, path),
        "the connecter's peer is the listener's name");
  int a2 = accept(s, NULL, NULL);
  check(a2 >= 0, "the second connection");
  close(n2);
  check(recv(a2, buf, 8, 0) == 0, "its connecter closed: end of file");
  // A child connects from its own process: SO_PEERCRED names it.
  pid_t child = fork();
  if(child == 0) {
    int k = socket(AF_UNIX, SOCK_STREAM, 0);
    _exit(connect(k, (struct sockaddr *)&a, al) == 0 && write(k, "c", 1) == 1 ? 0 : 1);
  }
  int a3 = accept(s, NULL, NULL);
  struct ucred cr;
  socklen_t cl = sizeof(cr);
  check(a3 >= 0 && getsockopt(a3, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cr.pid == child,
        "SO_PEERCRED: the connecting child");
  check(status_of(child) == 0, "the child connected");
  // accept is interrupted by a signal whose handler has no SA_RESTART.
  struct sigaction sa = { .sa_handler = on_alarm };
  sigaction(SIGALRM, &sa, NULL);
  ualarm(50000, 0);
  FAILS(accept(s, NULL, NULL), EINTR);
  // A connect that waits for the backlog gets in once accept makes room.
  close(a1);
  close(a2);
  close(a3);
  close(n1);
  close(n3);
  close(c);
  close(s2);
  // Connect to what is not a socket: ECONNREFUSED; after unlink, ENOENT; bind over a file:
  // EADDRINUSE.
  close(s);
  c = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(connect(c, (struct sockaddr *)&a, al), ECONNREFUSED);
  check(unlink(path) == 0, "unlink the name");
  FAILS(connect(c, (struct sockaddr *)&a, al), ENOENT);
  snprintf(path, sizeof(path), "%s/file", dir);
  al = mkaddr(&a, path);
  close(open(path, O_CREAT | O_WRONLY, 0600));
  FAILS(connect(c, (struct sockaddr *)&a, al), ECONNREFUSED);
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(bind(s, (struct sockaddr *)&a, al), EADDRINUSE);
  unlink(path);
  close(s);
  // Hostile addresses: lengths, family, NULL, an unterminated 108-byte path.
  FAILS(bind(c, (struct sockaddr *)&a, sizeof(a) + 1), EINVAL);
  FAILS(connect(c, (struct sockaddr *)&a, 1), EINVAL);
  FAILS(connect(c, (struct sockaddr *)&a, sizeof(sa_family_t)), EINVAL);
  FAILS(bind(c, NULL, 10), EFAULT);
  FAILS(connect(c, (struct sockaddr *)8, sizeof(a)), EFAULT);
  FAILS(bind(c, (struct sockaddr *)&a, -1), EINVAL);
  a.sun_family = AF_INET;
  FAILS(bind(c, (struct sockaddr *)&a, al), EINVAL);
  bl = sizeof(b);
  FAILS(getsockname(c, NULL, &bl), EFAULT);
  FAILS(getpeername(c, (struct sockaddr *)&b, &bl), ENOTCONN);
  close(c);
  char cwd[256];
  check(getcwd(cwd, sizeof(cwd)) != NULL && chdir(dir) == 0, "into the directory");
  a.sun_family = AF_UNIX;
  memset(a.sun_path, 'u', sizeof(a.sun_path));
  s = socket(AF_UNIX, SOCK_DGRAM, 0);
  check(bind(s, (struct sockaddr *)&a, sizeof(a)) == 0, "bind an unterminated 108-byte name");
  char name[109];
  memset(name, 'u', 108);
  name[108] = 0;
  check(stat(name, &st) == 0 && S_ISSOCK(st.st_mode), "its 108-byte path exists");
  int d = socket(AF_UNIX, SOCK_DGRAM, 0);
  check(sendto(d, "to108", 5, 0, (struct sockaddr *)&a, sizeof(a)) == 5 &&
        recv(s, buf, 8, 0) == 5, "a datagram to it");
  unlink(name);
  close(s);
  close(d);
  check(chdir(cwd) == 0, "back");
}

static void
abstract_and_dgram(void)
{
  struct sockaddr_un a = { AF_UNIX }, b;
  char buf[64];
  snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "unix-test-%d", getpid());
  socklen_t al = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
  int s = socket(AF_UNIX, SOCK_DGRAM, 0);
  check(bind(s, (struct sockaddr *)&a, al) == 0, "bind an abstract name");
  int s2 = socket(AF_UNIX, SOCK_DGRAM, 0);
  FAILS(bind(s2, (struct sockaddr *)&a, al), EADDRINUSE);
  socklen_t bl = sizeof(b);
  check(getsockname(s, (struct sockaddr *)&b, &bl) == 0 && bl == al && !memcmp(&a, &b, al),
        "getsockname: the abstract name, its exact length");
  int d = socket(AF_UNIX, SOCK_DGRAM, 0);
  bl = sizeof(b);
  memset(&b, 0x55, sizeof(b));
  check(sendto(d, "anon", 4, 0, (struct sockaddr *)&a, al) == 4 &&
        recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&b, &bl) == 4 && bl == 0,
        "from an unbound sender: no name");
  check(bind(s2, (struct sockaddr *)&a, sizeof(sa_family_t)) == 0, "autobind by bind");
  bl = sizeof(b);
  check(getsockname(s2, (struct sockaddr *)&b, &bl) == 0 && bl == 8 && b.sun_path[0] == 0,
        "autobind: \\0 and five hex digits");
  struct sockaddr_un auto_name = b;
  bl = sizeof(b);
  check(sendto(s2, "named", 5, 0, (struct sockaddr *)&a, al) == 5 &&
        recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&b, &bl) == 5 && bl == 8 &&
        !memcmp(&b, &auto_name, 8), "recvfrom gives the sender's name");
  // A receiver connected elsewhere refuses: EPERM. Unconnected senders fill its queue.
  check(connect(s, (struct sockaddr *)&auto_name, 8) == 0, "the receiver connects to s2");
  FAILS(sendto(d, "x", 1, 0, (struct sockaddr *)&a, al), EPERM);
  check(connect(s, (struct sockaddr *)&(struct sockaddr_un){ AF_UNSPEC }, sizeof(sa_family_t)) == 0,
        "AF_UNSPEC disconnects");
  int nb = 0;
  while(sendto(d, "q", 1, MSG_DONTWAIT, (struct sockaddr *)&a, al) == 1 && nb < 100000)
    nb++;
  check(errno == EAGAIN && nb >= 5 && nb < 100000, "a full datagram queue: EAGAIN");
  while(recv(s, buf, sizeof(buf), MSG_DONTWAIT) > 0)
    moved++;
  int st = socket(AF_UNIX, SOCK_STREAM, 0);
  FAILS(connect(st, (struct sockaddr *)&a, al), ECONNREFUSED);   // abstract: found by type too
  FAILS(listen(s, 1), EOPNOTSUPP);
  close(st);
  close(s);
  FAILS(sendto(d, "x", 1, 0, (struct sockaddr *)&a, al), ECONNREFUSED);
  FAILS(send(d, "x", 1, 0), ENOTCONN);
  close(d);
  close(s2);
}

// SCM_RIGHTS: a pipe's end passed and used; MSG_CTRUNC; files held in flight and dropped
// with a socket closed unread; bad control messages.
static int
send_fds_flags(int s, const int *fds, int n, int flags)
{
  char cbuf[CMSG_SPACE(sizeof(int) * 8)];
  struct iovec io = { "F", 1 };
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
                      .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
  struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
  memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
  return (int)sendmsg(s, &m, flags);
}

static int
send_fds(int s, const int *fds, int n)
{
  return send_fds_flags(s, fds, n, 0);
}

static void
rights(void)
{
  int sv[2], p[2];
  char buf[16];
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(p) == 0, "a pair and a pipe");
  check(send_fds(sv[0], &p[0], 1) == 1, "send the pipe's read end");
  close(p[0]);
  char cbuf[CMSG_SPACE(sizeof(int) * 4)];
  struct iovec io = { buf, sizeof(buf) };
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
                      .msg_controllen = sizeof(cbuf) };
  check(recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC) == 1 && !(m.msg_flags & MSG_CTRUNC), "receive it");
  struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
  int got = -1;
  check(cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
        cm->cmsg_len == CMSG_LEN(sizeof(int)) && m.msg_controllen == CMSG_SPACE(sizeof(int)),
        "one SCM_RIGHTS message");
  if(cm)
    memcpy(&got, CMSG_DATA(cm), sizeof(int));
  check(got >= 0 && fcntl(got, F_GETFD) == FD_CLOEXEC, "MSG_CMSG_CLOEXEC");
  check(write(p[1], "via", 3) == 3 && read(got, buf, 3) == 3 && !memcmp(buf, "via", 3),
        "the passed fd reads the pipe");
  close(got);
  // Three fds, room for one: MSG_CTRUNC, the others closed.
  int three[3] = { p[1], p[1], p[1] };
  check(send_fds(sv[0], three, 3) == 1, "send three");
  char small[CMSG_SPACE(sizeof(int))];
  m = (struct msghdr){ .msg_iov = &io, .msg_iovlen = 1, .msg_control = small,
                       .msg_controllen = sizeof(small) };
  check(recvmsg(sv[1], &m, 0) == 1 && (m.msg_flags & MSG_CTRUNC), "room for two: MSG_CTRUNC");
  cm = CMSG_FIRSTHDR(&m);
  // CMSG_SPACE(4) is 24 bytes: room for two ints after the header, and Linux fills both.
  check(cm && cm->cmsg_len == CMSG_LEN(2 * sizeof(int)), "two fds came");
  if(cm) {
    int two[2];
    memcpy(two, CMSG_DATA(cm), sizeof(two));
    close(two[0]);
    close(two[1]);
  }
  check(send_fds(sv[0], &p[1], 1) == 1, "send one more");
  m = (struct msghdr){ .msg_iov = &io, .msg_iovlen = 1 };
  check(recvmsg(sv[1], &m, 0) == 1 && (m.msg_flags & MSG_CTRUNC) && m.msg_controllen == 0,
        "no control buffer: MSG_CTRUNC");
  // The read end in flight, every fd of it closed, then the socket closed unread: the pipe
  // has no reader left (the file was dropped with the message), so a write is EPIPE.
  check(pipe(p) == 0 && send_fds(sv[0], &p[0], 1) == 1, "a read end in flight");
  close(p[0]);
  signal(SIGPIPE, SIG_IGN);
  check(write(p[1], "x", 1) == 1, "in flight, the pipe still has its reader");
  close(sv[1]);
  FAILS(write(p[1], "x", 1), EPIPE);
  close(p[1]);
  close(sv[0]);
  // Bad control messages.
  check(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "a datagram pair");
  int bad = 999;
  FAILS(send_fds(sv[0], &bad, 1), EBADF);
  struct { struct cmsghdr h; int fd; } c = { { 1000, SOL_SOCKET, SCM_RIGHTS }, 0 };
  io = (struct iovec){ "x", 1 };
  m = (struct msghdr){ .msg_iov = &io, .msg_iovlen = 1, .msg_control = &c, .msg_controllen = sizeof(c) };
  FAILS(sendmsg(sv[0], &m, 0), EINVAL);
  m.msg_control = (void *)8;
  FAILS(sendmsg(sv[0], &m, 0), EFAULT);
  m = (struct msghdr){ .msg_iov = &io, .msg_iovlen = 1025 };
  FAILS(sendmsg(sv[0], &m, 0), EMSGSIZE);
  FAILS(sendmsg(sv[0], (struct msghdr *)8, 0), EFAULT);
  FAILS(recvmsg(sv[1], (struct msghdr *)8, 0), EFAULT);
  FAILS(send(sv[0], (void *)8, 10, 0), EFAULT);
  close(sv[0]);
  close(sv[1]);
}

#include "unix_gc.h"

// epoll wakes on data a child sends; /proc/self/fd lists a socket.
static void
readiness(void)
{
  int sv[2];
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "a pair for epoll");
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = sv[1] };
  check(epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], &ev) == 0, "epoll watches the socket");
  pid_t c = fork();
  if(c == 0) {
    usleep(30000);
    _exit(write(sv[0], "e", 1) == 1 ? 0 : 1);
  }
  check(epoll_wait(ep, &ev, 1, 5000) == 1 && ev.events == EPOLLIN, "epoll_wait wakes on data");
  check(status_of(c) == 0, "the writer");
  char fddir[64];
  snprintf(fddir, sizeof(fddir), "/proc/%d/fd", getpid());
  DIR *dir = opendir(fddir);
  char want[16];
  snprintf(want, sizeof(want), "%d", sv[1]);
  int seen = 0;
  for(struct dirent *e; dir && (e = readdir(dir));)
    seen |= !strcmp(e->d_name, want);
  if(dir)
    closedir(dir);
  check(seen, "/proc/<pid>/fd lists the socket");
  char path[64];
  struct stat st;
  snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[1]);
  check(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "stat through /proc/self/fd: S_IFSOCK");
  close(ep);
  close(sv[0]);
  close(sv[1]);
}

// Races: a thread sends while another closes the peer; processes do the same. Each send is
// whole or EPIPE; nothing hangs or leaks.
static int race_fd;

static void *
closer(void *arg)
{
  (void)arg;
  usleep(100);
  close(race_fd);
  return NULL;
}

static void
races(void)
{
  int bad = 0;
  for(int i = 0; i < 200; i++) {
    int sv[2];
    if(socketpair(AF_UNIX, i % 2 ? SOCK_STREAM : SOCK_SEQPACKET, 0, sv))
      bad++;
    race_fd = sv[1];
    pthread_t t;
    pthread_create(&t, NULL, closer, NULL);
    for(int k = 0; k < 50; k++) {
      long r = send(sv[0], "racing", 6, MSG_NOSIGNAL | MSG_DONTWAIT);
      if(r != 6 && !(r == -1 && (errno == EPIPE || errno == EAGAIN)))
        bad++;
    }
    pthread_join(t, NULL);
    close(sv[0]);
  }
  check(bad == 0, "200 races of send and close: whole sends or EPIPE");
  for(int i = 0; i < 20; i++) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid_t c = fork();
    if(c == 0) {
      close(sv[0]);
      char b[64];
      read(sv[1], b, sizeof(b));
      _exit(0);
    }
    close(sv[1]);
    for(int k = 0; k < 100; k++)
      if(send(sv[0], "p", 1, MSG_NOSIGNAL) < 0 && errno != EPIPE)
        bad++;
    close(sv[0]);
    if(status_of(c) != 0)
      bad++;
  }
  check(bad == 0, "20 processes reading once and exiting under sends");
}

int
main(void)
{
  alarm(60);   // a lost wake-up ends the test rather than hanging it
  signal(SIGPIPE, SIG_IGN);
  mkdir("/tmp", 01777);
  char dir[] = "/tmp/unixXXXXXX";
  check(mkdtemp(dir) != NULL, "a scratch directory");
  errnos();
  pairs();
  names(dir);
  abstract_and_dgram();
  rights();
  collector();
  readiness();
  races();
  rmdir(dir);
  printf("unix: %d checks, %d failed, %ld bytes moved\n", checks, fails, moved);
  return fails != 0 || checks < 150 || moved < 100000;
}
