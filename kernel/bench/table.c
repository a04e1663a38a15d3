// Benchmark plans and human tables: the thread counts of each sweep, the variants bench=quick
// keeps, and the table of means printed under a suite's BENCH lines. No machine lines here.
#include "bench.h"
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

// The thread counts of a sweep at cpus online CPUs (the contract's "Suites" section),
// in increasing order, into threads[BENCH_MAX_SWEEP]; returns how many.
int
bench_sweep(int sweep, int cpus, bool quick, int *threads)
{
  int n = 0, t;

  if(sweep == SWEEP_FIXED){
    if(quick){
      add(threads, &n, 1);
      add(threads, &n, 8);
      return n;
    }
    for(t = 1; t <= 16; t *= 2)
      add(threads, &n, t);
    return n;
  }
  if(quick){
    add(threads, &n, 1);
    add(threads, &n, cpus);
    if(sweep == SWEEP_OVER)
      add(threads, &n, 2 * cpus);
    return n;
  }
  for(t = 1; t < cpus; t *= 2)
    add(threads, &n, t);
  add(threads, &n, cpus);
  if(sweep == SWEEP_OVER){
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

  while(i < 3 && m >= 1000 * 1000 * unit){
    unit *= 1000;
    i++;
  }
  q = m / unit;   // the value in milli of its unit, below 1000000
  if(q >= 100000){
    r = (q + 500) / 1000;
    return scnprintf(buf, size, "%lu%s", r, suffix[i]);
  }
  if(q >= 10000){
    r = (q + 50) / 100;
    return scnprintf(buf, size, "%lu.%lu%s", r / 10, r % 10, suffix[i]);
  }
  r = (q + 5) / 10;
  return scnprintf(buf, size, "%lu.%02lu%s", r / 100, r % 100, suffix[i]);
}

// A variant as its table column calls it: "ticket", "radix-rcu/64".
static void
label(char *buf, int size, const struct bench_variant *v)
{
  if(v->fanout)
    scnprintf(buf, size, "%s/%d", v->name, v->fanout);
  else
    scnprintf(buf, size, "%s", v->name);
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

  for(i = 0; i < nv; i++){
    shown[i] = false;
    for(t = 0; t < r->nthreads; t++)
      shown[i] |= r->ran[i][t];
  }
  if(p->a){
    a = bench_find_variant(s, p->a, p->fanout_a);
    b = bench_find_variant(s, p->b, p->fanout_b);
    if(a < 0 || b < 0 || !shown[a] || !shown[b])
      a = b = -1;
  }

  ratio[0] = 0;
  if(a >= 0){
    label(la, sizeof(la), &s->variants[a]);
    label(lb, sizeof(lb), &s->variants[b]);
    scnprintf(ratio, sizeof(ratio), "; ratio: %s over %s", la, lb);
  }
  printk("bench: %s: operations/s, mean +- 95%% interval half-width%s\n", s->name, ratio);
  len = scnprintf(row, sizeof(row), "  %7s", "threads");
  for(i = 0; i < nv; i++){
    if(!shown[i])
      continue;
    label(text, sizeof(text), &s->variants[i]);
    len = cell(row, sizeof(row), len, text);
  }
  if(a >= 0)
    len = cell(row, sizeof(row), len, "ratio");
  printk("%s\n", row);

  for(t = 0; t < r->nthreads; t++){
    len = scnprintf(row, sizeof(row), "  %7d", r->threads[t]);
    for(i = 0; i < nv; i++){
      if(!shown[i])
        continue;
      if(!r->ran[i][t]){
        len = cell(row, sizeof(row), len, "-");
        continue;
      }
      bench_fmt_rate(mean, sizeof(mean), r->st[i][t].mean_m);
      bench_fmt_rate(ci, sizeof(ci), r->st[i][t].ci95_m);
      scnprintf(text, sizeof(text), "%s +-%s", mean, ci);
      len = cell(row, sizeof(row), len, text);
    }
    if(a >= 0){
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
