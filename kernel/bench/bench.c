// The benchmark runner: finds the suites bench= selects in the registry (the BENCH_SUITEs of
// kernel/bench/*.c), runs their sweeps, a warm-up and bench.runs timed runs per point, and
// prints the BENCH-SUITE, BENCH, BENCH-CMP and BENCH-DONE lines of doc/console.md.
#include "bench.h"
#include "cmdline.h"
#include "cpumask.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "stats.h"
#include "string.h"
#include "time.h"
#include "vsprintf.h"
#include "wait.h"
#include <asm/processor.h>

extern const struct benchsuite __benchsuites_start[], __benchsuites_end[];

// A full boot (bench=all: eight suites, 161 points at 8 CPUs) times 161 x 6 x 0.1 s, about
// 100 s, at these defaults, to fit `make qemu-smp8` in five minutes on a 2-core host. The
// wall clock runs longer: each run first waits for every worker to wake, and contended runs
// overrun (a lock hand-over may wait for a descheduled vCPU; a run ends between operations).
#define DEFAULT_RUNS 5
#define DEFAULT_US 100000
#define QUICK_RUNS 3        // bench=quick, as doc/console.md fixes it
#define QUICK_US 200000
#define MAX_WORKERS 640     // ceil(2.5 * 255): the over sweep at the most CPUs QEMU gives

struct worker {
  int index;
  struct thread *thread;
  int gen;              // the last generation it was released in
  u64 ops;              // operations of its last run
};

// The point being measured. Its workers park at a sleeping barrier between runs: the last
// to park wakes the runner, which releases the next run by bumping generation. The last
// worker to wake up starts the clock (see start_together).
static struct bench_ctx ctx;
static struct worker workers[MAX_WORKERS];
static int parked;
static int generation;
static int started;     // workers awake in this run
static int going;       // the generation whose clock has started
static u64 run_ns;      // length of one run
static bool quit;
static DECLARE_WAIT_QUEUE_HEAD(start_wq);   // workers wait here for the next run
static DECLARE_WAIT_QUEUE_HEAD(park_wq);    // the runner waits here for the workers

static int failures;
static struct bench_results results;

