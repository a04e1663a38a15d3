// ubench's system-call baseline: usyscall, the cost of entering and leaving the kernel with
// almost nothing to do there, which every other suite's operation pays once or more.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ubench.h"

// ---- usyscall ---------------------------------------------------------------------------
// One operation: getppid(), a system call that reads one field of the caller's process and
// that neither C library answers from user space (glibc has cached getpid, never getppid;
// neither kernel has it in a vDSO). Called through syscall() so that no library version
// could cache it. What a row of another suite costs beyond this is that suite's own path.
static pid_t parent;

static int
syscall_init(struct ub_ctx *ctx)
{
  parent = getppid();
  return 0;
}

static void
syscall_worker(struct ub_ctx *ctx, struct ub_worker *w)
{
  while(!ub_stopped(ctx)) {
    long r = syscall(SYS_getppid);
    if(r < 0) {
      ub_fail(w, "getppid", errno);
      return;
    }
    if(r != parent)
      w->bad++;
    ub_done(w, 1);
  }
}

const struct ub_suite ub_usyscall = {
  .name = "usyscall",
  .op = "getppid, the system-call entry and exit",
  .seed = "the baseline of every other suite",
  .sweep = UB_SWEEP_UP,
  .variants = { "getppid" },
  .init = syscall_init,
  .worker = syscall_worker,
};
