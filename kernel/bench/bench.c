// The benchmark runner: finds the suites bench= selects in the registry (the BENCH_SUITEs of
// kernel/bench/*.c), measures their sweeps with the variants' runs interleaved (each run by
// kernel/bench/run.c's workers), and prints the BENCH-SUITE, BENCH, BENCH-SKIP, BENCH-CMP,
// BENCH-SEED, BENCH-DONE and BENCH-AA lines of doc/console.md.
#include "bench.h"
#include "cmdline.h"
#include "fault_inject.h"
#include "point_lockstat.h"
#include "printk.h"
#include "run.h"
#include "slab.h"
#include "smp.h"
#include "stats.h"
#include "string.h"
#include "time.h"
#include "vsprintf.h"

extern const struct benchsuite __benchsuites_start[], __benchsuites_end[];

// A full boot (bench=all: nine suites, 173 points at 8 CPUs) times 173 x 5.25 x 0.1 s, about
// 90 s, at these defaults, to fit `make qemu-smp8` in five minutes on a 2-core host. The
// wall clock runs about twice that: each run first waits for every worker to wake, has a
// setup and a teardown, and slow operations make runs last longer (BENCH_MIN_OPS).
#define DEFAULT_RUNS 5
#define DEFAULT_US 100000
#define QUICK_RUNS 3        // bench=quick, as doc/console.md fixes it
#define QUICK_US 200000
#define MAX_RUNS 1000       // bench.runs is at most 1000 (kernel/lib/cmdline.c)

// The point of an equivalence headline (a seed that found no difference: dbench at 8 threads,
// webserve at 8, ramfs at 1) gives the headline's two columns more rounds: HEAD_RUNS, or the
// headline's own runs. "No difference" is a claim only an interval inside 1 +- bench.margin
// confirms, and at 8 vCPUs on 2 host cores a run's rate there scatters by 1 to 30% (twenty
// A/A boots, doc/notebook/2026-12-05-aa.md): at five runs a side their intervals were +-0.07
// to +-0.55, where no boot could say `same`. The scatter is the host's, as much a second as
// in any other (dbench at 8: 10.5% a 0.1-s run, 6% a 0.4-s one), so only more time narrows
// it. An interval of half the margin or less is always decided: if it holds 1 it lies inside
// 1 +- margin. At the headline's own level (bench_level, kernel/bench/table.c) dbench needs
// about 150 runs a side for that and webserve 100; dbench's two other columns keep five there
// (doc/notebook/2026-12-06-dbench-power.md), and a comparison with one of them reads the
// first rounds, the ones every column ran (results.first).
// Not under bench=quick, bench.aa=yes or a bench.runs= of the command line: there the runs
// are what was asked for.
#define HEAD_RUNS 50

// A point's first round of runs is an untimed warm-up, each run a quarter of bench.secs:
// every run starts from its own setup, so nothing a warm-up builds carries over; it takes
// only the one-time costs of a point's first runs (fresh worker threads, code and caches
// not yet warm), and that needs no full run.
#define WARMUP_DIV 4

// Interleaving. At each thread count, the columns measured there (a suite's variants, or
// with bench.aa=yes its a variants and their copies) take turns run by run, in rounds of one
// run each, in an order drawn afresh for every round (round_order), so that neither a drift of
// the host nor what a run inherits from the run before it falls on one column more than
// another. The order was ABBA (A B C, then C B A) until A/A boots showed a carry-over
// (doc/notebook/2026-12-05-aa.md): at each turnaround the first column of a round followed
// itself, and locks' runs there were 14% slower; with A/A's layout the end slots hold an a
// and the copy of another, so a and its copy met that effect unequally. A random order makes
// whatever a run inherits noise that the intervals count: the randomization argument (R. A.
// Fisher, The Design of Experiments, 1935, ch. II). The runs of
// one round are also kept in pairs, for the comparisons' paired intervals: what slowed the
// host for a whole round slowed both sides of it, and the round's ratio cancels it
// (bench_compare_paired). Every run
// has its own setup and teardown, the workers parked, outside the interval: each run of each
// variant starts from the same state, and only one variant's state is alive at a time (a
// suite keeps one, and some fill much of the 1 GiB guest: madvise pins all but a few MiB).
// Between runs, also outside every interval, what the last one left behind is cleaned up
// (clean_between). Work a run causes but leaves for later is inside its own interval: the
// suite's settle hook runs before the clock stops, and the runner counts what is still left
// (RCU callbacks, lazily freed pages) and says so if a run left any.

