// epoll(7)'s ABI with Linux's values (include/uapi/linux/eventpoll.h): epoll_ctl's operations,
// the event bits beyond poll's, and struct epoll_event, packed on x86-64 (12 bytes).
#pragma once
#include "types.h"

#define EPOLL_CLOEXEC 02000000   // O_CLOEXEC

#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3

#define EPOLLIN        0x00000001
#define EPOLLPRI       0x00000002
#define EPOLLOUT       0x00000004
#define EPOLLERR       0x00000008
#define EPOLLHUP       0x00000010
#define EPOLLRDNORM    0x00000040
#define EPOLLRDBAND    0x00000080
#define EPOLLWRNORM    0x00000100
#define EPOLLWRBAND    0x00000200
#define EPOLLMSG       0x00000400
#define EPOLLRDHUP     0x00002000
#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP    (1U << 29)
#define EPOLLONESHOT   (1U << 30)
#define EPOLLET        (1U << 31)

struct epoll_event {
  u32 events;
  u64 data;
} __attribute__((packed));
