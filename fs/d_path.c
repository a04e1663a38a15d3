// d_path: a dentry's path, built from its names and parents up to "/" (Linux's fs/d_path.c),
// and getcwd(2), which is d_path of the working directory (a dentry: fs/file.c keeps it).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

bool
d_unlinked(struct dentry *d)
{
  return READ_ONCE(d->d_parent) && hlist_unhashed(&d->d_hash);
}

// One pass from d up, names prepended at *pp; the caller holds rcu_read_lock (every dentry
// passed is freed only after a grace period) and vfsmount_lock (mounts stay). A rename
// meanwhile may tear a name or splice the chain: the caller checks rename_lock after, and
// buf's length bounds the pass even on a chain a torn read made circular.
static int
prepend_path(struct dentry *d, char *buf, char **pp)
{
  char *p = *pp;
  int r = 0;
  for(;;) {
    struct dentry *parent = READ_ONCE(d->d_parent);
    if(!parent) {   // a filesystem's root: "/" itself, or across the mount to what it covers
      if(d == root_mnt->mnt_root)
        break;
      struct dentry *up = mount_point_locked(d);
      if(!up) {
        r = 1;   // a root no mount leads to
        break;
      }
      d = up;
      continue;
    }
    u32 n = MIN(READ_ONCE(d->d_len), NAME_MAX);
    if((size_t)(p - buf) < n + 1)
      return -ENAMETOOLONG;
    p -= n;
    memcpy(p, d->d_iname, n);
    *--p = '/';
    d = parent;
  }
  if(*p == 0) {   // d is "/": nothing was prepended
    if(p == buf)
      return -ENAMETOOLONG;
    *--p = '/';
  }
  *pp = p;
  return r;
}

// Lockless first, as Linux's read_seqbegin_or_lock: a rename during the pass makes it try
// again with rename_lock's spinlock held, which keeps renames out without bumping the count
// RCU-walkers read (Linux's read_seqlock_excl).
int
d_path(struct dentry *d, char *buf, size_t len, char **start)
{
  if(len == 0)
    return -ENAMETOOLONG;
  int r;
  for(bool locked = false;; locked = true) {
    u32 seq = 0;
    if(locked)
      spin_lock(&rename_lock.lock);
    else
      seq = read_seqbegin(&rename_lock);
    rcu_read_lock();
    br_read_lock(&vfsmount_lock);
    char *p = buf + len;
    *--p = 0;
    r = prepend_path(d, buf, &p);
    br_read_unlock(&vfsmount_lock);
    rcu_read_unlock();
    if(locked) {
      spin_unlock(&rename_lock.lock);
    } else if(read_seqretry(&rename_lock, seq)) {
      continue;
    }
    if(r >= 0)
      *start = p;
    return r;
  }
}

// getcwd(2): the raw call returns the length with the NUL. Linux's order: -ENOENT for a
// working directory that was removed, -ENAMETOOLONG when the path does not fit in a page
// (PATH_MAX), -ERANGE when it does not fit in size. A directory no mount leads to reads
// "(unreachable)/..." (Linux's sys_getcwd); glibc's getcwd turns that into ENOENT.
long
sys_getcwd(u64 ubuf, u64 size)
{
  struct dentry *pwd = files_pwd(current->proc->files);
  char *buf = kmem_cache_alloc(names_cachep, GFP_KERNEL);
  long err = buf ? 0 : -ENOMEM;
  char *p = NULL;
  static const char unreachable[] = "(unreachable)";
  if(!err && d_unlinked(pwd))
    err = -ENOENT;
  if(!err && (err = d_path(pwd, buf, PATH_MAX, &p)) == 1) {
    size_t n = sizeof(unreachable) - 1;
    err = 0;
    if((size_t)(p - buf) < n)
      err = -ENAMETOOLONG;
    else
      memcpy(p -= n, unreachable, n);
  }
  if(!err) {
    u64 n = buf + PATH_MAX - p;
    if(size < n)
      err = -ERANGE;
    else
      err = copy_to_user((void *)ubuf, p, n) ? -EFAULT : (long)n;
  }
  kfree(buf);
  dput(pwd);
  return err;
}
