// Open files: a referenced dentry and a position. File data goes through the page cache of
// the inode's mapping, whichever variant its mount chose; ramfs has nothing behind it.
#include "errno.h"
#include "fs.h"
#include "sched.h"
#include "slab.h"
#include "string.h"
#include <asm/uaccess.h>

// The operations of what is not a regular file or directory: the inode's own, or the
// driver of a character device's number. Block devices, fifos and sockets have none here.
static int
special_fops(struct inode *inode, const struct file_operations **fop)
{
  *fop = inode->i_fop;
  if(S_ISLNK(inode->i_mode))
    return -ELOOP;   // a link not followed (O_NOFOLLOW) cannot be opened: Linux's may_open
  if(*fop || S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode))
    return 0;
  if(S_ISCHR(inode->i_mode) && (*fop = chrdev_lookup(inode->i_rdev)))
    return 0;
  return -ENXIO;   // as Linux for a device node with no driver
}

int
vfs_open(const char *path, unsigned oflags, unsigned flags, struct file **fp)
{
  return vfs_open_mode(path, oflags, 0644, flags, fp);
}

int
vfs_open_mode(const char *path, unsigned oflags, u32 mode, unsigned flags, struct file **fp)
{
  return vfs_open_at(NULL, path, oflags, mode, flags, fp);
}

int
vfs_open_at(struct dentry *dir, const char *path, unsigned oflags, u32 mode, unsigned flags,
            struct file **fp)
{
  if(!fp || (oflags & ~(O_CREAT | O_EXCL | O_TRUNC)))
    return -EINVAL;
  // The file first, as Linux's path_openat takes it (alloc_empty_file) before the lookup: an
  // open that fails for want of it must not have created the file (O_CREAT) or truncated it.
  struct file *f = kmalloc(sizeof(*f), GFP_KERNEL);
  if(!f)
    return -ENOMEM;
  struct dentry *d;
  const struct file_operations *fop;
  bool created;
  int err = open_path(dir, path, oflags, mode, flags, &d, &created);
  if(err) {
    kfree(f);
    return err;
  }
  if((err = special_fops(d->d_inode, &fop))) {
    dput(d);
    kfree(f);
    return err;
  }
  f->f_count = 1;
  f->f_dentry = d;
  f->f_inode = d->d_inode;
  f->f_pos = 0;
  f->f_created = created;
  f->f_op = fop;
  f->private_data = NULL;
  if(S_ISREG(f->f_inode->i_mode) && !fop) {
    __atomic_add_fetch(&f->f_inode->i_data.users, 1, __ATOMIC_RELAXED);
    if((oflags & O_TRUNC) && !created)
      vfs_ftruncate(f, 0);
  }
  *fp = f;
  return 0;
}

// A mapping of the file holds it as an open does (Linux's vma->vm_file), so the file, its
// inode and its pages live while mapped even after close and unlink.
struct file *
get_file(struct file *f)
{
  __atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
  return f;
}

