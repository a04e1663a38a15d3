// poll(2)'s event bits with Linux's values (include/uapi/asm-generic/poll.h):
// the one definition of each.
#pragma once

#define POLLIN     0x001
#define POLLPRI    0x002
#define POLLOUT    0x004
#define POLLERR    0x008
#define POLLHUP    0x010
#define POLLNVAL   0x020
#define POLLRDNORM 0x040
#define POLLRDBAND 0x080
#define POLLWRNORM 0x100
#define POLLWRBAND 0x200
#define POLLRDHUP  0x2000   // the peer shut its writing side (sockets)
