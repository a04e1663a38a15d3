// linux/init: /init of the Linux initramfs of `make compare-linux` and `make seeds-real`, never
// put in this kernel's: mounts /proc, /sys and a ramfs, runs /bin/ubench (or the program named
// first after "--", when that word is an absolute path), powers the machine off.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define PROGRAM "/bin/ubench"
#define MAXARGS 32   // as many as this kernel's init= takes after "--"

// Where ubench's file benchmarks work (its --dir, /tmp/ubench). On this kernel /tmp is a
// directory of the root ramfs; Linux unpacks its initramfs into a tmpfs instead when it has
// CONFIG_TMPFS and no root= (init/do_mounts.c, rootfs_init_fs_context), so a ramfs is mounted
// there for the same file system on both (fs/ramfs/inode.c: no size accounting, no swap).
#define RAMFS_DIR "/tmp"

static void
mount_or_say(const char *source, const char *target, const char *type, const char *opts)
{
  mkdir(target, 0755);
  if(mount(source, target, type, 0, opts) < 0)
    printf("init: mount %s on %s: %s\n", type, target, strerror(errno));
}

// The words after the first lone "--" of /proc/cmdline into args (at most max), split at
// spaces as Linux splits them when nothing is quoted; their count, or -1 when there is none.
static int
cmdline_args(char *line, int size, char **args, int max)
{
  int fd = open("/proc/cmdline", O_RDONLY), len, n = -1;
  if(fd < 0)
    return -1;
  len = read(fd, line, size - 1);
  close(fd);
  if(len <= 0)
    return -1;
  line[len] = 0;
  for(char *w = strtok(line, " \n"); w; w = strtok(NULL, " \n")) {
    if(n < 0) {
      if(strcmp(w, "--") == 0)
        n = 0;
    } else if(n < max) {
      args[n++] = w;
    }
  }
  return n;
}

// Everything written to the console is sent before the power goes: a write to /dev/console
// returns once the bytes are in the tty's buffer, not on the wire (tcdrain(3)).
static void
drain(void)
{
  fflush(stdout);
  tcdrain(STDOUT_FILENO);
  sync();
}

// The TLB-shootdown IPIs every CPU has taken since boot: the sum of /proc/interrupts' "TLB:"
// row (arch/x86/kernel/irq.c, arch_show_interrupts), or -1 without one. Read around the
// program, to set beside this kernel's count of the same IPIs (doc/compare-linux.md).
static long long
tlb_shootdowns(void)
{
  char row[4096];
  long long sum = -1;
  FILE *f = fopen("/proc/interrupts", "r");

  if(!f)
    return -1;
  while(fgets(row, sizeof(row), f)) {
    char *p = row, *end;
    while(*p == ' ')
      p++;
    if(strncmp(p, "TLB:", 4) != 0)
      continue;
    sum = 0;
    for(p += 4;; p = end) {
      long long v = strtoll(p, &end, 10);
      if(end == p)
        break;
      sum += v;
    }
    break;
  }
  fclose(f);
  return sum;
}

// What this Linux was configured to do, for tools/compare_linux.py to check against what its
// command line asked (doc/compare-linux.md, "Equal terms"): `init: seen <what>: <value>`
// lines. The boot is `quiet` (a serial console at 115200 baud under TCG is slow to print the
// ~370 lines of a verbose boot), so the kernel's own lines about it are read back from its log
// buffer, which keeps every level (klogctl(2), SYSLOG_ACTION_READ_ALL).
static void
seen_file(const char *what, const char *path)
{
  char buf[512];
  int fd = open(path, O_RDONLY), n;

  if(fd < 0) {
    printf("init: seen %s: absent\n", what);
    return;
  }
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  buf[n > 0 ? n : 0] = 0;
  buf[strcspn(buf, "\n")] = 0;
  printf("init: seen %s: %s\n", what, buf);
}

// The kernel's lines that say what it does differently from this kernel, by their prefixes:
// mm/page_alloc.c (mem auto-init), kernel/sched/core.c (Dynamic Preempt),
// kernel/time/clocksource.c, init/main.c (unknown parameters), security/ (each LSM's
// greeting), kernel/audit.c, kernel/cgroup/cgroup.c (cgroup_disable=).
static const char *const klog_prefixes[] = {
  "mem auto-init:", "Dynamic Preempt:", "clocksource: Switched to clocksource",
  "Unknown kernel command line parameters", "landlock:", "AppArmor:", "LSM support for eBPF",
  "Yama:", "SELinux:", "TOMOYO", "audit:", "cgroup: Disabling",
};

