// Benchmark plans, comparisons and human tables: the thread counts of each sweep, the columns
// a boot measures (bench=quick, bench.aa=yes), the BENCH-SUITE, BENCH-CMP and BENCH-SEED lines
// (formatted here, printed by bench.c), and the table of means under a suite's BENCH lines.
#include "bench.h"
#include "cmdline.h"
#include "errno.h"
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

// A slot's variant name as BENCH lines give it: "radix-rcu", or its A/A copy "radix-rcu~aa".
int
bench_slot_name(char *buf, size_t size, const struct benchsuite *s, struct bench_slot slot)
{
  return scnprintf(buf, size, "%s%s", s->variants[slot.vi].name, slot.aa ? BENCH_AA_SUFFIX : "");
}

// A slot as the BENCH-SUITE line and the table's columns call it: "ticket", "radix-rcu/64",
// "radix-rcu~aa/64".
static int
label(char *buf, int size, const struct benchsuite *s, struct bench_slot slot)
{
  int len = bench_slot_name(buf, size, s, slot);

  if(s->variants[slot.vi].fanout)
    len += scnprintf(buf + len, size - len, "/%d", s->variants[slot.vi].fanout);
  return len;
}

// The variant pair p names as a, or -1.
static int
pair_a(const struct benchsuite *s, const struct bench_pair *p)
{
  return bench_find_variant(s, p->a, p->fanout_a);
}

static bool
in_plan(const struct bench_slot *slots, int n, int vi, bool aa)
{
  for(int i = 0; i < n; i++)
    if(slots[i].vi == vi && slots[i].aa == aa)
      return true;
  return false;
}

// The columns a boot measures, into slots[BENCH_MAX_SLOTS]; returns how many. Without
// bench.aa, every variant bench=quick keeps (bench_variant_runs), in the suite's order. With
// it, every variant that is the a of a pair (and that bench=quick keeps), in the suite's
// order, then a second copy of each in the same order: the comparisons are then a against
// its copy, the same code path in the same interleaving (kernel/bench/bench.c).
int
bench_plan(const struct benchsuite *s, bool quick, bool aa, struct bench_slot *slots)
{
  int n = 0, nv = bench_nvariants(s), na, vi, i;

  for(vi = 0; vi < nv; vi++) {
    if(!bench_variant_runs(&s->variants[vi], quick))
      continue;
    if(aa) {
      for(i = 0; i < BENCH_MAX_PAIRS && s->pairs[i].a; i++)
        if(pair_a(s, &s->pairs[i]) == vi)
          break;
      if(i == BENCH_MAX_PAIRS || !s->pairs[i].a)
        continue;
    }
    slots[n++] = (struct bench_slot){ vi, false };
  }
  if(aa)
    for(na = n, i = 0; i < na; i++)
      slots[n++] = (struct bench_slot){ slots[i].vi, true };
  return n;
}

static const char *const sweep_names[] = {
  [SWEEP_UP] = "up",
  [SWEEP_OVER] = "over",
  [SWEEP_FIXED] = "fixed",
};

// Appends key and a comma list of labels to buf at len, nothing if n is 0; returns the new
// length.
static int
slot_list(char *buf, size_t size, int len, const char *key, const struct benchsuite *s,
          const struct bench_slot *slots, int n)
{
  for(int i = 0; i < n; i++) {
    len += scnprintf(buf + len, size - len, "%s", i ? "," : key);
    len += label(buf + len, size - len, s, slots[i]);
  }
  return len;
}

