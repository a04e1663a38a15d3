// The locks suite: lock, increment a shared counter, unlock, with the ticket, queued (MCS) and
// test-and-test-and-set locks of include/spinlock.h; the baseline under every later suite.
#include "bench.h"
#include "printk.h"
#include "spinlock.h"

// Operations between calls to bench_yield (outside the lock). Every iteration looks at the
// stop flag: with more vCPUs than host cores one contended hand-over can wait a whole host
// time slice, so a run must be able to end after any single operation.
#define RESCHED_EVERY 4

// Each lock and the counter on a cache line of its own, so that the only sharing measured
// is the lock's own and the counter's, not false sharing between the three locks.
static struct {
  struct ticket_lock ticket __aligned(64);
  struct qspinlock queued __aligned(64);
  struct tas_lock tas __aligned(64);
  u64 counter __aligned(64);
} l = {
  .ticket = TICKET_LOCK_INIT,
  .queued = QSPINLOCK_INIT,
  .tas = TAS_LOCK_INIT,
};

enum { TICKET, QUEUED, TAS };

// One loop per lock type, so that each calls its lock directly, as real code does.
static u64
ticket_loop(struct bench_ctx *ctx)
{
  u64 ops = 0;

  while(!bench_stopped(ctx)) {
    ticket_lock(&l.ticket);
    l.counter++;
    ticket_unlock(&l.ticket);
    if(++ops % RESCHED_EVERY == 0)
      bench_yield(ctx);
  }
  return ops;
}

static u64
queued_loop(struct bench_ctx *ctx)
{
  u64 ops = 0;

  while(!bench_stopped(ctx)) {
    queued_spin_lock(&l.queued);
    l.counter++;
    queued_spin_unlock(&l.queued);
    if(++ops % RESCHED_EVERY == 0)
      bench_yield(ctx);
  }
  return ops;
}

static u64
tas_loop(struct bench_ctx *ctx)
{
  u64 ops = 0;

  while(!bench_stopped(ctx)) {
    tas_lock(&l.tas);
    l.counter++;
    tas_unlock(&l.tas);
    if(++ops % RESCHED_EVERY == 0)
      bench_yield(ctx);
  }
  return ops;
}

static u64
locks_worker(struct bench_ctx *ctx, int thread_index)
{
  if(ctx->vi == TICKET)
    return ticket_loop(ctx);
  if(ctx->vi == QUEUED)
    return queued_loop(ctx);
  return tas_loop(ctx);
}

// Every increment happened under the lock, so the counter holds exactly the operations
// the workers counted; a lock that let two holders in at once loses some. The counter
// starts each run at zero: it is zero at boot and reset here after every run.
static bool
locks_verify(struct bench_ctx *ctx, u64 ops)
{
  u64 seen = l.counter;

  l.counter = 0;
  if(seen == ops)
    return true;
  pr_err("bench: locks: %s lock LOST MUTUAL EXCLUSION at %d threads: counter %lu after "
         "%lu locked increments\n", ctx->variant->name, ctx->threads, seen, ops);
  return false;
}

BENCH_SUITE(locks_suite) = {
  .name = "locks",
  .order = 10,
  .seed = "spinlock baseline for the seeds' lock comparisons",
  .op = "lock + increment a shared counter + unlock",
  .sweep = SWEEP_OVER,
  .variants = {
    [TICKET] = { "ticket" },
    [QUEUED] = { "queued" },
    [TAS] = { "tas" },
  },
  .pairs = {
    { "queued", 0, "ticket", 0 },
    { "tas", 0, "ticket", 0 },
  },
  // No settle: nothing is allocated or freed.
  .worker = locks_worker,
  .verify = locks_verify,
};
