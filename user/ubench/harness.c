// ubench's runner: one pinned thread per worker, a barrier start, a warm-up and timed runs
// with the variants interleaved, and the BENCH-SUITE, BENCH and BENCH-SKIP lines.
// It follows kernel/bench/bench.c, the boot benchmarks' runner, rule for rule (see there for
// the reasons), with the kernel's own statistics (kernel/lib/stats.c, compiled in).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"
#include "ubench.h"

#define WARMUP_DIV 4              // the warm-up run is a quarter of a timed one
#define MIN_OPS 20                // and a run lasts until every worker has done this many
#define CAP_NS 1000000000ULL      // but stops at this, or at twice --secs if that is longer
#define POLL_NS 1000000ULL        // how often the timer looks again past the deadline
#define MAX_RUNS 1000

static int cpu_ids[CPU_SETSIZE];  // the CPUs the process may run on, in order
static int ncpus;

// The running point. Workers park between runs on cond `wake`; the last to park signals
// `parked_cv`. A run's clock starts when the last worker is awake (start_together) and
// stops when the last has returned (finish_together): two clock readings a run.
static struct ub_ctx ctx;
static struct ub_worker *workers;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;       // workers: a new generation
static pthread_cond_t parked_cv = PTHREAD_COND_INITIALIZER;  // timer: all parked
static pthread_cond_t going_cv = PTHREAD_COND_INITIALIZER;   // timer: the clock started
static int generation;   // under lock: bumped to release a run
static int parked;       // under lock: workers waiting for the next generation
static bool quit;        // under lock: the point is over, workers return
static int going;        // the generation whose clock has started: under lock when written
static int started, finished;   // workers awake in this run, and returned from it (atomics)
static u64 start_ns, stop_ns;
static int pin_err;      // the first sched_setaffinity error of the point's workers

// One column of the point: a variant's timed rates.
struct column {
  bool skip;
  u64 ops, ns;           // of the timed runs, summed: the point's human line
  unsigned capped;       // timed runs stopped at the cap before every worker had MIN_OPS
  u64 run_ops[MAX_RUNS], run_ns[MAX_RUNS];   // each timed run's, for the time-weighted rate
  u64 faults_m;          // faults per operation, summed over the timed runs (milli)
};
static struct column cols[UB_MAX_VARIANTS];

static u64
now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
sleep_until(u64 ns)
{
  struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

  while(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

// The CPUs of the process's affinity mask when it started: workers are pinned to them in
// turn, one to a CPU up to their number, then sharing (thread i on the (i mod n)-th).
int
ub_cpus(void)
{
  cpu_set_t set;

  if(ncpus)
    return ncpus;
  CPU_ZERO(&set);
  if(sched_getaffinity(0, sizeof(set), &set) < 0) {
    perror("ubench: sched_getaffinity");
    exit(1);
  }
  for(int i = 0; i < CPU_SETSIZE; i++)
    if(CPU_ISSET(i, &set))
      cpu_ids[ncpus++] = i;
  return ncpus;
}

// snprintf of a path, or -ENAMETOOLONG if it does not fit.
int
ub_path(char *buf, unsigned size, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n < 0 || (unsigned)n >= size ? -ENAMETOOLONG : 0;
}

// The lower-case name of an errno for BENCH-SKIP's reason word: "enodev".
static const char *
errno_word(int err, char *buf, size_t size)
{
  const char *name = strerrorname_np(err);
  size_t i;

  if(!name) {
    snprintf(buf, size, "errno%d", err);
    return buf;
  }
  for(i = 0; name[i] && i + 1 < size; i++)
    buf[i] = name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i];
  buf[i] = 0;
  return buf;
}

static void
start_together(int gen)
{
  if(__atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL) == ctx.threads) {
    start_ns = now_ns();
    pthread_mutex_lock(&lock);
    __atomic_store_n(&going, gen, __ATOMIC_RELEASE);
    pthread_cond_signal(&going_cv);
    pthread_mutex_unlock(&lock);
    return;
  }
  // The earlier ones give their CPU to peers that still have to wake (threads beyond the
  // CPU count share one), without sleeping: a second wake-up would delay the start again.
  while(__atomic_load_n(&going, __ATOMIC_ACQUIRE) != gen)
    sched_yield();
}

