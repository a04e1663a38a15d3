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

#include "uapi/stat.h"

// Device numbers as Linux's kernel-internal dev_t: 12 bits of major, 20 of minor.
typedef u32 dev_t;
#define MINORBITS 20
#define MKDEV(ma, mi) (((dev_t)(ma) << MINORBITS) | (mi))
#define MAJOR(dev) ((u32)(dev) >> MINORBITS)
#define MINOR(dev) ((u32)(dev) & ((1u << MINORBITS) - 1))
// The dev_t user space sees in struct stat: glibc's major()/minor() read the minor's low 8 bits
// at 0-7, the major at 8-19 and the minor's other bits from 20 on (Linux's new_encode_dev,
// include/linux/kdev_t.h), not the kernel's own layout above.
static inline u64
huge_encode_dev(dev_t dev)
{
  u64 ma = MAJOR(dev), mi = MINOR(dev);
  return (mi & 0xff) | (ma << 8) | ((mi & ~0xffUL) << 12);
}

#define MAXSYMLINKS 40   // symbolic links one walk follows before -ELOOP (Linux's limit)

#define MAX_FILE_SIZE (1ULL << 40)   // keeps every page index far from overflow
#define MAX_RW_COUNT 0x7ffff000L     // INT_MAX & PAGE_MASK: the most one read, write or send moves

// A file time, as Linux's: seconds since the epoch (negative before 1970) and nanoseconds.
struct timespec64 {
  s64 tv_sec;
  long tv_nsec;
};

#include "uapi/fs.h"

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
// A node of /proc, which is part of the root ramfs here but Linux's procfs there: its names
// are the kernel's. Creating a name in such a directory is ENOENT, removing such a node EPERM,
// renaming in or out ENOENT or EXDEV, a hard link to it EXDEV, as Linux's procfs answers.
// The kernel clears it from a node it is about to remove (fs/proc_pid.c).
#define I_PROC 0x2

// The i_mutex subclasses where one thread holds several (Linux's I_MUTEX_*), each a lockdep
// class of its own, nested in this order only: rename's two parents, then the directory that
// rename replaces or rmdir removes. Two parents are never ordered by the tree, only by
// s_rename_mutex, which every holder of two i_mutexes takes first. The one exception is
// I_MUTEX_NONDIR, a regular file's, which a write fault's page_mkwrite may take while a
// getdents(2) holds its directory's (its dirents copied into a MAP_SHARED file mapping): no
// path holds a regular file's i_mutex while it takes another, so this nesting closes no cycle.
// (Linux gives directories an i_rwsem class of their own, i_mutex_dir_key, for the same case.)
enum {
  I_MUTEX_NORMAL,    // one directory, or rename's source parent
  I_MUTEX_PARENT2,   // rename's target parent, when it is another directory
  I_MUTEX_CHILD,     // a directory inside one held: rmdir's victim, rename's target
  I_MUTEX_NONDIR,    // a regular file's, taken by file_update_time from a write fault
};