void
vfs_close(struct file *f)
{
  if(!f || __atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  if(S_ISREG(f->f_inode->i_mode) && !f->f_op)
    __atomic_sub_fetch(&f->f_inode->i_data.users, 1, __ATOMIC_RELAXED);
  if(f->f_op && f->f_op->release)
    f->f_op->release(f);
  if(f->f_dentry)
    dput(f->f_dentry);   // an unlinked file's last close frees its inode and pages
  kfree(f);
}

// Lockless: a concurrent write or truncate may be seen in part. Pages the file never had
// (holes) read as zeros.
ssize_t
vfs_pread(struct file *f, void *buf, size_t len, u64 pos)
{
  struct inode *inode = f->f_inode;
  if(S_ISDIR(inode->i_mode))
    return -EISDIR;
  if(!buf && len)
    return -EINVAL;
  if(f->f_op)
    return f->f_op->read ? f->f_op->read(f, buf, len, &pos) : -EINVAL;
  if(len)
    touch_atime(inode);   // at the end of the file too, as Linux's filemap_read
  u64 size = READ_ONCE(inode->i_size);
  if(pos >= size)
    return 0;
  len = MIN(len, size - pos);
  for(size_t done = 0; done < len;) {
    u64 at = pos + done;
    size_t off = at & (PAGE_SIZE - 1), n = MIN(PAGE_SIZE - off, len - done);
    struct page *page = find_get_page(&inode->i_data, at >> PAGE_SHIFT);
    if(page) {
      memcpy((char *)buf + done, (char *)page_address(page) + off, n);
      put_page(page);
    } else
      memset((char *)buf + done, 0, n);
    done += n;
    cond_resched();
  }
  return len;
}

// vfs_pread straight into user memory, for a file of the page cache (no f_op): each page is
// copied to the user's buffer while its reference is held, one copy a page, as Linux's
// filemap_read copies with copy_page_to_iter, where a bounce buffer would copy twice. A fault
// in the buffer ends the read: the bytes before it, or -EFAULT if none.
ssize_t
vfs_pread_user(struct file *f, char *ubuf, size_t len, u64 pos)
{
  struct inode *inode = f->f_inode;
  u64 size = READ_ONCE(inode->i_size);
  size_t done = 0;

  if(len)
    touch_atime(inode);   // as vfs_pread
  if(pos >= size)
    return 0;
  len = MIN(len, size - pos);
  while(done < len) {
    u64 at = pos + done;
    size_t off = at & (PAGE_SIZE - 1), n = MIN(PAGE_SIZE - off, len - done), left;
    struct page *page = find_get_page(&inode->i_data, at >> PAGE_SHIFT);
    if(page) {
      left = copy_to_user(ubuf + done, (char *)page_address(page) + off, n);
      put_page(page);
    } else
      left = clear_user(ubuf + done, n);
    done += n - left;
    if(left)
      return done ? (ssize_t)done : -EFAULT;
    if(done < len)
      cond_resched();
  }
  return len;
}

// Writers of one file take turns on i_mutex. The size grows page by page, after the data,
// so a write cut short by a failed allocation leaves a consistent file of what it wrote.
// New pages must come zeroed (__GFP_ZERO): ramfs has no other copy of a hole.
ssize_t
vfs_pwrite(struct file *f, const void *buf, size_t len, u64 pos)
{
  struct inode *inode = f->f_inode;
  if(S_ISDIR(inode->i_mode))
    return -EISDIR;
  if(f->f_op) {
    if(!buf && len)
      return -EINVAL;
    return f->f_op->write ? f->f_op->write(f, buf, len, &pos) : -EINVAL;
  }
  if((!buf && len) || pos > MAX_FILE_SIZE || len > MAX_FILE_SIZE - pos)
    return -EINVAL;
  size_t done = 0;
  mutex_lock(&inode->i_mutex);
  while(done < len) {
    u64 at = pos + done;
    size_t off = at & (PAGE_SIZE - 1), n = MIN(PAGE_SIZE - off, len - done);
    struct page *page = find_or_create_page(&inode->i_data, at >> PAGE_SHIFT,
                                            GFP_KERNEL | __GFP_ZERO);
    if(!page)
      break;
    memcpy((char *)page_address(page) + off, (const char *)buf + done, n);
    unlock_page(page);
    put_page(page);
    done += n;
    if(at + n > inode->i_size)
      WRITE_ONCE(inode->i_size, at + n);
    cond_resched();
  }
  if(done)
    inode_touch_mc(inode);
  mutex_unlock(&inode->i_mutex);
  return done || !len ? (ssize_t)done : -ENOMEM;
}

// A device's position is its driver's to move (/dev/zero never moves it).
ssize_t
vfs_read(struct file *f, void *buf, size_t len)
{
  if(f->f_op && f->f_op->read && (buf || !len))
    return f->f_op->read(f, buf, len, &f->f_pos);
  ssize_t n = vfs_pread(f, buf, len, f->f_pos);
  if(n > 0)
    f->f_pos += n;
  return n;
}

ssize_t
vfs_write(struct file *f, const void *buf, size_t len)
{
  if(f->f_op && f->f_op->write && (buf || !len))
    return f->f_op->write(f, buf, len, &f->f_pos);
  ssize_t n = vfs_pwrite(f, buf, len, f->f_pos);
  if(n > 0)
    f->f_pos += n;
  return n;
}

// Shrinking drops whole pages past the end and zeroes the tail of the last one, so the
// bytes past the size are always zero and growing again needs no page at all. Mappings lose
// their pages past the end first, and again once the cache's are gone, for a fault that
// mapped one while it was being dropped (Linux's truncate_pagecache): a later touch there
// is SIGBUS.
int
vfs_ftruncate(struct file *f, u64 size)
{
  struct inode *inode = f->f_inode;
  struct address_space *m = &inode->i_data;
  if(S_ISDIR(inode->i_mode))
    return -EISDIR;
  if(size > MAX_FILE_SIZE || !S_ISREG(inode->i_mode) || f->f_op)
    return -EINVAL;
  mutex_lock(&inode->i_mutex);
  u64 old = inode->i_size;
  WRITE_ONCE(inode->i_size, size);
  inode_touch_mc(inode);   // whether or not the size changes, as Linux's do_truncate
  if(size < old) {
    unmap_mapping_range(inode, ALIGN_UP(size, PAGE_SIZE) >> PAGE_SHIFT);
    truncate_inode_pages(m, ALIGN_UP(size, PAGE_SIZE) >> PAGE_SHIFT);
    unmap_mapping_range(inode, ALIGN_UP(size, PAGE_SIZE) >> PAGE_SHIFT);
    size_t off = size & (PAGE_SIZE - 1);
    struct page *page = off ? find_lock_page(m, size >> PAGE_SHIFT) : NULL;
    if(page) {
      memset((char *)page_address(page) + off, 0, PAGE_SIZE - off);
      unlock_page(page);
      put_page(page);
    }
  }
  mutex_unlock(&inode->i_mutex);
  return 0;
}

int
vfs_truncate(const char *path, u64 size)
{
  struct file *f;
  int err = vfs_open(path, 0, 0, &f);
  if(err)
    return err;
  err = vfs_ftruncate(f, size);
  vfs_close(f);
  return err;
}

int
vfs_fstat(struct file *f, struct kstat *st)
{
  if(!st)
    return -EINVAL;
  inode_stat(f->f_inode, st);
  return 0;
}

// f_pos counts entries given so far. fill runs under the directory's i_mutex: it must not
// change this directory.
int
vfs_readdir(struct file *f, filldir_t fill, void *arg)
{
  struct inode *dir = f->f_inode;
  if(!S_ISDIR(dir->i_mode))
    return -ENOTDIR;
  if(!fill)
    return -EINVAL;
  if(f->f_op && f->f_op->iterate) {
    int r = f->f_op->iterate(f, fill, arg);
    touch_atime(dir);
    return r;
  }
  // f_pos: the offset to go on from (struct dentry's d_offset), 0 at the start; set past each
  // entry before fill sees it (getdents' d_off is the place after an entry), put back when
  // fill has no room for it.
  int more = 0;
  struct dentry *d;
  mutex_lock(&dir->i_mutex);
  list_for_each_entry(d, &f->f_dentry->d_subdirs, d_child) {
    if(d->d_offset < f->f_pos)
      continue;
    u64 pos = f->f_pos;
    f->f_pos = d->d_offset + 1;
    if(!fill(arg, d->d_iname, d->d_len, d->d_inode->i_ino, d->d_inode->i_mode)) {
      f->f_pos = pos;
      more = 1;
      break;
    }
  }
  mutex_unlock(&dir->i_mutex);
  touch_atime(dir);
  return more;
}

int
vfs_ioctl(struct file *f, unsigned cmd, void *arg)
{
  if(!f->f_op || !f->f_op->ioctl)
    return -ENOTTY;
  return f->f_op->ioctl(f, cmd, arg);
}
