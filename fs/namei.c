// Path walk: RCU-walk first, with no locks or references and per-dentry sequence counts to
// notice renames and unlinks; ref-walk when it cannot finish (Linux 2.6.38, Nick Piggin's
// "fs: rcu-walk for path lookup"). Then the calls that make and remove names; rename is
// fs/rename.c's.
#include "errno.h"
#include "fs.h"
#include "sched.h"
#include "slab.h"
#include "string.h"
#include "walk.h"

// RCU-walk saw err (-ENOENT, -ENOTDIR): final only if nothing it read has changed since.
static int
rcu_result(struct nameidata *nd, int err)
{
  if(read_seqcount_retry(&nd->dentry->d_seq, nd->seq) ||
     read_seqretry(&rename_lock, nd->rename_seq))
    return -EAGAIN;
  return err;
}

// Where a walk starts (Linux's path_init): "/" for an absolute path or no dir, else dir,
// the working directory or a dirfd's (Linux's fs->pwd, the file's f_path). dir is not
// stepped into if something was mounted on it since: as on Linux, a process whose working
// directory is covered still sees the covered directory.
static struct dentry *
start_of(const char *path, struct dentry *dir)
{
  return path[0] == '/' || !dir ? root_mnt->mnt_root : dir;
}

// Steps into whatever is mounted on the dentry just reached.
static bool
follow_mount_rcu(struct nameidata *nd)
{
  struct vfsmount *mnt;
  while((mnt = rcu_dereference(nd->dentry->d_mounted))) {
    struct dentry *root = mnt->mnt_root;
    if(!READ_ONCE(root->d_sb->s_rcu_walk))
      return false;
    nd->dentry = root;
    nd->seq = raw_seqcount_begin(&root->d_seq);
    nd->inode = READ_ONCE(root->d_inode);
  }
  return true;
}

// Caller holds rcu_read_lock. 0 with nd->dentry, inode and seq (valid while seq holds);
// a final error; or -EAGAIN: something moved under the walk, a filesystem on the way
// frees inodes at once, or the path has a "." or ".." name or a symbolic link to follow
// (ref-walk's work, as Linux's unlazy_walk before 2.6.39 taught RCU-walk to follow links).
// parent: stop before the last name and leave it in nd->last.
// dir: where a relative path starts (the caller's reference keeps it), or NULL for "/".
static int
walk_rcu(struct nameidata *nd, const char *path, bool parent, struct dentry *dir)
{
  nd->path = path;
  nd->rename_seq = read_seqbegin(&rename_lock);
  nd->dentry = start_of(path, dir);
  if(!READ_ONCE(nd->dentry->d_sb->s_rcu_walk))
    return -EAGAIN;
  nd->seq = raw_seqcount_begin(&nd->dentry->d_seq);
  nd->inode = READ_ONCE(nd->dentry->d_inode);
  if(nd->dentry == root_mnt->mnt_root && !follow_mount_rcu(nd))
    return -EAGAIN;
  for(;;) {
    struct qstr name;
    int r = path_next(&nd->path, &name);
    if(unlikely(r != PATH_NAME)) {
      if(r < 0)
        return r;
      if(r == 0)
        break;
      return -EAGAIN;   // "." or ".."
    }
    // A symbolic link on the way fails this test too: the common case pays for no other.
    if(!S_ISDIR(READ_ONCE(nd->inode->i_mode)))
      return S_ISLNK(nd->inode->i_mode) ? -EAGAIN : rcu_result(nd, -ENOTDIR);
    if(parent && path_last(nd->path)) {
      nd->last = name;
      return 0;
    }
    u32 seq;
    struct dentry *child = d_lookup_rcu(nd->dentry, &name, &seq);
    if(!child)
      return rcu_result(nd, -ENOENT);
    struct inode *inode = READ_ONCE(child->d_inode);
    // The parent still had this child, and the child still this inode, after the reads.
    if(read_seqcount_retry(&nd->dentry->d_seq, nd->seq) || read_seqcount_retry(&child->d_seq, seq))
      return -EAGAIN;
    nd->dentry = child;
    nd->seq = seq;
    nd->inode = inode;
    if(!follow_mount_rcu(nd))
      return -EAGAIN;
  }
  if(parent)
    return -EEXIST;   // only slashes: "/", which exists as "." does (Linux's LAST_ROOT)
  // The type bits never change: a link not to be followed is a result like any other.
  u32 mode = READ_ONCE(nd->inode->i_mode);
  if(unlikely(S_ISLNK(mode)) && (nd->follow || nd->must_dir))
    return -EAGAIN;
  if(nd->must_dir && !S_ISDIR(mode))
    return rcu_result(nd, -ENOTDIR);
  return 0;
}

