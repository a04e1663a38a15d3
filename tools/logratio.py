# Paired ratios on the log scale for make compare-linux (tools/compare_linux.py): Student's t
# written out (no scipy on the host), geometric-mean intervals, Holm's correction, verdicts.
"""Why the log scale: a ratio's reciprocal is the same comparison read the other way, and
only the log makes 2x faster and 2x slower the same distance from 1; the arithmetic mean of
ratios is pulled up by the large ones (the rounds' ratios 0.5 and 2 average 1.25, their
geometric mean is 1). Why Holm: a 95% interval per row lets about one row in twenty exclude 1
by chance, and make compare-linux prints some 24 rows; Holm's step-down procedure (Holm 1979,
"A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6:65-70) keeps
the chance of any false verdict among all rows at 5%, and rejects at least what Bonferroni
rejects."""

import math


def t_two_sided(t, df):
    """P(|T| <= t) for Student's t with an integer df >= 1: Abramowitz and Stegun 26.7.3
    (df odd) and 26.7.4 (df even), sums over powers of cos(theta), theta = atan(t/sqrt(df))."""
    theta = math.atan(abs(t) / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2 == 0:
        # sin(theta) [1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ... + 1*3..(df-3)/(2*4..(df-2)) cos^(df-2)]
        term = total = 1.0
        for k in range(2, df, 2):
            term *= (k - 1) / k * c * c
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    # 2/pi [theta + sin(theta) (cos + 2/3 cos^3 + ... + 2*4..(df-3)/(1*3..(df-2)) cos^(df-2))]
    term = total = c
    for k in range(3, df, 2):
        term *= (k - 1) / k * c * c
        total += term
    return 2 / math.pi * (theta + s * total)


def p_value(t, df):
    """The two-sided p-value of a t statistic."""
    if math.isinf(t):
        return 0.0
    return max(0.0, 1.0 - t_two_sided(t, df))


def t_quantile(alpha, df):
    """The t with P(|T| <= t) = 1 - alpha: bisection on theta in [0, pi/2), where the
    probability rises monotonically, then t = sqrt(df) tan(theta)."""
    lo, hi = 0.0, math.pi / 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided(math.sqrt(df) * math.tan(mid), df) < 1 - alpha:
            lo = mid
        else:
            hi = mid
    return math.sqrt(df) * math.tan((lo + hi) / 2)


def logstats(ratios):
    """(geometric mean, mean of logs, standard error of that mean, n) of positive ratios."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    mean = sum(logs) / n
    if n < 2:
        return math.exp(mean), mean, None, n
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    return math.exp(mean), mean, sd / math.sqrt(n), n


def interval(ratios, alpha):
    """(geometric mean, lower, upper) of the ratios' 1 - alpha interval on the log scale,
    mean of logs +- t(alpha, n-1) * sd / sqrt(n) exponentiated; lower and upper None with
    fewer than two ratios."""
    gm, mean, se, n = logstats(ratios)
    if se is None:
        return gm, None, None
    h = t_quantile(alpha, n - 1) * se
    return gm, math.exp(mean - h), math.exp(mean + h)


def half_width(gm, lo, hi):
    """ci95 of a COMPARE line: the longer arm, so that gm +- it holds [lo, hi] (on the log
    scale the upper arm is the longer)."""
    return max(gm - lo, hi - gm)


def holm(pvalues, alpha=0.05):
    """Holm's step-down procedure over {row: p}: sorted ascending, the row of rank i (from 1)
    is rejected at alpha/(m-i+1) while every earlier one was. Returns {row: (rejected, the
    level its interval is computed at)}: a rejected row of rank i alpha/(m-i+1), every row
    from the first one not rejected on alpha/(m-k), k the number rejected, so each row's
    interval excludes 1 exactly when its hypothesis was rejected."""
    order = sorted(pvalues, key=lambda r: pvalues[r])
    m = len(order)
    out, k = {}, 0
    for i, row in enumerate(order, 1):
        level = alpha / (m - i + 1)
        if k == i - 1 and pvalues[row] <= level:
            out[row] = (True, level)
            k = i
    for row in order[k:]:
        out[row] = (False, alpha / (m - k))
    return out


def verdict(lo, hi, margin):
    """faster/slower when [lo, hi] excludes 1, same inside 1 +- margin (a fraction),
    inconclusive when it holds 1 but reaches beyond the margin, n/a without an interval."""
    if lo is None:
        return "n/a"
    if lo > 1:
        return "faster"
    if hi < 1:
        return "slower"
    if lo >= 1 - margin and hi <= 1 + margin:
        return "same"
    return "inconclusive"


def rows(pairs, alpha=0.05, margin=0.05):
    """The verdict of every row from {row: [ratio per round]}: {row: dict(ratio, lo, hi,
    ci95, verdict, p, level, n)}, Holm-corrected over the rows with two or more rounds."""
    stats, pvals = {}, {}
    for row, ratios in pairs.items():
        if not ratios:
            stats[row] = None
            continue
        gm, mean, se, n = logstats(ratios)
        stats[row] = (gm, mean, se, n)
        if se is not None:
            t = math.inf if se == 0 and mean != 0 else (0.0 if se == 0 else mean / se)
            pvals[row] = p_value(t, n - 1)
    levels = holm(pvals, alpha)
    out = {}
    for row, s in stats.items():
        if s is None:
            out[row] = {"ratio": None, "lo": None, "hi": None, "ci95": None, "verdict": "n/a",
                        "p": None, "level": None, "n": 0}
            continue
        gm, mean, se, n = s
        c = {"ratio": gm, "lo": None, "hi": None, "ci95": None, "verdict": "n/a",
             "p": pvals.get(row), "level": None, "n": n}
        if se is not None:
            level = levels[row][1]
            h = t_quantile(level, n - 1) * se
            c.update(lo=math.exp(mean - h), hi=math.exp(mean + h), level=level)
            c["ci95"] = half_width(gm, c["lo"], c["hi"])
            c["verdict"] = verdict(c["lo"], c["hi"], margin)
        out[row] = c
    return out