struct inode {
  u32 i_magic;
  u32 i_mode;                  // type bits fixed at creation; the rest changed by chmod and
                               // chown under i_mutex; read without it (READ_ONCE)
  u32 i_uid, i_gid;            // changed by chown under i_mutex; read without it
  dev_t i_rdev;                // character and block devices: which one
  unsigned long i_ino;
  int i_count;                 // atomic: dentries, open files' dentries, iget callers
  int i_nlink;                 // names (and a directory's "."): a directory's changed under
                               // its parent's mutex; another file's atomic, as its hard links'
                               // directories' mutexes do not exclude each other
  unsigned i_flags;
  u64 i_size;                  // changed under i_mutex; read without it
  // Times (stat(2)), each field WRITE_ONCE under i_mutex, or under the parent's for the
  // ctime that unlink and rename give the inode they unname or move (with s_rename_mutex),
  // read without it: stat may see a second and its nanoseconds from two updates, as on
  // Linux. i_atime is also written without a lock (touch_atime, a read's relatime update:
  // racing readers store about the same time).
  struct timespec64 i_atime, i_mtime, i_ctime;
  struct timespec64 i_btime;   // birth: set once, before the inode is published
  struct super_block *i_sb;
  const struct inode_operations *i_op;
  const struct file_operations *i_fop;   // files whose data is not the page cache, or NULL
  char *i_link;                // ramfs symbolic links: the target, set before the name exists
  long i_private;              // generated files' own datum, set before the name exists
                               // (/proc/<pid>/*: the pid; /proc's machine files: the
                               // function that makes their text)
  struct mutex i_mutex;        // directories: their names; files: writes and truncation
  struct hlist_node i_hash;    // in the inode hash by (sb, ino)
  struct address_space i_data; // regular files: their pages
  spinlock_t i_mmap_lock;      // i_mmap
  struct list_head i_mmap;     // regular files: every VMA mapping it (vma->i_mmap_link)
  unsigned long i_mmap_gen;    // each unmap_mapping_range's number, under i_mutex
  struct list_head i_flock;    // record locks (fs/locks.c), under its file_lock_lock
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
  // Its place in the parent's list, which is in this order: getdents resumes at the first
  // entry past the last one given, however many were removed meanwhile (an index would skip
  // as many: rm -r of a big directory left names behind). Linux 6.6's stable offsets
  // (simple_offset) for the same reason. d_next_offset: a directory's next one. Both under the
  // directory's i_mutex.
  u64 d_offset, d_next_offset;
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
  // target: what new_name replaces, or NULL; flags: RENAME_EXCHANGE swaps old and target
  // (both exist), else 0 (the VFS has checked RENAME_NOREPLACE).
  int (*rename)(struct dentry *old, struct dentry *new_parent, struct dentry *target,
                const struct qstr *new_name, unsigned flags);
  int (*mknod)(struct inode *dir, struct dentry *d, u32 mode, dev_t rdev);   // devices, fifos
  int (*symlink)(struct inode *dir, struct dentry *d, const char *target);
  int (*link)(struct dentry *old, struct inode *dir, struct dentry *d);   // old: not a directory
  // Symbolic links: copies the target into buf (no NUL), returns its length or -errno. No
  // lock held; the inode is referenced.
  int (*get_link)(struct inode *inode, char *buf, size_t len);
};

struct file;
struct poll_table;
typedef bool (*filldir_t)(void *arg, const char *name, u32 len, unsigned long ino, u32 mode);

// Files whose data does not come from the page cache: character devices (fs/char_dev.c) and
// the generated files under /sys and /proc. pos is the file's position, or pread's.
struct file_operations {
  ssize_t (*read)(struct file *f, void *buf, size_t len, u64 *pos);
  ssize_t (*write)(struct file *f, const void *buf, size_t len, u64 *pos);
  // cmd with a kernel buffer of the command's size (the caller copies from and to user
  // space): -ENOTTY for a command the file does not know.
  int (*ioctl)(struct file *f, unsigned cmd, void *arg);
  // Files that may block (pipes): read(2) and write(2) hand over the user's buffer and the
  // open file's Linux O_* flags (O_NONBLOCK), and the file copies to and from user memory
  // itself. The count moved, or -errno (-EAGAIN, -ERESTARTSYS, -EPIPE, -EFAULT).
  ssize_t (*read_user)(struct file *f, char *ubuf, size_t len, unsigned flags);
  ssize_t (*write_user)(struct file *f, const char *ubuf, size_t len, unsigned flags);
  // poll(2): the POLL* events ready now, after poll_wait on pt for every wait queue whose
  // wake-up may change them (include/poll.h). NULL: always ready (DEFAULT_POLLMASK).
  unsigned (*poll)(struct file *f, struct poll_table *pt);
  void (*release)(struct file *f);   // vfs_close, before the file is freed
  // Directories whose names are generated at each read (/proc/<pid>/fd): the entries from
  // f_pos on, as vfs_readdir gives a ramfs directory's; 1: more may follow, 0: done.
  int (*iterate)(struct file *f, filldir_t fill, void *arg);
  // Files with no path: the name /proc/<pid>/fd/N's link shows (Linux's d_dname: "pipe:[ino]",
  // "anon_inode:[eventpoll]"), its length in buf (len bytes, no NUL).
  int (*dname)(struct file *f, char *buf, size_t len);
};

struct file {
  int f_count;               // atomic: its opener's reference and each mapping's (get_file)
  struct dentry *f_dentry;   // holds a reference, so the inode lives while the file is open;
                             // NULL for a file with no name (a pipe end: f_op->release)
  struct inode *f_inode;
  u64 f_pos;                 // the opener's: threads sharing a file use pread and pwrite
  bool f_created;            // this open made the file: O_TRUNC has nothing to do and marks
                             // no times (Linux's FMODE_CREATED)
  const struct file_operations *f_op;   // the inode's i_fop, or a device's, or NULL
  void *private_data;        // the f_op's own (a pipe end: its pipe)
};

