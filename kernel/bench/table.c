// Benchmark plans and human tables: the thread counts of each sweep, the variants bench=quick
// keeps, the BENCH-SUITE line that states a suite's plan (formatted here, printed by bench.c),
// and the table of means printed under a suite's BENCH lines.
#include "bench.h"
#include "cmdline.h"
#include "printk.h"
#include "stats.h"
#include "string.h"
#include "vsprintf.h"

#define CELL 16   // width of a table column

int
bench_nvariants(const struct benchsuite *s)
{
  int n = 0;

  while(n < BENCH_MAX_VARIANTS && s->variants[n].name)
    n++;
  return n;
}

// The index of the variant called name with that fanout, or -1.
int
bench_find_variant(const struct benchsuite *s, const char *name, int fanout)
{
  int i;

  for(i = 0; i < bench_nvariants(s); i++)
    if(strcmp(s->variants[i].name, name) == 0 && s->variants[i].fanout == fanout)
      return i;
  return -1;
}

// Appends t unless it repeats the count before it: small machines make some of a
// sweep's counts coincide (at 1 CPU, "over" is 1, 2, 2, 3).
static void
add(int *threads, int *n, int t)
{
  if(*n == 0 || threads[*n - 1] < t)
    threads[(*n)++] = t;
}

// The thread counts of a sweep at cpus online CPUs (doc/console.md, "Suites"),
// in increasing order, into threads[BENCH_MAX_SWEEP]; returns how many.
int
bench_sweep(int sweep, int cpus, bool quick, int *threads)
{
  int n = 0, t;

  if(sweep == SWEEP_FIXED) {
    if(quick) {
      add(threads, &n, 1);
      add(threads, &n, 8);
      return n;
    }
    for(t = 1; t <= 16; t *= 2)
      add(threads, &n, t);
    return n;
  }
  if(quick) {
    add(threads, &n, 1);
    add(threads, &n, cpus);
    if(sweep == SWEEP_OVER)
      add(threads, &n, 2 * cpus);
    return n;
  }
  for(t = 1; t < cpus; t *= 2)
    add(threads, &n, t);
  add(threads, &n, cpus);
  if(sweep == SWEEP_OVER) {
    add(threads, &n, (3 * cpus + 1) / 2);   // ceil(1.5 cpus)
    add(threads, &n, 2 * cpus);
    add(threads, &n, (5 * cpus + 1) / 2);   // ceil(2.5 cpus)
  }
  return n;
}

// bench=quick measures fanout 64 only, and variants without a fanout, and those the
// suite marks as kept.
bool
bench_variant_runs(const struct bench_variant *v, bool quick)
{
  return !quick || v->quick || v->fanout == 0 || v->fanout == BENCH_QUICK_FANOUT;
}

// A variant as the BENCH-SUITE line and the table's columns call it: "ticket", "radix-rcu/64".
static int
label(char *buf, int size, const struct bench_variant *v)
{
  if(v->fanout)
    return scnprintf(buf, size, "%s/%d", v->name, v->fanout);
  return scnprintf(buf, size, "%s", v->name);
}

static const char *const sweep_names[] = {
  [SWEEP_UP] = "up",
  [SWEEP_OVER] = "over",
  [SWEEP_FIXED] = "fixed",
};

// Appends key (" variants=") and a comma list to buf at len: the variants that bench=quick
// runs (runs true) or leaves out (runs false); nothing if there are none. Returns the new length.
static int
variant_list(char *buf, size_t size, int len, const char *key, const struct benchsuite *s,
             bool quick, bool runs)
{
  bool first = true;
  int i;

  for(i = 0; i < bench_nvariants(s); i++) {
    if(bench_variant_runs(&s->variants[i], quick) != runs)
      continue;
    len += scnprintf(buf + len, size - len, "%s", first ? key : ",");
    len += label(buf + len, size - len, &s->variants[i]);
    first = false;
  }
  return len;
}

