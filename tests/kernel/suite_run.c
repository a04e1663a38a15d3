// suite_run: a benchmark suite's workers on kernel threads for the self-tests that drive the
// suite's hooks themselves (lookup-suite, madvise-suite), bound one per CPU as the harness does.
#include "sched.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "suite_run.h"

#define SUITE_THREADS 8

extern const struct benchsuite __benchsuites_start[], __benchsuites_end[];

const struct benchsuite *
suite_find(const char *name)
{
  for(const struct benchsuite *s = __benchsuites_start; s < __benchsuites_end; s++)
    if(s->name && strcmp(s->name, name) == 0)
      return s;
  return NULL;
}

struct worker {
  struct bench_ctx *ctx;
  int index;
  int *running;   // workers that have started: atomic
  u64 ops;
};

static int
worker_main(void *arg)
{
  struct worker *w = arg;
  __atomic_add_fetch(w->running, 1, __ATOMIC_RELEASE);   // pairs with suite_threads' wait
  w->ops = w->ctx->suite->worker(w->ctx, w->index);
  return 0;
}

bool
suite_threads(struct bench_ctx *ctx, int n, const char *name, int run_ms, u64 *ops)
{
  struct worker w[SUITE_THREADS];
  struct thread *t[SUITE_THREADS];
  int cpus = num_online_cpus(), running = 0;
  bool ok = n > 0 && n <= SUITE_THREADS;
  *ops = 0;
  for(int i = 0; ok && i < n; i++) {
    w[i] = (struct worker){ ctx, i, &running, 0 };
    t[i] = kthread_create(worker_main, &w[i], i % cpus, "%s/%d", name, i);
    ok &= t[i] != NULL;
    if(!ok)
      n = i + 1;   // join those made
  }
  if(run_ms > 0) {
    // Waking a halted vCPU can take longer than the run when vCPUs outnumber host cores.
    while(ok && smp_load_acquire(&running) < n)
      msleep(1);
    if(ok)
      msleep(run_ms);
    smp_store_release(&ctx->stop, true);   // pairs with bench_stopped in the workers
  }
  for(int i = 0; i < n; i++) {
    if(t[i])
      kthread_join(t[i]);
    *ops += t[i] ? w[i].ops : 0;
  }
  return ok;
}
