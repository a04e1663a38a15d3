// /sys/devices/system/cpu/online and possible, the two files glibc's sysconf reads for the
// number of CPUs (sysdeps/unix/sysv/linux/getsysstats.c): generated at each read, in Linux's
// cpulist format ("0-3,5\n", Documentation/admin-guide/cputopology.rst).
#include "cpumask.h"
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "smp.h"
#include "string.h"
#include "vsprintf.h"

// The ranges of set bits of a mask, "a-b" or "a", comma-separated, and a newline.
static size_t
cpulist(char *buf, size_t cap, const struct cpumask *m)
{
  size_t n = 0;
  int cpu = cpumask_next(-1, m);
  while(cpu < NR_CPUS) {
    int last = cpu, next;
    while((next = cpumask_next(last, m)) == last + 1)
      last = next;
    n += scnprintf(buf + n, cap - n, "%s%d", n ? "," : "", cpu);
    if(last > cpu)
      n += scnprintf(buf + n, cap - n, "-%d", last);
    cpu = next;
  }
  n += scnprintf(buf + n, cap - n, "\n");
  return n;
}

static ssize_t
online_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  char text[256];
  return proc_read_text(text, cpulist(text, sizeof(text), &cpu_online_mask), buf, len, pos);
}

static ssize_t
possible_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  struct cpumask m;
  char text[256];
  cpumask_clear(&m);
  for(int cpu = 0; cpu < nr_cpus_possible && cpu < NR_CPUS; cpu++)
    cpumask_set_cpu(cpu, &m);
  return proc_read_text(text, cpulist(text, sizeof(text), &m), buf, len, pos);
}

static const struct file_operations online_fops = { .read = online_read };
static const struct file_operations possible_fops = { .read = possible_read };

// A read-only file of the root filesystem whose data comes from fops.
static int
add_file(const char *path, const struct file_operations *fops)
{
  struct inode *inode = ramfs_get_inode(root_mnt->mnt_sb, S_IFREG | 0444);
  if(!inode)
    return -ENOMEM;
  inode->i_fop = fops;
  inode->i_size = PAGE_SIZE;   // what Linux's sysfs reports for every attribute
  return vfs_add_inode(path, inode);
}

void
sysfs_init(void)
{
  int err = vfs_mkdir_p("/sys/devices/system/cpu", 0755);
  if(!err)
    err = add_file("/sys/devices/system/cpu/online", &online_fops);
  if(!err)
    err = add_file("/sys/devices/system/cpu/possible", &possible_fops);
  if(err)
    pr_err("vfs: cannot make /sys/devices/system/cpu: error %d\n", err);
}
