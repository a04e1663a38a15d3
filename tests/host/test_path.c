// Host test of fs/path.c: path checks, splitting into names, the limits and the hash,
// built from the kernel's own source with the host compiler and sanitizers.
#include <string.h>
#include "errno.h"
#include "check.h"
#include "namei.h"

static char buf[PATH_MAX + 16];

static const char *
repeat(char first, char c, size_t n)
{
  buf[0] = first;
  memset(buf + 1, c, n);
  buf[n + 1] = 0;
  return buf;
}

// Splits path; returns the number of names, or the error; names joined by '|' into out.
static int
split(const char *path, char *out)
{
  struct qstr q;
  int n = 0, r;
  out[0] = 0;
  while((r = path_next(&path, &q)) > 0) {
    if(n++)
      strcat(out, "|");
    strncat(out, q.name, q.len);
    CHECK(r != PATH_NAME || q.hash == name_hash(q.name, q.len));
    CHECK((r == PATH_DOT) == (q.len == 1 && q.name[0] == '.'));
    CHECK((r == PATH_DOTDOT) == (q.len == 2 && q.name[0] == '.' && q.name[1] == '.'));
  }
  return r < 0 ? r : n;
}

int
main(void)
{
  char out[PATH_MAX];
  CHECK(path_check(NULL, false) == -EINVAL);
  CHECK(path_check(NULL, true) == -EINVAL);
  CHECK(path_check("", false) == -ENOENT);
  CHECK(path_check("", true) == -ENOENT);
  CHECK(path_check("a/b", false) == -EINVAL);   // no directory to start from
  CHECK(path_check("a/b", true) == 0);          // the working directory or a dirfd's
  CHECK(path_check("../..", true) == 0);
  CHECK(path_check("/", false) == 0);
  CHECK(path_check(repeat('/', 'a', PATH_MAX - 2), false) == 0);   // 4095 bytes and the NUL
  CHECK(path_check(repeat('/', 'a', PATH_MAX - 1), false) == -ENAMETOOLONG);
  // A relative path has the same limit, and no other: its depth below the start is free.
  CHECK(path_check(repeat('/', 'a', PATH_MAX - 1) + 1, true) == 0);   // 4095 bytes
  CHECK(path_check(repeat('/', 'a', PATH_MAX) + 1, true) == -ENAMETOOLONG);

  CHECK(split("/", out) == 0);
  CHECK(split("//", out) == 0);
  CHECK(split("/a", out) == 1 && strcmp(out, "a") == 0);
  CHECK(split("//a///bc/", out) == 2 && strcmp(out, "a|bc") == 0);
  CHECK(split("/a/./b", out) == 3 && strcmp(out, "a|.|b") == 0);
  CHECK(split("/a/..", out) == 2 && strcmp(out, "a|..") == 0);
  CHECK(split("/..a/.b/...", out) == 3 && strcmp(out, "..a|.b|...") == 0);
  CHECK(split(repeat('/', 'n', NAME_MAX), out) == 1 && strlen(out) == NAME_MAX);
  CHECK(split(repeat('/', 'n', NAME_MAX + 1), out) == -ENAMETOOLONG);

  CHECK(path_last("") && path_last("///") && !path_last("/a"));
  CHECK(path_trailing_slash("/a/") && !path_trailing_slash("/a") && !path_trailing_slash(""));
  CHECK(name_hash("ab", 2) != name_hash("ba", 2));
  CHECK(name_hash("a", 1) != name_hash("a", 0));
  return check_summary("test_path");
}
