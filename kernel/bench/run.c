// The workers of a benchmark point and one timed run of them: a thread bound to each CPU in
// turn, parked between runs, the clock started by the last awake and stopped by the last done.
#include "bench.h"
#include "cmdline.h"
#include "cpumask.h"
#include "fault_inject.h"
#include "point_lockstat.h"
#include "mm.h"
#include "rcupdate.h"
#include "reclaim.h"
#include "run.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "wait.h"
#include <asm/processor.h>

#define MAX_WORKERS 640     // ceil(2.5 * 255): the over sweep at the most CPUs QEMU gives
#define CAP_NS 1000000000ULL
#define QUICK_CAP_NS 500000000ULL

// How long a run lasts. Its rate is the operations done over the interval from the moment
// every worker is awake to the moment the last one has returned (so every operation counted
// lies inside it, also one still running at the deadline). When an operation takes about as
// long as a run (a madvise transaction at 8 threads under TCG takes ~64 ms, at 16 ~110 ms,
// against 0.1 s runs), each worker does one or two, the one that started last sets the end,
// and the tail in which some workers have stopped while others still work is a large part
// of the interval: the rate comes out low, by an amount that differs from variant to variant.
// So a timed run lasts at least bench.secs AND until every worker has done BENCH_MIN_OPS
// operations: the tail is then at most one operation in twenty of each worker's, and partly
// busy, a bias under 5% that shrinks as operations get shorter (none for the microsecond
// operations of most suites, which do thousands a run). Workers starved by a lock (vCPUs
// that the host has descheduled) are waited for alike. A run stops anyway at CAP_NS
// (QUICK_CAP_NS under bench=quick), or at twice bench.secs if that is longer: a fixed bound
// per run keeps a boot within its time (`make qemu-smp8` in five minutes, bench=quick in
// one, on a 2-core host); a point whose runs went on past bench.secs, or hit the cap, says
// so on the console. Workers count their operations in bench_stopped, each on its own cache
// line; the only shared word is `behind`, the workers still short of BENCH_MIN_OPS, which
// each writes once a run.

// One worker per thread of the point, each on its own cache line: it writes loops in every
// operation (bench_stopped).
struct worker {
  int index;
  struct thread *thread;
  int gen;              // the last generation it was released in
  u64 ops;              // operations of its last run
  u64 loops;            // bench_stopped calls in this run: one more than operations done
  u64 enomem;           // operations of this run that failed with -ENOMEM (bench_enomem)
} __aligned(64);

// The point being measured. Its workers park at a sleeping barrier between runs: the last
// to park wakes the runner, which releases the next run by bumping generation. The last
// worker to wake up starts the clock (see start_together), the last to return stops it.
struct bench_ctx bench_point;
static struct worker workers[MAX_WORKERS];
static int parked;
static int generation;
static int started;     // workers awake in this run
static int finished;    // workers returned from this run
static int going;       // the generation whose clock has started
static int behind;      // workers short of BENCH_MIN_OPS in this run (<= 0: none)
static bool extended;   // this run went on past its deadline for them
static bool capped;     // and stopped at the cap
static u64 run_ns;      // length of one run
static u64 cap_ns;      // the most a run may last
static u64 settle_ns;   // of the run's interval, what its settle took
static struct rcu_stats rcu_end;     // at the end of the interval, after the settle
static unsigned long lazy_end;       // lazily freed pages not yet reclaimed, likewise
static bool quit;
static DECLARE_WAIT_QUEUE_HEAD(start_wq);   // workers wait here for the next run
static DECLARE_WAIT_QUEUE_HEAD(park_wq);    // the runner waits here for the workers

