// The ABI's size limits with Linux's values (include/uapi/linux/limits.h, uio.h): the one
// definition of each.
#pragma once

#define NAME_MAX   255    // bytes in one name
#define PATH_MAX   4096   // bytes in a path, with its NUL
#define PIPE_BUF   4096   // the most a pipe write keeps whole (man 7 pipe)
#define UIO_MAXIOV 1024   // iovecs in one readv or writev (glibc's IOV_MAX)
