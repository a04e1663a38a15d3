// The extended-attribute calls (getxattr, setxattr, listxattr, removexattr, each with its l and
// f variant: man 7 xattr) on file systems that keep none, answered as Linux's ramfs answers them
// with no security module: the name checked, the namespace's rules (fs/xattr.c xattr_permission),
// then EOPNOTSUPP, and an empty list. GNU ls -l asks every file for its SELinux label and ACL.
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "namei.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "uapi/fcntl.h"
#include "uapi/xattr.h"

// The name copied in: 0, or -ERANGE for an empty one or one longer than XATTR_NAME_MAX (as
// Linux's strncpy_from_user check in getxattr and setxattr_copy), -EFAULT.
static long
xattr_name(u64 uname, char name[XATTR_NAME_MAX + 1])
{
  long n = strncpy_from_user(name, (const char *)uname, XATTR_NAME_MAX + 1);
  if(n == 0 || n == -ENAMETOOLONG)
    return -ERANGE;
  return n < 0 ? n : 0;
}

static bool
prefixed(const char *name, const char *prefix)
{
  return strncmp(name, prefix, strlen(prefix)) == 0;
}

// Linux's xattr_permission for a process with every capability (this kernel's only kind):
// security.*, system.* and trusted.* pass; user.* exists only on regular files and
// directories (ENODATA to read, EPERM to write elsewhere). Then no file system here keeps
// any: EOPNOTSUPP.
static long
xattr_verdict(u32 mode, const char *name, bool write)
{
  if(prefixed(name, "user.") && !S_ISREG(mode) && !S_ISDIR(mode))
    return write ? -EPERM : -ENODATA;
  return -EOPNOTSUPP;
}

// The node a call names: by path (following a last symbolic link unless nofollow), or by fd.
struct xnode {
  u64 upath;
  int fd;
  bool byfd, nofollow;
};

#define BY_PATH(p) ((struct xnode){ .upath = (p) })
#define BY_LINK(p) ((struct xnode){ .upath = (p), .nofollow = true })
#define BY_FD(f) ((struct xnode){ .fd = (int)(f), .byfd = true })

// Its mode: 0, or what the lookup answers (-ENOENT, -ENOTDIR, -ELOOP, -EFAULT, -EBADF).
static long
node_mode(struct xnode n, u32 *mode)
{
  if(n.byfd) {
    struct ufile *uf = fget(n.fd);
    if(!uf)
      return -EBADF;
    // The console (no file) is a character device, as Linux's /dev/console.
    *mode = uf->file && uf->file->f_inode ? uf->file->f_inode->i_mode : S_IFCHR;
    fput(uf);
    return 0;
  }
  long err;
  struct dentry *dir;
  char *path = user_path(AT_FDCWD, n.upath, false, &dir, &err);
  if(!path)
    return err;
  struct kstat st;
  err = vfs_stat_at(dir, path, n.nofollow ? LOOKUP_NOFOLLOW : 0, &st);
  user_path_put(path, dir);
  if(!err)
    *mode = st.mode;
  return err;
}

static long
do_getxattr(struct xnode n, u64 uname)
{
  u32 mode;
  char name[XATTR_NAME_MAX + 1];
  long err = node_mode(n, &mode);
  if(!err)
    err = xattr_name(uname, name);
  return err ? err : xattr_verdict(mode, name, false);
}

