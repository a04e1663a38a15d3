// Host test for kernel/bench/table.c: doc/console.md's thread sweeps at many CPU counts, what
// bench=quick and bench.aa=yes measure, the BENCH-SUITE line and what the registry refuses,
// the comparisons and their BENCH-CMP and BENCH-SEED lines, the number formats of the BENCH
// lines and the human table.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "errno.h"
#include "printk.h"
#include "vsprintf.h"

// printk for the table: the lines it prints, one after another.
static char out[8192];
static int outlen;

int
printk(const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vscnprintf(out + outlen, sizeof(out) - outlen, fmt, ap);
  va_end(ap);
  outlen += n;
  return n;
}

// The sweep as text, "1 2 4 8", for readable comparisons.
static const char *
sweep(int kind, int cpus, bool quick)
{
  static char buf[256];
  int t[BENCH_MAX_SWEEP], n, i, len = 0;

  n = bench_sweep(kind, cpus, quick, t);
  buf[0] = 0;
  for(i = 0; i < n; i++)
    len += snprintf(buf + len, sizeof(buf) - len, i ? " %d" : "%d", t[i]);
  return buf;
}

static bool
same(const char *got, const char *want)
{
  if(strcmp(got, want) == 0)
    return true;
  fprintf(stderr, "  got '%s', want '%s'\n", got, want);
  return false;
}

static void
test_sweeps(void)
{
  int t[BENCH_MAX_SWEEP], cpus, n, i;

  // The examples of doc/console.md, at 8 CPUs.
  CHECK(same(sweep(SWEEP_UP, 8, false), "1 2 4 8"));
  CHECK(same(sweep(SWEEP_OVER, 8, false), "1 2 4 8 12 16 20"));
  CHECK(same(sweep(SWEEP_FIXED, 8, false), "1 2 4 8 16"));
  CHECK(same(sweep(SWEEP_OVER, 8, true), "1 8 16"));
  CHECK(same(sweep(SWEEP_UP, 8, true), "1 8"));
  CHECK(same(sweep(SWEEP_FIXED, 2, true), "1 8"));
  // Odd counts round up; small machines lose the repeats.
  CHECK(same(sweep(SWEEP_UP, 6, false), "1 2 4 6"));
  CHECK(same(sweep(SWEEP_OVER, 3, false), "1 2 3 5 6 8"));
  CHECK(same(sweep(SWEEP_OVER, 2, false), "1 2 3 4 5"));
  CHECK(same(sweep(SWEEP_OVER, 1, false), "1 2 3"));
  CHECK(same(sweep(SWEEP_UP, 1, false), "1"));
  CHECK(same(sweep(SWEEP_UP, 1, true), "1"));
  CHECK(same(sweep(SWEEP_OVER, 1, true), "1 2"));
  CHECK(same(sweep(SWEEP_OVER, 255, false), "1 2 4 8 16 32 64 128 255 383 510 638"));

  // Every CPU count QEMU allows: strictly increasing, within the arrays, doc/console.md's ends.
  for(cpus = 1; cpus <= 255; cpus++) {
    bool ok = true;
    n = bench_sweep(SWEEP_OVER, cpus, false, t);
    ok &= n <= BENCH_MAX_SWEEP && t[0] == 1 && t[n - 1] == (5 * cpus + 1) / 2;
    for(i = 1; i < n; i++)
      ok &= t[i] > t[i - 1];
    n = bench_sweep(SWEEP_UP, cpus, false, t);
    ok &= n <= BENCH_MAX_SWEEP && t[n - 1] == cpus;
    if(!ok)
      fprintf(stderr, "  sweep wrong at %d CPUs\n", cpus);
    CHECK(ok);
  }
}

static const struct benchsuite radix = {
  .name = "radix",
  .sweep = SWEEP_UP,
  .variants = { { "lookup", 16 }, { "lookup", 64 }, { "lookup", 128 }, { "plain" },
                { "kept", 16, true } },
  .pairs = { { "lookup", 64, "lookup", 16 } },
};

