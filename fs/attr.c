// The calls that read or change a node's attributes rather than a directory: chmod, chown,
// utimensat's times, readlink; and mkdir -p for the trees the kernel makes at boot.
#include "errno.h"
#include "fs.h"
#include "slab.h"
#include "string.h"

// Under i_mutex, so two chmods never mix; readers (stat) read without it.
void
inode_chmod(struct inode *inode, u32 mode)
{
  mutex_lock(&inode->i_mutex);
  WRITE_ONCE(inode->i_mode, (inode->i_mode & S_IFMT) | (mode & S_IALLUGO));
  inode_touch_c(inode);
  mutex_unlock(&inode->i_mutex);
}

// kill_suid: chown(2) from user space, where Linux clears set-user-ID on a non-directory,
// and set-group-ID when group execute is on too (chown_common and notify_change,
// fs/open.c and fs/attr.c; chown(2): "since Linux 2.2.13, root is treated like other users").
void
inode_chown(struct inode *inode, u32 uid, u32 gid, bool kill_suid)
{
  mutex_lock(&inode->i_mutex);
  if(uid != (u32)-1)
    WRITE_ONCE(inode->i_uid, uid);
  if(gid != (u32)-1)
    WRITE_ONCE(inode->i_gid, gid);
  u32 mode = inode->i_mode;
  if(kill_suid && !S_ISDIR(mode)) {
    mode &= ~S_ISUID;
    if((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
      mode &= ~S_ISGID;
    WRITE_ONCE(inode->i_mode, mode);
  }
  inode_touch_c(inode);   // even with both ids -1, as Linux's notify_change
  mutex_unlock(&inode->i_mutex);
}

void
inode_set_times(struct inode *inode, const struct timespec64 *atime,
                const struct timespec64 *mtime)
{
  mutex_lock(&inode->i_mutex);
  if(atime) {
    WRITE_ONCE(inode->i_atime.tv_sec, atime->tv_sec);
    WRITE_ONCE(inode->i_atime.tv_nsec, atime->tv_nsec);
  }
  if(mtime) {
    WRITE_ONCE(inode->i_mtime.tv_sec, mtime->tv_sec);
    WRITE_ONCE(inode->i_mtime.tv_nsec, mtime->tv_nsec);
  }
  inode_touch_c(inode);
  mutex_unlock(&inode->i_mutex);
}

int
vfs_chmod(const char *path, u32 mode)
{
  struct dentry *d;
  int err = path_lookup(path, 0, &d);
  if(err)
    return err;
  inode_chmod(d->d_inode, mode);
  dput(d);
  return 0;
}

int
vfs_chown(const char *path, u32 uid, u32 gid)
{
  struct dentry *d;
  int err = path_lookup(path, LOOKUP_NOFOLLOW, &d);
  if(err)
    return err;
  inode_chown(d->d_inode, uid, gid, false);
  dput(d);
  return 0;
}

int
vfs_readlink(const char *path, char *buf, size_t len)
{
  return vfs_readlink_at(NULL, path, buf, len);
}

int
vfs_readlink_at(struct dentry *dir, const char *path, char *buf, size_t len)
{
  struct dentry *d;
  if(!buf)
    return -EINVAL;
  int err = path_lookup_at(dir, path, LOOKUP_NOFOLLOW, &d);
  if(err)
    return err;
  struct inode *inode = d->d_inode;
  if(!S_ISLNK(inode->i_mode) || !inode->i_op || !inode->i_op->get_link)
    err = -EINVAL;
  else
    err = inode->i_op->get_link(inode, buf, len);
  dput(d);
  return err;
}

// Each prefix of path in turn: an existing directory is kept, as mkdir -p.
int
vfs_mkdir_p(const char *path, u32 mode)
{
  size_t n = strnlen(path, PATH_MAX);
  if(n == PATH_MAX)
    return -ENAMETOOLONG;
  char *p = kmalloc(n + 1, GFP_KERNEL);
  if(!p)
    return -ENOMEM;
  memcpy(p, path, n + 1);
  int err = 0;
  for(size_t i = 1; i <= n && !err; i++) {
    if(p[i] != '/' && p[i] != 0)
      continue;
    if(p[i - 1] == '/')
      continue;
    char c = p[i];
    p[i] = 0;
    err = vfs_mknod(p, S_IFDIR | (mode & S_IALLUGO), 0);
    if(err == -EEXIST) {
      struct kstat st;
      err = vfs_stat(p, 0, &st);
      if(!err && !S_ISDIR(st.mode))
        err = -ENOTDIR;
    }
    p[i] = c;
  }
  kfree(p);
  return err;
}