// The suite's BENCH-SUITE line, printed before its points; doc/console.md is the contract:
//   BENCH-SUITE suite=S sweep=up|over|fixed threads=1,2,4 variants=V,V/64[ skipped=V/16,...]
//     [extras=K,...] op=TEXT seed=TEXT
// Every value before op= is free of spaces; op and seed are text with spaces but no '='
// (bench_suite_bad), so op= runs to " seed=" and seed= to the end of the line. A variant
// with a fanout is name/fanout; skipped= lists those bench=quick leaves out.
int
bench_suite_line(char *buf, size_t size, const struct benchsuite *s, int cpus, bool quick)
{
  int threads[BENCH_MAX_SWEEP], n, i, len;

  len = scnprintf(buf, size, "BENCH-SUITE suite=%s sweep=%s threads=", s->name,
                  sweep_names[s->sweep]);
  n = bench_sweep(s->sweep, cpus, quick, threads);
  for(i = 0; i < n; i++)
    len += scnprintf(buf + len, size - len, i ? ",%d" : "%d", threads[i]);
  len = variant_list(buf, size, len, " variants=", s, quick, true);
  len = variant_list(buf, size, len, " skipped=", s, quick, false);
  for(i = 0; i < BENCH_MAX_EXTRAS && s->extras[i]; i++)
    len += scnprintf(buf + len, size - len, "%s%s", i ? "," : " extras=", s->extras[i]);
  return len + scnprintf(buf + len, size - len, " op=%s seed=%s", s->op, s->seed);
}

