// /proc/self/exe: a symbolic link whose target the exec code gives (proc_set_exe_hook), read by
// glibc's static startup (_dl_non_dynamic_init) and by programs that run themselves again.
#include "errno.h"
#include "fs.h"
#include "printk.h"

static proc_exe_fn exe_hook;   // set once by the exec code; read without a lock

proc_exe_fn
proc_set_exe_hook(proc_exe_fn fn)
{
  return __atomic_exchange_n(&exe_hook, fn, __ATOMIC_RELAXED);
}

static int
exe_get_link(struct inode *inode, char *buf, size_t len)
{
  proc_exe_fn fn = READ_ONCE(exe_hook);
  return fn ? fn(buf, len) : -ENOENT;
}

static const struct inode_operations exe_ops = { .get_link = exe_get_link };

void
proc_init(void)
{
  int err = vfs_mkdir_p("/proc/self", 0555);
  struct inode *inode = err ? NULL : ramfs_get_inode(root_mnt->mnt_sb, S_IFLNK | 0777);
  if(!err && !inode)
    err = -ENOMEM;
  if(inode) {
    inode->i_op = &exe_ops;
    err = vfs_add_inode("/proc/self/exe", inode);
  }
  if(err)
    pr_err("vfs: cannot make /proc/self/exe: error %d\n", err);
}