static void
seen_klog(void)
{
  int size = klogctl(10, NULL, 0);   // SYSLOG_ACTION_SIZE_BUFFER
  char *buf, *line, *next;
  int n;

  if(size <= 0 || !(buf = malloc(size + 1)))
    return;
  n = klogctl(3, buf, size);         // SYSLOG_ACTION_READ_ALL: "<level>[time] text" lines
  buf[n > 0 ? n : 0] = 0;
  for(line = buf; *line; line = next) {
    next = line + strcspn(line, "\n");
    if(*next)
      *next++ = 0;
    char *text = strchr(line, ']');
    if(!text)
      continue;
    text += 1 + (text[1] == ' ');
    for(size_t i = 0; i < sizeof(klog_prefixes) / sizeof(klog_prefixes[0]); i++)
      if(strncmp(text, klog_prefixes[i], strlen(klog_prefixes[i])) == 0)
        printf("init: seen klog: %s\n", text);
  }
  free(buf);
}

static void
seen_all(void)
{
  seen_file("cmdline", "/proc/cmdline");
  seen_file("thp", "/sys/kernel/mm/transparent_hugepage/enabled");
  seen_file("lsm", "/sys/kernel/security/lsm");
  // psi=0: no /proc/pressure (kernel/sched/psi.c, psi_proc_init).
  seen_file("psi", "/proc/pressure/cpu");
  seen_file("clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  seen_klog();
}

int
main(int argc, char **argv)
{
  struct stat st;
  int status;
  pid_t pid, w;

  setvbuf(stdout, NULL, _IOLBF, 0);
  mount_or_say("proc", "/proc", "proc", NULL);
  mount_or_say("sysfs", "/sys", "sysfs", NULL);
  mount_or_say("ramfs", RAMFS_DIR, "ramfs", "mode=1777");
  mount_or_say("securityfs", "/sys/kernel/security", "securityfs", NULL);
  seen_all();

  // The program gets the words after "--" on Linux's command line, as init= gets them on this
  // kernel. They are in argv, but after any word Linux did not know (no5lvl, read by the
  // decompressor alone: init/main.c, unknown_bootoption, passes it on), so they are taken
  // from /proc/cmdline; argv only when it has no "--".
  static char line[4096];
  char *args[MAXARGS + 2];
  int n = cmdline_args(line, sizeof(line), args + 1, MAXARGS);
  if(n < 0)
    for(n = 0; n + 1 < argc && n < MAXARGS; n++)
      args[n + 1] = argv[n + 1];
  args[0] = PROGRAM;
  args[n + 1] = NULL;
  // "-- /bin/sh /seeds/real.sh ...": that program, with the words after it (make seeds-real,
  // tools/seeds_real.py); ubench's own arguments never start with a '/'.
  char **argp = args;
  if(n > 0 && args[1][0] == '/')
    argp = args + 1;
  const char *prog = argp[0];
  char *envp[] = { "HOME=/", "TERM=linux", "PATH=/bin:/usr/bin", NULL };

  // The console lines of this kernel's init= (kernel/user_init.c), so one parser reads both.
  if(stat(prog, &st) == 0)
    printf("init: %s: a file, %lld bytes\n", prog, (long long)st.st_size);
  drain();
  long long tlb0 = tlb_shootdowns();
  pid = fork();
  if(pid == 0){
    execve(prog, argp, envp);
    printf("init: %s: %s\n", prog, strerror(errno));
    fflush(stdout);
    _exit(127);
  }
  if(pid < 0){
    printf("init: fork: %s\n", strerror(errno));
  } else {
    // PID 1 inherits every orphan: reap until the program itself is done.
    while((w = wait(&status)) != pid)
      if(w < 0 && errno != EINTR)
        break;
    if(w == pid && WIFEXITED(status))
      printf("init: %s exited with status %d\n", prog, WEXITSTATUS(status));
    else if(w == pid && WIFSIGNALED(status))
      printf("init: %s killed by signal %d\n", prog, WTERMSIG(status));
    else
      printf("init: wait: %s\n", strerror(errno));
    long long tlb1 = tlb_shootdowns();
    if(tlb0 >= 0 && tlb1 >= 0)
      printf("init: %s: %lld TLB-shootdown IPIs taken while it ran\n", prog, tlb1 - tlb0);
  }
  drain();
  // PID 1 must never exit (the kernel would panic): power off, QEMU's -no-reboot ends the run.
  reboot(RB_POWER_OFF);
  printf("init: reboot(RB_POWER_OFF): %s\n", strerror(errno));
  drain();
  for(;;)
    pause();
}