static void
test_variants(void)
{
  CHECK(bench_nvariants(&radix) == 5);
  CHECK(bench_find_variant(&radix, "lookup", 64) == 1);
  CHECK(bench_find_variant(&radix, "lookup", 32) == -1);
  CHECK(bench_find_variant(&radix, "plain", 0) == 3);
  CHECK(bench_variant_runs(&radix.variants[0], false));
  CHECK(!bench_variant_runs(&radix.variants[0], true));
  CHECK(bench_variant_runs(&radix.variants[1], true));
  CHECK(bench_variant_runs(&radix.variants[3], true));
  CHECK(bench_variant_runs(&radix.variants[4], true));
  CHECK(bench_points(&radix, 8, false, false) == 5 * 4);
  CHECK(bench_points(&radix, 8, true, false) == 3 * 2);
  // A/A: the one pair's a, lookup/64, and its copy.
  CHECK(bench_points(&radix, 8, false, true) == 2 * 4);
  CHECK(bench_points(&radix, 8, true, true) == 2 * 2);
}

static u64
no_work(struct bench_ctx *ctx, int thread_index)
{
  (void)ctx;
  (void)thread_index;
  return 0;
}

// A suite as a kernel file would register it.
static struct benchsuite
good_suite(void)
{
  return (struct benchsuite) {
    .name = "dbench-like",
    .order = 40,
    .seed = "2002 radix-tree pagecache: dbench clients, rat-7 (128-way) vs rat-4",
    .op = "one client file operation (create, write; read)",
    .sweep = SWEEP_OVER,
    .variants = { { "hash-global" }, { "radix-lock", 128, true }, { "radix-lock", 16 },
                  { "radix-rcu", 64 } },
    .extras = { "mb_per_sec", "faults_per_op" },
    .worker = no_work,
  };
}

static void
test_suite_line(void)
{
  struct benchsuite s = good_suite();
  char line[BENCH_LINE_MAX + 1];
  int n;

  n = bench_suite_line(line, sizeof(line), &s, 4, false, false);
  CHECK(n == (int)strlen(line));
  CHECK(same(line, "BENCH-SUITE suite=dbench-like sweep=over threads=1,2,4,6,8,10 "
             "variants=hash-global,radix-lock/128,radix-lock/16,radix-rcu/64 "
             "extras=mb_per_sec,faults_per_op "
             "op=one client file operation (create, write; read) "
             "seed=2002 radix-tree pagecache: dbench clients, rat-7 (128-way) vs rat-4"));
  // bench=quick: its sweep, and the variant it leaves out named apart.
  bench_suite_line(line, sizeof(line), &s, 2, true, false);
  CHECK(same(line, "BENCH-SUITE suite=dbench-like sweep=over threads=1,2,4 "
             "variants=hash-global,radix-lock/128,radix-rcu/64 skipped=radix-lock/16 "
             "extras=mb_per_sec,faults_per_op "
             "op=one client file operation (create, write; read) "
             "seed=2002 radix-tree pagecache: dbench clients, rat-7 (128-way) vs rat-4"));
  // bench.aa=yes: the pairs' a variants and their copies; the others are left out.
  s.pairs[0] = (struct bench_pair){ "radix-lock", 128, "hash-global", 0 };
  s.pairs[1] = (struct bench_pair){ "radix-rcu", 64, "hash-global", 0 };
  s.pairs[2] = (struct bench_pair){ "radix-rcu", 64, "radix-lock", 16 };
  bench_suite_line(line, sizeof(line), &s, 4, false, true);
  CHECK(same(line, "BENCH-SUITE suite=dbench-like sweep=over threads=1,2,4,6,8,10 "
             "variants=radix-lock/128,radix-rcu/64,radix-lock~aa/128,radix-rcu~aa/64 "
             "skipped=hash-global,radix-lock/16 extras=mb_per_sec,faults_per_op "
             "op=one client file operation (create, write; read) "
             "seed=2002 radix-tree pagecache: dbench clients, rat-7 (128-way) vs rat-4"));
  CHECK(bench_suite_bad(&s) == NULL);
  s.extras[0] = NULL;
  s.sweep = SWEEP_FIXED;
  bench_suite_line(line, sizeof(line), &s, 2, true, false);
  CHECK(strncmp(line, "BENCH-SUITE suite=dbench-like sweep=fixed threads=1,8 variants=", 63) == 0);
  CHECK(strstr(line, "extras") == NULL);
  CHECK(bench_suite_bad(&s) == NULL);
}

