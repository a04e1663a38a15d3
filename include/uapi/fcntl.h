// open(2)'s flags, the *at() calls' dirfd and flags, and fcntl(2)'s commands with Linux's
// x86-64 values (include/uapi/asm-generic/fcntl.h, include/uapi/linux/fcntl.h).
#pragma once

#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR      00000002
#define O_CREAT     00000100
#define O_EXCL      00000200
#define O_NOCTTY    00000400
#define O_TRUNC     00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DIRECT    00040000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000
#define O_TMPFILE   020200000   // __O_TMPFILE | O_DIRECTORY, as Linux defines it

#define AT_FDCWD            -100     // dirfd: the working directory
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS          0x200    // faccessat: the effective ids
#define AT_REMOVEDIR        0x200    // unlinkat: rmdir
#define AT_SYMLINK_FOLLOW   0x400
#define AT_NO_AUTOMOUNT     0x800
#define AT_EMPTY_PATH       0x1000
#define AT_STATX_SYNC_TYPE  0x6000   // FORCE_SYNC | DONT_SYNC: both at once is EINVAL

#define F_DUPFD         0
#define F_GETFD         1
#define F_SETFD         2
#define F_GETFL         3
#define F_SETFL         4
#define F_DUPFD_CLOEXEC 1030
#define F_SETPIPE_SZ    1031
#define F_GETPIPE_SZ    1032
#define FD_CLOEXEC      1

// posix_fadvise's advice (fadvise64)
#define POSIX_FADV_NORMAL     0
#define POSIX_FADV_RANDOM     1
#define POSIX_FADV_SEQUENTIAL 2
#define POSIX_FADV_WILLNEED   3
#define POSIX_FADV_DONTNEED   4
#define POSIX_FADV_NOREUSE    5

// Record locks (fcntl's F_GETLK...; fs/locks.c): the commands, the types, and struct flock as
// x86-64 lays it out (32 bytes: l_start at 8, l_pid at 24).
#define F_GETLK      5
#define F_SETLK      6
#define F_SETLKW     7
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
#define F_RDLCK      0
#define F_WRLCK      1
#define F_UNLCK      2

struct flock {
  short l_type, l_whence;
  long l_start, l_len;
  int l_pid;
};

// close_range(2)'s flags (include/uapi/linux/close_range.h).
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
