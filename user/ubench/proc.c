// ubench's process suites: ufork (fork, the child exits at once, the parent waits: lmbench's
// "fork proc") and uexec (fork, the child execve's a tiny static program that exits at once,
// the parent waits: lmbench's "exec proc").
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ubench.h"

// One operation: a child made, exited and reaped. Every worker forks its own children and
// waits for each by its pid (wait4), so workers never reap each other's.
//
// What is fair: the fork is the raw system call, not glibc's fork(), which serialises every
// fork of the process on its atfork and malloc locks (a user-space cost, not a kernel's);
// the child leaves by exit_group before it touches anything but its stack. The parent is
// ubench itself with all its threads: fork copies (write-protects) what they have mapped,
// and their next store to each such page takes a copy-on-write fault, also on Linux, where
// that is a cost of fork in a threaded process as well.
//
// uexec's program is exit0 (user/exit0.c: no libc, _start calls exit_group(0)), found beside
// ubench itself (/proc/self/exe's directory: /bin on both kernels' initramfs), so that the
// row measures the kernel's execve and not a C library's start-up.
//
// Checks: every child exits with status 0 (an execve that fails exits 127); after the run
// the process has no child left to reap.
static char exit0_path[PATH_MAX];

static long
raw_fork(void)
{
  return syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
}

static int
exec_init(struct ub_ctx *ctx)
{
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  char *slash;

  if(n < 0)
    return -errno;
  self[n] = 0;
  if(!(slash = strrchr(self, '/')))
    return -ENOENT;
  *slash = 0;
  if(ub_path(exit0_path, sizeof(exit0_path), "%s/exit0", self) < 0)
    return -ENAMETOOLONG;
  return access(exit0_path, X_OK) < 0 ? -errno : 0;
}

// Whatever a run left: a child not reaped fails the check.
static int
proc_teardown(struct ub_ctx *ctx)
{
  int st, left = 0;

  while(waitpid(-1, &st, WNOHANG) > 0)
    left++;
  if(left)
    printf("ubench: %s: %d child%s left unreaped after the run\n", ctx->suite->name, left,
           left == 1 ? "" : "ren");
  return left ? 1 : 0;
}

static void
proc_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  bool exec = ctx->suite == &ub_uexec;
  char *const argv[] = { exit0_path, NULL };
  char *const envp[] = { NULL };

  while(!ub_stopped(ctx)) {
    long pid = raw_fork();
    int st;

    if(pid == 0) {
      if(exec)
        syscall(SYS_execve, exit0_path, argv, envp);
      syscall(SYS_exit_group, exec ? 127 : 0);
    }
    if(pid < 0) {
      ub_fail(w, "fork", errno);
      return;
    }
    if(waitpid(pid, &st, 0) != pid) {
      ub_fail(w, "waitpid", errno);
      return;
    }
    if(!WIFEXITED(st) || WEXITSTATUS(st) != 0)
      w->bad++;
    ub_done(w, 1);
  }
}

const struct ub_suite ub_ufork = {
  .name = "ufork",
  .op = "fork then _exit(0) in the child and waitpid in the parent",
  .seed = "lmbench fork proc",
  .sweep = UB_SWEEP_UP,
  .variants = { "exit" },
  .teardown = proc_teardown,
  .worker = proc_worker,
};

const struct ub_suite ub_uexec = {
  .name = "uexec",
  .op = "fork then execve of a static program that exits 0 and waitpid",
  .seed = "lmbench exec proc",
  .sweep = UB_SWEEP_UP,
  .variants = { "exit0" },
  .init = exec_init,
  .teardown = proc_teardown,
  .worker = proc_worker,
};
