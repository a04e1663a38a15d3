// The VFS: inodes, dentries, superblocks, mounts and open files, and the vfs_* calls that
// work on paths. One filesystem, ramfs (fs/ramfs.c); its data lives only in the page cache.
#pragma once
#include "brlock.h"
#include "list.h"
#include "mutex.h"
#include "namei.h"
#include "pagemap.h"
#include "rculist.h"
#include "rcupdate.h"
#include "seqlock.h"
#include "spinlock.h"
#include "types.h"

#define S_IFMT  0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)

#define MAX_FILE_SIZE (1ULL << 40)   // keeps every page index far from overflow

// A live inode carries this; a freed one is slab poison. RCU-walkers may check it: only a
// mount that frees inodes at once yet allows RCU-walk (planted tests) lets them see poison.
#define INODE_MAGIC 0x1a0de5edu

// How a superblock frees an inode whose last reference and link are gone: the 2010 patch
// ("fs: icache RCU free inodes", Nick Piggin) against the old way.
enum inode_free {
  FREE_RCU,   // call_rcu: an RCU-walker may still be looking at it
  FREE_NOW,   // kmem_cache_free at once: RCU-walk is off on such a mount
};

struct super_block {
  struct dentry *s_root;
  enum pagecache_variant s_variant;   // every file's address_space
  unsigned s_fanout;
  enum inode_free s_free;
  bool s_rcu_walk;                    // path walks may cross this filesystem under RCU
  struct mutex s_rename_mutex;        // renames and rmdirs: the tree's shape stays put
  unsigned long s_next_ino;           // atomic
  long s_inodes;                      // atomic: allocated and not yet freed
};

#define I_DEAD 0x1   // a removed directory: nothing may be created in it

// The i_mutex subclasses where one thread holds several (Linux's I_MUTEX_*), each a lockdep
// class of its own, nested in this order only: rename's two parents, then the directory that
// rename replaces or rmdir removes. Two parents are never ordered by the tree, only by
// s_rename_mutex, which every holder of two i_mutexes takes first.
enum {
  I_MUTEX_NORMAL,    // one directory, or rename's source parent
  I_MUTEX_PARENT2,   // rename's target parent, when it is another directory
  I_MUTEX_CHILD,     // a directory inside one held: rmdir's victim, rename's target
};

struct inode {
  u32 i_magic;
  u32 i_mode;
  unsigned long i_ino;
  int i_count;                 // atomic: dentries, open files' dentries, iget callers
  int i_nlink;                 // names (and a directory's "."); changed under the parent's mutex
  unsigned i_flags;
  u64 i_size;                  // changed under i_mutex; read without it
  struct super_block *i_sb;
  const struct inode_operations *i_op;
  struct mutex i_mutex;        // directories: their names; files: writes and truncation
  struct hlist_node i_hash;    // in the inode hash by (sb, ino)
  struct address_space i_data; // regular files: their pages
  struct rcu_head i_rcu;
};

struct dentry {
  seqcount_t d_seq;              // bumped around rename and unlink: RCU-walkers recheck it
  struct hlist_node d_hash;      // in the dentry hash by (parent, name); RCU readers
  struct dentry *d_parent;       // holds a reference
  struct inode *d_inode;         // holds a reference; set before the dentry is hashed
  struct vfsmount *d_mounted;    // a filesystem mounted on this directory
  spinlock_t d_lock;             // d_count
  int d_count;                   // references; the tree holds one while the name exists
  struct list_head d_child;      // in the parent's d_subdirs, under its i_mutex
  struct list_head d_subdirs;    // a directory's entries: ramfs directories are this list
  struct super_block *d_sb;
  u32 d_hashval;                 // name_hash of d_iname
  u32 d_len;
  char d_iname[NAME_MAX + 1];    // rename rewrites it in place: readers check d_seq after
  struct rcu_head d_rcu;
};

struct vfsmount {
  struct dentry *mnt_root;         // the mounted filesystem's root
  struct dentry *mnt_mountpoint;   // the directory it covers (holds a reference)
  struct super_block *mnt_sb;
  struct list_head mnt_list;
};

// A filesystem's directory operations. The caller holds dir->i_mutex (both for rename)
// and references on the dentries.
struct inode_operations {
  int (*create)(struct inode *dir, struct dentry *d, u32 mode);   // d: new, unhashed
  int (*unlink)(struct inode *dir, struct dentry *d);
  int (*rmdir)(struct inode *dir, struct dentry *d);               // d's i_mutex held too
  int (*rename)(struct dentry *old, struct dentry *new_parent, struct dentry *target,
                const struct qstr *new_name);   // target: what new_name replaces, or NULL
};

struct file {
  struct dentry *f_dentry;   // holds a reference, so the inode lives while the file is open
  struct inode *f_inode;
  u64 f_pos;                 // the opener's: threads sharing a file use pread and pwrite
};