// A column of the point: its timed runs' rates and what the runner noted about them.
struct column {
  bool skip;            // its setup failed twice: no more runs at this point
  u32 runs;             // its timed runs here: the point's, or the headline's for its pair
  u32 longer, capped;   // timed runs that went past bench.secs for BENCH_MIN_OPS; hit the cap
  u64 longest_ns;
  u64 rcu_left, lazy_left;   // RCU callbacks and lazily freed pages its runs left behind
  u64 enomem;                // operations its runs lost to -ENOMEM (bench_enomem)
  u64 extra_m[BENCH_MAX_EXTRAS];
  u64 ops[MAX_RUNS], ns[MAX_RUNS];   // each timed run's operations and interval
  u8 pos[MAX_RUNS];                  // its place in its round (round_order)
};

static int failures;
static struct bench_results results;
static struct column cols[BENCH_MAX_SLOTS];
static u64 scratch[MAX_RUNS], scratch_b[MAX_RUNS];   // a column's samples, while computed
static u64 suite_ns, suite_settle_ns;   // the suite's timed intervals, and their settles
static u64 suite_run_ns;                // its runs, warm-ups too, from release to parked
static struct bench_tally tally;        // the boot's verdicts, for BENCH-AA
static u32 order_seed;                  // bench.seed=, or drawn at boot (round_order)

// An operation that failed with -ENOMEM is the injection's doing only while there is one.
static void
check_run(u64 ops, u64 enomem)
{
  if(enomem && !kcmdline.failslab && !kcmdline.failpage) {
    pr_err("bench: %s: %s at %d threads: %lu operations failed with ENOMEM, no fault injection"
           " on\n", bench_point.suite->name, bench_point.variant->name, bench_point.threads,
           enomem);
    failures++;
  }
  if(bench_point.suite->verify && !bench_point.suite->verify(&bench_point, ops)) {
    pr_err("bench: %s: %s at %d threads FAILED its check after a run of %lu operations\n",
           bench_point.suite->name, bench_point.variant->name, bench_point.threads, ops);
    failures++;
  }
}

// "variant=NAME[ fanout=F]" of slot i, as BENCH and BENCH-SKIP lines name a point.
static int
point_name(char *buf, size_t size, int i)
{
  const struct bench_variant *v = &bench_point.suite->variants[results.slots[i].vi];
  int len = scnprintf(buf, size, "variant=");

  len += bench_slot_name(buf + len, size - len, bench_point.suite, results.slots[i]);
  if(v->fanout)
    len += scnprintf(buf + len, size - len, " fanout=%d", v->fanout);
  return len;
}

static void
print_point(int i, const struct stats *st, const u64 *extra_m)
{
  const struct benchsuite *s = bench_point.suite;
  char line[512], num[32];
  int len, k;

  len = scnprintf(line, sizeof(line), "BENCH suite=%s ", s->name);
  len += point_name(line + len, sizeof(line) - len, i);
  len += scnprintf(line + len, sizeof(line) - len, " threads=%d runs=%u", bench_point.threads,
                   st->n);
  bench_fmt_milli(num, sizeof(num), st->mean_m);
  len += scnprintf(line + len, sizeof(line) - len, " ops_per_sec=%s", num);
  bench_fmt_milli(num, sizeof(num), st->stddev_m);
  len += scnprintf(line + len, sizeof(line) - len, " stddev=%s", num);
  bench_fmt_milli(num, sizeof(num), st->ci95_m);
  len += scnprintf(line + len, sizeof(line) - len, " ci95=%s", num);
  for(k = 0; k < BENCH_MAX_EXTRAS && s->extras[k]; k++) {
    bench_fmt_milli(num, sizeof(num), extra_m[k]);
    len += scnprintf(line + len, sizeof(line) - len, " %s=%s", s->extras[k], num);
  }
  printk("%s\n", line);
}

