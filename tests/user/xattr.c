// xattr: the extended-attribute calls, statfs and fadvise64 on a ramfs, against Linux's ramfs
// (no security module): EOPNOTSUPP and an empty list, each namespace's rule, the name's and the
// value's checks; statfs's ramfs; fadvise's checks. Usage: xattr [DIR], DIR on a ramfs (the
// host's test mounts one; under this kernel every directory is), /tmp by default.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PROG "xattr"
#include "check.h"

#define RAMFS_MAGIC 0x858458f6

static void
attributes(void)
{
  char buf[64], big[300];
  int fd = open("f", O_CREAT | O_RDWR | O_TRUNC, 0644);
  check(fd >= 0 && symlink("f", "l") == 0 && mkdir("d", 0755) == 0, "make f, l -> f, d");
  static const char *const names[] = { "user.a", "security.selinux", "system.posix_acl_access",
                                       "other.o" };
  for(int i = 0; i < 4; i++) {
    FAILS(getxattr("f", names[i], buf, sizeof(buf)), EOPNOTSUPP);
    FAILS(lgetxattr("d", names[i], buf, sizeof(buf)), EOPNOTSUPP);
    FAILS(fgetxattr(fd, names[i], buf, sizeof(buf)), EOPNOTSUPP);
    if(i != 2) {   // an ACL's value is checked first (below)
      FAILS(setxattr("f", names[i], "v", 1, 0), EOPNOTSUPP);
      FAILS(fsetxattr(fd, names[i], "v", 1, XATTR_CREATE), EOPNOTSUPP);
    }
    FAILS(removexattr("d", names[i]), EOPNOTSUPP);
    FAILS(fremovexattr(fd, names[i]), EOPNOTSUPP);
  }
  // ls -l's two questions of every file: its SELinux label and its ACL, through a link too.
  FAILS(getxattr("l", "security.selinux", buf, sizeof(buf)), EOPNOTSUPP);
  FAILS(lgetxattr("l", "system.posix_acl_access", NULL, 0), EOPNOTSUPP);
  // user.* lives on regular files and directories only.
  FAILS(lgetxattr("l", "user.a", buf, sizeof(buf)), ENODATA);
  FAILS(lsetxattr("l", "user.a", "v", 1, 0), EPERM);
  FAILS(lremovexattr("l", "user.a"), EPERM);
  FAILS(getxattr("l", "user.a", buf, sizeof(buf)), EOPNOTSUPP);   // followed: f
  check(listxattr("f", buf, sizeof(buf)) == 0 && llistxattr("l", buf, sizeof(buf)) == 0 &&
        flistxattr(fd, NULL, 0) == 0 && listxattr("d", NULL, 0) == 0, "an empty list");
  // The name: empty or over 255 bytes is ERANGE; a bad pointer EFAULT.
  FAILS(getxattr("f", "", buf, sizeof(buf)), ERANGE);
  memset(big, 'u', sizeof(big) - 1);
  big[sizeof(big) - 1] = 0;
  memcpy(big, "user.", 5);
  FAILS(getxattr("f", big, buf, sizeof(buf)), ERANGE);
  FAILS(setxattr("f", big, "v", 1, 0), ERANGE);
  FAILS(removexattr("f", big), ERANGE);
  big[255] = 0;
  FAILS(getxattr("f", big, buf, sizeof(buf)), EOPNOTSUPP);   // 255 bytes: a name
  FAILS(fgetxattr(fd, (const char *)8, buf, sizeof(buf)), EFAULT);
  // The value: flags, size and pointer checked before the answer.
  static char value[65537];
  const void *volatile bad = (const void *)8;
  FAILS(setxattr("f", "user.a", "v", 1, 4), EINVAL);
  FAILS(setxattr("f", "user.a", value, sizeof(value), 0), E2BIG);
  FAILS(setxattr("f", "user.a", bad, 16, 0), EFAULT);
  // An ACL's value is parsed (posix_acl_from_xattr) before the file system is asked: a header
  // of version 2 and 8-byte entries of known tags, else EINVAL; another version EOPNOTSUPP.
  static const unsigned char acl[] = { 2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff };
  static const unsigned char v1[] = { 1, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff };
  static const unsigned char tag[] = { 2, 0, 0, 0, 3, 0, 6, 0, 0xff, 0xff, 0xff, 0xff };
  FAILS(setxattr("f", "system.posix_acl_access", "v", 1, 0), EINVAL);
  FAILS(setxattr("f", "system.posix_acl_access", acl, 10, 0), EINVAL);
  FAILS(setxattr("f", "system.posix_acl_access", tag, sizeof(tag), 0), EINVAL);
  FAILS(setxattr("f", "system.posix_acl_access", v1, sizeof(v1), 0), EOPNOTSUPP);
  FAILS(setxattr("f", "system.posix_acl_access", acl, sizeof(acl), 0), EOPNOTSUPP);
  FAILS(setxattr("d", "system.posix_acl_default", acl, sizeof(acl), 0), EOPNOTSUPP);
  FAILS(setxattr("f", "system.posix_acl_access", NULL, 0, 0), EOPNOTSUPP);
  // The node: the lookup's and the fd's errnos.
  FAILS(getxattr("missing", "user.a", buf, sizeof(buf)), ENOENT);
  FAILS(listxattr("f/x", buf, sizeof(buf)), ENOTDIR);
  FAILS(fgetxattr(999, "user.a", buf, sizeof(buf)), EBADF);
  FAILS(flistxattr(-1, buf, sizeof(buf)), EBADF);
  FAILS(getxattr((const char *)8, "user.a", buf, sizeof(buf)), EFAULT);
  close(fd);
}

