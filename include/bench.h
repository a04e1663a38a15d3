// The benchmark harness: suites register with BENCH_SUITE; kernel/bench/bench.c runs their
// thread sweeps and prints the BENCH-SUITE, BENCH, BENCH-SKIP, BENCH-CMP, BENCH-SEED,
// BENCH-DONE and BENCH-AA lines (doc/console.md).
#pragma once
#include "compiler.h"
#include "stats.h"
#include "types.h"

enum bench_sweep {
  SWEEP_UP,      // powers of two below cpus, then cpus
  SWEEP_OVER,    // up, then ceil(1.5 cpus), 2 cpus, ceil(2.5 cpus)
  SWEEP_FIXED,   // 1 2 4 8 16 whatever the CPU count
};

#define BENCH_MAX_VARIANTS 12
#define BENCH_MAX_PAIRS 8
#define BENCH_MAX_EXTRAS 4
#define BENCH_MAX_SWEEP 16     // thread counts in one sweep (12 at 255 CPUs)
#define BENCH_QUICK_FANOUT 64  // bench=quick keeps only this fanout
#define BENCH_LINE_MAX 510     // a machine line's bytes: with its newline, one printk message
// Columns of one suite in one boot: its variants, or with bench.aa=yes the a of each pair
// and a second copy of it.
#define BENCH_MAX_SLOTS (BENCH_MAX_VARIANTS + BENCH_MAX_PAIRS)
#define BENCH_AA_SUFFIX "~aa"  // the A/A copy of variant v is reported as variant=v~aa

struct bench_variant {
  const char *name;
  int fanout;   // 0: the variant has none
  bool quick;   // kept by bench=quick whatever its fanout
};

// A BENCH-CMP line per thread count: variant a against variant b (fanout 0: none).
struct bench_pair {
  const char *a;
  int fanout_a;
  const char *b;
  int fanout_b;
};

// Which thread count a headline is about, at cpus online CPUs: the largest of the suite's
// sweep that is at most 1, cpus or 2 cpus.
enum bench_head_threads {
  HEAD_ONE = 1,
  HEAD_CPUS,
  HEAD_TWICE_CPUS,
};

// The comparison a seed thread's own table is remembered for (doc/seeds.md), with what the
// seed found: BENCH-SEED puts this boot's BENCH-CMP line for it beside that. It must be one
// of the suite's pairs, a, fanout_a, b and fanout_b alike. a NULL: the suite has none.
struct bench_headline {
  const char *a;
  int fanout_a;
  const char *b;
  int fanout_b;
  int threads;        // enum bench_head_threads
  u32 seed_ratio_m;   // the seed's a/b, milli
  int seed_verdict;   // STATS_FASTER, STATS_SAME or STATS_SLOWER, as the seed concluded
  const char *cite;   // where doc/seeds.md has the numbers
  // A claim of no difference (seed_verdict STATS_SAME): the timed runs a and b take at its
  // point, the other columns there keeping the suite's (0: HEAD_RUNS, kernel/bench/bench.c).
  u32 runs;
};

struct benchsuite;
struct ramfs_opts;

// What a worker sees. The harness owns everything but priv.
struct bench_ctx {
  const struct benchsuite *suite;
  const struct bench_variant *variant;
  int vi;            // index of variant in suite->variants
  int slot;          // the point's column (< BENCH_MAX_SLOTS): with bench.aa=yes a variant has
                     // two, so state a suite keeps between runs is per slot, not per variant
  int threads;       // workers in the running point
  int max_threads;   // the most workers any point of this variant runs (for setup)
  u32 round;         // of the point's runs of this variant: 0 the warm-up, 1.. the timed ones
  u32 runs;          // the running column's timed runs here: round == runs is its last
  bool stop;         // set when the run is over: workers return (bench_stopped)
  u64 start_ns;      // ktime_ns when the last worker woke: the timed interval begins
  u64 deadline;      // ktime_ns at which the run's time is up (it may go on: bench_yield)
  u64 cap;           // ktime_ns at which the run ends whatever the workers have done
  u64 stop_ns;       // ktime_ns when the last worker returned and settle was done: the end
  void *priv;        // the suite's own state, from setup
};

