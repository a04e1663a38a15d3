// Benchmark statistics in integer fixed point: mean, standard deviation, Student-t 95%
// intervals, and the ratio of two variants (unpaired, or paired round by round) with its
// Bonferroni-adjusted interval and its verdict of four words.

#include "types.h"
#include "compiler.h"
#include "stats.h"

// Values are kept in milli-units (x1000) so results carry three decimals.
// Squares of milli-values reach 1e30, hence 128-bit intermediates.
typedef unsigned __int128 u128;

#define MILLI 1000
#define MICRO 1000000

// Two-sided 95% quantiles of Student's t, t(0.975, df), x1000, as in the
// standard tables (e.g. NIST/SEMATECH e-Handbook of Statistical Methods,
// section 1.3.6.7.2); the host test recomputes every row numerically.
// Between rows we use the row of the next lower df: t falls as df grows,
// so that value is a little too large and the interval errs on the wide side.
// The limit for infinite df is 1.960; the last row (1.962 at df 1000)
// stands for everything above it, again erring wide.
static const struct {
  u32 df;
  u32 t_m;
} t975[] = {
  {1, 12706}, {2, 4303},  {3, 3182},  {4, 2776},  {5, 2571},  {6, 2447},
  {7, 2365},  {8, 2306},  {9, 2262},  {10, 2228}, {11, 2201}, {12, 2179},
  {13, 2160}, {14, 2145}, {15, 2131}, {16, 2120}, {17, 2110}, {18, 2101},
  {19, 2093}, {20, 2086}, {21, 2080}, {22, 2074}, {23, 2069}, {24, 2064},
  {25, 2060}, {26, 2056}, {27, 2052}, {28, 2048}, {29, 2045}, {30, 2042},
  {40, 2021}, {60, 2000}, {120, 1980}, {1000, 1962},
};

// t(0.975, df) x1000; 0 for df 0, which has no interval.
u32
stats_t975(u32 df)
{
  int i;

  if(df == 0)
    return 0;
  i = ARRAY_SIZE(t975) - 1;
  while(t975[i].df > df)
    i--;
  return t975[i].t_m;
}

// n / d by shift-and-subtract long division. gcc turns a 128-bit '/'
// into a call to libgcc's __udivti3, which the kernel does not link.
// r stays below d < 2^64, so shifting it left never overflows.
static u128
div128(u128 n, u64 d)
{
  u128 q, r;
  int i;

  q = 0;
  r = 0;
  for(i = 127; i >= 0; i--) {
    r = (r << 1) | ((n >> i) & 1);
    if(r >= d) {
      r -= d;
      q |= (u128)1 << i;
    }
  }
  return q;
}

// n / d rounded to nearest.
static u128
divr(u128 n, u64 d)
{
  return div128(n + d / 2, d);
}

