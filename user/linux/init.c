// linux/init: /init of the Linux initramfs of `make compare-linux` (tools/compare_linux.py), never
// put in this kernel's: mounts /proc, /sys and a ramfs, runs /bin/ubench, powers the machine off.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define PROGRAM "/bin/ubench"

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

// Everything written to the console is sent before the power goes: a write to /dev/console
// returns once the bytes are in the tty's buffer, not on the wire (tcdrain(3)).
static void
drain(void)
{
  fflush(stdout);
  tcdrain(STDOUT_FILENO);
  sync();
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

  // The words after "--" on Linux's command line are argv[1..] here (init/main.c,
  // argv_init); the program gets them unchanged, as init= gets them on this kernel.
  char *args[argc + 1];
  args[0] = PROGRAM;
  for(int i = 1; i < argc; i++)
    args[i] = argv[i];
  args[argc] = NULL;
  char *envp[] = { "HOME=/", "TERM=linux", "PATH=/bin:/usr/bin", NULL };

  // The console lines of this kernel's init= (kernel/user_init.c), so one parser reads both.
  if(stat(PROGRAM, &st) == 0)
    printf("init: %s: a file, %lld bytes\n", PROGRAM, (long long)st.st_size);
  drain();
  pid = fork();
  if(pid == 0){
    execve(PROGRAM, args, envp);
    printf("init: %s: %s\n", PROGRAM, strerror(errno));
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
      printf("init: %s exited with status %d\n", PROGRAM, WEXITSTATUS(status));
    else if(w == pid && WIFSIGNALED(status))
      printf("init: %s killed by signal %d\n", PROGRAM, WTERMSIG(status));
    else
      printf("init: wait: %s\n", strerror(errno));
  }
  drain();
  // PID 1 must never exit (the kernel would panic): power off, QEMU's -no-reboot ends the run.
  reboot(RB_POWER_OFF);
  printf("init: reboot(RB_POWER_OFF): %s\n", strerror(errno));
  drain();
  for(;;)
    pause();
}
