// statfs(2)'s struct as x86-64 lays it out (asm-generic/statfs.h: 120 bytes, longs but for
// f_fsid), its flags (include/linux/statfs.h) and ramfs's magic (include/uapi/linux/magic.h).
#pragma once

#define RAMFS_MAGIC 0x858458f6
#define ST_VALID 0x0020      // f_flags holds the mount's flags
#define ST_RELATIME 0x1000   // atime marked as relatime does

struct statfs {
  long f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree;
  int f_fsid[2];
  long f_namelen, f_frsize, f_flags, f_spare[4];
};