// A file-system suite (kernel/bench/fs.c): each variant's points run on a fresh ramfs mounted
// on mnt, which the suite fills in (build) and empties (clean); fs.c mounts, unmounts, keeps
// the workers' state, reports a failed setup and stops the kernel on a teardown that cannot
// empty the filesystem.
struct bench_fs {
  const char *mnt;      // a directory of the root, made and removed with the mount; NULL: none
  // Bytes of each worker's state: ctx->priv holds max_threads of them, zeroed (0: NULL).
  size_t thread_size;
  // The mount's options for the variant about to run (ctx->vi, ctx->variant).
  void (*opts)(const struct bench_ctx *ctx, struct ramfs_opts *o);
  // Fills the fresh mount for ctx->max_threads workers; 0 or a negative errno, after which
  // clean still runs and must undo whatever build did.
  int (*build)(struct bench_ctx *ctx);
  // Removes what build made, also after a build cut short or never run (ctx->priv NULL), and
  // frees what build allocated; returns the first error worth reporting (bench_fs_note).
  int (*clean)(struct bench_ctx *ctx);
};

// The registry: every BENCH_SUITE in the kernel is a suite, and the only list of them; bench=
// names them, the BENCH-SUITE line tells the host tools about them (bench_suite_line).
struct benchsuite {
  const char *name;      // as in bench=: [a-z0-9-]+, shorter than BENCH_NAME_MAX (cmdline.h)
  // Where it runs among the suites: lowest first, a tie broken by name. Link order would
  // follow the file names, and the Makefile's wildcard sorts those only in some versions of
  // make; an explicit number keeps the order the suites have always run in (cheap lock and
  // radix-tree baselines first, madvise last), doc/benchmarks.md's table's, on any build. Steps of 10
  // leave room for a new suite between two.
  int order;
  // Run only when bench= names it, never by bench=all or bench=quick: a suite of this
  // project's own questions, kept out of the default boot's five minutes.
  bool named_only;
  const char *seed;      // the experiment it re-runs (doc/seeds.md), one line without '='
  const char *op;        // one operation, as doc/console.md counts it; one line without '='
  int sweep;             // enum bench_sweep
  struct bench_variant variants[BENCH_MAX_VARIANTS];   // up to the first without a name
  struct bench_pair pairs[BENCH_MAX_PAIRS];   // likewise; the first is the table's ratio column
  const char *extras[BENCH_MAX_EXTRAS];   // doc/console.md names of extra values, NULL-terminated
  struct bench_headline headline;   // the seed's own comparison (seed suites only)
  // Timed runs of each point when neither bench.runs= nor bench=quick says (0: the harness's
  // default, 5; kernel/bench/bench.c). A suite asks for more where five do not hold its
  // verdicts from boot to boot, and says why: the interval's t quantile, at the Bonferroni
  // level of a suite's comparisons, is 5.5 for the 8 degrees of freedom five runs a side give
  // and 3.8 for the 18 of ten (stats_tq), so ten runs narrow it by more than half.
  u32 runs;

  // Every variant measured at a thread count runs one run at a time, in turn, in rounds of a
  // random order (kernel/bench/bench.c), and every run starts from its own setup: so before and
  // after every run, warm-up included, with the workers parked and outside the timed
  // interval; setup returns 0 or a negative errno, after which it has undone itself and
  // teardown is not called.
  int (*setup)(struct bench_ctx *ctx);
  void (*teardown)(struct bench_ctx *ctx);
  // Run by every worker thread: loops `while(!bench_stopped(ctx))`, one operation (or one
  // script of them) an iteration, calling bench_yield(ctx) outside any lock every few
  // microseconds, and returns how many operations it did.
  u64 (*worker)(struct bench_ctx *ctx, int thread_index);
  // By the last worker to return, before the clock stops (optional): finishes the work the
  // run's operations handed to later (RCU callbacks, reclaim of lazily freed pages), so that
  // a variant's interval holds all it costs (bench_settle_rcu, bench_settle_lazyfree). A
  // suite without one must leave none: the harness counts the RCU callbacks and lazily freed
  // pages each timed run leaves behind and says so on the console if there are any.
  void (*settle)(struct bench_ctx *ctx);
  // After every run with all workers parked (optional): checks the run's total operations
  // against the suite's own state; false is a failure of the benchmarked code.
  bool (*verify)(struct bench_ctx *ctx, u64 ops);
  // After every measured run (optional): the run's extras in milli-units, in the order of
  // extras[], from its operations and length; the BENCH line has their mean over the runs.
  void (*extra)(struct bench_ctx *ctx, u64 ops, u64 ns, u64 *value_m);
  // After a point's BENCH line (optional), in its last run before the teardown: the suite's
  // own account of the point, for people.
  void (*point_done)(struct bench_ctx *ctx);
  // A file-system suite's ramfs (mnt NULL: none), which setup = bench_fs_setup and
  // teardown = bench_fs_teardown (or a teardown that ends by calling it) take care of.
  struct bench_fs fs;
};