// bench.rates=yes: the timed runs' own rates and lengths (µs), in the order of their rounds,
// after the BENCH line, so that what the intervals assume (runs independent, no drift, no
// order effect) can be checked against the runs themselves (tools/aa_check.py), with each
// run's place in its round (round_order). RUNS_PER_LINE runs to a line, so that a line fits a
// printk message: a point of more (HEAD_RUNS) takes several a column, each with first=, the
// number of its first run.
#define RUNS_PER_LINE 16
static void
print_rates(int i, const struct column *c)
{
  u32 runs = bench_point.runs, r, from, to;
  char line[BENCH_LINE_MAX + 1];
  int len;

  for(from = 0; from < runs; from = to) {
    to = MIN(from + RUNS_PER_LINE, runs);
    len = scnprintf(line, sizeof(line), "BENCH-RUNS suite=%s ", bench_point.suite->name);
    len += point_name(line + len, sizeof(line) - len, i);
    len += scnprintf(line + len, sizeof(line) - len, " threads=%d slot=%d of=%d",
                     bench_point.threads, i, results.nslots);
    if(runs > RUNS_PER_LINE)
      len += scnprintf(line + len, sizeof(line) - len, " first=%u", from + 1);
    len += scnprintf(line + len, sizeof(line) - len, " rates=");
    for(r = from; r < to; r++)
      len += scnprintf(line + len, sizeof(line) - len, "%s%lu", r > from ? "," : "",
                       stats_rate(c->ops[r], c->ns[r]));
    len += scnprintf(line + len, sizeof(line) - len, " us=");
    for(r = from; r < to; r++)
      len += scnprintf(line + len, sizeof(line) - len, "%s%lu", r > from ? "," : "",
                       c->ns[r] / 1000);
    len += scnprintf(line + len, sizeof(line) - len, " pos=");
    for(r = from; r < to; r++)
      len += scnprintf(line + len, sizeof(line) - len, "%s%u", r > from ? "," : "", c->pos[r]);
    printk("%s\n", line);
  }
}

// A point the runner could not measure: its BENCH-SKIP line instead of a BENCH line.
static void
print_skip(int i, const char *reason)
{
  char name[96];

  point_name(name, sizeof(name), i);
  printk("BENCH-SKIP suite=%s %s threads=%d reason=%s\n", bench_point.suite->name, name,
         bench_point.threads, reason);
}

// What the console should know about a column's runs beyond its BENCH line.
static void
print_notes(int i, u32 runs, u32 us)
{
  struct column *c = &cols[i];
  char name[64], secs[32], longest[32], cap[32];

  bench_slot_name(name, sizeof(name), bench_point.suite, results.slots[i]);
  if(c->longer) {
    bench_fmt_milli(secs, sizeof(secs), us / 1000);
    bench_fmt_milli(longest, sizeof(longest), c->longest_ns / 1000000);
    bench_fmt_milli(cap, sizeof(cap), bench_cap_ns(us) / 1000000);
    pr_info("bench: %s: %s at %d threads: %u of %u runs went on past %s s until every worker"
            " had done %d operations (longest %s s)%s%u at the cap of %s s; each run counts"
            " for its time\n", bench_point.suite->name, name, bench_point.threads, c->longer,
            runs, secs, BENCH_MIN_OPS, longest, c->capped ? "; STOPPED SHORT: " : "; ",
            c->capped, cap);
  }
  if(c->enomem)
    pr_info("bench: %s: %s at %d threads: %lu operations of its %u runs failed by fault"
            " injection (ENOMEM), undone and not counted\n", bench_point.suite->name, name,
            bench_point.threads, c->enomem, runs);
  if(c->rcu_left || c->lazy_left)
    pr_info("bench: %s: %s at %d threads: its runs left %lu RCU callbacks and %lu lazily freed"
            " pages a run for after their interval\n", bench_point.suite->name, name,
            bench_point.threads, c->rcu_left / runs, c->lazy_left / runs);
}

