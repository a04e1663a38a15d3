// Error numbers, returned negated by kernel functions (-ENOMEM), with Linux's values
// (include/uapi/asm-generic/errno-base.h and errno.h) so results read the same as in Linux.
#pragma once

#ifdef __KERNEL_HOST_TEST
// Host tests put include/ on the search path, so this file would hide the C library's
// errno.h from system headers that need its errno; the library's values are Linux's.
#include_next <errno.h>
#else

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define ECHILD 10
#define EBADF 9
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ENOTTY 25
#define EFBIG 27
#define ENOSPC 28
#define ESPIPE 29
#define EPIPE 32
#define ERANGE 34
#define EDEADLK 35   // a record lock's wait would close a cycle
#define ENAMETOOLONG 36
#define ENOSYS 38
#define ENOTEMPTY 39
#define ELOOP 40
#define EIDRM 43     // a System V IPC object removed while a call waited on it
#define ENODATA 61   // no such extended attribute
#define EOVERFLOW 75
#define ELIBBAD 80   // an interpreter (PT_INTERP) that is not one
#define ENOTSOCK 88        // a socket call on an fd that is not a socket
#define EDESTADDRREQ 89
#define EMSGSIZE 90        // a datagram bigger than the socket's buffer
#define EPROTOTYPE 91      // connect to a socket of another type
#define ENOPROTOOPT 92     // an unknown socket option
#define EPROTONOSUPPORT 93
#define ESOCKTNOSUPPORT 94
#define EOPNOTSUPP 95
#define EAFNOSUPPORT 97    // a socket family this kernel has not (every one but AF_UNIX)
#define EADDRINUSE 98
#define ENOBUFS 105
#define ECONNRESET 104
#define EISCONN 106
#define ENOTCONN 107
#define ECONNREFUSED 111
#define EALREADY 114
#define ETIMEDOUT 110

#endif
