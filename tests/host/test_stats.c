// Host test for kernel/lib/stats.c: checks the fixed-point results against
// double-precision references computed here and against published examples.

#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "stats.h"

typedef unsigned __int128 u128;

static u64 rng = 88172645463325252ull;

// Marsaglia's xorshift64 (J. Stat. Software 8(14), 2003): repeatable noise.
static u64
next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

// got (milli) is within 1 milli or 0.1% of want (real units).
static int
near(double got_m, double want)
{
  double tol;

  tol = fabs(want * 1000) / 1000;
  if(tol < 1)
    tol = 1;
  return fabs(got_m - want * 1000) <= tol;
}

static double
ref_mean(const u64 *x, u32 n)
{
  double s;
  u32 i;

  s = 0;
  for(i = 0; i < n; i++)
    s += x[i];
  return s / n;
}

static double
ref_sd(const u64 *x, u32 n)
{
  double m, d, s;
  u32 i;

  m = ref_mean(x, n);
  s = 0;
  for(i = 0; i < n; i++) {
    d = x[i] - m;
    s += d * d;
  }
  return sqrt(s / (n - 1));
}

// P(0 < T < t) for Student's t with v degrees of freedom, by Simpson's
// rule over the density; independent of the table in stats.c.
static double
t_mass(double t, double v)
{
  double c, h, s, x;
  int i, steps;

  steps = 4000;
  c = exp(lgamma((v + 1) / 2) - lgamma(v / 2)) / sqrt(v * M_PI);
  h = t / steps;
  s = 0;
  for(i = 0; i <= steps; i++) {
    x = i * h;
    s += (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2) *
         c * pow(1 + x * x / v, -(v + 1) / 2);
  }
  return s * h / 3;
}