static void
filesystem(void)
{
  struct statfs a, b;
  int fd = open("f", O_RDONLY);
  check(statfs(".", &a) == 0 && fstatfs(fd, &b) == 0, "statfs and fstatfs");
  check(a.f_type == RAMFS_MAGIC && a.f_bsize == 4096 && a.f_namelen == 255 &&
        a.f_blocks == 0 && a.f_files == 0 && a.f_frsize == 4096 &&
        (a.f_flags & 0x1020) == 0x1020, "statfs: a ramfs (simple_statfs), relatime");
  check(b.f_type == a.f_type && b.f_bsize == a.f_bsize && b.f_flags == a.f_flags,
        "fstatfs says what statfs says");
  FAILS(statfs("missing", &a), ENOENT);
  FAILS(statfs(".", (struct statfs *)8), EFAULT);
  FAILS(fstatfs(999, &a), EBADF);
  // fadvise: every advice taken (and dropped), an unknown one refused, a pipe ESPIPE. The
  // wrapper returns the error number itself.
  for(int adv = POSIX_FADV_NORMAL; adv <= POSIX_FADV_NOREUSE; adv++)
    check(posix_fadvise(fd, 0, 4096, adv) == 0, "fadvise with known advice");
  check(posix_fadvise(fd, 0, 0, 6) == EINVAL, "fadvise 6: EINVAL");
  check(posix_fadvise(fd, 0, -1, POSIX_FADV_NORMAL) == EINVAL, "fadvise len -1: EINVAL");
  check(posix_fadvise(999, 0, 0, POSIX_FADV_NORMAL) == EBADF, "fadvise on no fd: EBADF");
  int p[2];
  check(pipe(p) == 0 && posix_fadvise(p[0], 0, 0, POSIX_FADV_NORMAL) == ESPIPE,
        "fadvise on a pipe: ESPIPE");
  close(p[0]);
  close(p[1]);
  close(fd);
}

int
main(int argc, char **argv)
{
  const char *at = argc > 1 ? argv[1] : "/tmp";
  char dir[256];
  if(argc < 2 && mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("xattr: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  snprintf(dir, sizeof(dir), "%s/xattr.%d", at, (int)getpid());
  check(mkdir(dir, 0755) == 0 && chdir(dir) == 0, "mkdir and chdir dir");
  attributes();
  filesystem();
  check(unlink("l") == 0 && unlink("f") == 0 && rmdir("d") == 0 && chdir("/") == 0 &&
        rmdir(dir) == 0, "remove what it made");
  printf("xattr: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 60;
}