// The release wakes the workers, but a wake-up IPI to a halted vCPU can take longer than
// a whole run when vCPUs outnumber host cores (TCG). So the clock starts only when the last
// worker is awake: it stamps the start and sets the deadline, and the earlier ones wait
// for it without holding a CPU that a sleeping peer needs (cond_resched), and without
// halting, which would cost them a second slow wake-up.
static void
start_together(struct worker *w)
{
  if(__atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL) == ctx.threads) {
    ctx.start_ns = ktime_ns();
    ctx.deadline = ctx.start_ns + run_ns;
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

// The interval ends when the last worker returns, not when the first sees the deadline:
// every operation counted then lies inside it, also one that was still running at the
// deadline (a madvise transaction under TCG can take longer than a whole run).
static void
finish_together(void)
{
  u64 now = ktime_ns();
  u64 end = READ_ONCE(ctx.stop_ns);
  while(now > end && !__atomic_compare_exchange_n(&ctx.stop_ns, &end, now, false,
                                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

static int
worker_main(void *arg)
{
  struct worker *w = arg;

  for(;;) {
    // Release: the runner reads w->ops once it sees everyone parked.
    if(__atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL) == ctx.threads)
      wake_up(&park_wq);
    wait_event(start_wq, smp_load_acquire(&generation) != w->gen);
    w->gen++;
    if(READ_ONCE(quit))
      return 0;
    start_together(w);
    w->ops = ctx.suite->worker(&ctx, w->index);
    finish_together();
  }
}

static void
wait_parked(void)
{
  // A run lasts bench.secs (up to 600 s): a worker stuck in it is what the hung-task and
  // soft-lockup checks report, not this wait.
  wait_event_idle(park_wq, smp_load_acquire(&parked) == ctx.threads);
}

// Lets the parked workers go, either into a run or, with quit set, out.
static void
release(void)
{
  WRITE_ONCE(parked, 0);
  WRITE_ONCE(started, 0);
  __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
  wake_up_all(&start_wq);
}

// The workers end a run themselves: the runner may share CPU 0 with one of them, which
// lets it in only at its next cond_resched. The first to see the deadline pass stops
// everyone.
void
bench_yield(struct bench_ctx *c)
{
  if(!READ_ONCE(c->stop) && ktime_ns() >= c->deadline)
    smp_store_release(&c->stop, true);
  cond_resched();
}

// One run of us microseconds, timed from the moment every worker is awake to the moment
// the last one is done (finish_together); returns the operations done, every worker
// parked again.
static u64
run_once(u32 us, u64 *ns)
{
  u64 ops = 0;
  int i;

  WRITE_ONCE(ctx.stop, false);
  ctx.stop_ns = 0;
  run_ns = (u64)us * 1000;
  release();
  wait_parked();
  *ns = ctx.stop_ns - ctx.start_ns;
  for(i = 0; i < ctx.threads; i++)
    ops += workers[i].ops;
  return ops;
}

// Workers one per online CPU in id order, then round-robin over them again: doc/console.md's
// "bound one per CPU up to cpus; beyond that they share CPUs". Returns how many started.
static int
start_workers(int n)
{
  static int cpus[NR_CPUS];
  int ncpus = 0, cpu, i;

  for_each_online_cpu(cpu)
    cpus[ncpus++] = cpu;
  WRITE_ONCE(parked, 0);
  WRITE_ONCE(quit, false);
  ctx.threads = n;
  for(i = 0; i < n; i++) {
    workers[i].index = i;
    workers[i].gen = generation;
    workers[i].ops = 0;
    workers[i].thread = kthread_create(worker_main, &workers[i], cpus[i % ncpus],
                                       "bench/%s/%d", ctx.suite->name, i);
    if(!workers[i].thread)
      break;
  }
  return i;
}

// Tells the n started workers to exit and reaps them. They may still be on their way
// to the barrier: the new generation lets them through whenever they get there,
// since each compares it with the one it was created in.
static void
stop_workers(int n)
{
  int i;

  WRITE_ONCE(quit, true);
  release();
  for(i = 0; i < n; i++)
    kthread_join(workers[i].thread);
}

static void
check_run(u64 ops)
{
  if(ctx.suite->verify && !ctx.suite->verify(&ctx, ops)) {
    pr_err("bench: %s: %s at %d threads FAILED its check after a run of %lu operations\n",
           ctx.suite->name, ctx.variant->name, ctx.threads, ops);
    failures++;
  }
}

static void
print_point(const struct stats *st, const u64 *extra_m)
{
  const struct benchsuite *s = ctx.suite;
  char line[512], num[32];
  int len, i;

  len = scnprintf(line, sizeof(line), "BENCH suite=%s variant=%s", s->name, ctx.variant->name);
  if(ctx.variant->fanout)
    len += scnprintf(line + len, sizeof(line) - len, " fanout=%d", ctx.variant->fanout);
  len += scnprintf(line + len, sizeof(line) - len, " threads=%d runs=%u", ctx.threads, st->n);
  bench_fmt_milli(num, sizeof(num), st->mean_m);
  len += scnprintf(line + len, sizeof(line) - len, " ops_per_sec=%s", num);
  bench_fmt_milli(num, sizeof(num), st->stddev_m);
  len += scnprintf(line + len, sizeof(line) - len, " stddev=%s", num);
  bench_fmt_milli(num, sizeof(num), st->ci95_m);
  len += scnprintf(line + len, sizeof(line) - len, " ci95=%s", num);
  for(i = 0; i < BENCH_MAX_EXTRAS && s->extras[i]; i++) {
    bench_fmt_milli(num, sizeof(num), extra_m[i]);
    len += scnprintf(line + len, sizeof(line) - len, " %s=%s", s->extras[i], num);
  }
  printk("%s\n", line);
}

// One point: n workers, an uncounted warm-up run (caches, TLBs, lazily built state), then
// runs timed runs whose rates give the mean and its interval. False if workers did not start.
static bool
measure(int n, u32 runs, u32 us, struct stats *st)
{
  static u64 rate[1000];   // bench.runs is at most 1000 (kernel/lib/cmdline.c)
  u64 extra_m[BENCH_MAX_EXTRAS] = { 0 }, value_m[BENCH_MAX_EXTRAS];
  u64 ops, ns;
  int started, i;
  u32 r;

  started = start_workers(n);
  if(started < n) {
    pr_err("bench: %s: could not start worker %d of %d\n", ctx.suite->name, started + 1, n);
    stop_workers(started);
    return false;
  }
  wait_parked();
  check_run(run_once(us, &ns));
  for(r = 0; r < runs; r++) {
    ops = run_once(us, &ns);
    check_run(ops);
    rate[r] = stats_rate(ops, ns);
    if(ctx.suite->extra) {
      ctx.suite->extra(&ctx, ops, ns, value_m);
      for(i = 0; i < BENCH_MAX_EXTRAS; i++)
        extra_m[i] += value_m[i];
    }
  }
  stop_workers(n);

  stats_compute(st, rate, runs);
  for(i = 0; i < BENCH_MAX_EXTRAS; i++)
    extra_m[i] /= runs;
  print_point(st, extra_m);
  if(ctx.suite->point_done)
    ctx.suite->point_done(&ctx);
  return true;
}

static const char *
verdict_name(int verdict)
{
  if(verdict == STATS_FASTER)
    return "faster";
  if(verdict == STATS_SLOWER)
    return "slower";
  return "same";
}

// The BENCH-CMP lines of pair p: one per thread count both variants were measured at.
static void
compare(const struct benchsuite *s, const struct bench_pair *p)
{
  int a = bench_find_variant(s, p->a, p->fanout_a);
  int b = bench_find_variant(s, p->b, p->fanout_b);
  char fan[48], ratio[32], ci[32];
  struct welch w;
  struct ratio q;
  int t;

  if(a < 0 || b < 0) {
    pr_err("bench: %s: pair %s/%s names a variant the suite does not have\n",
           s->name, p->a, p->b);
    failures++;
    return;
  }
  fan[0] = 0;
  if(p->fanout_a)
    scnprintf(fan, sizeof(fan), " fanout_a=%d", p->fanout_a);
  if(p->fanout_b)
    scnprintf(fan + strlen(fan), sizeof(fan) - strlen(fan), " fanout_b=%d", p->fanout_b);
  for(t = 0; t < results.nthreads; t++) {
    if(!results.ran[a][t] || !results.ran[b][t])
      continue;
    if(stats_ratio(&q, &results.st[a][t], &results.st[b][t]) < 0)
      continue;   // b did nothing at all: there is no ratio to print
    stats_welch(&w, &results.st[a][t], &results.st[b][t]);
    bench_fmt_milli(ratio, sizeof(ratio), q.ratio_m);
    bench_fmt_milli(ci, sizeof(ci), q.ci95_m);
    printk("BENCH-CMP suite=%s a=%s b=%s%s threads=%d ratio=%s ci95=%s verdict=%s\n",
           s->name, p->a, p->b, fan, results.threads[t], ratio, ci, verdict_name(w.verdict));
  }
}

// Milliseconds a plan takes: points of a warm-up and runs timed runs.
static u64
plan_ms(int points, u32 runs, u32 us)
{
  return (u64)points * (runs + 1) * us / 1000;
}

// The points from sweep index first to last of one variant, between its setup and teardown.
static void
run_variant(const struct benchsuite *s, int vi, int first, int last, u32 runs, u32 us)
{
  int t;

  memset(&ctx, 0, sizeof(ctx));
  ctx.suite = s;
  ctx.variant = &s->variants[vi];
  ctx.vi = vi;
  ctx.max_threads = results.threads[results.nthreads - 1];
  if(s->setup && s->setup(&ctx) < 0) {
    pr_err("bench: %s: setting up %s failed; its points are skipped\n", s->name,
           ctx.variant->name);
    failures++;
    return;
  }
  for(t = first; t < last; t++) {
    results.ran[vi][t] = measure(results.threads[t], runs, us, &results.st[vi][t]);
    if(!results.ran[vi][t])
      failures++;
  }
  if(s->teardown)
    s->teardown(&ctx);
}

static void
run_suite(const struct benchsuite *s, int cpus, bool quick, u32 runs, u32 us)
{
  int nv = bench_nvariants(s), points = bench_points(s, cpus, quick);
  char line[BENCH_LINE_MAX + 1];
  int vi, t, i;

  memset(&results, 0, sizeof(results));
  results.nthreads = bench_sweep(s->sweep, cpus, quick, results.threads);
  bench_suite_line(line, sizeof(line), s, cpus, quick);
  printk("%s\n", line);
  printk("bench: %s: %d points x %u runs x %u.%02u s = ~%lu s\n", s->name, points, runs + 1,
         us / 1000000, us % 1000000 / 10000, (plan_ms(points, runs, us) + 500) / 1000);

  if(s->interleave) {
    for(t = 0; t < results.nthreads; t++)
      for(vi = 0; vi < nv; vi++)
        if(bench_variant_runs(&s->variants[vi], quick))
          run_variant(s, vi, t, t + 1, runs, us);
  } else {
    for(vi = 0; vi < nv; vi++)
      if(bench_variant_runs(&s->variants[vi], quick))
        run_variant(s, vi, 0, results.nthreads, runs, us);
  }

  bench_table(s, &results);
  for(i = 0; i < BENCH_MAX_PAIRS && s->pairs[i].a; i++)
    compare(s, &s->pairs[i]);
}

// Whether the registry can take suite s: bench_suite_bad has nothing against it, and no other
// suite has its name (bench= could not tell the two apart, nor could the BENCH lines).
static bool
usable(const struct benchsuite *s)
{
  const struct benchsuite *t;

  if(bench_suite_bad(s))
    return false;
  for(t = __benchsuites_start; t < __benchsuites_end; t++)
    if(t != s && t->name && strcmp(t->name, s->name) == 0)
      return false;
  return true;
}

// Whether suite a runs before suite b: by order, then by name.
static bool
before(const struct benchsuite *a, const struct benchsuite *b)
{
  return a->order != b->order ? a->order < b->order : strcmp(a->name, b->name) < 0;
}

// The usable suites in running order: the one after prev, or the first with prev NULL; NULL
// after the last. A scan per step: there are a handful of suites, and nothing to allocate.
static const struct benchsuite *
next_suite(const struct benchsuite *prev)
{
  const struct benchsuite *s, *next = NULL;

  for(s = __benchsuites_start; s < __benchsuites_end; s++)
    if(usable(s) && (!prev || before(prev, s)) && (!next || before(s, next)))
      next = s;
  return next;
}

// Every suite the registry can take, in running order.
#define for_each_suite(s) for(s = next_suite(NULL); s; s = next_suite(s))

// The suite called name, if there is one the registry can take.
static const struct benchsuite *
find_suite(const char *name)
{
  const struct benchsuite *s;

  for_each_suite(s)
    if(strcmp(s->name, name) == 0)
      return s;
  return NULL;
}

// Whether bench= asks for suite s.
static bool
selected(const struct benchsuite *s)
{
  int i;

  if(kcmdline.bench_all)
    return true;
  for(i = 0; i < kcmdline.nbench; i++)
    if(strcmp(kcmdline.bench_names[i], s->name) == 0)
      return true;
  return false;
}

// A name bench= gives that no suite has is reported as the word bench=NAME, so that every
// unknown name is named whatever list it came in; the suites it does name still run.
void
bench_check_cmdline(void (*bad)(const char *word, const char *why))
{
  char word[sizeof("bench=") + BENCH_NAME_MAX];
  int i;

  for(i = 0; i < kcmdline.nbench; i++) {
    if(find_suite(kcmdline.bench_names[i]))
      continue;
    scnprintf(word, sizeof(word), "bench=%s", kcmdline.bench_names[i]);
    bad(word, "no such suite");
  }
}

// A suite the registry cannot take is a fault of the kernel itself: reported, and counted as
// a failure, whatever bench= says.
static int
check_registry(void)
{
  const struct benchsuite *s;
  const char *why;
  int bad = 0;

  for(s = __benchsuites_start; s < __benchsuites_end; s++) {
    if(usable(s))
      continue;
    why = bench_suite_bad(s);
    pr_err("bench: suite '%s': %s; not run\n", s->name ? s->name : "", why ? why :
           "another suite has its name");
    bad++;
  }
  return bad;
}

int
bench_run(void)
{
  const struct benchsuite *s;
  int cpus = num_online_cpus(), nsuites = 0, points = 0;
  bool quick = kcmdline.bench_quick;
  u32 runs = kcmdline.bench_runs ? kcmdline.bench_runs : quick ? QUICK_RUNS : DEFAULT_RUNS;
  u32 us = kcmdline.bench_secs_us ? kcmdline.bench_secs_us : quick ? QUICK_US : DEFAULT_US;
  u64 t0 = ktime_ns(), ms;

  failures = check_registry();
  for_each_suite(s) {
    if(selected(s)) {
      nsuites++;
      points += bench_points(s, cpus, quick);
    }
  }
  if(nsuites > 0)
    printk("bench: %d suites, %d points at %d CPUs, %u runs of %u.%02u s each and a warm-up:"
           " ~%lu s\n", nsuites, points, cpus, runs, us / 1000000, us % 1000000 / 10000,
           (plan_ms(points, runs, us) + 500) / 1000);

  for_each_suite(s)
    if(selected(s))
      run_suite(s, cpus, quick, runs, us);

  ms = (ktime_ns() - t0) / 1000000;
  printk("BENCH-DONE suites=%d secs=%lu.%03lu\n", nsuites, ms / 1000, ms % 1000);
  if(failures)
    pr_err("bench: %d failures\n", failures);
  return failures;
}
