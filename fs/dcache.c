// The dentry cache: names in a hash table that RCU-walk reads without locks, each dentry
// with a sequence count that rename and unlink bump, and freed only after a grace period.
#include "errno.h"
#include "fs.h"
#include "panic.h"
#include "slab.h"
#include "string.h"
#include "time.h"

#define DHASH_BITS 12

// A lock per bucket for writers; readers take none (Linux 2.6.38's hlist_bl buckets).
struct dhash_bucket {
  struct hlist_head head;
  spinlock_t lock;
};

static struct dhash_bucket dentry_hash[1 << DHASH_BITS];
static struct kmem_cache *dentry_cache;

// A rename moves a dentry from one hash chain to another, and a reader standing on it then
// follows the new chain and may miss names in the old one: a lookup that found nothing
// during a rename tries again (Linux's rename_lock).
DEFINE_SEQLOCK(rename_lock);
bool rename_planted_unlocked;

// The planted bug: a rename that does not tell lookups (no rename_lock), with its dentries
// out of every hash chain for 20 us so that a lookup meanwhile misses.
static bool
rename_begin(void)
{
  bool planted = READ_ONCE(rename_planted_unlocked);
  if(!planted)
    write_seqlock(&rename_lock);
  return planted;
}

static void
rename_end(bool planted)
{
  if(!planted)
    write_sequnlock(&rename_lock);
}

static void
planted_window(bool planted)
{
  if(unlikely(planted))
    udelay(20);
}

// Lock order: rename_lock, then d_lock, then a bucket's lock.

static struct dhash_bucket *
d_bucket(const struct dentry *parent, u32 hash)
{
  unsigned long h = ((unsigned long)parent >> 4 ^ hash) * 0x9e3779b97f4a7c15UL;
  return &dentry_hash[h >> (64 - DHASH_BITS)];
}

static void
set_name(struct dentry *d, const struct qstr *name)
{
  memcpy(d->d_iname, name->name, name->len);
  d->d_iname[name->len] = 0;
  WRITE_ONCE(d->d_len, name->len);
  WRITE_ONCE(d->d_hashval, name->hash);
}

static struct dentry *
alloc_dentry(struct super_block *sb)
{
  struct dentry *d = kmem_cache_alloc(dentry_cache, GFP_KERNEL);
  if(!d)
    return NULL;
  memset(d, 0, sizeof(*d));
  seqcount_init(&d->d_seq);
  INIT_HLIST_NODE(&d->d_hash);
  spin_lock_init(&d->d_lock);
  d->d_count = 1;
  INIT_LIST_HEAD(&d->d_child);
  INIT_LIST_HEAD(&d->d_subdirs);
  d->d_sb = sb;
  return d;
}

struct dentry *
d_alloc(struct dentry *parent, const struct qstr *name)
{
  struct dentry *d = alloc_dentry(parent->d_sb);
  if(!d)
    return NULL;
  d->d_parent = dget(parent);
  set_name(d, name);
  return d;
}

// A root has no parent and no name, and is never hashed: walks start from it or reach it
// through a mount.
struct dentry *
d_alloc_root(struct super_block *sb, struct inode *root)
{
  struct dentry *d = alloc_dentry(sb);
  if(d)
    d->d_inode = root;
  return d;
}

struct dentry *
dget(struct dentry *d)
{
  spin_lock(&d->d_lock);
  d->d_count++;
  spin_unlock(&d->d_lock);
  return d;
}

static void
free_dentry_rcu(struct rcu_head *head)
{
  kmem_cache_free(dentry_cache, container_of(head, struct dentry, d_rcu));
}

// The last reference: the name is already gone (a hashed dentry holds a reference on
// itself), so nothing can find the dentry again but an RCU-walker, which only reads it.
void
dput(struct dentry *d)
{
  while(d) {
    spin_lock(&d->d_lock);
    int c = --d->d_count;
    spin_unlock(&d->d_lock);
    if(c > 0)
      return;
    if(c < 0 || !hlist_unhashed(&d->d_hash))
      panic("dput: dentry '%s' count %d hashed %d", d->d_iname, c, !hlist_unhashed(&d->d_hash));
    struct dentry *parent = d->d_parent;
    iput(d->d_inode);
    call_rcu(&d->d_rcu, free_dentry_rcu);
    d = parent;
  }
}

