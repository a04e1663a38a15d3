// Extended attributes' limits and setxattr's flags (Linux's include/uapi/linux/limits.h and
// xattr.h).
#pragma once

#define XATTR_NAME_MAX 255     // bytes of a name, without its NUL
#define XATTR_SIZE_MAX 65536   // bytes of a value
#define XATTR_CREATE 0x1       // setxattr: fail if the attribute exists
#define XATTR_REPLACE 0x2      // setxattr: fail if it does not
