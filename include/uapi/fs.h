// lseek's whence and renameat2's flags with Linux's values (include/uapi/linux/fs.h): the one
// definition of each.
#pragma once

#define SEEK_SET  0
#define SEEK_CUR  1
#define SEEK_END  2
#define SEEK_DATA 3
#define SEEK_HOLE 4

#define RENAME_NOREPLACE 0x1   // -EEXIST rather than replace
#define RENAME_EXCHANGE  0x2   // swap two existing names
#define RENAME_WHITEOUT  0x4   // overlayfs's: not supported by ramfs (-EINVAL)