// The suite's BENCH-SUITE line, printed before its points; doc/console.md is the contract:
//   BENCH-SUITE suite=S sweep=up|over|fixed threads=1,2,4 variants=V,V/64[ skipped=V/16,...]
//     [extras=K,...] op=TEXT seed=TEXT
// Every value before op= is free of spaces; op and seed are text with spaces but no '='
// (bench_suite_bad), so op= runs to " seed=" and seed= to the end of the line. A variant
// with a fanout is name/fanout; variants= lists the columns measured (bench_plan: with
// bench.aa=yes the A/A copies too, as name~aa or name~aa/fanout), skipped= the variants
// this boot leaves out (bench=quick, and with bench.aa=yes those no pair has as its a).
int
bench_suite_line(char *buf, size_t size, const struct benchsuite *s, int cpus, bool quick,
                 bool aa)
{
  struct bench_slot plan[BENCH_MAX_SLOTS], out[BENCH_MAX_VARIANTS];
  int threads[BENCH_MAX_SWEEP], n, nout = 0, i, len;

  len = scnprintf(buf, size, "BENCH-SUITE suite=%s sweep=%s threads=", s->name,
                  sweep_names[s->sweep]);
  n = bench_sweep(s->sweep, cpus, quick, threads);
  for(i = 0; i < n; i++)
    len += scnprintf(buf + len, size - len, i ? ",%d" : "%d", threads[i]);
  n = bench_plan(s, quick, aa, plan);
  for(i = 0; i < bench_nvariants(s); i++)
    if(!in_plan(plan, n, i, false))
      out[nout++] = (struct bench_slot){ i, false };
  len = slot_list(buf, size, len, " variants=", s, plan, n);
  len = slot_list(buf, size, len, " skipped=", s, out, nout);
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

// Why suite s's headline is unusable, or NULL: it must be one of its pairs exactly, so that
// its BENCH-SEED line can quote that pair's BENCH-CMP line.
static const char *
headline_bad(const struct benchsuite *s)
{
  const struct bench_headline *h = &s->headline;
  int i;

  if(!h->a)
    return NULL;
  for(i = 0; i < BENCH_MAX_PAIRS && s->pairs[i].a; i++)
    if(!strcmp(s->pairs[i].a, h->a) && s->pairs[i].fanout_a == h->fanout_a && h->b &&
       !strcmp(s->pairs[i].b, h->b) && s->pairs[i].fanout_b == h->fanout_b)
      break;
  if(i == BENCH_MAX_PAIRS || !s->pairs[i].a)
    return "its headline is not one of its pairs";
  if(h->threads < HEAD_ONE || h->threads > HEAD_TWICE_CPUS || h->seed_verdict < STATS_SLOWER ||
     h->seed_verdict > STATS_FASTER || !h->cite || !h->cite[0])
    return "its headline has no thread rule, seed verdict or citation";
  return NULL;
}

// Why the registry cannot take suite s, or NULL: its name must be one bench= can say and the
// BENCH lines can carry, and its BENCH-SUITE line must parse and fit one printk.
const char *
bench_suite_bad(const struct benchsuite *s)
{
  char line[BENCH_LINE_MAX + 2];   // one byte more than a line may have
  const char *why;
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
  if(s->runs > 1000)
    return "it asks for more runs than bench.runs= allows (1000)";
  for(i = 0; i < bench_nvariants(s); i++)
    if(!s->variants[i].name[0] || !made_of(s->variants[i].name, NAME_CHARS))
      return "a variant's name is not [a-z0-9-]+";
  for(i = 0; i < BENCH_MAX_EXTRAS && s->extras[i]; i++)
    if(!s->extras[i][0] || !made_of(s->extras[i], NAME_CHARS "_"))
      return "an extra's name is not [a-z0-9_-]+";
  for(i = 0; i < BENCH_MAX_PAIRS && s->pairs[i].a; i++)
    if(pair_a(s, &s->pairs[i]) < 0 || !s->pairs[i].b ||
       bench_find_variant(s, s->pairs[i].b, s->pairs[i].fanout_b) < 0)
      return "a pair names a variant the suite does not have";
  if((why = headline_bad(s)))
    return why;
  // The longest lines: every variant, or every a and its copy, and the over sweep at the
  // most CPUs.
  if(bench_suite_line(line, sizeof(line), s, 255, false, false) > BENCH_LINE_MAX ||
     bench_suite_line(line, sizeof(line), s, 255, false, true) > BENCH_LINE_MAX)
    return "its BENCH-SUITE line is too long";
  return NULL;
}

// Measured points of suite s: columns times thread counts.
int
bench_points(const struct benchsuite *s, int cpus, bool quick, bool aa)
{
  struct bench_slot slots[BENCH_MAX_SLOTS];
  int threads[BENCH_MAX_SWEEP];

  return bench_plan(s, quick, aa, slots) * bench_sweep(s->sweep, cpus, quick, threads);
}

// The slot of variant vi (its copy with aa) in r, or -1.
static int
slot_of(const struct bench_results *r, int vi, bool aa)
{
  for(int i = 0; i < r->nslots; i++)
    if(r->slots[i].vi == vi && r->slots[i].aa == aa)
      return i;
  return -1;
}

// The suite's comparisons among r's columns, into cmps[BENCH_MAX_PAIRS]; returns how many.
// Without bench.aa, each pair whose two variants were planned; with it (r->aa), each variant
// that is some pair's a against its copy, once however many pairs it is the a of.
int
bench_cmps(const struct benchsuite *s, const struct bench_results *r, struct bench_cmp *cmps)
{
  bool aa = r->aa;
  int n = 0, i, k, a, b;

  for(i = 0; i < BENCH_MAX_PAIRS && s->pairs[i].a; i++) {
    a = slot_of(r, pair_a(s, &s->pairs[i]), false);
    b = aa ? slot_of(r, pair_a(s, &s->pairs[i]), true) :
             slot_of(r, bench_find_variant(s, s->pairs[i].b, s->pairs[i].fanout_b), false);
    for(k = 0; k < n && (cmps[k].a != a || cmps[k].b != b); k++)
      ;
    if(a >= 0 && b >= 0 && k == n)
      cmps[n++] = (struct bench_cmp){ a, b };
  }
  return n;
}

static bool
is_head(const struct bench_results *r, struct bench_cmp c, int t)
{
  return r->head_runs && t == r->head_t && c.a == r->head.a && c.b == r->head.b;
}

// The level of comparison c at thread index t among a suite's m, as stats_ratio's m (the level
// 1 - 0.05/m): one of m (Bonferroni), unless the suite's equivalence headline took its extra
// rounds (r->head_runs). Then the headline, the one comparison the suite was built to decide and
// named before any run, has half the 5% (m = 2) and the other m - 1 share the other half
// (2(m - 1) each): still 5% for the family, by the same inequality (Bonferroni's, with
// weights, as in Holm's weighted procedure, Scand. J. Statist. 6, 1979). dbench's headline is
// one of 21: at 1 - 0.05/2 about half the runs give the interval 1 - 0.05/21 would.
u32
bench_level(const struct bench_results *r, struct bench_cmp c, int t, u32 m)
{
  if(!r->head_runs || m < 2)
    return m;
  return is_head(r, c, t) ? 2 : 2 * (m - 1);
}

// Comparison c at thread index t, one of the suite's m: the ratio of the two means and its
// interval from their two variances (stats_ratio, Welch) at bench_level. 0, or -1 if either
// side was not measured there or b did nothing at all (there is no ratio). At the headline's
// point a comparison other than the headline reads the rounds every column ran. This is the
// verdict's interval: the paired one below was measured against it and lost (doc/benchmarks.md,
// "Intervals and verdicts"), the host's scatter being no drift that a round shares.
int
bench_compare(struct ratio *q, const struct bench_results *r, struct bench_cmp c, int t,
              u32 m)
{
  bool first = r->head_runs && t == r->head_t && !is_head(r, c, t);

  if(!r->ran[c.a][t] || !r->ran[c.b][t])
    return -1;
  return stats_ratio(q, first ? &r->first[c.a] : &r->st[c.a][t],
                     first ? &r->first[c.b] : &r->st[c.b][t], bench_level(r, c, t, m),
                     r->margin_m);
}

// The same comparison paired round by round (stats_pair_ratio: the rounds' geometric mean
// ratio, Student's t on their log ratios), from the rounds the runner kept: 0, or -1 if it
// kept none there (a side not measured, or a run of no operations).
int
bench_compare_paired(struct ratio *q, const struct bench_results *r, struct bench_cmp c, int t,
                     u32 m)
{
  for(int k = 0; k < r->npaired; k++)
    if(r->paired[k].a == c.a && r->paired[k].b == c.b && r->ran[c.a][t] && r->ran[c.b][t])
      return stats_pair_ratio(q, &r->pair[k][t], bench_level(r, c, t, m), r->margin_m);
  return -1;
}

// How many BENCH-CMP lines the comparisons give: the m of their Bonferroni level.
u32
bench_count_cmps(const struct bench_results *r, const struct bench_cmp *cmps, int n)
{
  struct ratio q;
  u32 m = 0;

  for(int i = 0; i < n; i++)
    for(int t = 0; t < r->nthreads; t++)
      m += bench_compare(&q, r, cmps[i], t, 1) == 0;
  return m;
}

const char *
bench_verdict_name(int verdict)
{
  if(verdict == STATS_FASTER)
    return "faster";
  if(verdict == STATS_SLOWER)
    return "slower";
  if(verdict == STATS_SAME)
    return "same";
  return "inconclusive";
}

// The fanout keys of a comparison, " fanout_a=64 fanout_b=16" (each only if it has one).
static int
fanouts(char *buf, size_t size, const struct benchsuite *s, const struct bench_results *r,
        struct bench_cmp c, bool with_b)
{
  int fa = s->variants[r->slots[c.a].vi].fanout, fb = s->variants[r->slots[c.b].vi].fanout;
  int len = 0;

  buf[0] = 0;
  if(fa)
    len += scnprintf(buf + len, size - len, " fanout_a=%d", fa);
  if(fb && with_b)
    len += scnprintf(buf + len, size - len, " fanout_b=%d", fb);
  return len;
}

// The BENCH-CMP line of comparison c at thread index t, whose numbers bench_compare gave (q)
// and, if p is not NULL, bench_compare_paired:
//   BENCH-CMP suite=S a=V b=V [fanout_a=F fanout_b=F] threads=N ratio=R ci95=H verdict=W
//     [pairs=P paired_ratio=R paired_ci95=H paired_verdict=W]
// ci95 is the half-width of the interval the verdict comes from, so that the printed
// interval and the verdict always agree; the paired fields show the same point read round by
// round (pairs= the rounds), their verdict likewise from their interval.
int
bench_cmp_line(char *buf, size_t size, const struct benchsuite *s,
               const struct bench_results *r, struct bench_cmp c, int t,
               const struct ratio *q, const struct ratio *p)
{
  char a[48], b[48], fan[48], ratio[32], ci[32];
  int len;

  bench_slot_name(a, sizeof(a), s, r->slots[c.a]);
  bench_slot_name(b, sizeof(b), s, r->slots[c.b]);
  fanouts(fan, sizeof(fan), s, r, c, true);
  bench_fmt_milli(ratio, sizeof(ratio), q->ratio_m);
  bench_fmt_milli(ci, sizeof(ci), q->ci_m);
  len = scnprintf(buf, size, "BENCH-CMP suite=%s a=%s b=%s%s threads=%d ratio=%s ci95=%s"
                  " verdict=%s", s->name, a, b, fan, r->threads[t], ratio, ci,
                  bench_verdict_name(q->verdict));
  if(!p)
    return len;
  bench_fmt_milli(ratio, sizeof(ratio), p->ratio_m);
  bench_fmt_milli(ci, sizeof(ci), p->ci_m);
  return len + scnprintf(buf + len, size - len, " pairs=%u paired_ratio=%s paired_ci95=%s"
                         " paired_verdict=%s", p->pairs, ratio, ci,
                         bench_verdict_name(p->verdict));
}

// The point of suite s's headline at cpus CPUs: the thread index its rule picks from r's
// sweep, and in *c the comparison; -1 if the suite has none or its columns were not planned.
int
bench_headline_point(const struct benchsuite *s, const struct bench_results *r, int cpus,
                     struct bench_cmp *c)
{
  const struct bench_headline *h = &s->headline;
  int most = h->threads == HEAD_ONE ? 1 : h->threads == HEAD_CPUS ? cpus : 2 * cpus;
  int t;

  if(!h->a)
    return -1;
  c->a = slot_of(r, bench_find_variant(s, h->a, h->fanout_a), false);
  c->b = slot_of(r, bench_find_variant(s, h->b, h->fanout_b), false);
  for(t = r->nthreads - 1; t >= 0 && r->threads[t] > most; t--)
    ;
  return c->a < 0 || c->b < 0 ? -1 : t;
}

// Whether this boot's verdict q says what the seed said: agrees or differs, unknown when q
// cannot tell (inconclusive says neither same nor different).
static const char *
direction(const struct ratio *q, int seed_verdict)
{
  if(q->verdict == STATS_INCONCLUSIVE)
    return "unknown";
  return q->verdict == seed_verdict ? "agrees" : "differs";
}

// Whether the seed's own ratio lies inside this boot's interval, or above or below it: a
// direction that agrees with a magnitude outside (madvise: 1.9 in 2007, 13 here) is a
// different effect, and the README says why.
static const char *
magnitude(const struct ratio *q, u64 seed_m)
{
  if(seed_m > q->ratio_m + q->ci_m)
    return "above";
  if(seed_m + q->ci_m < q->ratio_m)
    return "below";
  return "inside";
}

// The BENCH-SEED line of suite s's headline, from the numbers of its BENCH-CMP line at thread
// index t:
//   BENCH-SEED suite=S a=V b=V [fanout_a=F] threads=N seed_ratio=R seed_verdict=W ratio=R
//     ci95=H verdict=W direction=agrees|differs|unknown magnitude=inside|above|below
int
bench_seed_line(char *buf, size_t size, const struct benchsuite *s,
                const struct bench_results *r, struct bench_cmp c, int t,
                const struct ratio *q)
{
  const struct bench_headline *h = &s->headline;
  char fan[48], seed[32], ratio[32], ci[32];

  fanouts(fan, sizeof(fan), s, r, c, true);
  bench_fmt_milli(seed, sizeof(seed), h->seed_ratio_m);
  bench_fmt_milli(ratio, sizeof(ratio), q->ratio_m);
  bench_fmt_milli(ci, sizeof(ci), q->ci_m);
  return scnprintf(buf, size, "BENCH-SEED suite=%s a=%s b=%s%s threads=%d seed_ratio=%s"
                   " seed_verdict=%s ratio=%s ci95=%s verdict=%s direction=%s magnitude=%s",
                   s->name, h->a, h->b, fan, r->threads[t], seed,
                   bench_verdict_name(h->seed_verdict), ratio, ci, bench_verdict_name(q->verdict),
                   direction(q, h->seed_verdict), magnitude(q, h->seed_ratio_m));
}

// The reason word of a BENCH-SKIP line for a setup's error.
const char *
bench_errno_word(int err)
{
  switch(-err) {
  case ENOMEM: return "enomem";
  case ENOSPC: return "enospc";
  case EEXIST: return "eexist";
  case ENOENT: return "enoent";
  case EINVAL: return "einval";
  case EBUSY: return "ebusy";
  default: return "error";
  }
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

// The suite's table: a row per thread count, a column per slot that ran, each cell the
// mean ops/s and its 95% half-width; then the first comparison's ratio a/b, with the interval
// and level of its BENCH-CMP lines (one of m comparisons).
void
bench_table(const struct benchsuite *s, const struct bench_results *r, u32 m)
{
  char row[CELL * (BENCH_MAX_SLOTS + 2) + 16], text[64], mean[16], ci[16];
  char la[40], lb[40], ratio[160];
  struct bench_cmp cmps[BENCH_MAX_PAIRS];
  int nc = bench_cmps(s, r, cmps);
  int i, t, len;
  bool shown[BENCH_MAX_SLOTS];
  struct ratio q;

  for(i = 0; i < r->nslots; i++) {
    shown[i] = false;
    for(t = 0; t < r->nthreads; t++)
      shown[i] |= r->ran[i][t];
  }
  if(nc > 0 && (!shown[cmps[0].a] || !shown[cmps[0].b]))
    nc = 0;

  ratio[0] = 0;
  if(nc > 0) {
    label(la, sizeof(la), s, r->slots[cmps[0].a]);
    label(lb, sizeof(lb), s, r->slots[cmps[0].b]);
    if(r->head_runs && m > 1)
      scnprintf(ratio, sizeof(ratio), "; ratio: %s over %s, +- its interval at 1 - 0.05/%u"
                " (1 - 0.05/2 for the headline at %d)", la, lb, 2 * (m - 1),
                r->threads[r->head_t]);
    else
      scnprintf(ratio, sizeof(ratio), "; ratio: %s over %s, +- its interval at 1 - 0.05/%u",
                la, lb, m);
  }
  printk("bench: %s: operations/s, mean +- 95%% interval half-width%s\n", s->name, ratio);
  len = scnprintf(row, sizeof(row), "  %7s", "threads");
  for(i = 0; i < r->nslots; i++) {
    if(!shown[i])
      continue;
    label(text, sizeof(text), s, r->slots[i]);
    len = cell(row, sizeof(row), len, text);
  }
  if(nc > 0)
    len = cell(row, sizeof(row), len, "ratio");
  printk("%s\n", row);

  for(t = 0; t < r->nthreads; t++) {
    len = scnprintf(row, sizeof(row), "  %7d", r->threads[t]);
    for(i = 0; i < r->nslots; i++) {
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
    if(nc > 0) {
      if(bench_compare(&q, r, cmps[0], t, m) == 0)
        scnprintf(text, sizeof(text), "%lu.%03lu +-%lu.%03lu", q.ratio_m / 1000,
                  q.ratio_m % 1000, q.ci_m / 1000, q.ci_m % 1000);
      else
        scnprintf(text, sizeof(text), "-");
      len = cell(row, sizeof(row), len, text);
    }
    printk("%s\n", row);
  }
}

// What a suite's points say, once they are all measured: its table, its BENCH-CMP lines (one
// interval each, at the Bonferroni level of their number m) and the BENCH-SEED line of its
// headline. A headline whose point was not measured (skipped) has no BENCH-SEED line, only a
// note saying so; with bench.aa=yes there is none (the comparisons are then no headline's).
// Adds its BENCH-CMP lines to the tally: those faster or slower, those inconclusive, and the
// suite as one family, false if any of its verdicts was faster or slower.
void
bench_report(const struct benchsuite *s, const struct bench_results *r, int cpus,
             struct bench_tally *tally)
{
  u32 decided = tally->decided, printed = tally->cmps;
  struct bench_cmp cmps[BENCH_MAX_PAIRS], hc;
  int nc = bench_cmps(s, r, cmps), i, t;
  u32 m = bench_count_cmps(r, cmps, nc);
  char line[BENCH_LINE_MAX + 1];
  struct ratio q, p;
  bool havep;

  bench_table(s, r, m);
  for(i = 0; i < nc; i++) {
    for(t = 0; t < r->nthreads; t++) {
      if(bench_compare(&q, r, cmps[i], t, m) < 0)
        continue;
      havep = bench_compare_paired(&p, r, cmps[i], t, m) == 0;
      bench_cmp_line(line, sizeof(line), s, r, cmps[i], t, &q, havep ? &p : NULL);
      printk("%s\n", line);
      tally->cmps++;
      tally->decided += q.verdict == STATS_FASTER || q.verdict == STATS_SLOWER;
      tally->inconclusive += q.verdict == STATS_INCONCLUSIVE;
    }
  }
  if(tally->cmps > printed) {   // a family: a suite that printed a comparison
    tally->families++;
    tally->false_families += tally->decided > decided;
  }
  if(r->aa || (t = bench_headline_point(s, r, cpus, &hc)) < 0)
    return;
  if(bench_compare(&q, r, hc, t, m) < 0) {
    printk("bench: %s: its headline, %s against %s at %d threads, was not measured: no"
           " BENCH-SEED line\n", s->name, s->headline.a, s->headline.b, r->threads[t]);
    return;
  }
  bench_seed_line(line, sizeof(line), s, r, hc, t, &q);
  printk("%s\n", line);
}