// ramfs keeps every name in the dcache: the name's reference pins the dentry, and the
// parent's d_subdirs is the directory (caller holds the parent's i_mutex).
void
d_instantiate_add(struct dentry *d, struct inode *inode)
{
  struct dhash_bucket *b = d_bucket(d->d_parent, d->d_hashval);
  d->d_inode = inode;
  d->d_offset = ++d->d_parent->d_next_offset;
  list_add_tail(&d->d_child, &d->d_parent->d_subdirs);
  spin_lock(&d->d_lock);
  d->d_count++;
  spin_lock(&b->lock);
  hlist_add_head_rcu(&d->d_hash, &b->head);
  spin_unlock(&b->lock);
  spin_unlock(&d->d_lock);
}

// The name goes; the dentry lives on while references remain (an open file). The bumped
// d_seq tells an RCU-walker that found it that it is no longer there.
void
d_delete(struct dentry *d)
{
  struct dhash_bucket *b = d_bucket(d->d_parent, d->d_hashval);
  spin_lock(&d->d_lock);
  spin_lock(&b->lock);
  write_seqcount_begin(&d->d_seq);
  hlist_del_rcu(&d->d_hash);
  write_seqcount_end(&d->d_seq);
  spin_unlock(&b->lock);
  spin_unlock(&d->d_lock);
  list_del_init(&d->d_child);
  dput(d);   // the name's reference; the caller still holds one
}

// Rename: caller holds both parents' i_mutex and the superblock's s_rename_mutex.
void
d_move(struct dentry *d, struct dentry *new_parent, const struct qstr *name)
{
  struct dentry *old_parent = d->d_parent;
  struct dhash_bucket *from = d_bucket(old_parent, d->d_hashval);
  struct dhash_bucket *to = d_bucket(new_parent, name->hash);
  dget(new_parent);
  bool planted = rename_begin();
  spin_lock(&d->d_lock);
  write_seqcount_begin(&d->d_seq);
  spin_lock(&from->lock);
  hlist_del_rcu(&d->d_hash);
  spin_unlock(&from->lock);
  planted_window(planted);
  WRITE_ONCE(d->d_parent, new_parent);
  set_name(d, name);
  d->d_offset = ++new_parent->d_next_offset;
  list_move_tail(&d->d_child, &new_parent->d_subdirs);
  spin_lock(&to->lock);
  hlist_add_head_rcu(&d->d_hash, &to->head);
  spin_unlock(&to->lock);
  write_seqcount_end(&d->d_seq);
  spin_unlock(&d->d_lock);
  rename_end(planted);
  dput(old_parent);
}

// RENAME_EXCHANGE: a and b swap names and parents (the parents' references swap with them).
// The caller holds what d_move's does. Both leave their hash chains, so a reader on either
// may be carried to the other's: both d_seq counts and rename_lock tell it to look again.
void
d_exchange(struct dentry *a, struct dentry *b)
{
  struct dentry *pa = a->d_parent, *pb = b->d_parent;
  // Each takes the other's parent and hash, so each ends in the other's bucket.
  struct dhash_bucket *fa = d_bucket(pa, a->d_hashval), *fb = d_bucket(pb, b->d_hashval);
  char name[NAME_MAX + 1];
  struct qstr qa = { .name = name, .len = a->d_len, .hash = a->d_hashval };
  struct qstr qb = { .name = b->d_iname, .len = b->d_len, .hash = b->d_hashval };
  memcpy(name, a->d_iname, a->d_len);
  struct dentry *first = a < b ? a : b, *second = a < b ? b : a;
  bool planted = rename_begin();
  spin_lock(&first->d_lock);
  spin_lock_nested(&second->d_lock, 1);
  write_seqcount_begin(&a->d_seq);
  write_seqcount_begin(&b->d_seq);
  spin_lock(&fa->lock);
  hlist_del_rcu(&a->d_hash);
  spin_unlock(&fa->lock);
  spin_lock(&fb->lock);
  hlist_del_rcu(&b->d_hash);
  spin_unlock(&fb->lock);
  planted_window(planted);
  WRITE_ONCE(a->d_parent, pb);
  WRITE_ONCE(b->d_parent, pa);
  set_name(a, &qb);
  set_name(b, &qa);
  // Each takes the other's place in its parent's list; tmp marks a's, the two may be
  // neighbours.
  struct list_head tmp;
  list_add(&tmp, &a->d_child);
  list_del(&a->d_child);
  list_add(&a->d_child, &b->d_child);
  list_del(&b->d_child);
  list_add(&b->d_child, &tmp);
  list_del(&tmp);
  u64 offset = a->d_offset;   // the places, and the lists' order with them
  a->d_offset = b->d_offset;
  b->d_offset = offset;
  spin_lock(&fb->lock);
  hlist_add_head_rcu(&a->d_hash, &fb->head);
  spin_unlock(&fb->lock);
  spin_lock(&fa->lock);
  hlist_add_head_rcu(&b->d_hash, &fa->head);
  spin_unlock(&fa->lock);
  write_seqcount_end(&b->d_seq);
  write_seqcount_end(&a->d_seq);
  spin_unlock(&second->d_lock);
  spin_unlock(&first->d_lock);
  rename_end(planted);
}

