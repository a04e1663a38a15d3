// Inodes: the inode cache and hash, reference counts, and freeing, either after an RCU grace
// period or at once, per superblock (Nick Piggin, "fs: icache RCU free inodes", LKML 2010).
#include "errno.h"
#include "fs.h"
#include "tick.h"
#include "panic.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"

#define IHASH_BITS 10

// One lock for the whole hash, as Linux's inode_hash_lock: iget is rare here (path walks
// reach inodes through dentries), so it is not worth per-bucket locks.
static struct hlist_head inode_hash[1 << IHASH_BITS];
static DEFINE_SPINLOCK(inode_hash_lock);
// No constructor and not SLAB_TYPESAFE_BY_RCU, so with slab debugging on a freed inode is
// poisoned at once: a reader that reaches one sees the poison instead of INODE_MAGIC.
static struct kmem_cache *inode_cache;

static struct hlist_head *
hash_bucket(struct super_block *sb, unsigned long ino)
{
  unsigned long h = ((unsigned long)sb >> 6) ^ ino * 0x9e3779b97f4a7c15UL;
  return &inode_hash[h >> (64 - IHASH_BITS)];
}

struct inode *
new_inode(struct super_block *sb, u32 mode)
{
  struct inode *inode = kmem_cache_alloc(inode_cache, GFP_KERNEL);
  if(!inode)
    return NULL;
  memset(inode, 0, sizeof(*inode));
  inode->i_mode = mode;
  inode->i_ino = __atomic_add_fetch(&sb->s_next_ino, 1, __ATOMIC_RELAXED);
  inode->i_count = 1;
  inode->i_nlink = 1;
  inode->i_sb = sb;
  inode->i_atime = inode->i_mtime = inode->i_ctime = inode->i_btime = current_time();
  mutex_init(&inode->i_mutex);
  spin_lock_init(&inode->i_mmap_lock);
  INIT_LIST_HEAD(&inode->i_mmap);
  INIT_LIST_HEAD(&inode->i_flock);
  if(S_ISREG(mode) &&
     address_space_init(&inode->i_data, sb->s_variant, sb->s_fanout, inode, false) < 0) {
    kmem_cache_free(inode_cache, inode);
    return NULL;
  }
  inode->i_magic = INODE_MAGIC;
  __atomic_add_fetch(&sb->s_inodes, 1, __ATOMIC_RELAXED);
  spin_lock(&inode_hash_lock);
  hlist_add_head_rcu(&inode->i_hash, hash_bucket(sb, inode->i_ino));
  spin_unlock(&inode_hash_lock);
  return inode;
}

struct inode *
iget(struct super_block *sb, unsigned long ino)
{
  struct inode *inode, *found = NULL;
  spin_lock(&inode_hash_lock);
  hlist_for_each_entry_rcu(inode, hash_bucket(sb, ino), i_hash) {
    if(inode->i_sb == sb && inode->i_ino == ino) {
      __atomic_add_fetch(&inode->i_count, 1, __ATOMIC_RELAXED);
      found = inode;
      break;
    }
  }
  spin_unlock(&inode_hash_lock);
  return found;
}

static void
free_inode_rcu(struct rcu_head *head)
{
  kmem_cache_free(inode_cache, container_of(head, struct inode, i_rcu));
}

// The last reference and the last link are gone and the inode is out of the hash.
static void
evict(struct inode *inode)
{
  struct super_block *sb = inode->i_sb;
  if(S_ISREG(inode->i_mode))
    address_space_destroy(&inode->i_data);
  kfree(inode->i_link);   // RCU-walk never reads it: it hands links to ref-walk
  __atomic_sub_fetch(&sb->s_inodes, 1, __ATOMIC_RELAXED);
  // FREE_NOW is safe only because namei.c never RCU-walks such a superblock: every walker
  // there holds a dentry reference, and the dentry holds the inode.
  if(sb->s_free == FREE_RCU)
    call_rcu(&inode->i_rcu, free_inode_rcu);
  else
    kmem_cache_free(inode_cache, inode);
}

// Drops a reference without the lock unless it may be the last: then iget must not find
// the inode between the count reaching zero and its removal from the hash.
void
iput(struct inode *inode)
{
  if(!inode)
    return;
  int c = READ_ONCE(inode->i_count);
  while(c > 1)
    if(__atomic_compare_exchange_n(&inode->i_count, &c, c - 1, false, __ATOMIC_RELEASE,
                                   __ATOMIC_RELAXED))
      return;
  spin_lock(&inode_hash_lock);
  c = __atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL);
  if(c < 0)
    panic("iput: inode %lu has no references left", inode->i_ino);
  if(c > 0 || READ_ONCE(inode->i_nlink) > 0) {   // ramfs: kept while it has a name
    spin_unlock(&inode_hash_lock);
    return;
  }
  hlist_del_rcu(&inode->i_hash);
  spin_unlock(&inode_hash_lock);
  evict(inode);
}