// Whether every byte of p is in set, or, with set NULL, printable ASCII but '='.
static bool
made_of(const char *p, const char *set)
{
  for(; *p; p++) {
    if(set ? !strchr(set, *p) : *p < 0x20 || *p > 0x7e || *p == '=')
      return false;
  }
  return true;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789-"

// Why the registry cannot take suite s, or NULL: its name must be one bench= can say and the
// BENCH lines can carry, and its BENCH-SUITE line must parse and fit one printk.
const char *
bench_suite_bad(const struct benchsuite *s)
{
  char line[BENCH_LINE_MAX + 2];   // one byte more than a line may have
  int i;

  if(!s->name || !s->name[0] || !made_of(s->name, NAME_CHARS) ||
     strlen(s->name) >= BENCH_NAME_MAX)
    return "its name is not [a-z0-9-]+ short enough for bench=";
  if(!strcmp(s->name, "all") || !strcmp(s->name, "none") || !strcmp(s->name, "quick"))
    return "its name is a word of bench= itself";
  if(!s->seed || !s->op || !s->seed[0] || !s->op[0] || !made_of(s->seed, NULL) ||
     !made_of(s->op, NULL))
    return "its seed or op is missing or holds '=' or a control character";
  if(s->sweep < SWEEP_UP || s->sweep > SWEEP_FIXED || !s->worker || bench_nvariants(s) == 0)
    return "it has no sweep, worker or variant";
  for(i = 0; i < bench_nvariants(s); i++)
    if(!s->variants[i].name[0] || !made_of(s->variants[i].name, NAME_CHARS))
      return "a variant's name is not [a-z0-9-]+";
  for(i = 0; i < BENCH_MAX_EXTRAS && s->extras[i]; i++)
    if(!s->extras[i][0] || !made_of(s->extras[i], NAME_CHARS "_"))
      return "an extra's name is not [a-z0-9_-]+";
  // The longest line: every variant, and the over sweep at the most CPUs.
  if(bench_suite_line(line, sizeof(line), s, 255, false) > BENCH_LINE_MAX)
    return "its BENCH-SUITE line is too long";
  return NULL;
}

// Measured points of suite s: variants that run times thread counts.
int
bench_points(const struct benchsuite *s, int cpus, bool quick)
{
  int threads[BENCH_MAX_SWEEP];
  int i, nv = 0;

  for(i = 0; i < bench_nvariants(s); i++)
    if(bench_variant_runs(&s->variants[i], quick))
      nv++;
  return nv * bench_sweep(s->sweep, cpus, quick, threads);
}

// A milli-unit value as a plain decimal with three places, as the machine lines want.
int
bench_fmt_milli(char *buf, size_t size, u64 m)
{
  return scnprintf(buf, size, "%lu.%03lu", m / 1000, m % 1000);
}

// A milli-unit value for people: three significant digits and a k, M or G suffix
// (9780381.330 is "9.78M", 408108.864 "408k", 0.5 "0.50").
int
bench_fmt_rate(char *buf, size_t size, u64 m)
{
  static const char *const suffix[] = { "", "k", "M", "G" };
  u64 unit = 1, q, r;
  int i = 0;

  while(i < 3 && m >= 1000 * 1000 * unit) {
    unit *= 1000;
    i++;
  }
  q = m / unit;   // the value in milli of its unit, below 1000000
  if(q >= 100000) {
    r = (q + 500) / 1000;
    return scnprintf(buf, size, "%lu%s", r, suffix[i]);
  }
  if(q >= 10000) {
    r = (q + 50) / 100;
    return scnprintf(buf, size, "%lu.%lu%s", r / 10, r % 10, suffix[i]);
  }
  r = (q + 5) / 10;
  return scnprintf(buf, size, "%lu.%02lu%s", r / 100, r % 100, suffix[i]);
}

// One cell, such as "9.78M +-322k", right-aligned in a column, at buf + len; returns the
// new length. Two spaces always lead, so that a text too wide for its column stays apart.
static int
cell(char *buf, int size, int len, const char *text)
{
  return len + scnprintf(buf + len, size - len, "  %*s", CELL - 2, text);
}

// The suite's table: a row per thread count, a column per variant that ran, each cell the
// mean ops/s and its 95% half-width; then the main pair's ratio a/b where the suite has one.
void
bench_table(const struct benchsuite *s, const struct bench_results *r)
{
  char row[CELL * (BENCH_MAX_VARIANTS + 2) + 16], text[64], mean[16], ci[16];
  char la[32], lb[32], ratio[96];
  const struct bench_pair *p = &s->pairs[0];
  int nv = bench_nvariants(s);
  int a = -1, b = -1, i, t, len;
  bool shown[BENCH_MAX_VARIANTS];
  struct ratio q;

  for(i = 0; i < nv; i++) {
    shown[i] = false;
    for(t = 0; t < r->nthreads; t++)
      shown[i] |= r->ran[i][t];
  }
  if(p->a) {
    a = bench_find_variant(s, p->a, p->fanout_a);
    b = bench_find_variant(s, p->b, p->fanout_b);
    if(a < 0 || b < 0 || !shown[a] || !shown[b])
      a = b = -1;
  }

  ratio[0] = 0;
  if(a >= 0) {
    label(la, sizeof(la), &s->variants[a]);
    label(lb, sizeof(lb), &s->variants[b]);
    scnprintf(ratio, sizeof(ratio), "; ratio: %s over %s", la, lb);
  }
  printk("bench: %s: operations/s, mean +- 95%% interval half-width%s\n", s->name, ratio);
  len = scnprintf(row, sizeof(row), "  %7s", "threads");
  for(i = 0; i < nv; i++) {
    if(!shown[i])
      continue;
    label(text, sizeof(text), &s->variants[i]);
    len = cell(row, sizeof(row), len, text);
  }
  if(a >= 0)
    len = cell(row, sizeof(row), len, "ratio");
  printk("%s\n", row);

  for(t = 0; t < r->nthreads; t++) {
    len = scnprintf(row, sizeof(row), "  %7d", r->threads[t]);
    for(i = 0; i < nv; i++) {
      if(!shown[i])
        continue;
      if(!r->ran[i][t]) {
        len = cell(row, sizeof(row), len, "-");
        continue;
      }
      bench_fmt_rate(mean, sizeof(mean), r->st[i][t].mean_m);
      bench_fmt_rate(ci, sizeof(ci), r->st[i][t].ci95_m);
      scnprintf(text, sizeof(text), "%s +-%s", mean, ci);
      len = cell(row, sizeof(row), len, text);
    }
    if(a >= 0) {
      if(r->ran[a][t] && r->ran[b][t] && stats_ratio(&q, &r->st[a][t], &r->st[b][t]) == 0)
        scnprintf(text, sizeof(text), "%lu.%03lu +-%lu.%03lu", q.ratio_m / 1000,
                  q.ratio_m % 1000, q.ci95_m / 1000, q.ci95_m % 1000);
      else
        scnprintf(text, sizeof(text), "-");
      len = cell(row, sizeof(row), len, text);
    }
    printk("%s\n", row);
  }
}