// The release wakes the workers, but a wake-up IPI to a halted vCPU can take longer than
// a whole run when vCPUs outnumber host cores (TCG). So the clock starts only when the last
// worker is awake: it stamps the start and sets the deadline, and the earlier ones wait
// for it without holding a CPU that a sleeping peer needs (cond_resched), and without
// halting, which would cost them a second slow wake-up.
static void
start_together(struct worker *w)
{
  if(__atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL) == bench_point.threads) {
    bench_point.start_ns = ktime_ns();
    bench_point.deadline = bench_point.start_ns + run_ns;
    bench_point.cap = bench_point.start_ns + cap_ns;
    bench_profile_start();
    bench_lockstat_start();
    smp_store_release(&going, w->gen);
    return;
  }
  // cond_resched, not yield: a peer that still has to wake on this CPU was enqueued
  // there, which sets need_resched; yielding on every turn would take the run-queue
  // lock in a tight loop and starve the CPU that wants to enqueue that peer.
  while(smp_load_acquire(&going) != w->gen) {
    cpu_relax();
    cond_resched();
  }
}

// The interval ends when the last worker has returned and the suite's settle is done, not
// when the first sees the deadline: every operation counted lies inside it, also one that
// was still running at the deadline, and so does the deferred work the operations caused.
static void
finish_together(void)
{
  struct reclaim_stats st;
  u64 t;

  if(__atomic_add_fetch(&finished, 1, __ATOMIC_ACQ_REL) != bench_point.threads)
    return;
  t = ktime_ns();
  if(bench_point.suite->settle)
    bench_point.suite->settle(&bench_point);
  bench_point.stop_ns = ktime_ns();
  bench_profile_stop();
  bench_lockstat_stop();
  settle_ns = bench_point.stop_ns - t;
  rcu_get_stats(&rcu_end);
  reclaim_get_stats(&st);
  lazy_end = st.lazyfree;
}

static int
worker_main(void *arg)
{
  struct worker *w = arg;

  for(;;) {
    // Release: the runner reads w->ops once it sees everyone parked.
    if(__atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL) == bench_point.threads)
      wake_up(&park_wq);
    wait_event(start_wq, smp_load_acquire(&generation) != w->gen);
    w->gen++;
    if(READ_ONCE(quit))
      return 0;
    start_together(w);
    w->ops = bench_point.suite->worker(&bench_point, w->index);
    finish_together();
  }
}

void
bench_wait_parked(void)
{
  // A run lasts bench.secs (up to 600 s): a worker stuck in it is what the hung-task and
  // soft-lockup checks report, not this wait.
  wait_event_idle(park_wq, smp_load_acquire(&parked) == bench_point.threads);
}

// Lets the parked workers go, either into a run or, with quit set, out.
static void
release(void)
{
  WRITE_ONCE(parked, 0);
  WRITE_ONCE(started, 0);
  WRITE_ONCE(finished, 0);
  __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
  wake_up_all(&start_wq);
}

// The caller is a worker (kernel threads run worker_main with their struct worker): the
// count stays on its own cache line, and only the BENCH_MIN_OPS-th operation of a run
// touches the shared one.
bool
bench_stopped(const struct bench_ctx *c)
{
  struct worker *w = current->arg;

  // A thread the harness did not start (a self-test driving a suite's worker itself) is
  // not one of the run's workers: nothing to count.
  if(w < workers || w >= workers + MAX_WORKERS)
    return READ_ONCE(c->stop);
  if(++w->loops == BENCH_MIN_OPS + 1)
    __atomic_sub_fetch(&behind, 1, __ATOMIC_RELAXED);
  return READ_ONCE(c->stop);
}

// The workers end a run themselves: the runner may share CPU 0 with one of them, which
// lets it in only at its next cond_resched. The first to see the run over (its time up and
// every worker past BENCH_MIN_OPS, or the cap reached) stops everyone.
void
bench_yield(struct bench_ctx *c)
{
  u64 now;

  if(!READ_ONCE(c->stop) && (now = ktime_ns()) >= c->deadline) {
    if(READ_ONCE(behind) <= 0 || now >= c->cap) {
      if(now >= c->cap && READ_ONCE(behind) > 0)
        WRITE_ONCE(capped, true);
      smp_store_release(&c->stop, true);
    } else if(!READ_ONCE(extended)) {
      WRITE_ONCE(extended, true);
    }
  }
  cond_resched();
}

void
bench_enomem(struct bench_ctx *c)
{
  struct worker *w = current->arg;

  if(w >= workers && w < workers + MAX_WORKERS)
    w->enomem++;
}

void
bench_settle_rcu(struct bench_ctx *c)
{
  rcu_barrier();
}

