// Character devices: a table from device number to file operations, consulted at open
// (Linux's cdev_map, reduced to exact numbers), and the boot-time nodes under /dev.
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "spinlock.h"

#define MAX_CHRDEV 16

struct chrdev {
  dev_t dev;
  const char *name;
  const struct file_operations *fops;
};

// Written at boot and by tests under chrdev_lock; read at open under it too.
static struct chrdev chrdevs[MAX_CHRDEV];
static int nchrdevs;
static DEFINE_SPINLOCK(chrdev_lock);

int
register_chrdev(dev_t dev, const char *name, const struct file_operations *fops)
{
  int err = 0;
  spin_lock(&chrdev_lock);
  for(int i = 0; i < nchrdevs; i++)
    if(chrdevs[i].dev == dev)
      err = -EBUSY;
  if(!err && nchrdevs == MAX_CHRDEV)
    err = -ENOSPC;
  if(!err)
    chrdevs[nchrdevs++] = (struct chrdev){ dev, name, fops };
  spin_unlock(&chrdev_lock);
  return err;
}

const struct file_operations *
chrdev_lookup(dev_t dev)
{
  const struct file_operations *fops = NULL;
  spin_lock(&chrdev_lock);
  for(int i = 0; i < nchrdevs; i++)
    if(chrdevs[i].dev == dev)
      fops = chrdevs[i].fops;
  spin_unlock(&chrdev_lock);
  return fops;
}

// The nodes Linux's devtmpfs has from boot for these drivers, with its modes.
static const struct {
  const char *path;
  u32 mode;
  u32 major, minor;
} dev_nodes[] = {
  { "/dev/null", 0666, 1, 3 },
  { "/dev/zero", 0666, 1, 5 },
  { "/dev/console", 0600, 5, 1 },
};

void
chrdev_init(void)
{
  mem_dev_init();
  tty_init();
  int err = vfs_mkdir_p("/dev", 0755);
  for(size_t i = 0; !err && i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
    err = vfs_mknod(dev_nodes[i].path, S_IFCHR | dev_nodes[i].mode,
                    MKDEV(dev_nodes[i].major, dev_nodes[i].minor));
  if(err)
    pr_err("vfs: cannot make the nodes under /dev: error %d\n", err);
}