static void
finish_together(void)
{
  if(__atomic_add_fetch(&finished, 1, __ATOMIC_ACQ_REL) == ctx.threads)
    stop_ns = now_ns();
}

static void *
worker_main(void *arg)
{
  struct ub_worker *w = arg;
  cpu_set_t set;
  int gen = 0;

  CPU_ZERO(&set);
  CPU_SET(cpu_ids[w->index % ncpus], &set);
  if(sched_setaffinity(0, sizeof(set), &set) < 0)
    __atomic_compare_exchange_n(&pin_err, &(int){ 0 }, errno, false, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
  for(;;) {
    pthread_mutex_lock(&lock);
    if(++parked == ctx.threads)
      pthread_cond_signal(&parked_cv);
    while(generation == gen && !quit)
      pthread_cond_wait(&wake, &lock);
    gen = generation;
    bool done = quit;
    pthread_mutex_unlock(&lock);
    if(done)
      return NULL;
    start_together(gen);
    if(!w->err)
      ctx.suite->worker(&ctx, w);
    finish_together();
  }
}

static void
wait_parked(void)
{
  pthread_mutex_lock(&lock);
  while(parked < ctx.threads)
    pthread_cond_wait(&parked_cv, &lock);
  pthread_mutex_unlock(&lock);
}

// Whether the run may stop: every worker has done MIN_OPS operations, or one has failed.
static bool
enough(void)
{
  for(int i = 0; i < ctx.threads; i++)
    if(__atomic_load_n(&workers[i].ops, __ATOMIC_RELAXED) < MIN_OPS && !workers[i].err)
      return false;
  return true;
}

// One run of run_ns: the operations of every worker, and in *ns the interval they lie in.
static u64
run_once(u64 run_ns, u64 *ns, bool *capped)
{
  u64 ops = 0, cap;

  started = finished = 0;
  ctx.stop = 0;
  for(int i = 0; i < ctx.threads; i++)
    workers[i].ops = 0;
  pthread_mutex_lock(&lock);
  parked = 0;
  generation++;
  pthread_cond_broadcast(&wake);
  while(__atomic_load_n(&going, __ATOMIC_ACQUIRE) != generation)
    pthread_cond_wait(&going_cv, &lock);
  pthread_mutex_unlock(&lock);
  cap = start_ns + (2 * run_ns > CAP_NS ? 2 * run_ns : CAP_NS);
  sleep_until(start_ns + run_ns);
  // As the kernel's runner: a run lasts --secs and until every worker has done MIN_OPS,
  // so that a slow operation's tail is a small part of the interval; at most until cap.
  for(;;) {
    *capped = !enough();
    if(!*capped || now_ns() >= cap)
      break;
    sleep_until(now_ns() + POLL_NS);
  }
  __atomic_store_n(&ctx.stop, 1, __ATOMIC_RELEASE);
  wait_parked();
  for(int i = 0; i < ctx.threads; i++)
    ops += workers[i].ops;
  *ns = stop_ns - start_ns;
  return ops;
}

static u64
minor_faults(void)
{
  struct rusage ru;

  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static void
fmt_milli(char *buf, size_t size, u64 m)
{
  snprintf(buf, size, "%lu.%03lu", (unsigned long)(m / 1000), (unsigned long)(m % 1000));
}

static void
print_skip(int vi, const char *what, int err)
{
  char word[32];

  printf("ubench: %s: %s at %d thread%s: %s: %s\n", ctx.suite->name, ctx.suite->variants[vi],
         ctx.threads, ctx.threads == 1 ? "" : "s", what, strerror(err));
  printf("BENCH-SKIP suite=%s variant=%s threads=%d reason=%s\n", ctx.suite->name,
         ctx.suite->variants[vi], ctx.threads, errno_word(err, word, sizeof(word)));
  cols[vi].skip = true;
}

static void
print_point(int vi, unsigned runs)
{
  static u64 y[MAX_RUNS];
  struct stats st;
  char mean[32], sd[32], ci[32], extra[64] = "";

  // Runs differ in length (past --secs until every worker has MIN_OPS, up to the cap): each
  // counts for its time, as in the kernel's runner (stats_time_weighted, kernel/lib/stats.c).
  stats_time_weighted(y, cols[vi].run_ops, cols[vi].run_ns, runs);
  stats_compute(&st, y, runs);
  fmt_milli(mean, sizeof(mean), st.mean_m);
  fmt_milli(sd, sizeof(sd), st.stddev_m);
  fmt_milli(ci, sizeof(ci), st.ci95_m);
  if(ctx.suite->faults) {
    char f[32];
    fmt_milli(f, sizeof(f), cols[vi].faults_m / runs);
    snprintf(extra, sizeof(extra), " faults_per_op=%s", f);
  }
  printf("BENCH suite=%s variant=%s threads=%d runs=%u ops_per_sec=%s stddev=%s ci95=%s%s\n",
         ctx.suite->name, ctx.suite->variants[vi], ctx.threads, runs, mean, sd, ci, extra);
  fmt_milli(mean, sizeof(mean), cols[vi].ns / 1000000);
  printf("ubench: %s: %s at %d thread%s: %lu operations in %u timed runs, %s s in all\n",
         ctx.suite->name, ctx.suite->variants[vi], ctx.threads, ctx.threads == 1 ? "" : "s",
         (unsigned long)cols[vi].ops, runs, mean);
  // The kernel's runner says the same (kernel/bench/bench.c, print_notes).
  if(cols[vi].capped)
    printf("ubench: %s: %s at %d thread%s: STOPPED SHORT: %u of %u runs stopped at the cap"
           " before every worker had done %d operations\n", ctx.suite->name,
           ctx.suite->variants[vi], ctx.threads, ctx.threads == 1 ? "" : "s", cols[vi].capped,
           runs, MIN_OPS);
}

// Round r of variant vi: r = 0 is the warm-up, 1..runs are timed, the last prints the
// point. Returns the checks that failed.
static int
run_slot(int vi, unsigned r, const struct ub_opts *o)
{
  u64 ops, ns, faults, bad = 0;
  int err, failed;
  bool capped;

  ctx.vi = vi;
  ctx.round = r;
  for(int i = 0; i < ctx.threads; i++) {
    workers[i].err = 0;
    workers[i].bad = 0;
  }
  if(ctx.suite->setup && (err = ctx.suite->setup(&ctx)) < 0) {
    print_skip(vi, "setup", -err);
    return 0;
  }
  faults = minor_faults();
  ops = run_once(r > 0 ? o->run_ns : o->run_ns / WARMUP_DIV, &ns, &capped);
  faults = minor_faults() - faults;
  failed = ctx.suite->teardown ? ctx.suite->teardown(&ctx) : 0;
  for(int i = 0; i < ctx.threads; i++) {
    bad += workers[i].bad;
    if(workers[i].err && !cols[vi].skip)
      print_skip(vi, workers[i].what, workers[i].err);
  }
  if(bad) {
    printf("ubench: %s: %s at %d thread%s: %lu of %lu operations gave a wrong result\n",
           ctx.suite->name, ctx.suite->variants[vi], ctx.threads, ctx.threads == 1 ? "" : "s", (unsigned long)bad,
           (unsigned long)ops);
    failed++;
  }
  if(failed)
    printf("ubench: %s: %s at %d thread%s FAILED its check\n", ctx.suite->name,
           ctx.suite->variants[vi], ctx.threads, ctx.threads == 1 ? "" : "s");
  if(cols[vi].skip || r == 0)
    return failed;
  cols[vi].run_ops[r - 1] = ops;
  cols[vi].run_ns[r - 1] = ns;
  cols[vi].ops += ops;
  cols[vi].ns += ns;
  cols[vi].capped += capped;
  cols[vi].faults_m += ops ? faults * 1000 / ops : 0;
  if(r == o->runs)
    print_point(vi, o->runs);
  return failed;
}

static int
nvariants(const struct ub_suite *s)
{
  int n = 0;

  while(n < UB_MAX_VARIANTS && s->variants[n])
    n++;
  return n;
}

// One thread count: its workers, started once, take every variant's runs in ABBA order (the
// warm-ups C B A, the first timed runs A B C, the next C B A, ...), so that a drift of the
// machine falls on every variant alike.
static int
run_point(int threads, const struct ub_opts *o)
{
  int nv = nvariants(ctx.suite), failed = 0, got, err = 0;
  pthread_t *tid = calloc(threads, sizeof(*tid));

  workers = aligned_alloc(64, threads * sizeof(*workers));
  if(!tid || !workers) {
    fprintf(stderr, "ubench: out of memory\n");
    exit(1);
  }
  memset(workers, 0, threads * sizeof(*workers));
  ctx.workers = workers;
  memset(cols, 0, sizeof(cols));
  ctx.threads = threads;
  parked = 0;
  quit = false;
  generation = going = 0;
  pin_err = 0;
  for(got = 0; got < threads; got++) {
    workers[got].index = got;
    if((err = pthread_create(&tid[got], NULL, worker_main, &workers[got])) != 0)
      break;
  }
  if(got == threads) {
    wait_parked();
    err = pin_err;
  }
  if(err) {
    for(int k = 0; k < nv; k++)
      print_skip(k, got < threads ? "pthread_create" : "sched_setaffinity", err);
  }
  for(unsigned r = 0; !err && r <= o->runs; r++)
    for(int k = 0; k < nv; k++) {
      int vi = r % 2 ? k : nv - 1 - k;
      if(!cols[vi].skip)
        failed += run_slot(vi, r, o);
    }
  pthread_mutex_lock(&lock);
  quit = true;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  for(int i = 0; i < got; i++)
    pthread_join(tid[i], NULL);
  free(tid);
  free(workers);
  workers = NULL;
  return failed;
}

// The suite's thread counts: --threads, or its sweep at the process's CPUs.
static int
sweep(const struct ub_suite *s, const struct ub_opts *o, int *t)
{
  int n = 0, cpus = ub_cpus();

  if(o->nthreads) {
    memcpy(t, o->threads, o->nthreads * sizeof(*t));
    n = o->nthreads;
    if(o->twice_cpus && s->sweep == UB_SWEEP_UP2X && 2 * cpus > t[n - 1] && n < UB_MAX_SWEEP)
      t[n++] = 2 * cpus;
    return n;
  }
  for(int k = 1; k < cpus; k *= 2)
    t[n++] = k;
  t[n++] = cpus;
  if(s->sweep == UB_SWEEP_UP2X)
    t[n++] = 2 * cpus;
  return n;
}

// Runs every point of suite s in its directory <o->dir>/<name>; returns the checks that
// failed (a point that cannot run is a BENCH-SKIP, not a failure).
int
ub_run_suite(const struct ub_suite *s, const struct ub_opts *o)
{
  int t[UB_MAX_SWEEP], n = sweep(s, o, t), failed = 0, err, len;
  char dir[512], line[512];

  memset(&ctx, 0, sizeof(ctx));
  ctx.suite = s;
  ctx.dir = dir;
  ctx.max_threads = 0;
  for(int i = 0; i < n; i++)
    ctx.max_threads = t[i] > ctx.max_threads ? t[i] : ctx.max_threads;
  len = snprintf(line, sizeof(line), "BENCH-SUITE suite=%s sweep=%s threads=", s->name,
                 o->nthreads ? "list" : s->sweep == UB_SWEEP_UP2X ? "up2x" : "up");
  for(int i = 0; i < n; i++)
    len += snprintf(line + len, sizeof(line) - len, "%s%d", i ? "," : "", t[i]);
  len += snprintf(line + len, sizeof(line) - len, " variants=");
  for(int i = 0; i < nvariants(s); i++)
    len += snprintf(line + len, sizeof(line) - len, "%s%s", i ? "," : "", s->variants[i]);
  printf("%s%s op=%s seed=%s\n", line, s->faults ? " extras=faults_per_op" : "", s->op, s->seed);

  if(ub_path(dir, sizeof(dir), "%s/%s", o->dir, s->name) < 0 || mkdir(dir, 0755) < 0) {
    err = errno;
    printf("ubench: %s: cannot make its directory %s/%s: %s\n", s->name, o->dir, s->name,
           strerror(err));
    return 1;
  }
  err = s->init ? s->init(&ctx) : 0;
  for(int i = 0; i < n; i++) {
    ctx.threads = t[i];
    if(err < 0) {
      for(int k = 0; k < nvariants(s); k++)
        print_skip(k, "init", -err);
      continue;
    }
    failed += run_point(t[i], o);
  }
  if(s->fini)
    s->fini(&ctx);
  if(rmdir(dir) < 0) {
    printf("ubench: %s: its directory %s is not empty after the suite: %s\n", s->name, dir,
           strerror(errno));
    failed++;
  }
  return failed;
}