// ".." from d (referenced; the reference moves): the parent, or across a mount to the parent
// of the directory it covers; "/" is its own parent. Out of line, as follow_link: the
// common walk keeps its registers.
static __attribute__((noinline)) struct dentry *
follow_dotdot(struct dentry *d)
{
  for(;;) {
    if(d == root_mnt->mnt_root)
      return d;
    if(d != d->d_sb->s_root)
      break;
    struct dentry *up = mount_point_of(d);
    if(!up)
      return d;
    dput(d);
    d = up;
  }
  struct dentry *parent = dget_parent(d);
  dput(d);
  return follow_mount(parent);
}

// The walk stands on a symbolic link (nd->dentry, referenced): nd->path becomes its target
// followed by rest (what was left of the path), in a buffer of its own, and the walk goes
// back to the link's directory, or to "/" for an absolute target.
static __attribute__((noinline)) int
follow_link(struct nameidata *nd, const char *rest)
{
  struct dentry *link = nd->dentry;
  struct inode *inode = link->d_inode;
  if(++nd->links > MAXSYMLINKS)
    return -ELOOP;
  char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
  if(!buf)
    return -ENOMEM;
  int n = inode->i_op && inode->i_op->get_link ? inode->i_op->get_link(inode, buf, PATH_MAX)
                                                : -EINVAL;
  size_t len = strlen(rest);
  if(n == 0)
    n = -ENOENT;   // an empty target names nothing (Linux)
  else if(n > 0 && (size_t)n + 1 + len >= PATH_MAX)
    n = -ENAMETOOLONG;
  if(n < 0) {
    kfree(buf);
    return n;
  }
  buf[n] = '/';
  memcpy(buf + n + 1, rest, len + 1);
  kfree(nd->buf);   // rest pointed into it: copied above
  nd->buf = buf;
  nd->path = buf;
  nd->dentry = buf[0] == '/' ? get_root() : dget_parent(link);
  dput(link);
  return 0;
}

// Ref-walk: a reference on every dentry it stands on, so nothing it reaches can be freed;
// d_lookup takes the next one under its d_lock. 0 with nd->dentry referenced; a parent walk
// leaves nd->last pointing into the path or into nd->buf, which walk_done frees.
static int
walk_ref(struct nameidata *nd, const char *path, bool parent, struct dentry *dir)
{
  int err = 0;
  nd->path = path;
  nd->links = 0;
  nd->buf = NULL;
  nd->dentry = dget(start_of(path, dir));
  if(nd->dentry == root_mnt->mnt_root)
    nd->dentry = follow_mount(nd->dentry);
  for(;;) {
    struct qstr name;
    int r = path_next(&nd->path, &name);
    struct inode *inode = nd->dentry->d_inode;
    if(unlikely(r != PATH_NAME)) {
      if(r < 0) {
        err = r;
        break;
      }
      if(r == 0) {   // the end: a link there is followed unless asked not to
        if(!S_ISLNK(inode->i_mode) || !(nd->follow || nd->must_dir) ||
           (err = follow_link(nd, nd->path)))
          break;
        continue;
      }
    }
    // A symbolic link on the way fails this test too: the common case pays for no other.
    if(!S_ISDIR(inode->i_mode)) {
      if(!S_ISLNK(inode->i_mode))
        err = -ENOTDIR;
      else if(!(err = follow_link(nd, name.name)))   // name and the rest, after the target
        continue;
      break;
    }
    if(r != PATH_NAME) {   // "." or ".."
      if(parent && path_last(nd->path)) {
        err = -EEXIST;   // they always exist and cannot be made or removed
        break;
      }
      if(r == PATH_DOTDOT)
        nd->dentry = follow_dotdot(nd->dentry);
      continue;
    }
    if(parent && path_last(nd->path)) {
      nd->last = name;
      return 0;
    }
    struct dentry *child = d_lookup(nd->dentry, &name);
    if(!child) {
      err = -ENOENT;
      break;
    }
    dput(nd->dentry);
    nd->dentry = follow_mount(child);
    cond_resched();
  }
  if(!err && parent)
    err = -EEXIST;   // only slashes: as walk_rcu
  if(!err && nd->must_dir && !S_ISDIR(nd->dentry->d_inode->i_mode))
    err = -ENOTDIR;
  if(unlikely(nd->buf)) {
    kfree(nd->buf);
    nd->buf = NULL;
  }
  if(err) {
    dput(nd->dentry);
    nd->dentry = NULL;
  }
  return err;
}