struct kstat {
  unsigned long ino;
  u32 mode;
  u32 nlink;
  u32 uid, gid;
  dev_t rdev;
  u64 size;
  unsigned long nrpages;
  struct timespec64 atime, mtime, ctime, btime;
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

// vfs_open takes open(2)'s own O_CREAT, O_EXCL and O_TRUNC (include/uapi/fcntl.h).
#include "uapi/fcntl.h"

// readdir's callback: return false to stop (the entry is then given again next time).

// The calls. Errors are negative errno values; a bad path is never a crash. Paths are
// absolute, or relative to a directory in the *_at forms below; "." and ".." names and symbolic links are followed by ref-walk (RCU-walk hands
// them over), at most MAXSYMLINKS links per walk (-ELOOP). A path's last name is followed
// too unless flags has LOOKUP_NOFOLLOW (lstat); calls that change a name never follow it.
// flags are LOOKUP_* (0: RCU-walk, then ref-walk).
void vfs_init(void);   // the root ramfs at "/"
int vfs_mount(const char *path, const struct ramfs_opts *opts);   // on an existing directory
int vfs_umount(const char *path);                 // -EBUSY unless the filesystem is empty
int vfs_create(const char *path, u32 mode);       // a regular file, mode 0644
int vfs_mkdir(const char *path);                  // mode 0755
// Any type of node (S_IFREG, S_IFDIR, S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK in mode), with
// mode's permission bits as they are; rdev for devices.
int vfs_mknod(const char *path, u32 mode, dev_t rdev);
int vfs_symlink(const char *target, const char *path);   // mode 0777, as in Linux
// The target of the symbolic link at path (not followed), cut to len bytes, no NUL: its
// length, -EINVAL if path is not a symbolic link.
int vfs_readlink(const char *path, char *buf, size_t len);
int vfs_chmod(const char *path, u32 mode);        // mode's S_IALLUGO bits; symlinks followed
int vfs_chown(const char *path, u32 uid, u32 gid);   // (u32)-1 keeps one; not followed
// The same on an inode the caller holds (fs/attr.c): chmod's S_IALLUGO bits; chown's ids,
// with kill_suid as chown(2) from user space (set-id bits of a non-directory cleared).
void inode_chmod(struct inode *inode, u32 mode);
void inode_chown(struct inode *inode, u32 uid, u32 gid, bool kill_suid);
// utimensat(2) on an inode: atime and mtime set to *atime and *mtime (NULL keeps one), ctime
// to now. The caller resolved UTIME_NOW to current_time().
void inode_set_times(struct inode *inode, const struct timespec64 *atime,
                     const struct timespec64 *mtime);
// The times the calls mark (fs/inode.c): CLOCK_REALTIME now; mtime and ctime of a file
// written or truncated, or of a directory whose names changed (caller holds i_mutex);
// ctime alone for a change of attributes or links; atime for a read, relatime-style (as
// Linux's default mount option: only when atime is not newer than mtime or ctime, or is a
// day old), without a lock.
struct timespec64 current_time(void);
void inode_touch_mc(struct inode *inode);
void inode_touch_c(struct inode *inode);
// Linux's file_update_time (fs/inode.c), as page_mkwrite calls it for a write fault on a
// MAP_SHARED mapping of f: mtime and ctime to now where they differ from it, under f's
// i_mutex. i_mutex comes before mmap_sem (mm/truncate.c), so a caller holding mmap_sem passes
// nowait: false, nothing done, when i_mutex is not free at once.
bool file_update_time(struct file *f, bool nowait);
void touch_atime(struct inode *inode);
int vfs_ioctl(struct file *f, unsigned cmd, void *arg);   // -ENOTTY unless f_op knows cmd
int vfs_unlink(const char *path);
int vfs_rmdir(const char *path);
int vfs_rename(const char *from, const char *to);   // replaces a file or an empty directory
// renameat2(2): flags 0 (vfs_rename), RENAME_NOREPLACE or RENAME_EXCHANGE.
int vfs_rename2(const char *from, const char *to, unsigned flags);
int vfs_stat(const char *path, unsigned flags, struct kstat *st);
int vfs_truncate(const char *path, u64 size);
int vfs_open(const char *path, unsigned oflags, unsigned flags, struct file **fp);   // 0644
// open with the permission bits a new file gets (mode & S_IALLUGO). A character device's
// file gets its driver's operations: -ENXIO when no driver has its number.
int vfs_open_mode(const char *path, unsigned oflags, u32 mode, unsigned flags,
                  struct file **fp);
void vfs_close(struct file *f);   // drops a reference; the last one closes
struct file *get_file(struct file *f);   // another reference (a mapping's): returns f
ssize_t vfs_read(struct file *f, void *buf, size_t len);
ssize_t vfs_write(struct file *f, const void *buf, size_t len);
// user_path's buffers (vfs_init makes the cache): freed with kfree.
#define NAMES_CACHE_SIZE 8192
extern struct kmem_cache *names_cachep;
ssize_t vfs_pread(struct file *f, void *buf, size_t len, u64 pos);
// A page-cache file (no f_op) read into user memory, copied once: bytes, or -EFAULT.
ssize_t vfs_pread_user(struct file *f, char *ubuf, size_t len, u64 pos);
ssize_t vfs_pwrite(struct file *f, const void *buf, size_t len, u64 pos);
int vfs_ftruncate(struct file *f, u64 size);
// mm/truncate.c: every mapping's pages of inode from file page from on unmapped; i_mutex held.
void unmap_mapping_range(struct inode *inode, unsigned long from);
int vfs_fstat(struct file *f, struct kstat *st);
int vfs_readdir(struct file *f, filldir_t fill, void *arg);   // 1: more may follow; 0: done
// RCU-walk alone, no references taken: the inode at path, valid until the caller's
// rcu_read_unlock. For tests and benchmarks of the walk itself.
int vfs_lookup_rcu(const char *path, struct inode **inode);

// Pipes (fs/pipe.c): a read end and a write end (files with no name, O_RDONLY and O_WRONLY)
// of a new pipe; 0 or -ENOMEM.
int create_pipe_files(struct file *res[2]);
bool is_pipe(struct file *f);
// sendfile into a pipe's write end: as write(2) on it with flags (O_NONBLOCK), from kernel
// memory.
ssize_t pipe_write_kernel(struct file *f, const void *buf, size_t len, unsigned flags);
long pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg);   // F_GETPIPE_SZ; -EBADF
// A new file on end's pipe, a read end for O_RDONLY or a write end for O_WRONLY (an open of
// /dev/fd/N, as Linux opens the pipe as a FIFO; fs/fd_link.c); NULL when out of memory.
struct file *pipe_reopen(struct file *end, u32 acc);