// Sets up slot i's variant for a run. A setup that fails is retried once, after what it left
// behind is cleaned up: under fault injection an allocation fails now and then. The retry
// runs with injection paused: the first try has taken the setup's error path, which is what
// injection is for, and a setup of thousands of allocations (pagecache's 4096 pages, dbench's
// buffers and directories) would fail again nearly always at 20 per mille, leaving no point
// measured; the timed runs that follow are under injection again.
static int
setup_slot(int i)
{
  const struct benchsuite *s = bench_point.suite;
  struct fault_rates rates;
  int err = 0, tries;
  char name[96];

  bench_point.vi = results.slots[i].vi;
  bench_point.slot = i;
  bench_point.variant = &s->variants[bench_point.vi];
  bench_point.priv = NULL;
  for(tries = 0; s->setup && tries < 2; tries++) {
    if(tries)
      fault_inject_pause(&rates);
    else
      fault_inject_save(&rates);
    err = s->setup(&bench_point);
    fault_inject_restore(&rates);
    if(err == 0)
      return 0;
    point_name(name, sizeof(name), i);
    pr_info("bench: %s: setting up %s for %d threads failed (%d)%s\n", s->name, name,
            bench_point.threads, err, tries ? "" : "; once more");
    bench_clean_between();
  }
  return err;
}

// Round r of slot i at thread index t: r = 0 is the warm-up, 1 to runs are timed, and the
// last one also gives the point's BENCH line. False if the setup failed twice: the point is
// skipped, and its earlier runs go unreported.
static bool
run_slot(int i, int t, u32 r, u32 runs, u32 us)
{
  const struct benchsuite *s = bench_point.suite;
  struct column *c = &cols[i];
  u64 t0, value_m[BENCH_MAX_EXTRAS];
  struct bench_run run;
  struct fault_rates rates;
  char name[96];
  int err, k;

  bench_point.round = r;
  bench_point.runs = runs;
  if((err = setup_slot(i)) < 0) {
    print_skip(i, bench_errno_word(err));
    return false;
  }
  t0 = ktime_ns();
  bench_lockstat_begin(i, r);
  bench_run_once(r > 0 ? us : us / WARMUP_DIV, r > 0, &run);
  bench_lockstat_end();
  suite_run_ns += ktime_ns() - t0;
  // Injection is for the setup and the timed run: the suite's check, its account and its
  // teardown are not what is measured, and a teardown has no way to fail.
  fault_inject_pause(&rates);
  bench_profile_run_end(r > 0 ? i : -1);
  check_run(run.ops, run.enomem);
  if(r > 0) {
    c->ops[r - 1] = run.ops;
    c->ns[r - 1] = run.ns;
    c->longer += run.extended;
    c->capped += run.capped;
    c->longest_ns = MAX(c->longest_ns, run.ns);
    c->rcu_left += run.rcu_left;
    c->lazy_left += run.lazy_left;
    c->enomem += run.enomem;
    suite_ns += run.ns;
    suite_settle_ns += run.settle_ns;
    if(s->extra) {
      s->extra(&bench_point, run.ops, run.ns, value_m);
      for(k = 0; k < BENCH_MAX_EXTRAS; k++)
        c->extra_m[k] += value_m[k];
    }
  }
  if(r == runs) {
    // A run that went on past bench.secs, or stopped at the cap, counts for its time: the
    // point's rate is all its runs' operations over all their time (stats_time_weighted).
    stats_time_weighted(scratch, c->ops, c->ns, runs);
    stats_compute(&results.st[i][t], scratch, runs);
    results.ran[i][t] = true;
    for(k = 0; k < BENCH_MAX_EXTRAS; k++)
      c->extra_m[k] /= runs;
    print_point(i, &results.st[i][t], c->extra_m);
    if(kcmdline.bench_rates)
      print_rates(i, c);
    print_notes(i, runs, us);
    point_name(name, sizeof(name), i);
    bench_profile_point(i, s->name, name, bench_point.threads);
    bench_lockstat_print(i, s->name, name, bench_point.threads);
    if(s->point_done)
      s->point_done(&bench_point);
  }
  if(s->teardown)
    s->teardown(&bench_point);
  bench_clean_between();
  fault_inject_restore(&rates);
  return true;
}