// A walk's buffer, once nd->last is no longer needed.
void
walk_done(struct nameidata *nd)
{
  kfree(nd->buf);
  nd->buf = NULL;
}

// Either walk by flags; 0 with nd->dentry referenced.
int
walk(struct dentry *dir, const char *path, unsigned flags, bool parent, struct nameidata *nd)
{
  int err = path_check(path, dir != NULL);
  if(err)
    return err;
  nd->must_dir = path_trailing_slash(path);
  nd->follow = !(flags & LOOKUP_NOFOLLOW);
  nd->buf = NULL;
  if(!(flags & LOOKUP_REF_ONLY)) {
    rcu_read_lock();
    err = walk_rcu(nd, path, parent, dir);
    if(!err && !d_legitimize(nd->dentry, nd->seq))
      err = -EAGAIN;
    rcu_read_unlock();
    if(err != -EAGAIN || (flags & LOOKUP_RCU_ONLY))
      return err;
  }
  return walk_ref(nd, path, parent, dir);
}

int
path_lookup_at(struct dentry *dir, const char *path, unsigned flags, struct dentry **d)
{
  struct nameidata nd;
  int err = walk(dir, path, flags, false, &nd);
  if(!err)
    *d = nd.dentry;
  return err;
}

int
path_lookup(const char *path, unsigned flags, struct dentry **d)
{
  return path_lookup_at(NULL, path, flags, d);
}

int
vfs_lookup_rcu(const char *path, struct inode **inode)
{
  struct nameidata nd;
  int err = path_check(path, false);
  if(err)
    return err;
  nd.must_dir = path_trailing_slash(path);
  nd.follow = true;
  err = walk_rcu(&nd, path, false, NULL);
  if(!err && read_seqcount_retry(&nd.dentry->d_seq, nd.seq))
    err = -EAGAIN;
  if(!err)
    *inode = nd.inode;
  return err;
}

// Under RCU-walk stat takes no reference at all: it copies and then checks the copy.
int
vfs_stat_at(struct dentry *dir, const char *path, unsigned flags, struct kstat *st)
{
  struct nameidata nd;
  int err = path_check(path, dir != NULL);
  if(err || !st)
    return err ? err : -EINVAL;
  nd.must_dir = path_trailing_slash(path);
  nd.follow = !(flags & LOOKUP_NOFOLLOW);
  if(!(flags & LOOKUP_REF_ONLY)) {
    rcu_read_lock();
    err = walk_rcu(&nd, path, false, dir);
    if(!err) {
      inode_stat(nd.inode, st);
      if(read_seqcount_retry(&nd.dentry->d_seq, nd.seq))
        err = -EAGAIN;
    }
    rcu_read_unlock();
    if(err != -EAGAIN || (flags & LOOKUP_RCU_ONLY))
      return err;
  }
  err = walk_ref(&nd, path, false, dir);
  if(err)
    return err;
  inode_stat(nd.dentry->d_inode, st);
  dput(nd.dentry);
  return 0;
}

int
vfs_stat(const char *path, unsigned flags, struct kstat *st)
{
  return vfs_stat_at(NULL, path, flags, st);
}

// What create makes: a node of mode's type, a device's number or a link's target; an inode
// made beforehand (inode: the generated files of /sys and /proc); or a hard link to old's.
struct new_node {
  u32 mode;
  dev_t rdev;
  const char *link;
  struct inode *inode;
  struct dentry *old;
  bool made;   // out: create made it (open's O_CREAT may find it there instead)
};

static int
make_node(struct inode *dir, struct dentry *child, const struct new_node *n)
{
  if(n->inode) {
    if(S_ISDIR(n->inode->i_mode))
      WRITE_ONCE(dir->i_nlink, dir->i_nlink + 1);   // the child's "..", as ramfs_create
    inode_touch_mc(dir);
    d_instantiate_add(child, n->inode);
    return 0;
  }
  const struct inode_operations *op = dir->i_op;
  if(n->old) {
    // Linux's vfs_link, in its order. A generated file of /sys or /proc lives here in the
    // root ramfs, but on Linux in a file system of its own: EXDEV, as there.
    struct inode *inode = n->old->d_inode;
    if(inode->i_sb != dir->i_sb || inode->i_fop || (READ_ONCE(inode->i_flags) & I_PROC))
      return -EXDEV;
    if(S_ISDIR(inode->i_mode))
      return -EPERM;
    return op->link ? op->link(n->old, dir, child) : -EPERM;
  }
  if(S_ISLNK(n->mode))
    return op->symlink ? op->symlink(dir, child, n->link) : -EPERM;
  if(S_ISREG(n->mode) || S_ISDIR(n->mode))
    return op->create(dir, child, n->mode);
  return op->mknod ? op->mknod(dir, child, n->mode, n->rdev) : -EPERM;
}

