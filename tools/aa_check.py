#!/usr/bin/env python3
# A/A boots read run by run: what the verdicts' intervals assume (runs independent, no order
# or round effect) checked against the BENCH-RUNS lines of bench.rates=yes boots.
"""Usage: aa_check.py LOG...

Reads the BENCH-RUNS lines (bench.rates=yes) of bench.aa=yes boots and prints, over all of
them:
- the round effect: per timed round r, the mean over points of log2(run r / the point's
  median run), each point's columns together (a drift inside a point, or a first run that
  pays what the warm-up did not);
- the place effect: per suite, runs first, last or in the middle of their round;
- the order effect: per comparison (a against its copy a~aa) and round, log2(the run that
  went first in the round / the one that went second);
- per method, the false verdicts: comparisons faster or slower, and families (a suite in a
  boot) with at least one, against the 5% the Bonferroni level of each suite promises.
Methods: weighted (the kernel's since 2026-12-07: each run counted for its time, the ratio of
the two means with its interval on the log scale, log-delta), weighted-lin (the kernel's from
2026-12-05 to 2026-12-07: the same means, the delta method's interval symmetric around the
ratio, welch), welch (the kernel's before: the runs' mean rates, symmetric), log-welch (the
t interval of the difference of mean log rates), paired (Student's t on the rounds' log
ratios), sign-flip (the rounds' log ratios by Fisher's randomization test: exact under A/A,
whatever the runs' distribution, because the runner draws each round's order; it cannot
reject below p = 2^(1-n) with n rounds), and each of them with the first timed round left out
(-drop1)."""

import math
import random
import re
import sys
from collections import defaultdict

sys.path.insert(0, __import__("os").path.dirname(__file__))
from logratio import t_quantile  # noqa: E402

RUNS = re.compile(r"BENCH-RUNS suite=(\S+) variant=(\S+?)(?: fanout=(\d+))? threads=(\d+) "
                  r"slot=(\d+) of=(\d+)(?: first=(\d+))? rates=([\d,]+)(?: us=([\d,]+))?"
                  r"(?: pos=([\d,]+))?")


def read(paths):
    """{(boot, suite, threads): {(variant, fanout): (slot, of, [rates], [us] or None,
    [place in each round])}}. Without pos= (boots before random order), the place is ABBA's:
    slot order in odd rounds, reverse in even ones. A point's lines with first= above 1 add
    to the runs of the line before."""
    points = defaultdict(dict)
    for b, path in enumerate(paths):
        with open(path, errors="replace") as f:
            for line in f:
                m = RUNS.search(line)
                if m:
                    s, v, fan, t, slot, of, first, rates, us, pos = m.groups()
                    rates = [int(x) for x in rates.split(",")]
                    slot, of = int(slot), int(of)
                    off = int(first) - 1 if first else 0
                    pos = [int(x) for x in pos.split(",")] if pos else \
                        [slot if r % 2 == 0 else of - 1 - slot
                         for r in range(off, off + len(rates))]
                    us = [int(x) for x in us.split(",")] if us else None
                    before = points[(b, s, int(t))].get((v, fan))
                    if first and int(first) > 1 and before:
                        rates, pos = before[2] + rates, before[4] + pos
                        us = before[3] + us if us and before[3] else None
                    points[(b, s, int(t))][(v, fan)] = (slot, of, rates, us, pos)
    return points


def mean(xs):
    return sum(xs) / len(xs)


