// Shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS, and MAP_SHARED of /dev/zero): a mapping
// of an unnamed file whose page cache holds the pages, so that fork's children share them.
#include "errno.h"
#include "fs.h"
#include "slab.h"
#include "vm.h"

// Linux gives such a mapping a file of its internal tmpfs mount (shmem_zero_setup,
// mm/shmem.c). Here it is an inode of a superblock that no path reaches, with ramfs's rules:
// its pages are page-cache pages nothing reclaims, zeroed when first touched (filemap_fault
// fills a hole with zeros), and freed with the inode when the last mapping goes. Every VMA
// that maps it, in this mm or in one forked from it, shares them as any MAP_SHARED file's
// (copy_vma_ptes keeps VM_SHARED pages writable on both sides; a fault after the fork finds
// the page another process made in the file's cache).
static struct super_block shmem_sb = {
  .s_variant = PC_RADIX_RCU, .s_fanout = 64, .s_free = FREE_RCU,
};

// The last reference on the file (the last VMA gone): the inode has no name, so this iput
// frees it and its pages, as the last close of an unlinked ramfs file does.
static void
shmem_release(struct file *f)
{
  iput(f->f_inode);
}

static const struct file_operations shmem_fops = {
  .release = shmem_release,
};

struct file *
shmem_file_setup(size_t size)
{
  struct inode *inode = new_inode(&shmem_sb, S_IFREG | 0600);
  struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);
  if(inode)
    inode->i_nlink = 0;   // no name: the last iput frees it
  if(!inode || !f) {
    iput(inode);
    kfree(f);
    return NULL;
  }
  // Its size is the mapping's: a fault past it (mremap grew the VMA) is SIGBUS, as on Linux.
  inode->i_size = ALIGN_UP(size, PAGE_SIZE);
  f->f_count = 1;
  f->f_inode = inode;
  f->f_op = &shmem_fops;
  return f;
}

bool
is_shmem_file(const struct file *f)
{
  return f && f->f_op == &shmem_fops;
}

long
shmem_zero_setup(struct mm *mm, unsigned long addr, size_t len, int prot, int flags)
{
  if(len == 0 || len > USER_END)
    return -EINVAL;   // mmap_region's answer, before anything is made
  struct file *f = shmem_file_setup(len);
  if(!f)
    return -ENOMEM;
  long r = vm_mmap_file(mm, addr, len, prot, flags & ~MAP_ANONYMOUS, f, 0,
                        VM_SHARED | VM_MAYWRITE);
  vfs_close(f);   // the mapping took its own reference, or there is none and this frees it
  return r;
}