// Whether the registry refuses suite s.
static bool
refused(const struct benchsuite *s)
{
  const char *why = bench_suite_bad(s);

  if(why)
    printf("  refused: %s\n", why);
  return why != NULL;
}

static void
test_suite_bad(void)
{
  // Names bench= cannot say (31 bytes fit in its words, 32 do not), or says as a flag.
  static const char *const bad_names[] = {
    "Dbench", "", NULL, "db_bench", "db bench", "quick", "none", "all",
    "01234567890123456789012345678901",
  };
  // op and seed are text, but no '=' (it would start a key) and no line break.
  static const char *const bad_texts[] = { "x = y", "two\nlines", "", NULL, "caf\xc3\xa9" };
  static char op[BENCH_LINE_MAX + 2];
  char line[BENCH_LINE_MAX + 2];
  struct benchsuite s = good_suite();
  size_t i;
  int n;

  CHECK(!refused(&s));
  s.name = "0123456789012345678901234567890";
  CHECK(!refused(&s));
  for(i = 0; i < ARRAY_SIZE(bad_names); i++) {
    s = good_suite();
    s.name = bad_names[i];
    CHECK(refused(&s));
  }
  for(i = 0; i < ARRAY_SIZE(bad_texts); i++) {
    s = good_suite();
    s.op = bad_texts[i];
    CHECK(refused(&s));
    s = good_suite();
    s.seed = bad_texts[i];
    CHECK(refused(&s));
  }
  s = good_suite();
  s.variants[1].name = "radix lock";
  CHECK(refused(&s));
  s = good_suite();
  s.extras[1] = "faults/op";
  CHECK(refused(&s));
  s = good_suite();
  s.worker = NULL;
  CHECK(refused(&s));
  s = good_suite();
  s.sweep = 3;
  CHECK(refused(&s));
  s = good_suite();
  memset(s.variants, 0, sizeof(s.variants));
  CHECK(refused(&s));
  // The longest line (255 CPUs, every variant) may have BENCH_LINE_MAX bytes, not one more.
  s = good_suite();
  s.op = "x";
  n = bench_suite_line(line, sizeof(line), &s, 255, false, false);
  memset(op, 'x', BENCH_LINE_MAX - n + 1);
  s.op = op;
  CHECK(bench_suite_line(line, sizeof(line), &s, 255, false, false) == BENCH_LINE_MAX);
  CHECK(!refused(&s));
  op[BENCH_LINE_MAX - n + 1] = 'x';
  CHECK(refused(&s));
  // The A/A line, with a copy of every a, must fit too.
  s = good_suite();
  s.pairs[0] = (struct bench_pair){ "radix-lock", 16, "hash-global", 0 };
  s.pairs[1] = (struct bench_pair){ "radix-rcu", 64, "hash-global", 0 };
  s.op = "x";
  n = bench_suite_line(line, sizeof(line), &s, 255, false, true);
  CHECK(n > bench_suite_line(line, sizeof(line), &s, 255, false, false));
  memset(op, 'x', BENCH_LINE_MAX + 1);
  op[BENCH_LINE_MAX - n + 1] = 0;
  s.op = op;
  CHECK(!refused(&s));
  op[BENCH_LINE_MAX - n + 1] = 'x';
  CHECK(refused(&s));

  // Pairs and the headline must name what the suite has; the headline must be a pair.
  s = good_suite();
  s.pairs[0] = (struct bench_pair){ "radix-lock", 128, "hash-global", 0 };
  CHECK(!refused(&s));
  s.headline = (struct bench_headline){ "radix-lock", 128, "hash-global", 0, HEAD_CPUS, 982,
                                        STATS_SAME, "doc/seeds.md", 0 };
  CHECK(!refused(&s));
  s.headline.fanout_a = 16;   // a pair of the suite's variants, but not one of its pairs
  CHECK(refused(&s));
  s.headline.fanout_a = 128;
  s.headline.threads = 0;
  CHECK(refused(&s));
  s.headline.threads = HEAD_TWICE_CPUS;
  s.headline.seed_verdict = 2;
  CHECK(refused(&s));
  s.headline.seed_verdict = STATS_FASTER;
  s.headline.cite = "";
  CHECK(refused(&s));
  s.headline.cite = "x";
  CHECK(!refused(&s));
  s.pairs[1] = (struct bench_pair){ "radix-lock", 32, "hash-global", 0 };
  CHECK(refused(&s));
  s.pairs[1] = (struct bench_pair){ "radix-lock", 16, "hash-local", 0 };
  CHECK(refused(&s));
}

