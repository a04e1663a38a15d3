// One segment of a vector (readv, writev, sendmsg, recvmsg) as user space lays it out
// (Linux's include/uapi/linux/uio.h); UIO_MAXIOV is in uapi/limits.h.
#pragma once
#include "types.h"

struct iovec {
  u64 iov_base;   // a user address
  u64 iov_len;
};
