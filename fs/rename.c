// rename(2), renameat(2) and renameat2(2)'s VFS half: both names walked to their parents, then
// everything locked in one order and Linux's checks made before the filesystem moves the name.
#include "errno.h"
#include "fs.h"
#include "sched.h"
#include "walk.h"

// s_rename_mutex holds the tree's shape, so walking up from d is safe.
static bool
is_ancestor(struct dentry *a, struct dentry *d)
{
  for(; d; d = d->d_parent)
    if(d == a)
      return true;
  return false;
}

// The checks rename makes with everything locked, in Linux's order (do_renameat2 and
// vfs_rename, fs/namei.c); 0 to go ahead. a and b are the walks of the two paths.
static int
rename_check(struct dentry *old, struct dentry *new_parent, struct dentry *target,
             const struct nameidata *a, const struct nameidata *b, unsigned flags)
{
  bool exchange = flags & RENAME_EXCHANGE;
  if(target && (flags & RENAME_NOREPLACE))
    return -EEXIST;
  if(exchange && !target)
    return -ENOENT;
  bool isdir = S_ISDIR(old->d_inode->i_mode);
  bool tdir = target && S_ISDIR(target->d_inode->i_mode);
  if(exchange && !tdir && b->must_dir)
    return -ENOTDIR;
  if(!isdir && (a->must_dir || (!exchange && b->must_dir)))
    return -ENOTDIR;
  // A directory into itself; or, exchanged, the target into its own subtree.
  if(isdir && is_ancestor(old, new_parent))
    return -EINVAL;
  if(exchange && tdir && is_ancestor(target, old->d_parent))
    return -EINVAL;
  if(!exchange && target && is_ancestor(target, old->d_parent))
    return -ENOTEMPTY;   // the target is an ancestor of the source (Linux's trap)
  if(target && !exchange && isdir != tdir)
    return isdir ? -ENOTDIR : -EISDIR;
  if(old->d_mounted || (target && target->d_mounted))
    return -EBUSY;
  return 0;
}

int
vfs_rename(const char *from, const char *to)
{
  return vfs_rename2(from, to, 0);
}

// The name walks of both paths end in their parents; "." or ".." as the last name is
// -EEXIST from the walk: EBUSY for either, as Linux, but EEXIST for the new one under
// RENAME_NOREPLACE.
int
vfs_rename2(const char *from, const char *to, unsigned flags)
{
  return vfs_rename_at(NULL, from, NULL, to, flags);
}

int
vfs_rename_at(struct dentry *from_dir, const char *from, struct dentry *to_dir, const char *to,
              unsigned flags)
{
  if((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) ||
     ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && (flags & RENAME_EXCHANGE)))
    return -EINVAL;
  struct nameidata a, b;
  int err = walk(from_dir, from, 0, true, &a);
  if(err)
    return err == -EEXIST ? -EBUSY : err;
  if((err = walk(to_dir, to, 0, true, &b))) {
    dput(a.dentry);
    walk_done(&a);
    return err != -EEXIST ? err : flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
  }
  struct inode *adir = a.dentry->d_inode, *bdir = b.dentry->d_inode;
  struct super_block *sb = a.dentry->d_sb;
  struct dentry *old = NULL, *target = NULL;
  if(sb != b.dentry->d_sb) {
    err = -EXDEV;
    goto out;
  }
  if(flags & RENAME_WHITEOUT) {
    err = -EINVAL;   // ramfs has no whiteouts (Linux's simple_rename)
    goto out;
  }
  // Every call that holds two i_mutexes holds s_rename_mutex first, so the order of the
  // two does not matter.
  mutex_lock(&sb->s_rename_mutex);
  mutex_lock(&adir->i_mutex);
  if(bdir != adir)
    mutex_lock_nested(&bdir->i_mutex, I_MUTEX_PARENT2);
  // Linux's procfs renames nothing, and is a file system apart (include/fs.h, I_PROC).
  if((adir->i_flags | bdir->i_flags) & I_PROC)
    err = (adir->i_flags & bdir->i_flags & I_PROC) ? -ENOENT : -EXDEV;
  else if((adir->i_flags | bdir->i_flags) & I_DEAD || !(old = d_lookup(a.dentry, &a.last)))
    err = -ENOENT;
  else if(!(err = rename_check(old, b.dentry, target = d_lookup(b.dentry, &b.last), &a, &b,
                               flags)) && !(target && target->d_inode == old->d_inode)) {
    // (Two names of one inode: rename(2) "does nothing, and returns a success status".)
    // A directory replaced must stay empty meanwhile: its mutex keeps creates out.
    bool lock = target && !(flags & RENAME_EXCHANGE) && S_ISDIR(target->d_inode->i_mode);
    if(lock)
      mutex_lock_nested(&target->d_inode->i_mutex, I_MUTEX_CHILD);
    err = adir->i_op->rename(old, b.dentry, target, &b.last, flags & RENAME_EXCHANGE);
    if(lock)
      mutex_unlock(&target->d_inode->i_mutex);
  }
  if(bdir != adir)
    mutex_unlock(&bdir->i_mutex);
  mutex_unlock(&adir->i_mutex);
  mutex_unlock(&sb->s_rename_mutex);
out:
  dput(target);
  dput(old);
  dput(a.dentry);
  dput(b.dentry);
  walk_done(&a);
  walk_done(&b);
  return err;
}
