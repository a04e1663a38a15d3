// The calib suite: one operation against itself with a known amount of extra work, 10% and
// 25% more of the same loop; its BENCH-CMP lines show what difference a boot can detect.
#include "bench.h"
#include "printk.h"
#include "time.h"

#define TARGET_NS 2000     // the base operation's length on this machine, about
#define MIN_ITERS 64
#define YIELD_EVERY 8      // operations between two bench_yield calls (16 us or so)
#define CHECK_OPS 500      // operations a proportionality check times, per count and round
#define CHECK_ROUNDS 15    // odd: the median is one of them

enum { BASE, PLUS10, PLUS25 };

// Loop steps of each variant, per mille of the base count.
static const u32 permille[] = { [BASE] = 1000, [PLUS10] = 1100, [PLUS25] = 1250 };

static u32 base_iters;   // steps of the base operation, calibrated at the first setup
static u64 sink;         // where the workers' results go, so that the loops must run

// n steps of one dependent chain: each step needs the last one's result, so the time is n
// times one step's, whatever the CPU overlaps. Knuth's MMIX LCG, with a xorshift that keeps
// the compiler from folding steps together (an LCG alone composes into one multiply-add);
// the result goes to sink, so no step can be dropped.
static u64
spin(u64 x, u32 n)
{
  for(u32 i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
  }
  return x;
}

static u32
iters(int vi)
{
  return (u64)base_iters * permille[vi] / 1000;
}

// Nanoseconds CHECK_OPS operations of n steps take.
static u64
time_ops(u32 n)
{
  u64 t = ktime_ns(), x = t;

  for(int i = 0; i < CHECK_OPS; i++)
    x = spin(x, n);
  WRITE_ONCE(sink, x);
  return ktime_ns() - t;
}

// The median of n values (n odd, at most CHECK_ROUNDS), which it sorts.
static u32
median(u32 *v, int n)
{
  for(int i = 1; i < n; i++)
    for(int k = i; k > 0 && v[k - 1] > v[k]; k--) {
      u32 t = v[k];
      v[k] = v[k - 1];
      v[k - 1] = t;
    }
  return v[n / 2];
}

// Picks the base count for TARGET_NS, then checks that an operation's cost follows its
// count: each round times the three counts back to back, and the median over the rounds of
// each one's time over the base's is kept (a round the host interrupted is an outlier that
// the median ignores). A step costing the same at every count is what makes plus10 and plus25
// exactly 10% and 25% more work; the console says if it did not hold here.
static void
calibrate(void)
{
  u32 ratio[3][CHECK_ROUNDS], got[3];
  u64 ns = ~0ULL, t[3];
  int r, v;

  for(r = 0; r < CHECK_ROUNDS; r++)
    ns = MIN(ns, time_ops(1000));
  base_iters = MAX(MIN_ITERS, (u64)TARGET_NS * CHECK_OPS * 1000 / (ns ? ns : 1));
  for(r = 0; r < CHECK_ROUNDS; r++) {
    for(v = BASE; v <= PLUS25; v++)
      t[v] = time_ops(iters(v));
    for(v = BASE; v <= PLUS25; v++)
      ratio[v][r] = t[v] * 1000 / (t[BASE] ? t[BASE] : 1);
  }
  for(v = BASE; v <= PLUS25; v++)
    got[v] = median(ratio[v], CHECK_ROUNDS);
  pr_info("bench: calib: an operation is %u steps, %lu ns; 1.100x and 1.250x the steps take"
          " %u.%03ux and %u.%03ux the time%s\n", base_iters, ns * base_iters / 1000 / CHECK_OPS,
          got[PLUS10] / 1000, got[PLUS10] % 1000, got[PLUS25] / 1000, got[PLUS25] % 1000,
          got[PLUS10] < 1080 || got[PLUS10] > 1120 || got[PLUS25] < 1230 ||
          got[PLUS25] > 1270 ? " (NOT in proportion here: a busy host?)" : "");
}

static int
calib_setup(struct bench_ctx *ctx)
{
  if(!base_iters)
    calibrate();
  return 0;
}

static u64
calib_worker(struct bench_ctx *ctx, int thread_index)
{
  u32 n = iters(ctx->vi);
  u64 x = thread_index + 1, ops = 0;

  while(!bench_stopped(ctx)) {
    x = spin(x, n);
    if(++ops % YIELD_EVERY == 0)
      bench_yield(ctx);
  }
  WRITE_ONCE(sink, x);
  return ops;
}

BENCH_SUITE(calib_suite) = {
  .name = "calib",
  .order = 90,
  .seed = "the harness's own power check: an operation against 1.10x and 1.25x its work",
  .op = "a fixed loop of dependent arithmetic (about 2 us), 1.10x or 1.25x as long",
  .sweep = SWEEP_UP,
  // As many runs as pagecache, the suite with the most comparisons and the most scatter, so
  // that calib shows the power of a ten-run point (include/bench.h); five-run suites have
  // less, as doc/notebook/2026-12-02-bench-repeat.md says with figures.
  .runs = 10,
  .variants = {
    [BASE] = { "base" },
    [PLUS10] = { "plus10" },
    [PLUS25] = { "plus25" },
  },
  .pairs = {
    { "plus10", 0, "base", 0 },
    { "plus25", 0, "base", 0 },
  },
  // No settle: nothing is allocated or freed.
  .setup = calib_setup,
  .worker = calib_worker,
};
