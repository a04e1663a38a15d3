// Superblocks and mounts: the root ramfs at "/" and more ramfs instances mounted on
// directories, each with its own page-cache variant and inode-free mode.
#include "cmdline.h"
#include "errno.h"
#include "fs.h"
#include "panic.h"
#include "printk.h"
#include "slab.h"
#include "string.h"
#include "vsprintf.h"

struct vfsmount *root_mnt;
// A path walk crosses a mount far more often than anything mounts or unmounts, so the
// readers get a lock of their own CPU and the writers pay for taking all of them (Nick
// Piggin's "fs: brlock vfsmount_lock", Linux 2.6.36).
DEFINE_BRLOCK(vfsmount_lock);
static LIST_HEAD(mounts);   // every mount but the root one, which never goes; vfsmount_lock

// Ref-walk into whatever is mounted on d; d's reference moves to the mounted root. The read
// side keeps umount from passing its reference check between our read and our dget.
struct dentry *
follow_mount(struct dentry *d)
{
  while(READ_ONCE(d->d_mounted)) {
    br_read_lock(&vfsmount_lock);
    struct vfsmount *mnt = d->d_mounted;
    struct dentry *root = mnt ? dget(mnt->mnt_root) : NULL;
    br_read_unlock(&vfsmount_lock);
    if(!root)
      break;
    dput(d);
    d = root;
  }
  return d;
}

// The root directory where a walk of an absolute path starts: "/" past whatever is mounted on
// it, referenced (Linux's get_fs_root, with one root for every process).
struct dentry *
get_root(void)
{
  return follow_mount(dget(root_mnt->mnt_root));
}

// ".." from the root of a mounted filesystem: the directory it covers, referenced, or NULL
// if d is the root of no mount.
struct dentry *
mount_point_of(struct dentry *d)
{
  br_read_lock(&vfsmount_lock);
  struct dentry *up = mount_point_locked(d);
  if(up)
    dget(up);
  br_read_unlock(&vfsmount_lock);
  return up;
}

struct dentry *
mount_point_locked(struct dentry *d)
{
  struct vfsmount *m;
  list_for_each_entry(m, &mounts, mnt_list)
    if(m->mnt_root == d)
      return m->mnt_mountpoint;
  return NULL;
}

static bool
opts_valid(const struct ramfs_opts *o)
{
  if(!o || o->variant >= NR_PC_VARIANTS || (o->free != FREE_RCU && o->free != FREE_NOW))
    return false;
  bool radix = o->variant == PC_RADIX_LOCK || o->variant == PC_RADIX_RCU;
  return !radix || o->fanout == 16 || o->fanout == 64 || o->fanout == 128;
}

int
vfs_mount(const char *path, const struct ramfs_opts *opts)
{
  if(!opts_valid(opts))
    return -EINVAL;
  struct dentry *d;
  int err = path_lookup(path, 0, &d);
  if(err)
    return err;
  struct inode *dir = d->d_inode;
  struct super_block *sb = NULL;
  struct vfsmount *mnt = NULL;
  if(!S_ISDIR(dir->i_mode))
    err = -ENOTDIR;
  else if(!(sb = ramfs_mount(opts)) || !(mnt = kzalloc(sizeof(*mnt), GFP_KERNEL)))
    err = -ENOMEM;
  if(err)
    goto fail;
  // s_rename_mutex and the directory's i_mutex keep rmdir and rename off d meanwhile.
  mutex_lock(&d->d_sb->s_rename_mutex);
  mutex_lock(&dir->i_mutex);
  br_write_lock(&vfsmount_lock);
  if(dir->i_flags & I_DEAD)
    err = -ENOENT;
  else if(d->d_mounted)
    err = -EBUSY;
  else {
    mnt->mnt_root = sb->s_root;
    mnt->mnt_mountpoint = d;   // the mount keeps the lookup's reference
    mnt->mnt_sb = sb;
    list_add_tail(&mnt->mnt_list, &mounts);
    rcu_assign_pointer(d->d_mounted, mnt);
  }
  br_write_unlock(&vfsmount_lock);
  mutex_unlock(&dir->i_mutex);
  mutex_unlock(&d->d_sb->s_rename_mutex);
  if(!err)
    return 0;
fail:
  if(sb)
    ramfs_kill_sb(sb);
  kfree(mnt);
  dput(d);
  return err;
}

