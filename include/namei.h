// Path names: the limits, a name with its hash (qstr), and splitting a path into names.
// Pure functions of the string (fs/path.c), so the host test checks them with sanitizers.
#pragma once
#include "types.h"
#include "uapi/limits.h"

// Path walk modes (fs/namei.c): RCU-walk first, ref-walk when it cannot finish, or one alone.
#define LOOKUP_RCU_ONLY 0x1   // RCU-walk only: -EAGAIN when it cannot finish
#define LOOKUP_REF_ONLY 0x2   // ref-walk only: references and locks all the way
#define LOOKUP_NOFOLLOW 0x4   // a symbolic link as the last name is the result, not followed

struct qstr {
  const char *name;   // not NUL-terminated inside a path
  u32 len;
  u32 hash;
};

u32 name_hash(const char *name, u32 len);
// Checks a whole path before a walk: 0, or -EINVAL (NULL, or not absolute unless relative:
// the walk has a directory to start from), -ENOENT (empty), -ENAMETOOLONG (PATH_MAX bytes or
// more: the one limit on a path's depth, as Linux's getname).
int path_check(const char *path, bool relative);
// Takes the next name off *pathp, skipping slashes: PATH_NAME with *name filled (and
// hashed), PATH_DOT or PATH_DOTDOT for "." and "..", 0 at the end of the path, or
// -ENAMETOOLONG (over NAME_MAX).
enum { PATH_NAME = 1, PATH_DOT, PATH_DOTDOT };
int path_next(const char **pathp, struct qstr *name);
// True if only slashes are left: the name just taken was the last one.
bool path_last(const char *path);
// True if the path ends in a slash: its last name must be a directory.
bool path_trailing_slash(const char *path);