static bool
name_is(const struct dentry *d, const struct dentry *parent, const struct qstr *name)
{
  return READ_ONCE(d->d_parent) == parent && READ_ONCE(d->d_hashval) == name->hash &&
         READ_ONCE(d->d_len) == name->len && memcmp(d->d_iname, name->name, name->len) == 0;
}

// RCU-walk: no lock, no reference. The match may be torn by a rename in progress; the
// caller checks *seq with read_seqcount_retry after reading what it needs from d.
struct dentry *
d_lookup_rcu(struct dentry *parent, const struct qstr *name, u32 *seq)
{
  struct dentry *d;
  hlist_for_each_entry_rcu(d, &d_bucket(parent, name->hash)->head, d_hash) {
    u32 s = raw_seqcount_begin(&d->d_seq);
    if(name_is(d, parent, name)) {
      *seq = s;
      return d;
    }
  }
  return NULL;
}

// Ref-walk: the match is confirmed under d_lock, where name, parent and hashing are stable.
static struct dentry *
__d_lookup(struct dentry *parent, const struct qstr *name)
{
  struct dentry *d, *found = NULL;
  rcu_read_lock();
  hlist_for_each_entry_rcu(d, &d_bucket(parent, name->hash)->head, d_hash) {
    if(!name_is(d, parent, name))
      continue;
    spin_lock(&d->d_lock);
    if(!hlist_unhashed(&d->d_hash) && name_is(d, parent, name)) {
      d->d_count++;
      found = d;
    }
    spin_unlock(&d->d_lock);
    if(found)
      break;
  }
  rcu_read_unlock();
  return found;
}

struct dentry *
d_lookup(struct dentry *parent, const struct qstr *name)
{
  struct dentry *d;
  u32 seq;
  do {
    seq = read_seqbegin(&rename_lock);
    d = __d_lookup(parent, name);
  } while(!d && read_seqretry(&rename_lock, seq));
  return d;
}

// RCU-walk hands over to a reference: only if d is alive and unchanged since seq was read
// (Linux's legitimize_path). Caller holds rcu_read_lock, so d's memory is still a dentry.
bool
d_legitimize(struct dentry *d, u32 seq)
{
  spin_lock(&d->d_lock);
  bool ok = d->d_count > 0 && !read_seqcount_retry(&d->d_seq, seq);
  if(ok)
    d->d_count++;
  spin_unlock(&d->d_lock);
  return ok;
}

void
dcache_init(void)
{
  for(size_t i = 0; i < ARRAY_SIZE(dentry_hash); i++)
    spin_lock_init(&dentry_hash[i].lock);
  dentry_cache = kmem_cache_create("dentry", sizeof(struct dentry), 0, 0, NULL);
}

// d_move changes d_parent under d->d_lock and drops the old parent's reference only after
// unlocking, so the parent read under the lock still holds one while we add ours.
struct dentry *
dget_parent(struct dentry *d)
{
  spin_lock(&d->d_lock);
  struct dentry *p = d->d_parent;
  spin_lock_nested(&p->d_lock, 1);
  p->d_count++;
  spin_unlock(&p->d_lock);
  spin_unlock(&d->d_lock);
  return p;
}
