// The socket ABI with Linux's values (include/linux/socket.h, include/uapi/linux/un.h,
// asm-generic/socket.h, linux/net.h): families, types, message flags, the options of
// SOL_SOCKET, and the x86-64 layouts of sockaddr_un, msghdr, cmsghdr and ucred.
#pragma once
#include "types.h"

#define AF_UNSPEC 0
#define AF_UNIX   1      // also AF_LOCAL; PF_UNIX is the one protocol number it takes
#define AF_INET   2
#define AF_INET6  10
#define AF_MAX    46     // families at or past this: EAFNOSUPPORT at once (Linux's NPROTO)

#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3   // AF_UNIX takes it as SOCK_DGRAM
#define SOCK_RDM       4
#define SOCK_SEQPACKET 5
#define SOCK_PACKET    10
#define SOCK_MAX       11
#define SOCK_TYPE_MASK 0xf
#define SOCK_CLOEXEC   02000000   // O_CLOEXEC
#define SOCK_NONBLOCK  04000      // O_NONBLOCK

#define MSG_OOB          0x1
#define MSG_PEEK         0x2
#define MSG_DONTROUTE    0x4
#define MSG_CTRUNC       0x8
#define MSG_TRUNC        0x20
#define MSG_DONTWAIT     0x40
#define MSG_EOR          0x80
#define MSG_WAITALL      0x100
#define MSG_NOSIGNAL     0x4000
#define MSG_CMSG_CLOEXEC 0x40000000

#define SHUT_RD   0
#define SHUT_WR   1
#define SHUT_RDWR 2

#define SOL_SOCKET 1
#define SO_DEBUG      1
#define SO_REUSEADDR  2
#define SO_TYPE       3
#define SO_ERROR      4
#define SO_DONTROUTE  5
#define SO_BROADCAST  6
#define SO_SNDBUF     7
#define SO_RCVBUF     8
#define SO_KEEPALIVE  9
#define SO_OOBINLINE  10
#define SO_PRIORITY   12
#define SO_LINGER     13
#define SO_REUSEPORT  15
#define SO_PASSCRED   16
#define SO_PEERCRED   17
#define SO_RCVLOWAT   18
#define SO_SNDLOWAT   19
#define SO_RCVTIMEO   20
#define SO_SNDTIMEO   21
#define SO_ACCEPTCONN 30
#define SO_PROTOCOL   38
#define SO_DOMAIN     39

#define SCM_RIGHTS      1
#define SCM_CREDENTIALS 2
#define SCM_MAX_FD      253   // fds in one SCM_RIGHTS message (Linux's limit)

#define SOMAXCONN 4096        // listen's backlog is cut to this (Linux 5.4's default)
#define UNIX_PATH_MAX 108

struct sockaddr_un {
  u16 sun_family;
  char sun_path[UNIX_PATH_MAX];   // a path (NUL-terminated or not), or \0 and an abstract name
};

// The largest address any family takes (Linux's sockaddr_storage): msg_namelen's bound.
#define SOCKADDR_STORAGE_SIZE 128

// struct msghdr as user space lays it out (Linux's user_msghdr).
struct user_msghdr {
  u64 msg_name;
  s32 msg_namelen;
  u64 msg_iov;
  u64 msg_iovlen;
  u64 msg_control;
  u64 msg_controllen;
  u32 msg_flags;
};

struct cmsghdr {
  u64 cmsg_len;     // the header and its data, not the padding after it
  s32 cmsg_level;
  s32 cmsg_type;
};
#define CMSG_ALIGN(len) (((len) + sizeof(u64) - 1) & ~(sizeof(u64) - 1))
#define CMSG_LEN(len) (sizeof(struct cmsghdr) + (len))
#define CMSG_SPACE(len) (sizeof(struct cmsghdr) + CMSG_ALIGN(len))

struct ucred {
  u32 pid, uid, gid;
};