#define BENCH_SUITE(var)                                                      \
  static const struct benchsuite var __used __section(".benchsuites") __aligned(8)

// Whether the run is over; called once before each operation, it also counts them for the
// harness (a run lasts until every worker has done BENCH_MIN_OPS: kernel/bench/bench.c).
bool bench_stopped(const struct bench_ctx *ctx);

// A worker's cond_resched, which also ends the run once its time is up.
void bench_yield(struct bench_ctx *ctx);

// The worker's operation failed with -ENOMEM and it has undone what the operation did: it
// does not count the operation, and the harness counts it instead. Under fault injection
// (failslab=, failpage=) that is the injection's doing, shown on the console beside the
// point and no failure; without it, it is a failure of the run.
void bench_enomem(struct bench_ctx *ctx);

// Settle hooks. bench_settle_rcu: every RCU callback queued so far has run (rcu_barrier).
// bench_settle_lazyfree: every lazily freed page (MADV_FREE) that reclaim would take has
// been reclaimed.
void bench_settle_rcu(struct bench_ctx *ctx);
void bench_settle_lazyfree(struct bench_ctx *ctx);

// A file-system suite's setup and teardown (kernel/bench/fs.c), for its .fs.
int bench_fs_setup(struct bench_ctx *ctx);
void bench_fs_teardown(struct bench_ctx *ctx);
// Keeps e in *err if it is the first error and not -ENOENT: a clean that undoes a build cut
// short finds some of the files and directories already gone.
void bench_fs_note(int *err, int e);

// Reports through bad(word, why), as the command line's bad words are reported, every name in
// bench= that no suite has (kernel/main.c calls it once the command line is parsed).
void bench_check_cmdline(void (*bad)(const char *word, const char *why));

// Runs every suite bench= selects, in registry order, then prints BENCH-DONE (always, also
// with bench=none) and with bench.aa=yes BENCH-AA. Returns the number of failures: suites
// the registry cannot take, verify. A point whose setup fails twice is skipped (BENCH-SKIP),
// which is no failure.
int bench_run(void);

// A column of a suite in one boot: variant vi, or its A/A copy.
struct bench_slot {
  int vi;
  bool aa;
};

// A comparison: the slots of its a and b.
struct bench_cmp {
  int a, b;
};

// One suite's measured points, kept for its comparisons and its table.
struct bench_results {
  int nthreads;
  int threads[BENCH_MAX_SWEEP];
  bool aa;                                      // bench.aa=yes: its columns are bench_plan's
  int nslots;
  struct bench_slot slots[BENCH_MAX_SLOTS];
  bool ran[BENCH_MAX_SLOTS][BENCH_MAX_SWEEP];   // measured; false: not, or skipped
  struct stats st[BENCH_MAX_SLOTS][BENCH_MAX_SWEEP];
  // The comparisons' rounds, paired (stats_pair): bench_cmps's in its order, each point's
  // kept when both sides were measured (n 0: not, or a zero rate).
  int npaired;
  struct bench_cmp paired[BENCH_MAX_PAIRS];
  struct stats_pair pair[BENCH_MAX_PAIRS][BENCH_MAX_SWEEP];
  u32 margin_m;                                 // bench.margin= in milli: "same" within it
  // An equivalence headline's pair ran head_runs rounds (0: no such point) at thread index
  // head_t, more than the other columns there: its comparison (head), and there each column
  // over the rounds every column ran (first), for the comparisons other than head.
  u32 head_runs;
  int head_t;
  struct bench_cmp head;
  struct stats first[BENCH_MAX_SLOTS];
};

