// Path names split into names and hashed: the part of the path walk that only reads the
// string. fs/namei.c walks the dentries; tests/host/test_path.c checks this file alone.
#include "errno.h"
#include "namei.h"

// FNV-1a (Fowler, Noll, Vo): one multiply per byte, good spread for short names.
u32
name_hash(const char *name, u32 len)
{
  u32 h = 2166136261u;
  for(u32 i = 0; i < len; i++)
    h = (h ^ (u8)name[i]) * 16777619u;
  return h;
}

int
path_check(const char *path, bool relative)
{
  if(!path)
    return -EINVAL;
  if(path[0] == 0)
    return -ENOENT;   // POSIX: an empty path names nothing
  if(path[0] != '/' && !relative)
    return -EINVAL;   // a walk with no directory to start from starts at "/" only
  for(u32 n = 0; n < PATH_MAX; n++)
    if(path[n] == 0)
      return 0;
  return -ENAMETOOLONG;
}

int
path_next(const char **pathp, struct qstr *name)
{
  const char *p = *pathp;
  while(*p == '/')
    p++;
  if(*p == 0) {
    *pathp = p;
    return 0;
  }
  u32 len = 0;
  while(p[len] && p[len] != '/')
    if(++len > NAME_MAX)
      return -ENAMETOOLONG;
  name->name = p;
  name->len = len;
  *pathp = p + len;
  if(p[0] == '.' && (len == 1 || (len == 2 && p[1] == '.')))
    return len == 1 ? PATH_DOT : PATH_DOTDOT;   // no hash: never looked up in the dcache
  name->hash = name_hash(p, len);
  return PATH_NAME;
}

bool
path_last(const char *path)
{
  while(*path == '/')
    path++;
  return *path == 0;
}

bool
path_trailing_slash(const char *path)
{
  const char *end = path;
  while(*end)
    end++;
  return end > path && end[-1] == '/';
}