// A POSIX ACL's value as Linux's posix_acl_from_xattr parses it before any file system is
// asked (fs/posix_acl.c, since 6.2): a 4-byte header of version 2 (another version is
// EOPNOTSUPP), then 8-byte entries (tag, permissions, id), each of a known tag, a named user's
// or group's id not (u32)-1; anything else EINVAL. 0 when it parses (or is empty).
static long
acl_parse(const u8 *v, size_t size)
{
  if(size == 0)
    return 0;
  if(size < 4)
    return -EINVAL;
  if(*(const u32 *)v != 2)
    return -EOPNOTSUPP;
  if((size - 4) % 8)
    return -EINVAL;
  for(size_t at = 4; at < size; at += 8) {
    u16 tag = *(const u16 *)(v + at);
    u32 id = *(const u32 *)(v + at + 4);
    switch(tag) {
    case 0x01: case 0x04: case 0x10: case 0x20:   // ACL_USER_OBJ, GROUP_OBJ, MASK, OTHER
      break;
    case 0x02: case 0x08:                         // ACL_USER, ACL_GROUP: a real id
      if(id == (u32)-1)
        return -EINVAL;
      break;
    default:
      return -EINVAL;
    }
  }
  return 0;
}

// The value is copied in before the answer, as Linux's setxattr_copy does: a bad flag is
// EINVAL, a value over XATTR_SIZE_MAX E2BIG, an unreadable one EFAULT; an ACL's is parsed.
static long
do_setxattr(struct xnode n, u64 uname, u64 value, u64 size, int flags)
{
  u32 mode;
  char name[XATTR_NAME_MAX + 1];
  long err = node_mode(n, &mode);
  if(err)
    return err;
  if(flags & ~(XATTR_CREATE | XATTR_REPLACE))
    return -EINVAL;
  if((err = xattr_name(uname, name)))
    return err;
  if(size > XATTR_SIZE_MAX)
    return -E2BIG;
  u8 *v = size ? kmalloc(size, GFP_KERNEL) : NULL;
  if(size && !v)
    return -ENOMEM;
  if(size && copy_from_user(v, (const void *)value, size))
    err = -EFAULT;
  else if(!strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default"))
    err = acl_parse(v, size);
  kfree(v);
  return err ? err : xattr_verdict(mode, name, true);
}

// No attribute anywhere: an empty list, whatever the buffer (Linux's vfs_listxattr without a
// listxattr operation or a security module).
static long
do_listxattr(struct xnode n)
{
  u32 mode;
  return node_mode(n, &mode);
}

static long
do_removexattr(struct xnode n, u64 uname)
{
  u32 mode;
  char name[XATTR_NAME_MAX + 1];
  long err = node_mode(n, &mode);
  if(!err)
    err = xattr_name(uname, name);
  return err ? err : xattr_verdict(mode, name, true);
}

long
sys_getxattr(u64 path, u64 name, u64 value, u64 size)
{
  return do_getxattr(BY_PATH(path), name);
}

long
sys_lgetxattr(u64 path, u64 name, u64 value, u64 size)
{
  return do_getxattr(BY_LINK(path), name);
}

long
sys_fgetxattr(u64 fd, u64 name, u64 value, u64 size)
{
  return do_getxattr(BY_FD(fd), name);
}

long
sys_setxattr(u64 path, u64 name, u64 value, u64 size, u64 flags)
{
  return do_setxattr(BY_PATH(path), name, value, size, (int)flags);
}

long
sys_lsetxattr(u64 path, u64 name, u64 value, u64 size, u64 flags)
{
  return do_setxattr(BY_LINK(path), name, value, size, (int)flags);
}

long
sys_fsetxattr(u64 fd, u64 name, u64 value, u64 size, u64 flags)
{
  return do_setxattr(BY_FD(fd), name, value, size, (int)flags);
}

long
sys_listxattr(u64 path, u64 list, u64 size)
{
  return do_listxattr(BY_PATH(path));
}

long
sys_llistxattr(u64 path, u64 list, u64 size)
{
  return do_listxattr(BY_LINK(path));
}

long
sys_flistxattr(u64 fd, u64 list, u64 size)
{
  return do_listxattr(BY_FD(fd));
}

long
sys_removexattr(u64 path, u64 name)
{
  return do_removexattr(BY_PATH(path), name);
}

long
sys_lremovexattr(u64 path, u64 name)
{
  return do_removexattr(BY_LINK(path), name);
}

long
sys_fremovexattr(u64 fd, u64 name)
{
  return do_removexattr(BY_FD(fd), name);
}