static const char *
milli(u64 m)
{
  static char buf[32];
  bench_fmt_milli(buf, sizeof(buf), m);
  return buf;
}

static const char *
rate(u64 m)
{
  static char buf[32];
  bench_fmt_rate(buf, sizeof(buf), m);
  return buf;
}

static void
test_formats(void)
{
  CHECK(same(milli(1234567891), "1234567.891"));
  CHECK(same(milli(5), "0.005"));
  CHECK(same(milli(0), "0.000"));
  CHECK(same(milli(18446744073709551615ull), "18446744073709551.615"));
  CHECK(same(rate(9780381330), "9.78M"));
  CHECK(same(rate(408108864), "408k"));
  CHECK(same(rate(12345000), "12.3k"));
  CHECK(same(rate(152844594), "153k"));
  CHECK(same(rate(999000), "999"));
  CHECK(same(rate(500), "0.50"));
  CHECK(same(rate(0), "0.00"));
  CHECK(same(rate(2500000000000), "2.50G"));
  CHECK(same(rate(1000000), "1.00k"));
}

static void
test_table(void)
{
  static struct bench_results r;
  struct stats *s;

  memset(&r, 0, sizeof(r));
  r.nthreads = 2;
  r.threads[0] = 1;
  r.threads[1] = 8;
  r.nslots = bench_plan(&radix, false, false, r.slots);
  CHECK(r.nslots == 5);
  // lookup/64 and plain at both counts, lookup/16 at one only, the others never.
  r.ran[1][0] = r.ran[1][1] = r.ran[3][0] = r.ran[3][1] = r.ran[0][0] = true;
  for(int v = 0; v < 4; v++)
    for(int t = 0; t < 2; t++) {
      s = &r.st[v][t];
      s->n = 5;
      s->mean_m = (u64)(v + 1) * 1000000000 / (t + 1);
      s->stddev_m = s->mean_m / 100;
      s->ci95_m = s->mean_m / 80;
    }
  outlen = 0;
  bench_table(&radix, &r, 2);
  printf("%s", out);
  CHECK(strstr(out, "bench: radix:") == out);
  CHECK(strstr(out, "lookup/16") && strstr(out, "lookup/64") && strstr(out, "plain"));
  CHECK(!strstr(out, "lookup/128") && !strstr(out, "kept"));
  CHECK(strstr(out, "ratio: lookup/64 over lookup/16, +- its interval at 1 - 0.05/2") != NULL);
  CHECK(strstr(out, "2.00M +-25.0k") != NULL);       // lookup/64 at 1 thread
  CHECK(strstr(out, "2.000 +-") != NULL);            // its ratio to lookup/16
  // No line may start with a machine word.
  for(char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    CHECK(strncmp(p, "BENCH", 5) != 0 && strncmp(p, "END", 3) != 0);
}

// Points with n runs of the given mean and relative spread, as stats_compute leaves them.
static void
point(struct bench_results *r, int slot, int t, u64 mean, u32 sd_permille, u32 n)
{
  struct stats *st = &r->st[slot][t];

  st->n = n;
  st->mean_m = mean * 1000;
  st->stddev_m = mean * sd_permille;
  st->ci95_m = st->stddev_m;
  r->ran[slot][t] = true;
}

static const struct benchsuite pc = {
  .name = "pc",
  .sweep = SWEEP_OVER,
  .variants = { { "hash-global" }, { "hash-bucket" }, { "radix-lock", 16 }, { "radix-rcu", 64 } },
  .pairs = { { "radix-rcu", 64, "hash-global", 0 }, { "hash-bucket", 0, "hash-global", 0 },
             { "radix-rcu", 64, "radix-lock", 16 } },
  .headline = { "radix-rcu", 64, "hash-global", 0, HEAD_TWICE_CPUS, 2000, STATS_FASTER, "x", 0 },
};

static void
test_compare(void)
{
  static struct bench_results r;
  struct bench_cmp c[BENCH_MAX_PAIRS], h;
  char line[BENCH_LINE_MAX + 1];
  struct ratio q;
  int n, t;

  // Four columns at 1, 4, 8 threads (quick at 4 CPUs); radix-lock/16 skipped at 8.
  memset(&r, 0, sizeof(r));
  r.margin_m = 50;
  r.nthreads = bench_sweep(SWEEP_OVER, 4, true, r.threads);
  CHECK(r.nthreads == 3 && r.threads[2] == 8);
  r.nslots = bench_plan(&pc, true, false, r.slots);
  CHECK(r.nslots == 3);   // radix-lock/16 is not quick
  r.nslots = bench_plan(&pc, false, false, r.slots);
  CHECK(r.nslots == 4);
  for(t = 0; t < 3; t++) {
    point(&r, 0, t, 1000000, 10, 5);
    point(&r, 1, t, 1000000, 10, 5);
    point(&r, 3, t, 2000000 * (t + 1), 10, 5);
    if(t < 2)
      point(&r, 2, t, 1500000, 10, 5);
  }
  n = bench_cmps(&pc, &r, c);
  CHECK(n == 3 && c[0].a == 3 && c[0].b == 0 && c[1].a == 1 && c[2].b == 2);
  CHECK(bench_count_cmps(&r, c, n) == 8);   // 3 + 3 + 2: the skipped point has none
  CHECK(bench_compare(&q, &r, c[2], 2, 8) == -1);
  CHECK(bench_compare(&q, &r, c[0], 1, 8) == 0 && q.ratio_m == 4000 && q.verdict == STATS_FASTER);
  bench_cmp_line(line, sizeof(line), &pc, &r, c[0], 1, &q, NULL);
  CHECK(strncmp(line, "BENCH-CMP suite=pc a=radix-rcu b=hash-global fanout_a=64 threads=4 "
                "ratio=4.000 ci95=0.", 85) == 0);
  CHECK(strstr(line, " verdict=faster") == line + strlen(line) - 15);
  CHECK(bench_compare(&q, &r, c[1], 0, 8) == 0 && q.ratio_m == 1000 && q.verdict == STATS_SAME);
  bench_cmp_line(line, sizeof(line), &pc, &r, c[2], 0, &q, NULL);
  CHECK(strstr(line, " a=radix-rcu b=radix-lock fanout_a=64 fanout_b=16 threads=1 ") != NULL);

  // The headline: 2 cpus of a sweep measured at 4 CPUs is its last point; at 1 CPU, 2.
  CHECK(bench_headline_point(&pc, &r, 4, &h) == 2 && h.a == 3 && h.b == 0);
  CHECK(bench_headline_point(&pc, &r, 3, &h) == 1);
  CHECK(bench_headline_point(&pc, &r, 1, &h) == 0);
  // Both sides spread by 1% of their means: the se of ln 6.0 is sqrt(2 * 0.01^2/5) = 0.00632,
  // Welch df 8, t(1 - 0.025/8, 8) = 3.68; the upper arm 6 (e^(3.68 * 0.00632) - 1) = 0.1412.
  CHECK(bench_compare(&q, &r, h, 2, 8) == 0);
  bench_seed_line(line, sizeof(line), &pc, &r, h, 2, &q);
  CHECK(same(line, "BENCH-SEED suite=pc a=radix-rcu b=hash-global fanout_a=64 threads=8 "
             "seed_ratio=2.000 seed_verdict=faster ratio=6.000 ci95=0.142 verdict=faster "
             "direction=agrees magnitude=below"));
  point(&r, 3, 2, 1000000, 10, 5);
  CHECK(bench_compare(&q, &r, h, 2, 8) == 0);
  bench_seed_line(line, sizeof(line), &pc, &r, h, 2, &q);
  CHECK(strstr(line, " ratio=1.000 ci95=0.") &&
        strstr(line, " verdict=same direction=differs magnitude=above"));
  // An interval holding 1 and reaching past the margin can tell nothing: inconclusive, and
  // the seed's direction unknown; the seed's ratio inside it.
  point(&r, 3, 2, 1000000, 500, 5);
  CHECK(bench_compare(&q, &r, h, 2, 8) == 0 && q.verdict == STATS_INCONCLUSIVE);
  bench_seed_line(line, sizeof(line), &pc, &r, h, 2, &q);
  CHECK(strstr(line, " verdict=inconclusive direction=unknown magnitude=inside"));

  // A/A: the a of each pair once (radix-rcu/64 is the a of two), against its copy.
  memset(&r, 0, sizeof(r));
  r.margin_m = 50;
  r.aa = true;
  r.nthreads = 1;
  r.threads[0] = 1;
  r.nslots = bench_plan(&pc, false, true, r.slots);
  CHECK(r.nslots == 4 && r.slots[0].vi == 1 && !r.slots[0].aa && r.slots[1].vi == 3);
  CHECK(r.slots[2].vi == 1 && r.slots[2].aa && r.slots[3].vi == 3 && r.slots[3].aa);
  for(t = 0; t < 4; t++)
    point(&r, t, 0, 1000000, 10, 5);
  n = bench_cmps(&pc, &r, c);
  CHECK(n == 2 && c[0].a == 1 && c[0].b == 3 && c[1].a == 0 && c[1].b == 2);
  CHECK(bench_count_cmps(&r, c, n) == 2);
  // se of ln 1.0: sqrt(2 * 0.01^2/5) = 0.00632, df 8, t(1 - 0.025/2, 8) = 2.75: the upper
  // arm e^(2.75 * 0.00632) - 1 = 0.0176, rounded outwards.
  CHECK(bench_compare(&q, &r, c[0], 0, 2) == 0);
  bench_cmp_line(line, sizeof(line), &pc, &r, c[0], 0, &q, NULL);
  CHECK(same(line, "BENCH-CMP suite=pc a=radix-rcu b=radix-rcu~aa fanout_a=64 fanout_b=64 "
             "threads=1 ratio=1.000 ci95=0.018 verdict=same"));
  outlen = 0;
  bench_table(&pc, &r, 2);
  CHECK(strstr(out, "ratio: radix-rcu/64 over radix-rcu~aa/64") && strstr(out, "hash-bucket~aa"));

  // Paired: the runner kept the rounds of the first comparison. Each round's ratio is 0.5
  // within 0.5%, so the paired interval says slower, while the drift that quadruples some
  // rounds leaves the verdict's own (unpaired) interval holding 1. The other comparison has
  // no rounds kept.
  static const u64 ra[] = { 100, 400, 100, 400, 100 }, rb[] = { 200, 800, 201, 800, 199 };
  u64 xa[5], xb[5];
  struct ratio p;
  for(t = 0; t < 5; t++) {
    xa[t] = ra[t] * 1000;
    xb[t] = rb[t] * 1000;
  }
  r.npaired = bench_cmps(&pc, &r, r.paired);
  stats_compute(&r.st[c[0].a][0], xa, 5);
  stats_compute(&r.st[c[0].b][0], xb, 5);
  stats_pair_compute(&r.pair[0][0], xa, xb, 5);
  CHECK(bench_compare_paired(&p, &r, c[0], 0, 2) == 0 && p.pairs == 5 && p.df == 4);
  CHECK(p.ratio_m == 500 && p.verdict == STATS_SLOWER && p.ci_m < 10);
  CHECK(bench_compare(&q, &r, c[0], 0, 2) == 0 && q.pairs == 0 && q.ratio_m == 500);
  CHECK(q.verdict == STATS_INCONCLUSIVE && q.ci_m > 500);
  bench_cmp_line(line, sizeof(line), &pc, &r, c[0], 0, &q, &p);
  CHECK(strstr(line, " verdict=inconclusive pairs=5 paired_ratio=0.500 paired_ci95=0.00"));
  CHECK(strstr(line, " paired_verdict=slower") == line + strlen(line) - 22);
  r.pair[1][0].n = 0;
  CHECK(bench_compare_paired(&p, &r, c[1], 0, 2) == -1);
}

// Lines of out that start with word, counted.
static int
lines(const char *word)
{
  int n = 0;

  for(char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    n += strncmp(p, word, strlen(word)) == 0;
  return n;
}

static void
test_report(void)
{
  static struct bench_results r;
  struct bench_tally tally = { 0 };
  struct ratio q;
  u64 ci;
  int t;

  // pc at 2 CPUs, full sweep 1 2 3 4 5: every point, radix-rcu/64 twice as fast.
  memset(&r, 0, sizeof(r));
  r.margin_m = 50;
  r.nthreads = bench_sweep(SWEEP_OVER, 2, false, r.threads);
  r.nslots = bench_plan(&pc, false, false, r.slots);
  for(t = 0; t < r.nthreads; t++) {
    point(&r, 0, t, 1000000, 10, 5);
    point(&r, 1, t, 1000000, 10, 5);
    point(&r, 2, t, 1000000, 10, 5);
    point(&r, 3, t, 2000000, 10, 5);
  }
  outlen = 0;
  bench_report(&pc, &r, 2, &tally);
  CHECK(lines("BENCH-CMP ") == 15 && tally.cmps == 15 && tally.decided == 10);   // 3 pairs x 5
  CHECK(tally.inconclusive == 0 && tally.families == 1 && tally.false_families == 1);
  CHECK(strstr(out, "+- its interval at 1 - 0.05/15") != NULL);
  CHECK(lines("BENCH-SEED ") == 1);
  CHECK(strstr(out, "BENCH-SEED suite=pc a=radix-rcu b=hash-global fanout_a=64 threads=4 "
               "seed_ratio=2.000 seed_verdict=faster ratio=2.000 ci95=") != NULL);
  CHECK(strstr(out, " verdict=faster direction=agrees magnitude=inside\n") != NULL);

  // The headline's point skipped: no BENCH-SEED, a note instead; m counts what is left.
  r.ran[3][3] = false;
  outlen = 0;
  bench_report(&pc, &r, 2, &tally);
  CHECK(lines("BENCH-CMP ") == 13 && tally.cmps == 28 && strstr(out, "1 - 0.05/13"));
  CHECK(lines("BENCH-SEED ") == 0 && strstr(out, "was not measured: no BENCH-SEED line"));

  // An equivalence headline's extra rounds (kernel/bench/bench.c) at 4 threads: its pair ran
  // 150, the other two columns 5. The headline takes the level 1 - 0.05/2 and its pair's every
  // run; each other comparison there 1 - 0.05/(2(m - 1)) and the five rounds all ran (first,
  // whose radix-rcu/64 is 3x hash-global's where all its runs are 2x).
  r.ran[3][3] = true;
  r.head_runs = 150;
  r.head_t = 3;
  r.head = (struct bench_cmp){ 3, 0 };
  point(&r, 0, 3, 1000000, 100, 150);
  point(&r, 3, 3, 2000000, 100, 150);
  for(t = 0; t < 4; t++) {
    r.first[t] = r.st[t][3];
    r.first[t].n = 5;
  }
  r.first[3].mean_m = 3000000 * 1000ULL;
  CHECK(bench_level(&r, r.head, 3, 15) == 2 && bench_level(&r, r.head, 2, 15) == 28);
  CHECK(bench_level(&r, (struct bench_cmp){ 3, 2 }, 3, 15) == 28);
  CHECK(bench_compare(&q, &r, r.head, 3, 15) == 0 && q.ratio_m == 2000 && q.df > 100);
  ci = q.ci_m;
  CHECK(bench_compare(&q, &r, (struct bench_cmp){ 3, 2 }, 3, 15) == 0 && q.ratio_m == 3000);
  CHECK(bench_compare(&q, &r, (struct bench_cmp){ 3, 2 }, 2, 15) == 0 && q.ratio_m == 2000);
  r.head_runs = 0;   // the same numbers at the one level for all: a wider interval
  CHECK(bench_compare(&q, &r, r.head, 3, 15) == 0 && q.ratio_m == 2000 && q.ci_m > ci);
  r.head_runs = 150;
  outlen = 0;
  bench_report(&pc, &r, 2, &tally);
  CHECK(strstr(out, "+- its interval at 1 - 0.05/28 (1 - 0.05/2 for the headline at 4)"));
  CHECK(strstr(out, "BENCH-SEED suite=pc a=radix-rcu b=hash-global fanout_a=64 threads=4 "
               "seed_ratio=2.000 seed_verdict=faster ratio=2.000 ci95=") != NULL);

  // A/A: a against its copy, no BENCH-SEED.
  memset(&r, 0, sizeof(r));
  r.aa = true;
  r.margin_m = 50;
  r.nthreads = 1;
  r.threads[0] = 1;
  r.nslots = bench_plan(&pc, false, true, r.slots);
  for(t = 0; t < r.nslots; t++)
    point(&r, t, 0, 1000000 + t, 10, 5);
  tally = (struct bench_tally){ 0 };
  outlen = 0;
  bench_report(&pc, &r, 1, &tally);
  CHECK(lines("BENCH-CMP ") == 2 && tally.cmps == 2 && tally.decided == 0);
  CHECK(tally.families == 1 && tally.false_families == 0 && lines("BENCH-SEED ") == 0);
  CHECK(strstr(out, " b=hash-bucket~aa threads=1 ") != NULL);
}

static void
test_words(void)
{
  CHECK(same(bench_errno_word(-ENOMEM), "enomem"));
  CHECK(same(bench_errno_word(-EINVAL), "einval"));
  CHECK(same(bench_errno_word(-12345), "error"));
  CHECK(same(bench_verdict_name(STATS_FASTER), "faster"));
  CHECK(same(bench_verdict_name(STATS_SLOWER), "slower"));
  CHECK(same(bench_verdict_name(STATS_SAME), "same"));
  CHECK(same(bench_verdict_name(STATS_INCONCLUSIVE), "inconclusive"));
}

int
main(void)
{
  test_sweeps();
  test_variants();
  test_suite_line();
  test_suite_bad();
  test_formats();
  test_table();
  test_compare();
  test_report();
  test_words();
  return check_summary("test_bench");
}