// Creates path's last name, or with existing set, finds the file that is already there
// (open with O_CREAT and no O_EXCL). 0 with *d referenced.
static int
create(struct dentry *dir_at, const char *path, struct new_node *n, bool existing,
       unsigned flags, struct dentry **d)
{
  struct nameidata nd;
  int err = walk(dir_at, path, flags, true, &nd);
  if(err)
    return err;
  struct inode *dir = nd.dentry->d_inode;
  struct dentry *child = NULL;
  mutex_lock(&dir->i_mutex);
  if(dir->i_flags & I_DEAD || (READ_ONCE(dir->i_flags) & I_PROC && !n->inode))
    err = -ENOENT;   // (a generated node of /proc, n->inode, is the kernel's to add)
  else if((child = d_lookup(nd.dentry, &nd.last))) {
    if(!existing)
      err = -EEXIST;
    else if(S_ISDIR(child->d_inode->i_mode) || nd.must_dir)
      err = -EISDIR;
  } else if(!S_ISDIR(n->mode) && nd.must_dir)
    err = n->old ? -ENOENT : -EISDIR;   // as Linux: "name/" can only be a directory
  else if(!(child = d_alloc(nd.dentry, &nd.last)))
    err = -ENOMEM;
  else
    n->made = !(err = make_node(dir, child, n));
  mutex_unlock(&dir->i_mutex);
  dput(nd.dentry);
  walk_done(&nd);
  if(!err && d)
    *d = child;
  else
    dput(child);
  return err;
}

int
vfs_create(const char *path, u32 mode)
{
  return create(NULL, path, &(struct new_node){ .mode = S_IFREG | 0644 }, false, 0, NULL);
}

int
vfs_mkdir(const char *path)
{
  return create(NULL, path, &(struct new_node){ .mode = S_IFDIR | 0755 }, false, 0, NULL);
}

int
vfs_mknod_at(struct dentry *dir, const char *path, u32 mode, dev_t rdev)
{
  switch(mode & S_IFMT) {
  case S_IFREG: case S_IFDIR: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
    break;
  default:
    return -EINVAL;   // symbolic links have vfs_symlink
  }
  return create(dir, path, &(struct new_node){ .mode = mode, .rdev = rdev }, false, 0, NULL);
}

int
vfs_mknod_get(struct dentry *dir, const char *path, u32 mode, struct dentry **d)
{
  if(!S_ISSOCK(mode) && !S_ISFIFO(mode))
    return -EINVAL;
  return create(dir, path, &(struct new_node){ .mode = mode }, false, 0, d);
}

int
vfs_mknod(const char *path, u32 mode, dev_t rdev)
{
  return vfs_mknod_at(NULL, path, mode, rdev);
}

int
vfs_symlink_at(const char *target, struct dentry *dir, const char *path)
{
  if(!target)
    return -EINVAL;
  size_t n = strnlen(target, PATH_MAX);
  if(n == 0)
    return -ENOENT;   // Linux refuses an empty target
  if(n == PATH_MAX)
    return -ENAMETOOLONG;
  return create(dir, path, &(struct new_node){ .mode = S_IFLNK | 0777, .link = target }, false,
                0, NULL);
}

int
vfs_symlink(const char *target, const char *path)
{
  return vfs_symlink_at(target, NULL, path);
}

int
vfs_link_at(struct dentry *old, struct dentry *dir, const char *path)
{
  return create(dir, path, &(struct new_node){ .mode = old->d_inode->i_mode, .old = old }, false,
                0, NULL);
}

int
vfs_add_inode(const char *path, struct inode *inode)
{
  int err = create(NULL, path, &(struct new_node){ .mode = inode->i_mode, .inode = inode }, false,
                   0, NULL);
  if(err) {
    inode->i_nlink = 0;
    iput(inode);
  }
  return err;
}

// A symbolic link's target, in a PATH_MAX buffer of its own that replaces *buf: 0, or
// -ENOENT for an empty one (Linux), -ENAMETOOLONG, -ENOMEM.
static int
read_target(struct inode *inode, char **buf)
{
  char *t = kmalloc(PATH_MAX, GFP_KERNEL);
  if(!t)
    return -ENOMEM;
  int n = inode->i_op && inode->i_op->get_link ? inode->i_op->get_link(inode, t, PATH_MAX)
                                                : -EINVAL;
  if(n == 0)
    n = -ENOENT;
  else if(n >= PATH_MAX)
    n = -ENAMETOOLONG;
  if(n < 0) {
    kfree(t);
    return n;
  }
  t[n] = 0;
  kfree(*buf);
  *buf = t;
  return 0;
}