// The order of round r's n columns into order[]: a random permutation (Fisher and Yates's
// shuffle, Knuth TAOCP vol. 2, 3.4.2, algorithm P) from the point's own generator
// (xorshift64*, Marsaglia 2003 and Vigna 2016), seeded by the boot's order_seed, the suite
// and the thread count. order_seed is drawn at every boot and printed (bench.seed= gives it
// back, to replay a boot's orders): with one fixed seed every boot ran the same orders, and
// whatever an order carries came back boot after boot, so that ten A/A boots were not ten
// draws of it (doc/notebook/2026-12-05-aa.md: pagecache's radix-lock/128 slower than its
// copy by a fifth in two boots whose rounds had the same orders). A round of three columns
// or more never starts with the column that ended the one before (that run would follow
// itself, the carry-over ABBA suffered). Two columns are left to chance: the rule would fix
// their order for the whole point (AB AB AB), and whatever alternates from run to run (a
// setup that gets one of two layouts of pages and slab objects in turn, say) would fall on
// one column only. The webserve A/A boots of the same notebook had two columns in that fixed
// order, and a column 11% faster than its copy in all five rounds, one way in one boot and
// the other in the next.
static void
round_order(int *order, int n, int prev_last, u64 *state)
{
  int i, j, tmp;

  for(i = 0; i < n; i++)
    order[i] = i;
  for(i = n - 1; i > 0; i--) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    j = (*state * 0x2545f4914f6cdd1dULL >> 33) % (i + 1);
    tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  if(n > 2 && order[0] == prev_last) {
    order[0] = order[1];
    order[1] = prev_last;
  }
}

// One thread count: its workers, started once (and once more if that fails, with injection
// paused: at 16 workers and failslab=20 a third of the tries lose one, and the first try
// already took the error path), take every column's runs, a round at a time in an order
// drawn for the round (round_order); a column whose setup fails twice drops out of the point.
// At the headline's point (head > runs) the headline's two columns go on alone, in rounds of
// two, to head.
static void
run_point(int t, u32 runs, u32 head, u32 us)
{
  int n = results.threads[t], nslots = results.nslots, got, tries, k, i, a, b, cols_r;
  int order[BENCH_MAX_SLOTS], last = -1;
  u64 seed;
  u32 r, pairs;

  memset(cols, 0, sizeof(cols));
  for(i = 0; i < nslots; i++)
    cols[i].runs = runs;
  if(head > runs)
    cols[results.head.a].runs = cols[results.head.b].runs = head;
  bench_point.threads = n;
  for(tries = 0; (got = bench_start_workers(n, tries > 0)) < n; tries++) {
    pr_info("bench: %s: could not start worker %d of %d%s\n", bench_point.suite->name, got + 1, n,
            tries ? "" : "; once more");
    bench_stop_workers(got);
    bench_clean_between();
    if(tries == 1) {
      for(i = 0; i < nslots; i++)
        print_skip(i, "kthread");
      return;
    }
  }
  bench_wait_parked();
  bench_profile_point_begin(nslots);
  seed = 0x9e3779b97f4a7c15ULL ^ ((u64)n << 32) ^ order_seed;   // FNV-1a over the suite's name
  for(const char *p = bench_point.suite->name; *p; p++)
    seed = (seed ^ (u8)*p) * 0x100000001b3ULL;
  seed |= 1;   // xorshift never leaves 0
  for(r = 0; r <= MAX(runs, head); r++) {
    cols_r = r <= runs ? nslots : 2;
    round_order(order, cols_r, last, &seed);
    last = order[cols_r - 1];
    for(k = 0; k < cols_r; k++) {
      i = r > runs ? (order[k] ? results.head.b : results.head.a) : order[k];
      if(r > 0)
        cols[i].pos[r - 1] = k;
      if(!cols[i].skip)
        cols[i].skip = !run_slot(i, t, r, cols[i].runs, us);
    }
  }
  bench_profile_point_end();
  bench_stop_workers(n);
  // At the headline's point, every column over the rounds all of them ran.
  for(i = 0; results.head_runs && t == results.head_t && i < nslots; i++) {
    if(!results.ran[i][t])
      continue;
    stats_time_weighted(scratch, cols[i].ops, cols[i].ns, runs);
    stats_compute(&results.first[i], scratch, runs);
  }
  // Each comparison's rounds, paired: a's run r and b's run r went in the same round.
  for(k = 0; k < results.npaired; k++) {
    a = results.paired[k].a;
    b = results.paired[k].b;
    if(!results.ran[a][t] || !results.ran[b][t])
      continue;
    pairs = MIN(cols[a].runs, cols[b].runs);
    for(r = 0; r < pairs; r++) {
      scratch[r] = stats_rate(cols[a].ops[r], cols[a].ns[r]);
      scratch_b[r] = stats_rate(cols[b].ops[r], cols[b].ns[r]);
    }
    stats_pair_compute(&results.pair[k][t], scratch, scratch_b, pairs);
  }
}