// Lockless copies: under RCU-walk the caller checks d_seq afterwards.
void
inode_stat(struct inode *inode, struct kstat *st)
{
  st->ino = inode->i_ino;
  st->mode = READ_ONCE(inode->i_mode);
  st->nlink = READ_ONCE(inode->i_nlink);
  st->uid = READ_ONCE(inode->i_uid);
  st->gid = READ_ONCE(inode->i_gid);
  st->rdev = inode->i_rdev;
  st->size = READ_ONCE(inode->i_size);
  st->nrpages = S_ISREG(st->mode) ? READ_ONCE(inode->i_data.nrpages) : 0;
  st->atime = (struct timespec64){ READ_ONCE(inode->i_atime.tv_sec), READ_ONCE(inode->i_atime.tv_nsec) };
  st->mtime = (struct timespec64){ READ_ONCE(inode->i_mtime.tv_sec), READ_ONCE(inode->i_mtime.tv_nsec) };
  st->ctime = (struct timespec64){ READ_ONCE(inode->i_ctime.tv_sec), READ_ONCE(inode->i_ctime.tv_nsec) };
  st->btime = inode->i_btime;
}

// The kernel's CLOCK_REALTIME (kernel/time.c), to the nanosecond: Linux marks files with
// the coarser tick-based clock, which this one never runs behind.
struct timespec64
current_time(void)
{
  u64 ns = realtime_ns();
  return (struct timespec64){ ns / 1000000000, ns % 1000000000 };
}

static void
set_time(struct timespec64 *t, struct timespec64 now)
{
  WRITE_ONCE(t->tv_sec, now.tv_sec);
  WRITE_ONCE(t->tv_nsec, now.tv_nsec);
}

void
inode_touch_mc(struct inode *inode)
{
  struct timespec64 now = current_time();
  set_time(&inode->i_mtime, now);
  set_time(&inode->i_ctime, now);
}

void
inode_touch_c(struct inode *inode)
{
  set_time(&inode->i_ctime, current_time());
}

// Whether a time was stamped between from and to (nanoseconds of CLOCK_REALTIME), read
// without i_mutex as Linux's inode_needs_update_time reads it.
static bool
stamped_in(const struct timespec64 *t, u64 from, u64 to)
{
  u64 ns = (u64)READ_ONCE(t->tv_sec) * 1000000000 + READ_ONCE(t->tv_nsec);
  return ns >= from && ns <= to;
}

// Linux's file_update_time: mtime and ctime set to now where they are not current. Linux
// stamps files with its tick-based coarse clock, so every fault after the first in a tick
// finds both times equal to now and stores nothing, unlocked (inode_needs_update_time). The
// same test here against the start of the current tick: times stamped since then are
// current (a time ahead of now, set by utimensat(2), is not: Linux compares for equality).
// Without it every write fault took i_mutex and stored both times, work Linux does not do.
// A store is under i_mutex, as every other writer of the times (the lock rule on struct
// inode's fields), with now read under it too, so a pwrite(2) racing with the fault cannot
// have its newer time overwritten by an older one. Linux has no i_version here to bump (no
// NFS, no IMA). nowait: only if i_mutex is free at once (mutex_trylock; Linux's IOCB_NOWAIT
// callers of file_modified_flags), for a fault that holds mmap_sem, which comes after
// i_mutex. The subclass is for a fault taken in a getdents(2) that holds the directory's
// i_mutex (include/fs.h).
bool
file_update_time(struct file *f, bool nowait)
{
  struct inode *inode = f->f_inode;
  u64 ns = realtime_ns(), tick = ns / TICK_NS * TICK_NS;
  if(stamped_in(&inode->i_mtime, tick, ns) && stamped_in(&inode->i_ctime, tick, ns))
    return true;
  if(nowait) {
    if(!mutex_trylock(&inode->i_mutex))
      return false;
  } else {
    mutex_lock_nested(&inode->i_mutex, I_MUTEX_NONDIR);
  }
  inode_touch_mc(inode);   // now read under i_mutex: never older than a racing write's
  mutex_unlock(&inode->i_mutex);
  return true;
}

static bool
not_after(struct timespec64 a, struct timespec64 b)
{
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}

// relatime (Linux's relatime_need_update, fs/inode.c): a read marks atime only if it is not
// newer than mtime or ctime (so "was it read since it changed?" has an answer), or a day old;
// the other reads write nothing, so readers on many CPUs do not share the line.
void
touch_atime(struct inode *inode)
{
  struct timespec64 a = { READ_ONCE(inode->i_atime.tv_sec), READ_ONCE(inode->i_atime.tv_nsec) };
  struct timespec64 m = { READ_ONCE(inode->i_mtime.tv_sec), READ_ONCE(inode->i_mtime.tv_nsec) };
  struct timespec64 c = { READ_ONCE(inode->i_ctime.tv_sec), READ_ONCE(inode->i_ctime.tv_nsec) };
  struct timespec64 now = current_time();
  if(not_after(a, m) || not_after(a, c) || now.tv_sec - a.tv_sec >= 24 * 60 * 60)
    set_time(&inode->i_atime, now);
}

void
inode_init(void)
{
  inode_cache = kmem_cache_create("inode", sizeof(struct inode), 0, 0, NULL);
}