// The reclaim every page left lazily freed (MADV_FREE) would have cost, paid now: the LRU's
// inactive list, where those pages wait first in line, scanned until none is left. A page
// written again since is kept (the core clears its flag); a referenced one goes round once
// more, hence a few passes.
void
bench_settle_lazyfree(struct bench_ctx *c)
{
  struct reclaim_stats st;

  for(int pass = 0; pass < 4; pass++) {
    reclaim_get_stats(&st);
    if(st.lazyfree == 0)
      return;
    shrink_lru(st.lru_inactive + st.lazyfree);
  }
}

// Outside every interval, between runs: the callbacks the last one's teardown queued run,
// empty slabs go back (those of RCU-typesafe caches through RCU again), and every CPU's
// free-page list is drained, so that each run starts from the same allocator state.
void
bench_clean_between(void)
{
  mm_quiesce();
}

// One run of us microseconds (at least; measured: BENCH_MIN_OPS for every worker), timed
// from the moment every worker is awake to the moment the last one is done and the settle
// with it, every worker parked again after it: what it did in *out.
void
bench_run_once(u32 us, bool measured, struct bench_run *out)
{
  struct rcu_stats before;
  struct reclaim_stats st;
  s64 pending;
  int i;

  WRITE_ONCE(bench_point.stop, false);
  bench_point.stop_ns = 0;
  for(i = 0; i < bench_point.threads; i++)
    workers[i].loops = workers[i].enomem = 0;
  behind = measured ? bench_point.threads : 0;
  extended = capped = false;
  run_ns = (u64)us * 1000;
  cap_ns = bench_cap_ns(us);
  rcu_get_stats(&before);
  reclaim_get_stats(&st);
  release();
  bench_wait_parked();
  out->ns = bench_point.stop_ns - bench_point.start_ns;
  out->settle_ns = settle_ns;
  out->extended = extended;
  out->capped = capped;
  out->ops = out->enomem = 0;
  for(i = 0; i < bench_point.threads; i++) {
    out->ops += workers[i].ops;
    out->enomem += workers[i].enomem;
  }
  // Queued in the interval and not run by its end. rcu_barrier's own callbacks are run
  // but never queued through call_rcu, so a settle that waits for them leaves this < 0.
  pending = (s64)(rcu_end.cbs_queued - before.cbs_queued) -
            (s64)(rcu_end.cbs_invoked - before.cbs_invoked);
  out->rcu_left = pending > 0 ? pending : 0;
  out->lazy_left = lazy_end > st.lazyfree ? lazy_end - st.lazyfree : 0;
}

u64
bench_cap_ns(u32 us)
{
  return MAX(kcmdline.bench_quick ? QUICK_CAP_NS : CAP_NS, 2 * (u64)us * 1000);
}

// Workers one per online CPU in id order, then round-robin over them again: doc/console.md's
// "bound one per CPU up to cpus; beyond that they share CPUs". Returns how many started.
// paused: fault injection (which can fail kthread_create) is paused while they are created.
int
bench_start_workers(int n, bool paused)
{
  static int cpus[NR_CPUS];
  struct fault_rates rates;
  int ncpus = 0, cpu, i;

  for_each_online_cpu(cpu)
    cpus[ncpus++] = cpu;
  WRITE_ONCE(parked, 0);
  WRITE_ONCE(quit, false);
  bench_point.threads = n;
  if(paused)
    fault_inject_pause(&rates);
  for(i = 0; i < n; i++) {
    workers[i].index = i;
    workers[i].gen = generation;
    workers[i].ops = 0;
    workers[i].thread = kthread_create(worker_main, &workers[i], cpus[i % ncpus],
                                       "bench/%s/%d", bench_point.suite->name, i);
    if(!workers[i].thread)
      break;
  }
  if(paused)
    fault_inject_restore(&rates);
  return i;
}

// Tells the n started workers to exit and reaps them. They may still be on their way
// to the barrier: the new generation lets them through whenever they get there,
// since each compares it with the one it was created in.
void
bench_stop_workers(int n)
{
  int i;

  WRITE_ONCE(quit, true);
  release();
  for(i = 0; i < n; i++)
    kthread_join(workers[i].thread);
}
