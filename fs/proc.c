// /proc/self/exe: a symbolic link whose target the exec code gives (proc_set_exe_hook), read by
// glibc's static startup (_dl_non_dynamic_init) and by programs that run themselves again; and
// the machine's files that df, free, top, uptime and mount read: /proc/mounts (also as
// /proc/self/mounts, which /etc/mtab names), /proc/meminfo, /proc/uptime, /proc/stat,
// /proc/loadavg, /proc/filesystems, /proc/sys/kernel/{ostype,osrelease} (proc(5)), generated
// at each read.
#include "errno.h"
#include "fs.h"
#include "cpumask.h"
#include "mm.h"
#include "process.h"
#include "smp.h"
#include "printk.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "time.h"
#include "vsprintf.h"

#define SHOW_MAX 4096   // what one generated file holds

ssize_t
proc_read_text(const char *text, size_t n, void *buf, size_t len, u64 *pos)
{
  if(*pos >= n)
    return 0;
  size_t c = MIN(len, n - *pos);
  memcpy(buf, text + *pos, c);
  *pos += c;
  return c;
}

// Each file's text, made whole at each read: a read that goes on from an offset sees the
// text of its own moment, as Linux's single_open files. The inode's i_private is the file's
// show function.
typedef size_t (*show_fn)(char *buf, size_t len);

static ssize_t
show_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  char *text = kmalloc(SHOW_MAX, GFP_KERNEL);
  if(!text)
    return -ENOMEM;
  show_fn show = (show_fn)f->f_inode->i_private;
  ssize_t r = proc_read_text(text, show(text, SHOW_MAX), buf, len, pos);
  kfree(text);
  return r;
}

static const struct file_operations show_fops = { .read = show_read };

// The figures of sysinfo(2) (kernel/sys.c), in kB, in Linux's order: what is not kept
// (buffers, the page cache's share, swap, reclaimable slab) is 0, and all free memory is
// available. busybox free wants Cached, MemAvailable and SReclaimable all three.
static size_t
meminfo_show(char *buf, size_t len)
{
  u64 total = max_pfn * (PAGE_SIZE / 1024), free = nr_free_pages() * (PAGE_SIZE / 1024);
  return scnprintf(buf, len,
                   "MemTotal:       %8llu kB\nMemFree:        %8llu kB\n"
                   "MemAvailable:   %8llu kB\nBuffers:        %8llu kB\n"
                   "Cached:         %8llu kB\nSwapCached:     %8llu kB\n"
                   "SwapTotal:      %8llu kB\nSwapFree:       %8llu kB\n"
                   "Shmem:          %8llu kB\nSReclaimable:   %8llu kB\n",
                   (unsigned long long)total, (unsigned long long)free,
                   (unsigned long long)free, 0ULL, 0ULL, 0ULL, 0ULL, 0ULL, 0ULL, 0ULL);
}

// Seconds since boot and seconds idle, each with hundredths; idle time is not counted: 0.
static size_t
uptime_show(char *buf, size_t len)
{
  u64 cs = ktime_ns() / (NSEC_PER_SEC / 100);
  return scnprintf(buf, len, "%llu.%02llu 0.00\n", (unsigned long long)(cs / 100),
                   (unsigned long long)(cs % 100));
}

// The CPU lines top reads, in USER_HZ (100 a second): per-CPU times are not kept, so each is
// all idle for the time it has been up (top then shows 0% busy); the boot time, and the
// processes listed now (forks since boot are not counted).
static size_t
stat_show(char *buf, size_t len)
{
  u64 now = ktime_ns(), idle = now / (NSEC_PER_SEC / 100);
  int ncpu = num_online_cpus();
  size_t n = scnprintf(buf, len, "cpu  0 0 0 %llu 0 0 0 0 0 0\n",
                       (unsigned long long)(idle * ncpu));
  int cpu;
  for_each_online_cpu(cpu)
    n += scnprintf(buf + n, len - n, "cpu%d 0 0 0 %llu 0 0 0 0 0 0\n", cpu,
                   (unsigned long long)idle);
  int procs = 0;
  struct process *p;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  list_for_each_entry(p, &process_list, tasks)
    procs++;
  spin_unlock_irqrestore(&process_list_lock, flags);
  n += scnprintf(buf + n, len - n, "intr 0\nctxt 0\nbtime %llu\nprocesses %d\n"   // running: the reader
                 "procs_running 1\nprocs_blocked 0\nsoftirq 0\n",
                 (unsigned long long)((realtime_ns() - now) / NSEC_PER_SEC), procs);
  return n;
}

// The load averages are not computed (0.00); then the processes listed and the newest pid.
static size_t
loadavg_show(char *buf, size_t len)
{
  int procs = 0, last = 0;
  struct process *p;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  list_for_each_entry(p, &process_list, tasks) {
    procs++;
    last = MAX(last, p->pid);
  }
  spin_unlock_irqrestore(&process_list_lock, flags);
  return scnprintf(buf, len, "0.00 0.00 0.00 1/%d %d\n", procs, last);
}

// Every file system a mount may be of: ramfs, never on a device.
static size_t
filesystems_show(char *buf, size_t len)
{
  return scnprintf(buf, len, "nodev\tramfs\n");
}

static size_t
ostype_show(char *buf, size_t len)
{
  return scnprintf(buf, len, "%s\n", UTS_SYSNAME);
}

static size_t
osrelease_show(char *buf, size_t len)
{
  return scnprintf(buf, len, "%s\n", UTS_RELEASE);
}


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
  static const struct {
    const char *path;
    show_fn show;
  } files[] = {
    { "/proc/mounts", mounts_show },
    { "/proc/self/mounts", mounts_show },   // one mount table: every process's is the same
    { "/proc/meminfo", meminfo_show },
    { "/proc/uptime", uptime_show },
    { "/proc/filesystems", filesystems_show },
    { "/proc/stat", stat_show },
    { "/proc/loadavg", loadavg_show },
    { "/proc/sys/kernel/ostype", ostype_show },
    { "/proc/sys/kernel/osrelease", osrelease_show },
  };
  err = vfs_mkdir_p("/proc/sys/kernel", 0555);
  if(!err && (err = vfs_mkdir_p("/etc", 0755)) == 0)
    err = vfs_symlink("/proc/self/mounts", "/etc/mtab");   // as Debian's: mount and df read it
  if(err)
    pr_err("vfs: cannot make /proc/sys/kernel or /etc/mtab: error %d\n", err);
  for(size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    inode = ramfs_get_inode(root_mnt->mnt_sb, S_IFREG | 0444);
    if(inode) {
      inode->i_fop = &show_fops;
      inode->i_private = (long)files[i].show;
    }
    err = inode ? vfs_add_inode(files[i].path, inode) : -ENOMEM;
    if(err)
      pr_err("vfs: cannot make %s: error %d\n", files[i].path, err);
  }
}
