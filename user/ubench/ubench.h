// ubench: the boot benchmarks' workloads at the system-call level, for Linux and this kernel
// alike (make compare-linux). The harness (harness.c) and the suites (sys.c, fs.c, mm.c,
// proc.c) share this.
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t u64;

#define UB_MAX_VARIANTS 4
#define UB_MAX_SWEEP 32
#define UB_MAX_THREADS 1024
#define UB_PAGE 4096UL

// How a suite picks its thread counts at cpus CPUs (doc/ubench.md): up is the boot
// benchmarks' (powers of two below cpus, then cpus); up2x adds 2 x cpus (the 2007 table runs
// past the CPU count).
enum ub_sweep { UB_SWEEP_UP, UB_SWEEP_UP2X };

struct ub_ctx;

// One worker of the running point, on its own cache line: ops is written after every
// operation by its worker alone and read by the timer thread (ub_done).
struct ub_worker {
  int index;
  u64 ops;          // operations of the running run
  int err;          // errno of a failed call: the point is skipped (0: none)
  const char *what; // the call that failed
  u64 bad;          // operations whose result was wrong: the run fails its check
} __attribute__((aligned(64)));

struct ub_suite {
  const char *name;
  const char *op;      // one operation, for the BENCH-SUITE line
  const char *seed;    // what it re-runs
  enum ub_sweep sweep;
  const char *variants[UB_MAX_VARIANTS];   // NULL-terminated
  bool faults;         // its BENCH lines carry faults_per_op (the process's minor faults,
                       // getrusage, over the run's operations)
  // Once per suite, in its own directory dir (made and removed by the harness): shared
  // state for max_threads workers. 0 or -errno; fini undoes what init did, also half of it.
  int (*init)(struct ub_ctx *ctx);
  void (*fini)(struct ub_ctx *ctx);
  // Before and after every run (warm-up too), workers parked, outside the timed interval:
  // setup returns 0 or -errno (the point is skipped); teardown checks what the run left and
  // returns how many checks failed (it says which), after undoing what setup did.
  int (*setup)(struct ub_ctx *ctx);
  int (*teardown)(struct ub_ctx *ctx);
  // Runs operations until ub_stopped; counts each with ub_done.
  void (*worker)(struct ub_ctx *ctx, struct ub_worker *w);
};

// What the suites see of the running point; the harness owns all but priv.
struct ub_ctx {
  const struct ub_suite *suite;
  const char *dir;     // the suite's directory: <--dir>/<suite name>
  int vi;              // the running variant
  int threads;         // workers of the running point
  int max_threads;     // the most workers any point of this suite runs
  int round;           // 0: the warm-up, 1..runs: timed
  volatile int stop;   // set by the timer thread: workers return
  struct ub_worker *workers;   // the running point's, threads of them
  void *priv;
};

// Set when the run is over; a worker's loop test (a plain load of one shared, read-mostly
// word: no clock is read per operation).
static inline bool
ub_stopped(struct ub_ctx *ctx)
{
  return __atomic_load_n(&ctx->stop, __ATOMIC_RELAXED);
}

// n more operations done; the timer thread reads ops to see that each worker has done a few.
static inline void
ub_done(struct ub_worker *w, u64 n)
{
  __atomic_store_n(&w->ops, w->ops + n, __ATOMIC_RELAXED);
}

// A call failed with errno: this worker stops, and the point is skipped with its name.
static inline void
ub_fail(struct ub_worker *w, const char *what, int err)
{
  if(!w->err) {
    w->what = what;
    w->err = err;
  }
}

// xorshift64 (Marsaglia, J. Stat. Software 8(14), 2003): repeatable per-thread randomness.
static inline u64
ub_rand(u64 *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

// The options (main.c).
struct ub_opts {
  u64 run_ns;          // --secs
  unsigned runs;       // --runs
  int nthreads;        // --threads: 0 = each suite's sweep
  int threads[UB_MAX_SWEEP];
  bool twice_cpus;     // --threads ...,2x: and 2 x CPUs for the up2x suites
  const char *dir;     // --dir
};

extern const struct ub_suite ub_usyscall, ub_ucreate, ub_upread, ub_ustat, ub_ufault, ub_umadvise,
  ub_ufork, ub_uexec;

// harness.c
int ub_cpus(void);
int ub_run_suite(const struct ub_suite *s, const struct ub_opts *o);   // check failures
int ub_path(char *buf, unsigned size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
