# Statistics across boots: the mean of per-boot values and its Student-t 95% interval, for
# `make report` with several logs (tools/report.py) and `make bench-repeat` (tools/bench_repeat.py).
"""Each boot is one sample: its BENCH mean or BENCH-CMP ratio is a single value, and the
spread between boots (the host's drift, a different placement of the vCPUs) is what the
interval across boots measures. Within-boot intervals do not enter it."""

import math

from benchlog import MAGNITUDES, VERDICTS

# Two-sided 95% quantiles of Student's t, t(0.975, df), the rows kernel/lib/stats.c uses
# (NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2). Between rows the row
# of the next lower df is taken: t falls as df grows, so the interval errs on the wide side.
T975 = [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (5, 2.571), (6, 2.447), (7, 2.365),
        (8, 2.306), (9, 2.262), (10, 2.228), (11, 2.201), (12, 2.179), (13, 2.160),
        (14, 2.145), (15, 2.131), (16, 2.120), (17, 2.110), (18, 2.101), (19, 2.093),
        (20, 2.086), (21, 2.080), (22, 2.074), (23, 2.069), (24, 2.064), (25, 2.060),
        (26, 2.056), (27, 2.052), (28, 2.048), (29, 2.045), (30, 2.042), (40, 2.021),
        (60, 2.000), (120, 1.980), (1000, 1.962)]


def t975(df):
    """t(0.975, df); 0 for df 0, which has no interval."""
    if df < 1:
        return 0.0
    return [t for d, t in T975 if d <= df][-1]


def spread(values):
    """(mean, half-width of its 95% interval) of per-boot values; one value has no
    spread to estimate, and its half-width is 0, as the kernel prints for one run."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1))
    return mean, t975(n - 1) * sd / math.sqrt(n)


def suites(logs):
    """Every suite of the logs, in the order the first log to run it ran it."""
    out = []
    for log in logs:
        for s in list(log.suites) + sorted(set(log.points) | set(log.cmps)):
            if s not in out:
                out.append(s)
    return out


def points(logs, suite):
    """The suite's points across boots, each with the fields of one log's point (variant,
    fanout, threads, mean, ci95, extras), where mean is the mean of the boots' means and
    ci95 its interval across boots, plus n (boots that measured it) and boots ([(index,
    the boot's mean)], index counting the logs from 0)."""
    out = {}
    for i, log in enumerate(logs):
        for key, p in log.points.get(suite, {}).items():
            q = out.setdefault(key, {"variant": p["variant"], "fanout": p["fanout"],
                                     "threads": p["threads"], "boots": [], "extra_boots": {}})
            q["boots"].append((i, p["mean"]))
            for k, v in p["extras"].items():
                q["extra_boots"].setdefault(k, []).append(v)
    for q in out.values():
        q["n"] = len(q["boots"])
        q["mean"], q["ci95"] = spread([m for _, m in q["boots"]])
        q["extras"] = {k: sum(v) / len(v) for k, v in q.pop("extra_boots").items()}
    return out


def comparisons(logs, suite=None):
    """The BENCH-CMP comparisons of the logs (of one suite, or all), in first-seen order:
    suite, a, b (labels), va, fa, vb, fb (names and fanouts), threads; boots ([(index,
    that boot's comparison)]); n; ratio and ci95 (the mean of the boots' ratios and its
    interval across boots); and how many boots said faster, same, inconclusive and
    slower."""
    out = {}
    for i, log in enumerate(logs):
        for s in ([suite] if suite else list(log.cmps)):
            for c in log.cmps.get(s, []):
                key = (s, c["va"], c["fa"], c["vb"], c["fb"], c["threads"])
                q = out.setdefault(key, {"suite": s, "a": c["a"], "b": c["b"], "va": c["va"],
                                         "fa": c["fa"], "vb": c["vb"], "fb": c["fb"],
                                         "threads": c["threads"], "boots": []})
                q["boots"].append((i, c))
    for q in out.values():
        q["n"] = len(q["boots"])
        q["ratio"], q["ci95"] = spread([c["ratio"] for _, c in q["boots"]])
        for v in VERDICTS:
            q[v] = sum(1 for _, c in q["boots"] if c["verdict"] == v)
    return list(out.values())


def seeds(logs, suite):
    """The suite's BENCH-SEED headlines in first-seen order: a, b, threads, boots ([(index,
    that boot's BENCH-SEED line)]), n, ratio and ci95 across boots, the count of each
    verdict word, agrees (boots whose direction= was agrees: a verdict the seed's) and the
    count of each magnitude word (the seed's ratio inside, above or below a boot's
    interval)."""
    out = {}
    for i, log in enumerate(logs):
        for d in log.seeds.get(suite, []):
            key = (d["a"], d["b"], d["threads"])
            q = out.setdefault(key, {"a": d["a"], "b": d["b"], "threads": d["threads"],
                                     "boots": []})
            q["boots"].append((i, d))
    for q in out.values():
        q["n"] = len(q["boots"])
        q["ratio"], q["ci95"] = spread([d["ratio"] for _, d in q["boots"]])
        for v in VERDICTS:
            q[v] = sum(1 for _, d in q["boots"] if d["verdict"] == v)
        q["agrees"] = sum(1 for _, d in q["boots"] if d["direction"] == "agrees")
        for m in MAGNITUDES:
            q[m] = sum(1 for _, d in q["boots"] if d["magnitude"] == m)
    return list(out.values())