// Character devices (fs/char_dev.c): the file operations behind a device number, looked up
// at open. drivers/char/mem.c registers /dev/null and /dev/zero, drivers/tty/tty.c /dev/console.
int register_chrdev(dev_t dev, const char *name, const struct file_operations *fops);
const struct file_operations *chrdev_lookup(dev_t dev);
void chrdev_init(void);   // the devices, and their nodes under /dev
void mem_dev_init(void);
void tty_init(void);

// What glibc reads about the machine, present from boot (fs/sysfs.c, fs/proc.c):
// /sys/devices/system/cpu/{online,possible} and /proc/self (exe); and what df, free, uptime
// and ps read: /proc/mounts, meminfo, uptime, stat, cpuinfo and the rest.
void sysfs_init(void);
void proc_init(void);
// /proc/<pid>/ of a process now listed (fork, spawn), and its removal at the release; a name
// the owner (root) moved or removed first is skipped, not an error.
void proc_pid_add(int pid);
void proc_pid_remove(int pid);
// A generated /proc file's read (fs/proc.c): the part of text (n bytes) a read of len bytes at
// *pos asks for, *pos advanced.
ssize_t proc_read_text(const char *text, size_t n, void *buf, size_t len, u64 *pos);
// /proc/mounts's text (fs/super.c): its length in buf, less than len.
size_t mounts_show(char *buf, size_t len);
// Generated files (fs/proc.c): a read makes the whole text by the function in i_private,
// size_t show(char *buf, size_t len), and gives the part asked for.
extern const struct file_operations proc_show_fops;
// /proc/<pid>/maps (fs/proc_maps.c): the process's mappings, in Linux's format.
extern const struct file_operations proc_maps_fops;

// Boot-time trees: mkdir -p (each directory made with mode, existing ones kept), and a name
// for an inode made by the caller (its reference moves to the name; freed on failure).
int vfs_mkdir_p(const char *path, u32 mode);
int vfs_add_inode(const char *path, struct inode *inode);