struct kstat {
  unsigned long ino;
  u32 mode;
  u32 nlink;
  u64 size;
  unsigned long nrpages;
};

// How path walks cross a mount.
enum walk_mode {
  WALK_AUTO,         // RCU-walk where inodes are RCU-freed (FREE_RCU), ref-walk elsewhere
  WALK_UNSAFE_RCU,   // planted tests only: RCU-walk even on a FREE_NOW mount
  WALK_REF_ONLY,     // ref-walk always: the 2010 experiment, where only inode freeing differs
};

// A mount's choices: the page cache under its files, how it frees inodes, how it is walked.
struct ramfs_opts {
  enum pagecache_variant variant;
  unsigned fanout;            // radix variants: 16, 64 or 128
  enum inode_free free;
  enum walk_mode walk;
};

#define O_CREAT 0x1
#define O_EXCL  0x2
#define O_TRUNC 0x4

// readdir's callback: return false to stop (the entry is then given again next time).
typedef bool (*filldir_t)(void *arg, const char *name, u32 len, unsigned long ino, u32 mode);

// The calls. Errors are negative errno values; a bad path is never a crash. Paths are
// absolute, with no "." or ".." names; flags are LOOKUP_* (0: RCU-walk, then ref-walk).
void vfs_init(void);   // the root ramfs at "/"
int vfs_mount(const char *path, const struct ramfs_opts *opts);   // on an existing directory
int vfs_umount(const char *path);                 // -EBUSY unless the filesystem is empty
int vfs_create(const char *path, u32 mode);       // a regular file; mode is unused
int vfs_mkdir(const char *path);
int vfs_unlink(const char *path);
int vfs_rmdir(const char *path);
int vfs_rename(const char *from, const char *to);   // replaces a file or an empty directory
int vfs_stat(const char *path, unsigned flags, struct kstat *st);
int vfs_truncate(const char *path, u64 size);
int vfs_open(const char *path, unsigned oflags, unsigned flags, struct file **fp);
void vfs_close(struct file *f);
ssize_t vfs_read(struct file *f, void *buf, size_t len);
ssize_t vfs_write(struct file *f, const void *buf, size_t len);
ssize_t vfs_pread(struct file *f, void *buf, size_t len, u64 pos);
ssize_t vfs_pwrite(struct file *f, const void *buf, size_t len, u64 pos);
int vfs_ftruncate(struct file *f, u64 size);
int vfs_fstat(struct file *f, struct kstat *st);
int vfs_readdir(struct file *f, filldir_t fill, void *arg);   // 1: more may follow; 0: done
// RCU-walk alone, no references taken: the inode at path, valid until the caller's
// rcu_read_unlock. For tests and benchmarks of the walk itself.
int vfs_lookup_rcu(const char *path, struct inode **inode);

// Inodes (fs/inode.c).
struct inode *new_inode(struct super_block *sb, u32 mode);   // one reference
struct inode *iget(struct super_block *sb, unsigned long ino); // NULL if not in the hash
void iput(struct inode *inode);
void inode_stat(struct inode *inode, struct kstat *st);
void inode_init(void);

// Dentries (fs/dcache.c).
struct dentry *d_alloc(struct dentry *parent, const struct qstr *name);   // one reference
struct dentry *d_alloc_root(struct super_block *sb, struct inode *root);
void d_instantiate_add(struct dentry *d, struct inode *inode);   // pin, list, hash
void d_delete(struct dentry *d);                                 // unhash, unlist, unpin
void d_move(struct dentry *d, struct dentry *new_parent, const struct qstr *name);
struct dentry *d_lookup(struct dentry *parent, const struct qstr *name);   // referenced
struct dentry *d_lookup_rcu(struct dentry *parent, const struct qstr *name, u32 *seq);
bool d_legitimize(struct dentry *d, u32 seq);   // RCU-walk to a reference, if d is unchanged
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);
void dcache_init(void);
extern seqlock_t rename_lock;   // every rename: a lookup that missed during one retries

// Superblocks and mounts (fs/super.c).
extern struct vfsmount *root_mnt;
// d_mounted and the mount list: ref-walk reads them under its CPU's lock, mount and umount
// change them under every CPU's (2.6.36's vfsmount_lock); RCU-walk takes no lock at all.
extern struct brlock vfsmount_lock;
struct dentry *follow_mount(struct dentry *d);   // ref-walk: d's reference moves to the root

// ramfs (fs/ramfs.c).
struct super_block *ramfs_mount(const struct ramfs_opts *opts);
void ramfs_kill_sb(struct super_block *sb);   // empty but for its root
struct inode *ramfs_get_inode(struct super_block *sb, u32 mode);

// The walk (fs/namei.c), used by the file calls: a referenced dentry.
int path_lookup(const char *path, unsigned flags, struct dentry **d);
int open_path(const char *path, unsigned oflags, unsigned flags, struct dentry **d);