// t(0.975, v) by bisection.
static double
ref_t975(double v)
{
  double lo, hi, mid;
  int i;

  lo = 0;
  hi = 20;
  for(i = 0; i < 50; i++) {
    mid = (lo + hi) / 2;
    if(t_mass(mid, v) < 0.475)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void
test_isqrt(void)
{
  u128 x, r;
  u64 k;
  int i, ok;

  ok = 1;
  for(x = 0; x < (1 << 20); x++) {
    r = isqrt_u128(x);
    ok &= r * r <= x && (r + 1) * (r + 1) > x;
  }
  CHECK(ok);

  // Random values of every size, and squares and their neighbours.
  ok = 1;
  for(i = 0; i < 100000; i++) {
    x = ((u128)next() << 64 | next()) >> (i % 128);
    r = isqrt_u128(x);
    ok &= r * r <= x && (r == ~(u64)0 || (r + 1) * (r + 1) > x);
    k = next() >> (i % 64);
    ok &= isqrt_u128((u128)k * k) == k;
    if(k > 0)
      ok &= isqrt_u128((u128)k * k - 1) == k - 1;
  }
  CHECK(ok);
  CHECK(isqrt_u128(~(u128)0) == ~(u64)0);
  CHECK(isqrt_u128(0) == 0);
}

static void
test_t975(void)
{
  static const u32 rows[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                             10, 11, 12, 13, 14, 15, 16, 17, 18,
                             19, 20, 21, 22, 23, 24, 25, 26, 27,
                             28, 29, 30, 40, 60, 120, 1000};
  u32 i, df;
  int ok;

  // Spot checks against printed tables.
  CHECK(stats_t975(0) == 0);
  CHECK(stats_t975(1) == 12706);
  CHECK(stats_t975(2) == 4303);
  CHECK(stats_t975(10) == 2228);
  CHECK(stats_t975(30) == 2042);
  CHECK(stats_t975(120) == 1980);

  // Every row against the numerical quantile.
  ok = 1;
  for(i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    ok &= fabs(stats_t975(rows[i]) - 1000 * ref_t975(rows[i])) <= 0.5;
  CHECK(ok);

  // Between rows: the next lower row, never narrower than the truth.
  CHECK(stats_t975(35) == 2042);
  CHECK(stats_t975(59) == 2021);
  CHECK(stats_t975(119) == 2000);
  CHECK(stats_t975(999) == 1980);
  CHECK(stats_t975(5000) == 1962);
  ok = 1;
  for(df = 31; df < 3000; df += 13)
    ok &= stats_t975(df) >= 1000 * ref_t975(df) - 0.5 &&
          stats_t975(df + 1) <= stats_t975(df);
  CHECK(ok);
}

static void
test_compute(void)
{
  static u64 x[1000];
  struct stats s;
  double m, sd, t;
  u32 i;

  // No runs, one run: no spread and no interval.
  stats_compute(&s, x, 0);
  CHECK(s.n == 0 && s.mean_m == 0 && s.stddev_m == 0 && s.ci95_m == 0);
  x[0] = 4242;
  stats_compute(&s, x, 1);
  CHECK(s.n == 1 && s.mean_m == 4242000 && s.stddev_m == 0 && s.ci95_m == 0);

  // Constant samples.
  for(i = 0; i < 10; i++)
    x[i] = 123456789;
  stats_compute(&s, x, 10);
  CHECK(s.mean_m == 123456789000 && s.stddev_m == 0 && s.ci95_m == 0);

  // n = 2 by hand: {1, 2} has mean 1.5, sd sqrt(1/2) = 0.7071,
  // ci = 12.706 * 0.7071 / sqrt(2) = 6.353.
  x[0] = 1;
  x[1] = 2;
  stats_compute(&s, x, 2);
  CHECK(s.mean_m == 1500);
  CHECK(s.stddev_m == 707);
  CHECK(s.ci95_m == 6353);

  // 100 runs near 1e10 ops/s with 1% noise.
  for(i = 0; i < 100; i++)
    x[i] = 10000000000ull + next() % 200000000 - 100000000;
  stats_compute(&s, x, 100);
  m = ref_mean(x, 100);
  sd = ref_sd(x, 100);
  t = 1.984;  // t(0.975, 99), printed tables
  CHECK(s.n == 100);
  CHECK(near(s.mean_m, m));
  CHECK(near(s.stddev_m, sd));
  CHECK(near(s.ci95_m, 2.000 * sd / 10));  // table row 60 for df 99
  CHECK(s.ci95_m >= 1000 * t * sd / 10);   // never narrower than exact

  // The documented limits: 1000 runs of 0 and 1e12, the widest spread.
  for(i = 0; i < 1000; i++)
    x[i] = i % 2 ? 1000000000000ull : 0;
  stats_compute(&s, x, 1000);
  CHECK(s.mean_m == 500000000000000ull);
  CHECK(near(s.stddev_m, ref_sd(x, 1000)));
  CHECK(near(s.ci95_m, 1.980 * ref_sd(x, 1000) / sqrt(1000)));

  // Small values and an uneven spread against the double reference.
  for(i = 0; i < 7; i++)
    x[i] = i * i * 3 + 1;
  stats_compute(&s, x, 7);
  CHECK(near(s.mean_m, ref_mean(x, 7)));
  CHECK(near(s.stddev_m, ref_sd(x, 7)));
  CHECK(near(s.ci95_m, 2.447 * ref_sd(x, 7) / sqrt(7)));
}

// Fill a stats from an array of doubles scaled by 10 to integers.
static void
from_tenths(struct stats *s, u64 *buf, const double *v, u32 n)
{
  u32 i;

  for(i = 0; i < n; i++)
    buf[i] = llround(v[i] * 10);
  stats_compute(s, buf, n);
}

// Wikipedia, "Welch's t-test", Examples (unequal variances and unequal
// sample sizes). Published: example 2 t = -1.57, df = 9.9; example 3
// t = -2.22, df = 24.5. Values are scaled by 10 to make integer samples;
// t and df do not change under scaling.
static const double ex_a2[] = {17.2, 20.9, 22.6, 18.1, 21.7,
                               21.4, 23.5, 24.2, 14.7, 21.8};
static const double ex_b2[] = {21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5,
                               20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5,
                               23.6, 21.5, 22.5, 23.5, 21.5, 21.8};
static const double ex_a3[] = {19.8, 20.4, 19.6, 17.8, 18.5,
                               18.9, 18.3, 18.9, 19.5, 22.0};
static const double ex_b3[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7,
                               27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0,
                               23.9, 21.6, 24.3, 20.4, 24.0, 13.2};

// R's t.test(r_a, r_b) prints t = -1.8325, df = 17.9 and the 95% interval
// -2.1469104 .. 0.1469104 of the difference (Welch is t.test's default).
static const u64 r_a[] = {11, 9, 10, 11, 10, 12, 9, 11, 12, 9};
static const u64 r_b[] = {11, 13, 10, 13, 12, 9, 11, 12, 12, 11};

static void
test_welch(void)
{
  static u64 xa[1000], xb[1000];
  struct stats a, b;
  struct welch w;
  double se, tstat;
  u32 i;

  // Example 2: df 9.9 floors to 9, |t| = 1.57 < t(9) = 2.262: same.
  from_tenths(&a, xa, ex_a2, 10);
  from_tenths(&b, xb, ex_b2, 20);
  stats_welch(&w, &a, &b);
  se = w.ci95_m / (double)stats_t975(w.df);
  tstat = w.diff_m / 1000.0 / se;
  CHECK(w.df == 9);
  CHECK(w.diff_m == -15250);
  CHECK(fabs(tstat - -1.57) < 0.005);
  CHECK(w.verdict == STATS_SAME);
  stats_welch(&w, &b, &a);
  CHECK(w.diff_m == 15250 && w.df == 9 && w.verdict == STATS_SAME);

  // Example 3: df 24.5 floors to 24, |t| = 2.22 > t(24) = 2.064: a slower.
  from_tenths(&a, xa, ex_a3, 10);
  from_tenths(&b, xb, ex_b3, 20);
  stats_welch(&w, &a, &b);
  se = w.ci95_m / (double)stats_t975(w.df);
  tstat = w.diff_m / 1000.0 / se;
  CHECK(w.df == 24);
  CHECK(w.diff_m == -22200);
  CHECK(fabs(tstat - -2.22) < 0.005);
  // se = sqrt(1.449/10 + 17.1157/20) = 1.0003420, times 10 for the scaling.
  CHECK(near(w.ci95_m, 2.064 * 10 * 1.0003420));
  CHECK(w.verdict == STATS_SLOWER);
  stats_welch(&w, &b, &a);
  CHECK(w.diff_m == 22200 && w.df == 24 && w.verdict == STATS_FASTER);

  // The R example: flooring df 17.9 to 17 widens R's interval slightly:
  // 2.110 * 0.5456902 = 1.1514 against R's 1.1469.
  stats_compute(&a, r_a, 10);
  stats_compute(&b, r_b, 10);
  stats_welch(&w, &a, &b);
  CHECK(w.df == 17);
  CHECK(w.diff_m == -1000);
  CHECK(near(w.ci95_m, 2.110 * 0.5456902));
  CHECK(w.ci95_m >= 1147);
  CHECK(w.verdict == STATS_SAME);

  // Benchmark-sized: 1.00e9 vs 1.01e9 ops/s with 0.1% noise: clearly slower.
  for(i = 0; i < 10; i++) {
    xa[i] = 1000000000 + next() % 2000000 - 1000000;
    xb[i] = 1010000000 + next() % 2000000 - 1000000;
  }
  stats_compute(&a, xa, 10);
  stats_compute(&b, xb, 10);
  stats_welch(&w, &a, &b);
  CHECK(w.verdict == STATS_SLOWER);
  CHECK(w.df >= 9 && w.df <= 18);
  se = sqrt(pow(ref_sd(xa, 10), 2) / 10 + pow(ref_sd(xb, 10), 2) / 10);
  CHECK(near(w.ci95_m, stats_t975(w.df) / 1000.0 * se));
  CHECK(near(w.diff_m, ref_mean(xa, 10) - ref_mean(xb, 10)));

  // Same benchmark, noise 5% swamps a 1% difference: same.
  for(i = 0; i < 10; i++) {
    xa[i] = 1000000000 + next() % 100000000 - 50000000;
    xb[i] = 1010000000 + next() % 100000000 - 50000000;
  }
  stats_compute(&a, xa, 10);
  stats_compute(&b, xb, 10);
  stats_welch(&w, &a, &b);
  CHECK(w.verdict == STATS_SAME);

  // Constant runs on both sides: no noise, any difference counts.
  for(i = 0; i < 5; i++) {
    xa[i] = 2000;
    xb[i] = 1000;
  }
  stats_compute(&a, xa, 5);
  stats_compute(&b, xb, 5);
  stats_welch(&w, &a, &b);
  CHECK(w.ci95_m == 0 && w.df == 8 && w.verdict == STATS_FASTER);
  stats_welch(&w, &a, &a);
  CHECK(w.diff_m == 0 && w.verdict == STATS_SAME);

  // A single run on either side: no interval, verdict same.
  stats_compute(&a, xa, 1);
  stats_welch(&w, &a, &b);
  CHECK(w.diff_m == 1000000 && w.ci95_m == 0 && w.df == 0);
  CHECK(w.verdict == STATS_SAME);
  stats_compute(&b, xb, 1);
  stats_welch(&w, &a, &b);
  CHECK(w.verdict == STATS_SAME && w.ci95_m == 0);
}

static void
test_ratio(void)
{
  static u64 xa[100], xb[100];
  struct stats a, b;
  struct welch w;
  struct ratio r;
  double ma, mb, va, vb, rr, half;
  u32 i;

  // a about 4.2% faster than b, both near 1e7 ops/s with ~1% noise.
  for(i = 0; i < 12; i++) {
    xa[i] = 10420000 + next() % 200000 - 100000;
    xb[i] = 10000000 + next() % 300000 - 150000;
  }
  stats_compute(&a, xa, 12);
  stats_compute(&b, xb, 12);
  stats_welch(&w, &a, &b);
  CHECK(stats_ratio(&r, &a, &b) == 0);
  ma = ref_mean(xa, 12);
  mb = ref_mean(xb, 12);
  va = pow(ref_sd(xa, 12), 2) / 12;
  vb = pow(ref_sd(xb, 12), 2) / 12;
  rr = ma / mb;
  half = stats_t975(w.df) / 1000.0 * rr * sqrt(va / (ma * ma) + vb / (mb * mb));
  CHECK(near(r.ratio_m, rr));
  CHECK(r.ratio_m >= 1030 && r.ratio_m <= 1055);
  CHECK(near(r.ci95_m, half));
  CHECK(r.ci95_m > 0);

  // Wide spread, ratio far from 1: 1e12-scale over 1e3-scale means.
  for(i = 0; i < 100; i++) {
    xa[i] = i % 2 ? 1000000000000ull : 500000000000ull;
    xb[i] = 1000 + i;
  }
  stats_compute(&a, xa, 100);
  stats_compute(&b, xb, 100);
  stats_welch(&w, &a, &b);
  CHECK(stats_ratio(&r, &a, &b) == 0);
  ma = ref_mean(xa, 100);
  mb = ref_mean(xb, 100);
  va = pow(ref_sd(xa, 100), 2) / 100;
  vb = pow(ref_sd(xb, 100), 2) / 100;
  rr = ma / mb;
  half = stats_t975(w.df) / 1000.0 * rr * sqrt(va / (ma * ma) + vb / (mb * mb));
  CHECK(near(r.ratio_m, rr));
  CHECK(near(r.ci95_m, half));

  // Equal constant runs: ratio exactly 1, no interval width.
  for(i = 0; i < 4; i++)
    xa[i] = 777;
  stats_compute(&a, xa, 4);
  CHECK(stats_ratio(&r, &a, &a) == 0 && r.ratio_m == 1000 && r.ci95_m == 0);

  // mean(a) = 0 is a ratio of 0; mean(b) = 0 has no ratio.
  for(i = 0; i < 4; i++)
    xb[i] = 0;
  stats_compute(&b, xb, 4);
  CHECK(stats_ratio(&r, &b, &a) == 0 && r.ratio_m == 0 && r.ci95_m == 0);
  CHECK(stats_ratio(&r, &a, &b) == -1 && r.ratio_m == 0 && r.ci95_m == 0);

  // A single run: a ratio, but no interval.
  stats_compute(&a, xa, 1);
  stats_compute(&b, xa, 4);
  CHECK(stats_ratio(&r, &a, &b) == 0 && r.ratio_m == 1000 && r.ci95_m == 0);
}

static void
test_rate(void)
{
  CHECK(stats_rate(1000, 1000000000) == 1000);
  CHECK(stats_rate(3, 2) == 1500000000);
  CHECK(stats_rate(2, 3) == 666666667);  // rounded, not truncated
  // 1e12 * 1e9 overflows a u64; the 128-bit product does not.
  CHECK(stats_rate(1000000000000ull, 1000000000) == 1000000000000ull);
  // 123456789012e9 / 987654321 = 124999998873.09 (exact integer arithmetic).
  CHECK(stats_rate(123456789012ull, 987654321) == 124999998873ull);
  CHECK(stats_rate(5, 0) == 0);
  CHECK(stats_rate(~(u64)0, 1) == ~(u64)0);
}

int
main(void)
{
  test_isqrt();
  test_t975();
  test_compute();
  test_welch();
  test_ratio();
  test_rate();
  return check_summary("test_stats");
}