// A point's timed runs in suite s: bench.runs= if given, else bench=quick's, else the suite's.
static u32
suite_runs(const struct benchsuite *s, bool quick)
{
  if(kcmdline.bench_runs)
    return kcmdline.bench_runs;
  if(quick)
    return QUICK_RUNS;
  return s->runs ? s->runs : DEFAULT_RUNS;
}

// Milliseconds a plan takes: points of a warm-up and runs timed runs.
static u64
plan_ms(int points, u32 runs, u32 us)
{
  return (u64)points * (runs * us + us / WARMUP_DIV) / 1000;
}

// The timed runs of suite s's headline pair at its point, if its headline is a claim of
// equivalence that takes more than the suite's runs here; else 0.
static u32
head_runs(const struct benchsuite *s, bool quick, bool aa, u32 runs)
{
  u32 head = s->headline.runs ? s->headline.runs : HEAD_RUNS;

  if(!s->headline.a || s->headline.seed_verdict != STATS_SAME || quick || aa ||
     kcmdline.bench_runs || head <= runs)
    return 0;
  return head;
}

// What the headline's extra rounds add to suite s's plan: two columns' extra runs.
static u64
head_ms(const struct benchsuite *s, bool quick, bool aa, u32 runs, u32 us)
{
  u32 head = head_runs(s, quick, aa, runs);

  return head ? 2ULL * (head - runs) * us / 1000 : 0;
}

