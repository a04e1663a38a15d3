// Self-test of complete() against a waiter that reuses its completion at once (kernel/wait.c):
// once wait_for_completion has returned, the completer must not touch the completion again.
#include "cpumask.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "wait.h"
#include <asm/processor.h>

#define REUSE_ROUNDS 20
#define REUSE_WINDOW_US 2000   // complete() pauses this long between done++ and the wake-up

static struct completion reuse_c;
static int reuse_go, reuse_returned;

static int
reuse_completer(void *arg)
{
  for(int i = 1; i <= REUSE_ROUNDS; i++) {
    while(smp_load_acquire(&reuse_go) < i)
      cpu_relax();
    complete(&reuse_c);
    smp_store_release(&reuse_returned, i);
  }
  return 0;
}

// Each round the waiter watches for the count to go up (complete() is then between done++
// and its wake-up, held there by complete_wake_delay_us), waits, and wipes the completion as
// a caller whose on-stack completion goes out of scope would. The completer has returned
// when the wipe is checked: any byte it wrote after the waiter returned shows, and on the old
// order (wake after the unlock) its wake-up walked the wiped list and faulted.
static bool
completion_reuse_test(void)
{
  int other = selftest_other_cpu();
  if(other < 0) {
    selftest_extra("cpus=1 skipped=needs-two-cpus");
    return true;
  }
  reuse_go = reuse_returned = 0;
  struct thread *t = kthread_create(reuse_completer, NULL, other, "completer");
  if(!t)   // kthread_create fails under failslab=
    return selftest_skip("enomem");
  WRITE_ONCE(complete_wake_delay_us, REUSE_WINDOW_US);
  int rounds = 0, touched = 0;
  for(int i = 1; i <= REUSE_ROUNDS; i++) {
    init_completion(&reuse_c);
    smp_store_release(&reuse_go, i);
    while(READ_ONCE(reuse_c.done) == 0)
      cpu_relax();
    wait_for_completion(&reuse_c);
    memset(&reuse_c, 0, sizeof(reuse_c));
    while(smp_load_acquire(&reuse_returned) < i)
      cpu_relax();
    const unsigned char *b = (const unsigned char *)&reuse_c;
    for(size_t k = 0; k < sizeof(reuse_c); k++)
      if(b[k]) {
        touched++;
        break;
      }
    rounds++;
  }
  WRITE_ONCE(complete_wake_delay_us, 0);
  kthread_join(t);
  selftest_extra("rounds=%d touched_after_return=%d", rounds, touched);
  return rounds == REUSE_ROUNDS && touched == 0;
}
SELFTEST("completion-reuse", completion_reuse_test);
