// Planted bugs for the soft-lockup and hung-task checks (kernel/watchdog.c): each lowers its
// check's threshold to a few seconds, plants the bug, and must end in a panic.
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "time.h"
#include "wait.h"
#include "watchdog.h"
#include <asm/x86.h>

#define PLANT_SECS 2

// Planted: this thread spins with interrupts on and never calls cond_resched; its own tick
// must panic within PLANT_SECS. Returning means it was not caught.
static bool
planted_softlockup(void)
{
  WRITE_ONCE(softlockup_secs, PLANT_SECS);
  pr_info("planted-softlockup: spinning without cond_resched for up to %d s\n", 4 * PLANT_SECS);
  u64 deadline = ktime_ns() + 4UL * PLANT_SECS * 1000000000UL;
  while(ktime_ns() < deadline)
    cpu_relax();
  WRITE_ONCE(softlockup_secs, SOFTLOCKUP_SECS);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-softlockup", planted_softlockup);

static struct completion never;   // nothing completes it: a lost wake-up

static int
lost_waiter(void *arg)
{
  wait_for_completion(&never);
  return 0;
}

// Planted: a thread waits for a completion no one will complete; khungtaskd must panic
// within about PLANT_SECS + 1 s. If not, the test completes it itself and fails.
static bool
planted_hung_task(void)
{
  init_completion(&never);
  WRITE_ONCE(hung_task_secs, PLANT_SECS);
  struct thread *t = kthread_create(lost_waiter, NULL, -1, "lost-waiter");
  if(!t) {
    WRITE_ONCE(hung_task_secs, HUNG_TASK_SECS);
    pr_err("planted-hung-task: cannot create the waiter\n");
    return true;
  }
  pr_info("planted-hung-task: %s waits for a completion that never comes\n", t->name);
  msleep(4 * PLANT_SECS * 1000);
  complete(&never);
  kthread_join(t);
  WRITE_ONCE(hung_task_secs, HUNG_TASK_SECS);
  selftest_extra("caught=no");
  return true;
}
SELFTEST("planted-hung-task", planted_hung_task);
