// /proc/self, the link to the reader's own /proc/<pid> (fs/proc_pid.c), and the machine's files
// that df, free, top, uptime, mount and lscpu read: /proc/mounts (/etc/mtab names
// /proc/self/mounts), meminfo, uptime, stat, loadavg, filesystems, cpuinfo and
// sys/kernel/{ostype,osrelease,pid_max} (proc(5)), generated at each read; /dev/fd and
// /dev/std{in,out,err}, the links into /proc/self/fd that udev makes on Linux.
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
#include <asm/cpuinfo.h>

// What one generated file holds: a page, and cpuinfo's block for each possible CPU.
static size_t
show_max(void)
{
  return 4096 + (size_t)nr_cpus_possible * CPUINFO_PER_CPU;
}

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
  size_t max = show_max();
  char *text = kmalloc(max, GFP_KERNEL);
  if(!text)
    return -ENOMEM;
  show_fn show = (show_fn)f->f_inode->i_private;
  ssize_t r = proc_read_text(text, show(text, max), buf, len, pos);
  kfree(text);
  return r;
}

const struct file_operations proc_show_fops = { .read = show_read };

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


// pids are thread ids, never reused in a boot (kernel/sched.c); Linux's limit on a 64-bit
// machine with many CPUs (PID_MAX_LIMIT) is what ps sizes its columns by.
static size_t
pid_max_show(char *buf, size_t len)
{
  return scnprintf(buf, len, "4194304\n");
}

static size_t
cpuinfo_show(char *buf, size_t len)
{
  return arch_cpuinfo_show(buf, len);
}

// /proc/self: the reader's pid, a name beside the link (Linux's proc_self_get_link); a kernel
// thread has no process here, so no /proc/<pid>: ENOENT, as Linux's for a task with no pid.
static int
self_get_link(struct inode *inode, char *buf, size_t len)
{
  if(!current->proc)
    return -ENOENT;
  char pid[12];
  int n = scnprintf(pid, sizeof(pid), "%d", current->proc->pid);
  n = MIN((size_t)n, len);
  memcpy(buf, pid, n);
  return n;
}

static const struct inode_operations self_iops = { .get_link = self_get_link };

// The links Debian's udev makes (and systemd's tmpfiles): bash's process substitution
// passes /dev/fd/63, scripts read /dev/stdin. Opened and stat'd as magic links
// (fs/fd_link.c); readlink and ls see what Linux shows.
static const struct {
  const char *path, *target;
} links[] = {
  { "/etc/mtab", "/proc/self/mounts" },   // as Debian's: mount and df read it
  { "/dev/fd", "/proc/self/fd" },
  { "/dev/stdin", "/proc/self/fd/0" },
  { "/dev/stdout", "/proc/self/fd/1" },
  { "/dev/stderr", "/proc/self/fd/2" },
};

void
proc_init(void)
{
  static const struct {
    const char *path;
    show_fn show;
  } files[] = {
    { "/proc/mounts", mounts_show },
    { "/proc/meminfo", meminfo_show },
    { "/proc/uptime", uptime_show },
    { "/proc/filesystems", filesystems_show },
    { "/proc/stat", stat_show },
    { "/proc/loadavg", loadavg_show },
    { "/proc/cpuinfo", cpuinfo_show },
    { "/proc/sys/kernel/ostype", ostype_show },
    { "/proc/sys/kernel/osrelease", osrelease_show },
    { "/proc/sys/kernel/pid_max", pid_max_show },
  };
  int err = vfs_mkdir_p("/proc/sys/kernel", 0555);
  struct inode *inode = err ? NULL : ramfs_get_inode(root_mnt->mnt_sb, S_IFLNK | 0777);
  if(!err && !inode)
    err = -ENOMEM;
  if(inode) {
    inode->i_op = &self_iops;
    inode->i_flags |= I_PROC;
    err = vfs_add_inode("/proc/self", inode);
  }
  if(err)
    pr_err("vfs: cannot make /proc/self: error %d\n", err);
  err = vfs_mkdir_p("/etc", 0755) ?: vfs_mkdir_p("/dev", 0755);
  for(size_t i = 0; !err && i < sizeof(links) / sizeof(links[0]); i++)
    err = vfs_symlink(links[i].target, links[i].path);
  if(err)
    pr_err("vfs: cannot make /etc/mtab or the links of /dev: error %d\n", err);
  for(size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    inode = ramfs_get_inode(root_mnt->mnt_sb, S_IFREG | 0444);
    if(inode) {
      inode->i_fop = &proc_show_fops;
      inode->i_private = (long)files[i].show;
      inode->i_flags |= I_PROC;
    }
    err = inode ? vfs_add_inode(files[i].path, inode) : -ENOMEM;
    if(err)
      pr_err("vfs: cannot make %s: error %d\n", files[i].path, err);
  }
  // Last, the directories: from here on only the kernel adds and removes names there.
  static const char *const dirs[] = { "/proc", "/proc/sys", "/proc/sys/kernel" };
  for(size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
    struct dentry *d;
    if(path_lookup(dirs[i], 0, &d) == 0) {
      __atomic_or_fetch(&d->d_inode->i_flags, I_PROC, __ATOMIC_RELAXED);
      dput(d);
    }
  }
}