static void
run_suite(const struct benchsuite *s, int cpus, bool quick, bool aa, u32 runs, u32 us)
{
  int points = bench_points(s, cpus, quick, aa), t;
  char line[BENCH_LINE_MAX + 1], share[32], all[32], ran[32], timed[32];
  u64 t0 = ktime_ns();
  u32 head = head_runs(s, quick, aa, runs);
  int ht = -1;

  memset(&results, 0, sizeof(results));
  results.aa = aa;
  results.margin_m = kcmdline.bench_margin * 10;
  results.nthreads = bench_sweep(s->sweep, cpus, quick, results.threads);
  results.nslots = bench_plan(s, quick, aa, results.slots);
  results.npaired = bench_cmps(s, &results, results.paired);
  bench_suite_line(line, sizeof(line), s, cpus, quick, aa);
  printk("%s\n", line);
  printk("bench: %s: %d points x %u runs x %u.%02u s and a warm-up = ~%lu s\n", s->name, points,
         runs, us / 1000000, us % 1000000 / 10000,
         (plan_ms(points, runs, us) + head_ms(s, quick, aa, runs, us) + 500) / 1000);
  if(head && (ht = bench_headline_point(s, &results, cpus, &results.head)) >= 0) {
    results.head_t = ht;
    results.head_runs = head;
    printk("bench: %s: its headline, %s against %s at %d threads, a claim of no difference:"
           " those two take %u runs there, its interval at 1 - 0.05/2 (doc/benchmarks.md)\n",
           s->name, s->headline.a, s->headline.b, results.threads[ht], head);
  }

  memset(&bench_point, 0, sizeof(bench_point));
  bench_point.suite = s;
  bench_point.max_threads = results.threads[results.nthreads - 1];
  suite_ns = suite_settle_ns = suite_run_ns = 0;
  for(t = 0; t < results.nthreads; t++)
    run_point(t, runs, t == ht ? head : 0, us);
  // Where the suite's time went: the budget of a boot (doc/benchmarks.md) is mostly these.
  bench_fmt_milli(all, sizeof(all), (ktime_ns() - t0) / 1000000);
  bench_fmt_milli(ran, sizeof(ran), suite_run_ns / 1000000);
  bench_fmt_milli(timed, sizeof(timed), suite_ns / 1000000);
  pr_info("bench: %s: %s s, %s s of it in runs (%s s timed), the rest in setups, teardowns"
          " and cleaning up between runs\n", s->name, all, ran, timed);
  if(s->settle && suite_ns) {
    bench_fmt_milli(share, sizeof(share), suite_settle_ns * 100000 / suite_ns);
    pr_info("bench: %s: its settle took %s%% of the timed intervals\n", s->name, share);
  }
  bench_report(s, &results, cpus, &tally);
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
    return !s->named_only;
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
  bool quick = kcmdline.bench_quick, aa = kcmdline.bench_aa;
  u32 us = kcmdline.bench_secs_us ? kcmdline.bench_secs_us : quick ? QUICK_US : DEFAULT_US;
  u64 t0 = ktime_ns(), ms, plan = 0;

  failures = check_registry();
  // The low bits of the clock at this point of the boot: they differ from boot to boot, and
  // nothing needs more than a different draw.
  order_seed = kcmdline.bench_seed ? kcmdline.bench_seed : (u32)(ktime_ns() * 0x9e3779b1ULL >> 7);
  order_seed += !order_seed;
  for_each_suite(s) {
    if(selected(s)) {
      nsuites++;
      points += bench_points(s, cpus, quick, aa);
      plan += plan_ms(bench_points(s, cpus, quick, aa), suite_runs(s, quick), us) +
              head_ms(s, quick, aa, suite_runs(s, quick), us);
    }
  }
  if(nsuites > 0) {
    printk("bench: %d suites, %d points at %d CPUs, runs of %u.%02u s and a warm-up: ~%lu s\n",
           nsuites, points, cpus, us / 1000000, us % 1000000 / 10000, (plan + 500) / 1000);
    printk("bench: each round in a random order, from bench.seed=%u (%s)\n", order_seed,
           kcmdline.bench_seed ? "the command line's" : "drawn at boot; give it to replay them");
  }

  for_each_suite(s)
    if(selected(s))
      run_suite(s, cpus, quick, aa, suite_runs(s, quick), us);

  ms = (ktime_ns() - t0) / 1000000;
  printk("BENCH-DONE suites=%d secs=%lu.%03lu\n", nsuites, ms / 1000, ms % 1000);
  // The A/A calibration: every faster or slower is a false verdict (inconclusive is none, only
  // a lack of power); false_families is what the Bonferroni level of each suite promises to
  // keep at 5% of the families.
  if(aa)
    printk("BENCH-AA suites=%d comparisons=%u false=%u inconclusive=%u families=%u"
           " false_families=%u\n", nsuites, tally.cmps, tally.decided, tally.inconclusive,
           tally.families, tally.false_families);
  if(failures)
    pr_err("bench: %d failures\n", failures);
  return failures;
}
