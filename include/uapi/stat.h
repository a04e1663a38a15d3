// File types and permission bits, utimensat's and statx's constants, with Linux's values
// (include/uapi/linux/stat.h): stat reports them unchanged, cpio headers carry them as they are.
#pragma once

// File types and permission bits, with Linux's values (include/uapi/linux/stat.h): stat
// reports them unchanged and the initramfs's cpio headers carry them as they are.
#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_IALLUGO 07777   // set-id, sticky and rwx bits: what chmod changes
#define S_ISUID  04000
#define S_ISGID  02000
#define S_ISVTX  01000
#define S_IXGRP  00010
#define S_ISDIR(m)  (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m)  (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m)  (((m) & S_IFMT) == S_IFLNK)
#define S_ISCHR(m)  (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m)  (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

// utimensat's special tv_nsec values.
#define UTIME_NOW  ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)

// statx(2)'s mask bits.
#define STATX_BASIC_STATS 0x7ffu        // type, mode, nlink, uid, gid, times, ino, size, blocks
#define STATX_BTIME       0x800u
#define STATX__RESERVED   0x80000000u