// floor(sqrt(x)), one result bit per step: the binary digit-by-digit
// method (the pencil-and-paper square root in base 2), no division needed.
u64
isqrt_u128(u128 x)
{
  u128 root, bit;

  root = 0;
  bit = (u128)1 << 126;
  while(bit > x)
    bit >>= 2;
  while(bit != 0) {
    if(x >= root + bit) {
      x -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

// sqrt(x) rounded to nearest: with r = floor(sqrt(x)), x lies past the
// midpoint (r + 1/2)^2 = r^2 + r + 1/4 exactly when x - r^2 > r.
// Valid for x < 2^127, far above any value used here.
static u64
sqrt_round(u128 x)
{
  u64 r;

  r = isqrt_u128(x);
  if(x - (u128)r * r > r)
    r++;
  return r;
}

// t * sqrt(v) in milli, for v in milli^2 and t in milli. The root is
// taken in micro so its rounding stays far below the last printed digit
// even after multiplying by t = 12.706.
static u64
halfwidth(u32 t_m, u128 v_m2)
{
  u128 se_u;

  se_u = sqrt_round(v_m2 * MICRO);
  return divr(se_u * t_m, MICRO);
}

// Squared standard error of the mean, s^2 / n, in milli^2.
static u128
sem2(const struct stats *s)
{
  return divr((u128)s->stddev_m * s->stddev_m, s->n);
}

void
stats_compute(struct stats *s, const u64 *x, u32 n)
{
  u128 sum, sq, var;
  u64 d, xm;
  u32 i;

  s->n = n;
  s->mean_m = 0;
  s->stddev_m = 0;
  s->ci95_m = 0;
  if(n == 0)
    return;

  sum = 0;
  for(i = 0; i < n; i++)
    sum += x[i];
  s->mean_m = divr(sum * MILLI, n);
  if(n < 2)
    return;

  // Two passes: summing squared deviations from the mean, rather than
  // sum(x^2) - n*mean^2, avoids cancelling two nearly equal huge numbers
  // (Chan, Golub and LeVeque, "Algorithms for computing the sample
  // variance", The American Statistician 37(3), 1983).
  // Each deviation is at most 1e15 milli, so n squares stay below 1e33.
  sq = 0;
  for(i = 0; i < n; i++) {
    xm = x[i] * MILLI;
    d = xm > s->mean_m ? xm - s->mean_m : s->mean_m - xm;
    sq += (u128)d * d;
  }
  var = divr(sq, n - 1);
  s->stddev_m = sqrt_round(var);
  s->ci95_m = halfwidth(stats_t975(n - 1), divr(var, n));
}

// Welch-Satterthwaite degrees of freedom, rounded down, for squared
// standard errors va = sa^2/na and vb = sb^2/nb (Welch, Biometrika 34, 1947):
//   df = (va + vb)^2 / (va^2 / (na-1) + vb^2 / (nb-1))
// Needs na, nb >= 2.
static u32
welch_df(u128 va, u128 vb, u32 na, u32 nb)
{
  u64 a, b, df, lo, hi;

  lo = MIN(na, nb) - 1;
  hi = na + nb - 2;
  // No spread on either side: df is 0/0, but the interval is 0 wide
  // whatever t is, so any value in range will do.
  if(va + vb == 0)
    return hi;

  // df does not change when va and vb are scaled together. Bring their
  // sum into [2^31, 2^32): every square below then fits in a u64 and the
  // larger of the two keeps at least 30 significant bits.
  while(va + vb >= (u128)1 << 32) {
    va >>= 1;
    vb >>= 1;
  }
  while(va + vb < (u128)1 << 31) {
    va <<= 1;
    vb <<= 1;
  }
  a = va;
  b = vb;
  df = (a + b) * (a + b) / (a * a / (na - 1) + b * b / (nb - 1));

  // Exactly, lo <= df <= hi; truncation above may step one past either.
  return MIN(MAX(df, lo), hi);
}

// Quantiles of Student's t at any level, for the Bonferroni-adjusted intervals of
// stats_ratio. P(|T| <= t) for integer df has a closed form in theta = atan(t / sqrt(df))
// (Abramowitz and Stegun, Handbook of Mathematical Functions, 26.7.3 and 26.7.4):
//   df even: s * (1 + 1/2 c^2 + 1*3/(2*4) c^4 + ... + 1*3..(df-3)/(2*4..(df-2)) c^(df-2))
//   df odd:  2/pi * (theta + s c * (1 + 2/3 c^2 + ... + 2*4..(df-3)/(3*5..(df-2)) c^(df-3)))
// with s = sin(theta) and c = cos(theta), evaluated here in Q62 fixed point (1.0 is 2^62),
// and inverted by bisection on t.
#define Q 62
#define ONE ((u64)1 << Q)
#define HALF_PI 0x6487ed5110b4611aULL   // pi/2 in Q62: 7244019458077122842.38
#define TQ_MAX_M 10000000               // t = 10000: beyond any level stats_tq is asked for
#define TQ_MAX_DF 4000                  // larger df use this one: the quantile errs wide, < 0.1%

static u64
mulq(u64 a, u64 b)
{
  return ((u128)a * b) >> Q;
}

// A Q62 value held in 128 bits (a sum of many terms, up to ~50) times a Q62 value <= 1.
static u128
mulq_wide(u128 a, u64 b)
{
  return (a >> Q) * b + (((a & (ONE - 1)) * b) >> Q);
}

// term * num / den for a Q62 term, without leaving 64 bits (num < den <= 2 * TQ_MAX_DF).
static u64
scale(u64 term, u32 num, u32 den)
{
  return term / den * num + term % den * num / den;
}

// atan(r) for r in [0, 1], Q62. Two halvings, atan r = 2 atan(r / (1 + sqrt(1 + r^2))),
// bring r below tan(pi/16) = 0.199; the Taylor series then gains 4.6 bits a term.
static u64
atan_q(u64 r)
{
  u64 r2, p, pos = 0, neg = 0;
  int i, k;

  for(i = 0; i < 2; i++)
    r = div128((u128)r << Q, ONE + isqrt_u128((u128)(ONE + mulq(r, r)) << Q));
  r2 = mulq(r, r);
  for(p = r, k = 0; p; p = mulq(p, r2), k++) {
    if(k % 2)
      neg += p / (2 * k + 1);
    else
      pos += p / (2 * k + 1);
  }
  return (pos - neg) << 2;
}

// P(|T| <= t_m / 1000) for Student's t with df >= 1 degrees of freedom, Q62.
static u64
t_mass(u32 df, u64 t_m)
{
  u64 d = (u64)df * MICRO + t_m * t_m;   // (df + t^2) in micro
  u64 c2 = div128((u128)df * MICRO << Q, d), s, c, theta, term;
  u128 sum, a;
  u32 k;

  s = isqrt_u128((u128)(ONE - c2) << Q);   // sin(theta)
  c = isqrt_u128((u128)c2 << Q);           // cos(theta)
  sum = ONE;
  term = ONE;
  if(df % 2 == 0) {
    for(k = 1; 2 * k + 2 <= df; k++) {   // up to cos^(df-2)
      term = scale(mulq(term, c2), 2 * k - 1, 2 * k);
      sum += term;
    }
    a = mulq_wide(sum, s);
  } else {
    theta = s <= c ? atan_q(div128((u128)s << Q, c)) : HALF_PI - atan_q(div128((u128)c << Q, s));
    for(k = 1; 2 * k + 3 <= df; k++) {   // up to cos^(df-3)
      term = scale(mulq(term, c2), 2 * k, 2 * k + 1);
      sum += term;
    }
    a = df == 1 ? 0 : mulq_wide(sum, mulq(s, c));
    a = div128((theta + a) << Q, HALF_PI);
  }
  return a > ONE ? ONE : a;
}

// The t quantile, x1000 and rounded up, with P(|T| <= t) = 1 - 0.05/m for df degrees of
// freedom: the two-sided level of each of m comparisons whose family-wise level is 95%
// (Bonferroni). m = 1 is t(0.975, df). 0 for df 0, which has no interval.
u32
stats_tq(u32 df, u32 m)
{
  u64 target, lo = 0, hi = TQ_MAX_M, mid;

  if(df == 0)
    return 0;
  if(m == 0)
    m = 1;
  df = MIN(df, TQ_MAX_DF);
  target = ONE - ONE / (20 * (u64)m);
  if(t_mass(df, hi) < target)
    return hi;
  // t_mass(lo) < target <= t_mass(hi): t_mass rises with t.
  while(hi - lo > 1) {
    mid = lo + (hi - lo) / 2;
    if(t_mass(df, mid) >= target)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

// The verdict an interval printed as ratio_m +- ci_m states, at an equivalence margin of
// margin_m: faster or slower when it excludes 1; same when it lies inside 1 +- margin, which
// is Schuirmann's two one-sided tests at the interval's own level (J. Pharmacokin. Biopharm.
// 15, 1987); inconclusive when it holds 1 and reaches past the margin: a wide interval around
// 1 is no evidence of sameness.
int
stats_verdict(u64 ratio_m, u64 ci_m, u32 margin_m)
{
  if(ratio_m > MILLI + ci_m)
    return STATS_FASTER;
  if(ratio_m + ci_m < MILLI)
    return STATS_SLOWER;
  if(ratio_m + ci_m <= MILLI + margin_m && ratio_m + margin_m >= MILLI + ci_m)
    return STATS_SAME;
  return STATS_INCONCLUSIVE;
}

// The interval 2^(log_q +- h_q) (log2 values in Q32) of the ratio r->ratio_m, as the caller
// prints it: ci_m its longer arm from the printed ratio, each end rounded outwards, and the
// verdict read off ratio_m +- ci_m. h_q is capped at 2^62 (a factor of 2^(2^30)), past which
// both ends saturate anyway. Shared by stats_ratio and stats_pair_ratio.
static void
log_interval(struct ratio *r, s64 log_q, u128 h_q, u32 margin_m)
{
  s64 h = (s64)MIN(h_q, (u128)1 << 62);
  u64 hi = stats_exp2_milli(log_q + h, 1), lo = stats_exp2_milli(log_q - h, -1);

  r->ci_m = MAX(hi > r->ratio_m ? hi - r->ratio_m : 0, r->ratio_m > lo ? r->ratio_m - lo : 0);
  r->verdict = stats_verdict(r->ratio_m, r->ci_m, margin_m);
}

// The ratio of means and its interval on the log scale. The delta method (a first-order
// Taylor expansion) gives the variance of log(ma/mb) as the sum of the two means' relative
// squared standard errors, va/ma^2 + vb/mb^2; t times its root, at Welch's df from those two
// terms, either side of log(ma/mb), and the exponential of the ends is the interval. Before
// 2026-12-07 the expansion was of ma/mb itself, an interval symmetric around the ratio: where
// the runs scatter by more than their mean (a queued lock at 16 threads on 8 vCPUs, runs at the
// cap) it reached below 0, which no ratio of rates can, and its far arm made false verdicts
// (doc/notebook/2026-12-06-aa.md). On the log scale the interval is the one a ratio has: never
// below 0, and as far above the ratio by a factor as below it (the scale compare-linux's rows
// and the paired reading below use too).
// The quantile is t at 1 - 0.05/m two-sided, so that the m comparisons of a suite hold together
// at 95% (Bonferroni). The interval 2^(log2 r +- h) is not symmetric around r: ci_m is its longer
// (upper) arm (log_interval), so that the printed ratio +- ci holds all of it and the verdict
// read off the printed numbers (stats_verdict) says slower exactly, faster and same erring
// towards inconclusive.
// A single run says nothing about its variance; treating it as zero would turn any difference
// into a "significant" one. So unless both sides have two runs or more there is no interval
// (ci_m and df 0) and the verdict is inconclusive. Runs without spread on either side are an
// interval of no width. mean(a) = 0 is all of a's runs at 0 (samples are rates >= 0): the
// ratio 0, exactly. Returns -1, with everything 0, when mean(b) is 0 and there is no ratio.
#define INV_LN2_Q32 0x171547653ULL   // 1 / ln 2 in Q32: log2 x = ln x / ln 2
#define REL_MAX_Q32 ((u128)1 << 56)  // a relative error of 2^24: past any interval's use

// A mean's relative standard error, sqrt(s^2 / n) / mean, in Q32 (capped at REL_MAX_Q32).
static u128
rel_se_q32(const struct stats *s)
{
  u128 rel = div128((u128)sqrt_round(sem2(s) * MICRO) << 32, s->mean_m * MILLI);

  return MIN(rel, REL_MAX_Q32);
}

int
stats_ratio(struct ratio *r, const struct stats *a, const struct stats *b, u32 m, u32 margin_m)
{
  u128 ra, rb;
  u64 se_q;
  s64 log_q;

  *r = (struct ratio){ .verdict = STATS_INCONCLUSIVE };
  if(b->mean_m == 0)
    return -1;
  r->ratio_m = divr((u128)a->mean_m * MILLI, b->mean_m);
  if(a->n < 2 || b->n < 2)
    return 0;
  if(a->mean_m == 0) {
    r->df = a->n + b->n - 2;
    r->verdict = stats_verdict(r->ratio_m, 0, margin_m);
    return 0;
  }
  ra = rel_se_q32(a);
  rb = rel_se_q32(b);
  // Welch's df from the two log-scale terms, each a relative squared error in Q64.
  r->df = welch_df(ra * ra, rb * rb, a->n, b->n);
  if(ra + rb == 0) {
    r->verdict = stats_verdict(r->ratio_m, 0, margin_m);
    return 0;
  }
  // The standard error of ln(ma/mb) in Q32, then of log2(ma/mb); at most 2^57.5 * 1.45.
  se_q = sqrt_round(ra * ra + rb * rb);
  se_q = ((u128)se_q * INV_LN2_Q32) >> 32;
  log_q = stats_log2_q32(a->mean_m) - stats_log2_q32(b->mean_m);
  log_interval(r, log_q, divr((u128)se_q * stats_tq(r->df, m), MILLI), margin_m);
  return 0;
}

// Paired comparisons. The benchmark runner measures a and b in rounds, a's run next to b's
// (kernel/bench/bench.c), and on a shared host most of a run's scatter is the host: other
// work takes a share of the CPUs for a while, and every run in that while is slower by about
// the same factor. Two independent means carry that drift in both variances; the ratio of one
// round, a[i] / b[i], has it cancelled. So the rounds' log ratios d[i] = log2 a[i] - log2 b[i]
// are the samples: a shared factor is a shared term there, and the difference removes it
// exactly (the logarithm is what makes a multiplicative slowdown additive). Their mean and
// Student's t interval with n-1 df is the paired-difference t test (Student, "The probable
// error of a mean", Biometrika 6, 1908, whose worked example is paired; for ratios, the t test
// on log ratios, as for bioequivalence: Schuirmann, J. Pharmacokin. Biopharm. 15, 1987), and
// 2 to the power of its ends is an interval for the ratio: the rounds' geometric mean ratio.
// Pairing costs degrees of freedom (n-1 for n rounds, not about 2n-2): it pays when drift
// shared within a round is a large part of the scatter, which doc/notebook/2026-12-02-bench-repeat.md measures.
#define QL 32   // log2 values in Q32

// log2(x) for x >= 1, Q32, truncated: the integer part from the highest set bit, then one
// fraction bit per squaring of the mantissa m in [1, 2) (m^2 >= 2 means the next bit is 1:
// the binary logarithm digit by digit, Knuth TAOCP vol. 1, 1.2.2, exercise 25).
s64
stats_log2_q32(u64 x)
{
  int e = 63 - __builtin_clzll(x), k;
  u64 m = e <= Q ? x << (Q - e) : x >> (e - Q), frac = 0;

  for(k = QL - 1; k >= 0; k--) {
    m = ((u128)m * m) >> Q;   // m < 2^63, so m^2 >> 62 < 2^64
    if(m >= 2 * ONE) {
      m >>= 1;
      frac |= 1ULL << k;
    }
  }
  return ((s64)e << QL) | frac;
}

// 1000 * 2^(x_q / 2^32), rounded down (round < 0), to nearest (0) or up (> 0), saturating
// at the u64 maximum. 2^f for the fraction f is the product of 2^(2^-k) over f's bits, each
// factor a square root of the one before (2^(1/2), 2^(1/4), ...).
u64
stats_exp2_milli(s64 x_q, int round)
{
  s64 e = x_q >> QL;    // floor: gcc shifts signed values arithmetically
  u64 f = x_q & ((1ULL << QL) - 1), p = ONE, c = 2 * ONE;
  u128 v, q, rem, one;
  int k, shift;

  for(k = QL - 1; k >= 0; k--) {
    c = sqrt_round((u128)c << Q);   // 2^(2^-(QL-k)) in Q62
    if(f >> k & 1)
      p = mulq(p, c);
  }
  v = (u128)p * MILLI;   // 1000 * 2^f in Q62, below 2^73
  if(e >= Q) {
    if(e - Q >= 128 - 73)
      return ~(u64)0;
    v <<= e - Q;
    return v >> 64 ? ~(u64)0 : (u64)v;
  }
  if(Q - e >= 127)
    return round > 0;
  shift = Q - e;
  one = (u128)1 << shift;
  q = v >> shift;
  rem = v & (one - 1);
  if(round > 0 ? rem != 0 : round == 0 && rem >= one / 2)
    q++;
  return q >> 64 ? ~(u64)0 : (u64)q;
}

void
stats_pair_compute(struct stats_pair *p, const u64 *a, const u64 *b, u32 n)
{
  s64 sum = 0, d;
  u128 sq = 0;
  u32 i;

  p->n = 0;
  p->mean_q = 0;
  p->sd_q = 0;
  for(i = 0; i < n; i++)
    if(a[i] == 0 || b[i] == 0)
      return;
  if(n == 0)
    return;
  // |log2 a - log2 b| < 64 * 2^32 = 2^38: n of them sum to below 2^48, and their squared
  // deviations to below 2^88.
  for(i = 0; i < n; i++)
    sum += stats_log2_q32(a[i]) - stats_log2_q32(b[i]);
  p->n = n;
  p->mean_q = sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
  if(n < 2)
    return;
  for(i = 0; i < n; i++) {   // two passes, as in stats_compute
    d = stats_log2_q32(a[i]) - stats_log2_q32(b[i]) - p->mean_q;
    sq += (u128)(d < 0 ? -d : d) * (u64)(d < 0 ? -d : d);
  }
  p->sd_q = sqrt_round(divr(sq, n - 1));
}

// The interval 2^(mean +- t se) is not symmetric around the ratio 2^mean: its upper arm is
// the longer. ci_m is that arm (each end rounded outwards), so the printed ratio +- ci holds
// the whole interval: the verdict "slower" is read off it exactly, "faster" and "same" err
// towards inconclusive.
int
stats_pair_ratio(struct ratio *r, const struct stats_pair *p, u32 m, u32 margin_m)
{
  u64 se_q;

  *r = (struct ratio){ .verdict = STATS_INCONCLUSIVE };
  if(p->n == 0)
    return -1;
  r->pairs = p->n;
  r->ratio_m = stats_exp2_milli(p->mean_q, 0);
  if(p->n < 2)
    return 0;
  r->df = p->n - 1;
  se_q = sqrt_round(divr((u128)p->sd_q * p->sd_q, p->n));
  log_interval(r, p->mean_q, divr((u128)se_q * stats_tq(r->df, m), MILLI), margin_m);
  return 0;
}

// Time-weighted samples. The runs of a point do not all last as long: a run goes on past
// bench.secs until every worker has done BENCH_MIN_OPS, up to a cap (kernel/bench/run.c).
// The point's rate is then all its operations over all its time, R = sum ops / sum ns (the
// ratio estimator of survey sampling: each run weighted by its time), not the mean of the
// runs' rates, where a run cut short at the cap would count as much as a full one. Its
// standard error is the ratio estimator's (Cochran, Sampling Techniques, 3rd ed., 1977, 6.3):
//   se(R)^2 = sum (ops_i - R ns_i)^2 / ((n-1) n Tbar^2),   Tbar = sum ns / n.
// stats_compute gives both, unchanged, from the pseudo-values
//   y_i = R + (ops_i - R ns_i) / Tbar,
// whose mean is R (the deviations sum to 0) and whose spread is the deviations' over Tbar.
// With equal times each y_i is its run's own rate. In operations a second, rounded; a y_i
// below 0 (a long run of almost nothing beside short fast ones) is clamped at 0.
void
stats_time_weighted(u64 *y, const u64 *ops, const u64 *ns, u32 n)
{
  u128 sum_ops = 0, sum_ns = 0, rate, dev;
  u32 i;

  for(i = 0; i < n; i++) {
    sum_ops += ops[i];
    sum_ns += ns[i];
  }
  if(n == 0)
    return;
  if(sum_ns == 0 || sum_ns >> 64) {   // nothing timed, or beyond any run's length
    for(i = 0; i < n; i++)
      y[i] = 0;
    return;
  }
  rate = divr(sum_ops * 1000000000, (u64)sum_ns);
  for(i = 0; i < n; i++) {
    u128 done = (u128)ops[i] * 1000000000, due = rate * ns[i];
    // (done - due) * n / sum_ns, its sign kept apart: the division is unsigned.
    if(done >= due) {
      dev = divr((done - due) * n, (u64)sum_ns);
      y[i] = rate + dev;
    } else {
      dev = divr((due - done) * n, (u64)sum_ns);
      y[i] = dev >= rate ? 0 : rate - dev;
    }
  }
}

// Rate in operations per second, rounded, of ops done in ns nanoseconds.
// ops * 1e9 overflows a u64 beyond 1.8e10 ops, hence 128 bits. Returns 0
// for ns 0 (nothing was timed) and saturates at the u64 maximum.
u64
stats_rate(u64 ops, u64 ns)
{
  u128 q;

  if(ns == 0)
    return 0;
  q = divr((u128)ops * 1000000000, ns);
  if(q >> 64)
    return ~(u64)0;
  return q;
}