// O_CREAT finds an existing name without following it. A symbolic link there is followed
// unless LOOKUP_NOFOLLOW (O_NOFOLLOW: the caller answers ELOOP) or O_EXCL (EEXIST, from
// create): its target is created or opened in turn, from the link's directory, so a link
// that dangles makes the file it names (open(2): "If pathname is a symbolic link ...
// O_CREAT"; Linux's open_last_lookups and trailing_symlink loop the same way).
int
open_path(struct dentry *dir, const char *path, unsigned oflags, u32 mode, unsigned flags,
          struct dentry **d, bool *created)
{
  *created = false;
  if(!(oflags & O_CREAT))
    return path_lookup_at(dir, path, flags, d);
  struct new_node n = { .mode = S_IFREG | (mode & S_IALLUGO) };
  char *buf = NULL;
  int links = 0, err;
  dir = dir ? dget(dir) : NULL;
  for(;;) {
    err = create(dir, path, &n, !(oflags & O_EXCL), flags, d);
    if(err || !S_ISLNK((*d)->d_inode->i_mode) || (flags & LOOKUP_NOFOLLOW))
      break;
    struct dentry *link = *d;
    err = ++links > MAXSYMLINKS ? -ELOOP : read_target(link->d_inode, &buf);
    if(!err) {
      dput(dir);
      dir = dget_parent(link);   // a relative target starts beside the link
      path = buf;
    }
    dput(link);
    if(err)
      break;
  }
  dput(dir);
  kfree(buf);
  *created = n.made;
  return err;
}

int
vfs_unlink(const char *path)
{
  return vfs_unlink_at(NULL, path);
}

int
vfs_unlink_at(struct dentry *dir_at, const char *path)
{
  struct nameidata nd;
  int err = walk(dir_at, path, 0, true, &nd);
  if(err)
    return err == -EEXIST ? -EISDIR : err;   // "." or "..", as Linux
  struct inode *dir = nd.dentry->d_inode;
  mutex_lock(&dir->i_mutex);
  struct dentry *d = d_lookup(nd.dentry, &nd.last);
  if(!d)
    err = -ENOENT;
  else if(S_ISDIR(d->d_inode->i_mode))
    err = -EISDIR;
  else if(nd.must_dir)
    err = -ENOTDIR;
  else if(READ_ONCE(d->d_inode->i_flags) & I_PROC)
    err = -EPERM;
  else
    err = dir->i_op->unlink(dir, d);
  mutex_unlock(&dir->i_mutex);
  dput(d);
  dput(nd.dentry);
  walk_done(&nd);
  return err;
}

int
vfs_rmdir(const char *path)
{
  return vfs_rmdir_at(NULL, path);
}

int
vfs_rmdir_at(struct dentry *dir_at, const char *path)
{
  struct nameidata nd;
  int err = walk(dir_at, path, 0, true, &nd);
  if(err == -EEXIST) {   // "/" is busy (the root), "." and ".." invalid: rmdir(2)
    while(*path == '/')
      path++;
    return *path ? -EINVAL : -EBUSY;
  }
  if(err)
    return err;
  struct super_block *sb = nd.dentry->d_sb;
  struct inode *dir = nd.dentry->d_inode;
  mutex_lock(&sb->s_rename_mutex);
  mutex_lock(&dir->i_mutex);
  struct dentry *d = d_lookup(nd.dentry, &nd.last);
  if(!d)
    err = -ENOENT;
  else if(!S_ISDIR(d->d_inode->i_mode))
    err = -ENOTDIR;
  else if(READ_ONCE(d->d_mounted))
    err = -EBUSY;
  else if(READ_ONCE(d->d_inode->i_flags) & I_PROC)
    err = -EPERM;
  else {
    // No create inside while it is checked and removed.
    mutex_lock_nested(&d->d_inode->i_mutex, I_MUTEX_CHILD);
    err = dir->i_op->rmdir(dir, d);
    mutex_unlock(&d->d_inode->i_mutex);
  }
  mutex_unlock(&dir->i_mutex);
  mutex_unlock(&sb->s_rename_mutex);
  dput(d);
  dput(nd.dentry);
  walk_done(&nd);
  return err;
}