// Only an empty filesystem nobody is in: its root has no entries and no mount on it, its
// only inode is the root's, and no one but the mount and this call holds the root.
int
vfs_umount(const char *path)
{
  struct dentry *root;
  int err = path_lookup(path, LOOKUP_REF_ONLY, &root);
  if(err)
    return err;
  struct vfsmount *mnt = NULL, *m;
  mutex_lock(&root->d_inode->i_mutex);   // no entry appears meanwhile
  br_write_lock(&vfsmount_lock);
  list_for_each_entry(m, &mounts, mnt_list)
    if(m->mnt_root == root)
      mnt = m;
  if(!mnt)
    err = -EINVAL;   // not the root of a mount, or "/"
  else {
    spin_lock(&root->d_lock);
    // An RCU-walker that reached the root before this cannot take a reference after it.
    write_seqcount_begin(&root->d_seq);
    write_seqcount_end(&root->d_seq);
    if(root->d_count != 2 || root->d_mounted || !list_empty(&root->d_subdirs) ||
       READ_ONCE(mnt->mnt_sb->s_inodes) != 1)
      err = -EBUSY;
    spin_unlock(&root->d_lock);
  }
  if(!err) {
    rcu_assign_pointer(mnt->mnt_mountpoint->d_mounted, NULL);
    list_del(&mnt->mnt_list);
  }
  br_write_unlock(&vfsmount_lock);
  mutex_unlock(&root->d_inode->i_mutex);
  dput(root);
  if(err)
    return err;
  synchronize_rcu();   // RCU-walkers that were inside have left
  ramfs_kill_sb(mnt->mnt_sb);
  dput(mnt->mnt_mountpoint);
  kfree(mnt);
  return 0;
}

// The system calls' path buffers (fs/open.c, user_path), as Linux's names_cachep: a
// slab cache with per-CPU magazines, where kmalloc of two pages went to the page allocator
// and its one zone lock on every open, stat and unlink of every CPU.
struct kmem_cache *names_cachep;

// The root's choices from the command line (pagecache=, pagecache.fanout=, ramfs.free=,
// ramfs.walk=), so that real programs' files use the variant under test; radix-rcu at 64,
// freed by RCU and RCU-walked, unless told otherwise.
static struct ramfs_opts
root_opts(void)
{
  struct ramfs_opts o = { PC_RADIX_RCU, kcmdline.pagecache_fanout, FREE_RCU, WALK_AUTO };
  for(int v = 0; v < NR_PC_VARIANTS; v++)
    if(strcmp(pagecache_variant_names[v], cmdline_pagecache_names[kcmdline.pagecache]) == 0)
      o.variant = v;
  if(kcmdline.ramfs_free_now)
    o.free = FREE_NOW;
  if(kcmdline.ramfs_walk_ref)
    o.walk = WALK_REF_ONLY;
  return o;
}

void
vfs_init(void)
{
  struct ramfs_opts opts = root_opts();
  inode_init();
  dcache_init();
  names_cachep = kmem_cache_create("names_cache", NAMES_CACHE_SIZE, 64, 0, NULL);
  if(!names_cachep)
    panic("vfs_init: no memory for the path-name cache");
  struct super_block *sb = ramfs_mount(&opts);
  root_mnt = kzalloc(sizeof(*root_mnt), GFP_KERNEL);
  if(!sb || !root_mnt)
    panic("vfs_init: no memory for the root filesystem");
  root_mnt->mnt_root = sb->s_root;
  root_mnt->mnt_sb = sb;
  pr_info("vfs: ramfs at / (%s, fanout %u, inodes %s, %s)\n",
          pagecache_variant_names[sb->s_variant], sb->s_fanout,
          sb->s_free == FREE_RCU ? "free-rcu" : "free-now", sb->s_rcu_walk ? "rcu-walk" : "ref-walk");
  // Every walk starts at /: the file-system suites' walks into their own mounts too.
  if(!sb->s_rcu_walk && (kcmdline.bench_all || kcmdline.nbench))
    pr_warn("vfs: %s: every path walk is a ref-walk, the benchmark suites' too: "
            "their RCU-walk comparisons do not hold in this boot (bench=none for real programs)\n",
            sb->s_free == FREE_NOW ? "ramfs.free=now" : "ramfs.walk=ref");
  chrdev_init();   // /dev
  sysfs_init();    // /sys/devices/system/cpu
  proc_init();     // /proc, and the links of /dev into it
}

// /proc/mounts (fs/proc.c): a line per mount, the root's first, in Linux's format (fstab(5)):
// "none <dir> ramfs rw,relatime 0 0". The length written into buf, less than len.
size_t
mounts_show(char *buf, size_t len)
{
  size_t n = scnprintf(buf, len, "none / ramfs rw,relatime 0 0\n");
  struct dentry *points[32];
  int k = 0;
  struct vfsmount *m;
  br_read_lock(&vfsmount_lock);
  list_for_each_entry(m, &mounts, mnt_list)
    if(k < 32)
      points[k++] = dget(m->mnt_mountpoint);
  br_read_unlock(&vfsmount_lock);
  char *path = kmalloc(PATH_MAX, GFP_KERNEL);
  for(int i = 0; i < k; i++) {
    char *p;
    if(path && d_path(points[i], path, PATH_MAX, &p) == 0)
      n += scnprintf(buf + n, len - n, "none %s ramfs rw,relatime 0 0\n", p);
    dput(points[i]);
  }
  kfree(path);
  return n;
}