// What a boot's verdicts came to, for BENCH-AA: comparisons, those not same and not
// inconclusive (in an A/A boot every one is false), and the families (a suite's comparisons
// in a boot, the set its Bonferroni level holds together) with at least one false verdict.
struct bench_tally {
  u32 cmps, decided, inconclusive;
  u32 families, false_families;
};

// Plans, comparisons and human tables (kernel/bench/table.c).
const char *bench_suite_bad(const struct benchsuite *s);
int bench_suite_line(char *buf, size_t size, const struct benchsuite *s, int cpus, bool quick,
                     bool aa);
int bench_nvariants(const struct benchsuite *s);
int bench_find_variant(const struct benchsuite *s, const char *name, int fanout);
int bench_sweep(int sweep, int cpus, bool quick, int *threads);
bool bench_variant_runs(const struct bench_variant *v, bool quick);
int bench_plan(const struct benchsuite *s, bool quick, bool aa, struct bench_slot *slots);
int bench_points(const struct benchsuite *s, int cpus, bool quick, bool aa);
int bench_slot_name(char *buf, size_t size, const struct benchsuite *s, struct bench_slot slot);
int bench_cmps(const struct benchsuite *s, const struct bench_results *r,
               struct bench_cmp *cmps);
u32 bench_count_cmps(const struct bench_results *r, const struct bench_cmp *cmps, int n);
u32 bench_level(const struct bench_results *r, struct bench_cmp c, int t, u32 m);
int bench_compare(struct ratio *q, const struct bench_results *r, struct bench_cmp c, int t,
                  u32 m);
int bench_compare_paired(struct ratio *q, const struct bench_results *r, struct bench_cmp c,
                         int t, u32 m);
int bench_cmp_line(char *buf, size_t size, const struct benchsuite *s,
                   const struct bench_results *r, struct bench_cmp c, int t,
                   const struct ratio *q, const struct ratio *p);
int bench_headline_point(const struct benchsuite *s, const struct bench_results *r, int cpus,
                         struct bench_cmp *c);
int bench_seed_line(char *buf, size_t size, const struct benchsuite *s,
                    const struct bench_results *r, struct bench_cmp c, int t,
                    const struct ratio *q);
const char *bench_errno_word(int err);
const char *bench_verdict_name(int verdict);
int bench_fmt_milli(char *buf, size_t size, u64 m);
int bench_fmt_rate(char *buf, size_t size, u64 m);
void bench_table(const struct benchsuite *s, const struct bench_results *r, u32 m);
void bench_report(const struct benchsuite *s, const struct bench_results *r, int cpus,
                  struct bench_tally *tally);

// Per-point profiles with profile= (kernel/bench/point_profile.c; nothing without it): sampling
// from the start of a run's interval to its end (also in a warm-up); the columns start empty at
// each thread count; each run's samples go to its column (slot < 0: a warm-up, dropped); at a
// point's end its top functions and PROFILE lines.
void bench_profile_start(void);
void bench_profile_stop(void);
void bench_profile_point_begin(int nslots);
void bench_profile_point_end(void);
void bench_profile_run_end(int slot);
void bench_profile_point(int slot, const char *suite, const char *point, int threads);
// The samples of column slot's timed runs at the running point by category (prof_split's
// cats, count and hits, include/stacktable.h), and by the clock its CPUs' halted and total time;
// for a suite's point_done. False without a profile.
bool bench_profile_split(int slot, const char *const *const *cats, u32 ncats, u64 *count,
                         u64 *hits, u64 *idle_ns, u64 *cpu_ns);
// init='s program profiled and lock-counted whole (kernel/bench/program.c): begin before it
// starts, end after its exit prints its PROFILE and LOCKSTAT lines (suite=init).
void bench_program_begin(void);
void bench_program_end(const char *program);