def var(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def welch_df(ua, ub, na, nb):
    """Welch-Satterthwaite df of two squared standard errors, rounded down and kept between
    min(na, nb) - 1 and na + nb - 2, as the kernel's welch_df."""
    df = (ua + ub) ** 2 / ((ua ** 2 / (na - 1) if ua else 0) +
                           (ub ** 2 / (nb - 1) if ub else 0) or 1e-300)
    return max(min(na, nb) - 1, min(math.floor(df), na + nb - 2))


def interval(method, a, b, m):
    """(lo, hi) of the ratio a/b by method, at the level 1 - 0.05/m."""
    if method == "welch":
        ma, mb = mean(a), mean(b)
        va, vb = var(a) / len(a), var(b) / len(b)
        r = ma / mb
        df = welch_df(va, vb, len(a), len(b))
        h = t_quantile(0.05 / m, df) * math.sqrt(va + r * r * vb) / mb
        return r - h, r + h
    if method == "log-delta":
        # The ratio of the two means with the delta method's variance on the log scale,
        # sd(log r)^2 = va/ma^2 + vb/mb^2, Welch's df from those two terms, and e to the power
        # of the ends: an interval that stays above 0 however wide (the kernel's stats_ratio
        # since 2026-12-07; doc/notebook/2026-12-06-aa.md).
        ma, mb = mean(a), mean(b)
        if ma <= 0 or mb <= 0:
            return 0.0, math.inf
        ua, ub = var(a) / len(a) / ma ** 2, var(b) / len(b) / mb ** 2
        df = welch_df(ua, ub, len(a), len(b))
        h = t_quantile(0.05 / m, df) * math.sqrt(ua + ub)
        return ma / mb * math.exp(-h), ma / mb * math.exp(h)
    if method == "log-welch":
        la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
        va, vb = var(la) / len(la), var(lb) / len(lb)
        df = welch_df(va, vb, len(a), len(b))
        d = mean(la) - mean(lb)
        h = t_quantile(0.05 / m, df) * math.sqrt(va + vb)
        return math.exp(d - h), math.exp(d + h)
    d = [math.log(x / y) for x, y in zip(a, b)]
    if method == "sign-flip":
        # Rejected (an interval that leaves 1 out) when p <= 0.05/m: returned as the point
        # interval of the rounds' geometric mean ratio, else as (0, inf).
        g = math.exp(mean(d))
        return (g, g) if sign_flip_p(d) <= 0.05 / m else (0.0, math.inf)
    h = t_quantile(0.05 / m, len(d) - 1) * math.sqrt(var(d) / len(d))
    return math.exp(mean(d) - h), math.exp(mean(d) + h)


def sign_flip_p(d):
    """Two-sided p of |sum d| among the 2^n sign patterns of d (Fisher, The Design of
    Experiments, 1935, section 21): every pattern when n <= 16, else 20,000 drawn with a fixed
    seed. Ties count against rejection."""
    n, obs = len(d), abs(sum(d)) - 1e-12 * sum(abs(x) for x in d)
    if n <= 16:
        hits = sum(abs(sum(x if k >> i & 1 else -x for i, x in enumerate(d))) >= obs
                   for k in range(1 << n))
        return hits / (1 << n)
    rng = random.Random(1)
    hits = sum(abs(sum(x if rng.random() < 0.5 else -x for x in d)) >= obs
               for _ in range(20000))
    return (hits + 1) / 20001


def weighted(rates, us):
    """The runs as the kernel's runner counts them (stats_time_weighted): pseudo-values whose
    mean is all operations over all time; the rates themselves without lengths."""
    if not us:
        return rates
    ops = [r * u / 1e6 for r, u in zip(rates, us)]
    rate = sum(ops) / sum(us) * 1e6
    n = len(rates)
    return [max(0.0, rate + (o - rate * u / 1e6) * n / (sum(us) / 1e6)) for o, u in zip(ops, us)]


def main(paths):
    points = read(paths)
    # The comparisons: each a against its copy, at each point.
    cmps = []   # (boot, suite, threads, a rates, copy rates, a first in odd rounds)
    for (b, s, t), cols in points.items():
        for (v, fan), (slot, of, rates, us, pos) in cols.items():
            if v.endswith("~aa"):
                continue
            copy = cols.get((v + "~aa", fan))
            if copy and 0 not in rates and 0 not in copy[2]:
                cmps.append((b, s, t, rates, copy[2], [p < q for p, q in zip(pos, copy[4])],
                             us, copy[3]))

    # Round effect.
    by_round = defaultdict(list)
    for cols in points.values():
        for slot, of, rates, _, _ in cols.values():
            if 0 in rates:
                continue
            med = sorted(rates)[len(rates) // 2]
            for r, x in enumerate(rates):
                by_round[r].append(math.log2(x / med))
    print("round effect: mean log2(run / median run of its column) by timed round:")
    print("  " + "  ".join("r%d %+.3f (%d)" % (r + 1, mean(v), len(v))
                           for r, v in sorted(by_round.items())))

    # The first run of a round (under ABBA it followed a run of its own column) per suite.
    place = defaultdict(lambda: defaultdict(list))
    for (b, s, t), cols in points.items():
        for slot, of, rates, _, pos in cols.values():
            if 0 in rates:
                continue
            med = sorted(rates)[len(rates) // 2]
            for r, x in enumerate(rates):
                kind = "first" if pos[r] == 0 else "last" if pos[r] == of - 1 else "middle"
                place[s][kind].append(math.log2(x / med))
    print("place effect: mean log2(run / median run of its column) by place in its round:")
    for s, d in sorted(place.items()):
        print("  %-10s %s" % (s, "  ".join("%s %+.3f (%d)" % (k, mean(v), len(v))
                                           for k, v in sorted(d.items()))))

    # Order effect: the run that went first in its round against the one that went second.
    first = defaultdict(list)
    for b, s, t, a, c, a_first, _, _ in cmps:
        for r in range(len(a)):
            x, y = (a[r], c[r]) if a_first[r] else (c[r], a[r])
            first[r].append(math.log2(x / y))
    print("order effect: mean log2(first / second of a and its copy) by timed round:")
    print("  " + "  ".join("r%d %+.3f" % (r + 1, mean(v)) for r, v in sorted(first.items())))
    allf = [x for v in first.values() for x in v]
    print("  all rounds %+.4f (sd %.3f, n %d)" % (mean(allf), math.sqrt(var(allf)), len(allf)))

    # False verdicts per method, Bonferroni over each suite's comparisons in each boot.
    fam = defaultdict(list)
    for c in cmps:
        fam[(c[0], c[1])].append(c)
    print("false verdicts (A/A: every faster or slower), by method:")
    for method in ("weighted", "weighted-lin", "welch", "log-welch", "paired", "sign-flip"):
        for drop in (0, 1):
            nf = nfam = nfalse_fam = ncmp = 0
            per_suite = defaultdict(lambda: [0, 0])
            naive = 0
            for (b, s), cs in fam.items():
                m = len(cs)
                false_here = 0
                for _, _, _, a, c, _, ua, uc in cs:
                    if method.startswith("weighted"):
                        a, c = weighted(a, ua)[drop:], weighted(c, uc)[drop:]
                        meth = "welch" if method == "weighted-lin" else "log-delta"
                    else:
                        a, c, meth = a[drop:], c[drop:], method
                    lo, hi = interval(meth, a, c, m)
                    false_here += lo > 1 or hi < 1
                    lo1, hi1 = interval(meth, a, c, 1)
                    naive += lo1 > 1 or hi1 < 1
                    ncmp += 1
                nf += false_here
                nfam += 1
                nfalse_fam += false_here > 0
                per_suite[s][0] += 1
                per_suite[s][1] += false_here > 0
            print("  %-12s%s comparisons %d, false %d; at 95%% each (no correction) %d (%.1f%%);"
                  " families %d, false %d (%.1f%%): %s" %
                  (method, "-drop1" if drop else "      ", ncmp, nf, naive, 100.0 * naive / ncmp,
                   nfam, nfalse_fam, 100.0 * nfalse_fam / nfam,
                   " ".join("%s %d/%d" % (s, v[1], v[0]) for s, v in sorted(per_suite.items()))))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
