// ramfs: a filesystem that is nothing but the VFS's caches: directories are their dentries'
// lists, file data are page-cache pages that nothing may reclaim (reclaimable=false). A
// directory's mtime and ctime change with its names, as Linux's ramfs (simple_unlink...).
#include "errno.h"
#include "fs.h"
#include "slab.h"
#include "string.h"

static const struct inode_operations ramfs_dir_ops, ramfs_symlink_ops;

struct inode *
ramfs_get_inode(struct super_block *sb, u32 mode)
{
  struct inode *inode = new_inode(sb, mode);
  if(inode && S_ISDIR(mode)) {
    inode->i_op = &ramfs_dir_ops;
    inode->i_nlink = 2;   // its name and its own "."
  }
  return inode;
}

// The name's reference pins the dentry for as long as the name exists (as Linux's ramfs,
// whose directories live only in the dcache).
static int
ramfs_create(struct inode *dir, struct dentry *d, u32 mode)
{
  struct inode *inode = ramfs_get_inode(dir->i_sb, mode);
  if(!inode)
    return -ENOMEM;
  if(S_ISDIR(mode))
    WRITE_ONCE(dir->i_nlink, dir->i_nlink + 1);   // the child's ".."
  inode_touch_mc(dir);
  d_instantiate_add(d, inode);
  return 0;
}

static int
ramfs_mknod(struct inode *dir, struct dentry *d, u32 mode, dev_t rdev)
{
  struct inode *inode = ramfs_get_inode(dir->i_sb, mode);
  if(!inode)
    return -ENOMEM;
  inode->i_rdev = rdev;
  inode_touch_mc(dir);
  d_instantiate_add(d, inode);
  return 0;
}

// The target is set before d_instantiate_add publishes the name, and never changes.
static int
ramfs_symlink(struct inode *dir, struct dentry *d, const char *target)
{
  size_t n = strlen(target);
  char *link = kmalloc(n + 1, GFP_KERNEL);
  struct inode *inode = link ? ramfs_get_inode(dir->i_sb, S_IFLNK | 0777) : NULL;
  if(!inode) {
    kfree(link);
    return -ENOMEM;
  }
  memcpy(link, target, n + 1);
  inode->i_link = link;
  inode->i_size = n;   // as Linux: a link's size is its target's length
  inode->i_op = &ramfs_symlink_ops;
  inode_touch_mc(dir);
  d_instantiate_add(d, inode);
  return 0;
}

static int
ramfs_get_link(struct inode *inode, char *buf, size_t len)
{
  size_t n = MIN(strlen(inode->i_link), len);
  memcpy(buf, inode->i_link, n);
  return n;
}

// A name more for old's inode, unless its last name went meanwhile (an unlink in another
// directory, under another mutex: hence the count's compare-and-swap), as Linux's
// simple_link under the inode's lock. The new dentry holds a reference of its own.
static int
ramfs_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
  struct inode *inode = old->d_inode;
  int n = READ_ONCE(inode->i_nlink);
  do {
    if(n == 0)
      return -ENOENT;
  } while(!__atomic_compare_exchange_n(&inode->i_nlink, &n, n + 1, false, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED));
  __atomic_add_fetch(&inode->i_count, 1, __ATOMIC_RELAXED);   // old's dentry holds one
  inode_touch_c(inode);
  inode_touch_mc(dir);
  d_instantiate_add(d, inode);
  return 0;
}

// The count drops atomically: a hard link's name in another directory may go at once, under
// that directory's mutex. The dentry's reference goes after it (d_delete, then dput), so the
// iput that finds no reference left finds the count dropped too.
static int
ramfs_unlink(struct inode *dir, struct dentry *d)
{
  struct inode *inode = d->d_inode;
  __atomic_sub_fetch(&inode->i_nlink, 1, __ATOMIC_RELAXED);
  inode_touch_c(inode);
  inode_touch_mc(dir);
  d_delete(d);
  return 0;
}

static int
ramfs_rmdir(struct inode *dir, struct dentry *d)
{
  if(!list_empty(&d->d_subdirs))
    return -ENOTEMPTY;
  struct inode *inode = d->d_inode;
  inode->i_flags |= I_DEAD;
  WRITE_ONCE(inode->i_nlink, 0);
  WRITE_ONCE(dir->i_nlink, dir->i_nlink - 1);
  inode_touch_c(inode);
  inode_touch_mc(dir);
  d_delete(d);
  return 0;
}

// A directory that changes parent takes its ".." along: one link moves between the parents.
static void
move_dotdot(struct inode *inode, struct inode *from, struct inode *to)
{
  if(!S_ISDIR(inode->i_mode) || from == to)
    return;
  WRITE_ONCE(from->i_nlink, from->i_nlink - 1);
  WRITE_ONCE(to->i_nlink, to->i_nlink + 1);
}

// Both directories' mtime and ctime, and the moved inodes' ctime, as Linux's
// simple_rename_timestamp.
static int
ramfs_rename(struct dentry *old, struct dentry *new_parent, struct dentry *target,
             const struct qstr *new_name, unsigned flags)
{
  struct inode *old_dir = old->d_parent->d_inode, *new_dir = new_parent->d_inode;
  struct inode *inode = old->d_inode;
  if(flags & RENAME_EXCHANGE) {
    move_dotdot(inode, old_dir, new_dir);
    move_dotdot(target->d_inode, new_dir, old_dir);
    inode_touch_c(target->d_inode);
    d_exchange(old, target);
  } else {
    if(target) {
      int err = S_ISDIR(inode->i_mode) ? ramfs_rmdir(new_dir, target)
                                       : ramfs_unlink(new_dir, target);
      if(err)
        return err;
    }
    move_dotdot(inode, old_dir, new_dir);
    d_move(old, new_parent, new_name);
  }
  inode_touch_c(inode);
  inode_touch_mc(old_dir);
  if(new_dir != old_dir)
    inode_touch_mc(new_dir);
  return 0;
}

static const struct inode_operations ramfs_dir_ops = {
  .create = ramfs_create,
  .unlink = ramfs_unlink,
  .rmdir = ramfs_rmdir,
  .rename = ramfs_rename,
  .mknod = ramfs_mknod,
  .symlink = ramfs_symlink,
  .link = ramfs_link,
};

static const struct inode_operations ramfs_symlink_ops = {
  .get_link = ramfs_get_link,
};

struct super_block *
ramfs_mount(const struct ramfs_opts *opts)
{
  struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);
  if(!sb)
    return NULL;
  sb->s_variant = opts->variant;
  sb->s_fanout = opts->fanout;
  sb->s_free = opts->free;
  // The point of the 2010 patch: RCU-walk may look at an inode after its last iput, so
  // it is safe only where inodes outlive a grace period. A FREE_NOW mount walks with
  // references instead, unless a planted test asks for the unsafe mix.
  sb->s_rcu_walk = (opts->free == FREE_RCU && opts->walk == WALK_AUTO) ||
                   opts->walk == WALK_UNSAFE_RCU;
  mutex_init(&sb->s_rename_mutex);
  struct inode *root = ramfs_get_inode(sb, S_IFDIR | 0755);
  if(root)
    sb->s_root = d_alloc_root(sb, root);
  if(!sb->s_root) {
    if(root) {
      root->i_nlink = 0;
      iput(root);
    }
    kfree(sb);
    return NULL;
  }
  return sb;
}

// The caller made sure nothing is left but the root, and that no walker is inside.
void
ramfs_kill_sb(struct super_block *sb)
{
  WRITE_ONCE(sb->s_root->d_inode->i_nlink, 0);
  dput(sb->s_root);
  kfree(sb);
}