// The initramfs (fs/initramfs.c): every archive GRUB loaded, unpacked into "/" in order (a
// later name replaces an earlier one), then their memory freed. One INITRAMFS line each.
void populate_rootfs(void);
struct initramfs_stats {
  unsigned long archives, failed, entries, errors, freed_pages;
};
extern struct initramfs_stats initramfs_stats;   // for the self-tests
// Unpacks the archive in buf into "/" and prints its INITRAMFS line: 0, or the error that
// stopped it (what came before stays). An entry that cannot be made is named and skipped.
struct initramfs_result {
  unsigned long entries, files, dirs, links, nodes, bytes, errors;
};
int initramfs_unpack(const void *buf, size_t len, const char *name, struct initramfs_result *r);

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
void d_exchange(struct dentry *a, struct dentry *b);   // RENAME_EXCHANGE: names and parents
struct dentry *d_lookup(struct dentry *parent, const struct qstr *name);   // referenced
struct dentry *d_lookup_rcu(struct dentry *parent, const struct qstr *name, u32 *seq);
bool d_legitimize(struct dentry *d, u32 seq);   // RCU-walk to a reference, if d is unchanged
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);
void dcache_init(void);
extern seqlock_t rename_lock;   // every rename: a lookup that missed during one retries
// planted-rename-unlocked: renames leave rename_lock alone (lookups cannot tell a miss
// during one), and their dentries unhashed for 20 us.
extern bool rename_planted_unlocked;

// Superblocks and mounts (fs/super.c).
extern struct vfsmount *root_mnt;
// d_mounted and the mount list: ref-walk reads them under its CPU's lock, mount and umount
// change them under every CPU's (2.6.36's vfsmount_lock); RCU-walk takes no lock at all.
extern struct brlock vfsmount_lock;
struct dentry *follow_mount(struct dentry *d);   // ref-walk: d's reference moves to the root
struct dentry *get_root(void);   // "/" past what is mounted on it, referenced
struct dentry *mount_point_of(struct dentry *d);   // referenced, or NULL
// The same with vfsmount_lock read-held by the caller, and no reference: the mount's own
// keeps it while the lock is held (d_path).
struct dentry *mount_point_locked(struct dentry *d);

// ramfs (fs/ramfs.c).
struct super_block *ramfs_mount(const struct ramfs_opts *opts);
void ramfs_kill_sb(struct super_block *sb);   // empty but for its root
struct inode *ramfs_get_inode(struct super_block *sb, u32 mode);

// The walk (fs/namei.c), used by the file calls: a referenced dentry.
int path_lookup(const char *path, unsigned flags, struct dentry **d);
struct dentry *dget_parent(struct dentry *d);   // referenced
// *created: O_CREAT made the file.
int open_path(struct dentry *dir, const char *path, unsigned oflags, u32 mode, unsigned flags,
              struct dentry **d, bool *created);

// The calls relative to a directory, for the system calls (Linux's struct path base of a
// walk: the working directory, a dirfd's file): a relative path's walk starts at dir, which
// the caller holds a reference on; an absolute path, or a NULL dir, starts at "/". ".." is
// the dentry's parent (a directory renamed since is followed; one removed has no names
// left, so every lookup in it is -ENOENT). One dentry is the whole base here: each
// filesystem is mounted once, so the mount is the one its superblock root belongs to.
int path_lookup_at(struct dentry *dir, const char *path, unsigned flags, struct dentry **d);
int vfs_stat_at(struct dentry *dir, const char *path, unsigned flags, struct kstat *st);
int vfs_open_at(struct dentry *dir, const char *path, unsigned oflags, u32 mode, unsigned flags,
                struct file **fp);
int vfs_mknod_at(struct dentry *dir, const char *path, u32 mode, dev_t rdev);
// A socket's or FIFO's node made as vfs_mknod_at does, its dentry referenced in *d: an
// AF_UNIX bind (net/unix.c) keeps the very name it made.
int vfs_mknod_get(struct dentry *dir, const char *path, u32 mode, struct dentry **d);
int vfs_symlink_at(const char *target, struct dentry *dir, const char *path);
// A hard link: path, from dir, becomes another name of old's inode (link(2)).
int vfs_link_at(struct dentry *old, struct dentry *dir, const char *path);
int vfs_readlink_at(struct dentry *dir, const char *path, char *buf, size_t len);
int vfs_unlink_at(struct dentry *dir, const char *path);
int vfs_rmdir_at(struct dentry *dir, const char *path);
int vfs_rename_at(struct dentry *from_dir, const char *from, struct dentry *to_dir, const char *to,
                  unsigned flags);
// A dentry's path from "/" (fs/d_path.c), built at the end of buf (len bytes, NUL included):
// *start points at it. 0; 1 when no mount leads from "/" to it (the caller marks it
// "(unreachable)", as Linux); -ENAMETOOLONG when it does not fit.
int d_path(struct dentry *d, char *buf, size_t len, char **start);
// True for a dentry whose name was removed (the root never has one): Linux's d_unlinked.
bool d_unlinked(struct dentry *d);
