// planted-pagecache-recheck: the pagecache suite's workload on a radix-rcu file whose lookups
// skip the recheck after the speculative reference; the suite's own check must find wrong pages.
#include "bench.h"
#include "cpumask.h"
#include "pagemap.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "../../kernel/bench/pagecache.h"

#define ROUND_MS 1000     // a run of the workload, then the suite's check
#define MAX_ROUNDS 30     // caught in the first round or two here; the rest is for a slow host
#define WINDOW_US 1000    // one CPU's lookups wait this long between slot and reference

static struct bench_ctx ctx;
static bool racing;       // the workers run: verify's own lookups do not wait
static int window_cpu;
static u64 worker_ops[2];

// Widens the race on one CPU only, so that the other runs the workload at full speed
// meanwhile: it replaces the page the waiting lookup read, frees it, and at its next
// replacement reuses the frame at another index (kernel/bench/pagecache.c: replace). Without
// the recheck the waiting lookup then returns that page, which holds another index.
static void
window(void)
{
  if(READ_ONCE(racing) && smp_processor_id() == window_cpu)
    udelay(WINDOW_US);
}

static int
worker(void *arg)
{
  long i = (long)arg;
  worker_ops[i] = pc_worker(&ctx, i);
  return 0;
}

static bool
planted_pagecache_recheck(void)
{
  static const struct bench_variant variant = { "radix-rcu", 64, false };
  struct pc_tally t = { 0 }, sum = { 0 };
  int cpus[2], n = 0, cpu, round;
  bool ok = true;

  for_each_online_cpu(cpu)
    if(n < 2)
      cpus[n++] = cpu;
  if(n < 2) {
    selftest_extra("cpus=1 reason=needs-two-cpus");
    return true;   // nothing proven: run.sh counts a planted test that passes as not caught
  }
  ctx = (struct bench_ctx){ .variant = &variant, .threads = 2, .max_threads = 2 };
  int err = pc_setup(&ctx);
  if(err) {
    pr_err("planted-pagecache-recheck: setup failed (%d)\n", err);
    return true;
  }
  pagecache_plant_norecheck(ctx.priv, window);
  window_cpu = cpus[0];
  for(round = 0; round < MAX_ROUNDS && ok; round++) {
    struct thread *th[2];
    ctx.stop = false;
    ctx.deadline = ktime_ns() + ROUND_MS * 1000000ULL;
    WRITE_ONCE(racing, true);
    for(long i = 0; i < 2; i++)
      th[i] = kthread_create(worker, (void *)i, cpus[i], "pc-planted/%ld", i);
    for(int i = 0; i < 2; i++)
      if(th[i])
        kthread_join(th[i]);
    WRITE_ONCE(racing, false);
    ok = pc_verify(&ctx, worker_ops[0] + worker_ops[1]);
    pc_take_tally(&ctx, &t);
    sum.lookups += t.lookups;
    sum.wrong += t.wrong;
    sum.replaced += t.replaced;
  }
  pc_teardown(&ctx);
  selftest_extra("variant=radix-rcu/64 rounds=%d lookups=%lu replaced=%lu wrong=%lu", round,
                 sum.lookups, sum.replaced, sum.wrong);
  return ok;
}
SELFTEST("planted-pagecache-recheck", planted_pagecache_recheck);
