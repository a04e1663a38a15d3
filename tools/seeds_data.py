# The seeds' own tables and the statistics of make seeds-real (tools/seeds_real.py): what each
# seed ran, its numbers, the comparisons it made, and the REAL-SEED lines read from the boots.
"""A boot is one sample: the runs a boot made at one point (REPS of them) are averaged into
that boot's value, and the interval of a point is the spread of those values across the
boots (rounds). A comparison pairs the two variants' boots of the same round and reads the
geometric mean of their ratios, its interval Holm-corrected over the seed's comparisons
(tools/logratio.py, as make compare-linux reads its rows)."""

import os
import re
import sys

import boots
import logratio

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests", "bench"))
from check_seeds import sweep  # noqa: E402 (the contract's sweeps live with their checker)

MARGIN = 0.05   # a ratio inside 1 +- 5% is `same`, as the boot suites' verdicts

# Each seed: its program, unit, the variants a boot of this kernel is given (name: command
# line words), the columns they give, its thread counts, its table and its comparisons.
SEEDS = {
    "000": {
        "program": "dbench", "unit": "MB/s", "what": "clients",
        "title": "2002: dbench on 2.4.17, global page-cache hash against the radix tree",
        "boots": {"hash-global": "pagecache=hash-global",
                  "hash-bucket": "pagecache=hash-bucket",
                  "radix-lock/16": "pagecache=radix-lock pagecache.fanout=16",
                  "radix-lock/128": "pagecache=radix-lock pagecache.fanout=128",
                  "radix-rcu/64": "pagecache=radix-rcu pagecache.fanout=64"},
        # 8-way PIII, clients 1-20: 2.4.17 (one hash, pagecache_lock), rat-7 (a radix tree
        # per file, 128-way, under a spinlock), rat-4 (16-way).
        "seed_cpus": 8,
        "seed_columns": {"hash-global": "2.4.17", "radix-lock/128": "rat-7",
                         "radix-lock/16": "rat-4"},
        "seed_table": {
            1: (81.81, 82.70, 79.49), 2: (131.77, 133.15, 116.32),
            3: (179.74, 188.04, 184.80), 4: (221.60, 228.70, 223.97),
            5: (249.86, 252.89, 258.77), 6: (260.56, 277.70, 265.20),
            7: (285.82, 287.47, 281.27), 8: (263.61, 258.81, 256.29),
            9: (271.06, 268.29, 261.04), 10: (261.23, 265.82, 259.34),
            11: (256.82, 260.38, 258.35), 12: (255.55, 255.68, 252.78),
            13: (252.70, 254.02, 249.42), 14: (251.41, 253.93, 252.21),
            15: (255.27, 257.13, 262.21), 16: (156.81, 146.69, 180.77),
            17: (113.00, 103.32, 101.14), 18: (81.06, 78.98, 86.77),
            19: (76.24, 40.09, 39.89), 20: (17.51, 17.64, 17.53)},
        "cmps": [("radix-lock/128", "hash-global"), ("radix-lock/16", "hash-global")],
    },
    "003": {
        "program": "fs_mark", "unit": "files/s", "what": "threads",
        "title": "2010: fs_mark, 0-byte files, no syncs, inodes freed at once or through RCU",
        # Inodes freed at once can only be ref-walked; freed through RCU, walked by reference
        # as in both of the 2010 kernels (RCU-walk came two releases later), or by RCU-walk.
        "boots": {"free-now": "ramfs.free=now",
                  "free-rcu-ref": "ramfs.free=rcu ramfs.walk=ref",
                  "free-rcu": "ramfs.free=rcu"},
        # 100 runs on a ramdisk with XFS: vanilla (freed at once) and rcu, one thread count.
        "seed_cpus": None,
        "seed_columns": {"free-now": "vanilla", "free-rcu-ref": "rcu"},
        "seed_table": {None: (39648.76, 39916.66)},
        # The seed's comparison, then what RCU-walk adds (no seed row: n/a).
        "cmps": [("free-rcu-ref", "free-now"), ("free-rcu", "free-now")],
        # The boot suite walks both of its mounts by reference: its free-rcu is this free-rcu-ref.
        "imitation_names": {"free-rcu": "free-rcu-ref"},
    },
    "001": {
        "program": "sysbench", "unit": "tps", "what": "threads",
        "title": "2007: a database's transactions/s, MADV_DONTNEED or MADV_FREE, "
                 "mmap_sem written or read",
        # A boot takes madvise.lock=; in it both allocator settings run, in turns.
        "boots": {"wlock": "madvise.lock=write", "rlock": "madvise.lock=read"},
        "allocs": ("dontneed", "free"),
        # Quad core, sysbench on MySQL: vanilla glibc, new glibc (MADV_DONTNEED), MADV_FREE
        # kernel, MADV_FREE with mmap_sem taken for read.
        "seed_cpus": 4,
        "seed_columns": {"dontneed-wlock": "new glibc", "free-wlock": "madv_free",
                         "free-rlock": "madv_free + mmap_sem"},
        "seed_table": {1: (609, 596, 545), 2: (1136, 1196, 1200), 4: (1128, 2014, 2024),
                       8: (1088, 1665, 2087), 16: (1073, 1310, 1999)},
        # And the headline, both patches against new glibc (the boot suite's BENCH-SEED).
        "cmps": [("free-wlock", "dontneed-wlock"), ("free-rlock", "free-wlock"),
                 ("free-rlock", "dontneed-wlock")],
    },
}
ORDER = ("000", "003", "001")


def counts(seed, smp):
    """The seed's client or thread counts at smp vCPUs: dbench 1 to 2.5 x SMP (doubling to
    SMP, then 1.5, 2 and 2.5 x: where the 2002 curve went flat and collapsed), fs_mark
    doubling to SMP, sysbench the seed's 1 to 16 (it ran 4 x its CPUs: no more here)."""
    if seed == "001":
        return [t for t in (1, 2, 4, 8, 16) if t <= 4 * smp]
    # The boot suites' own sweeps (doc/console.md), so the real program and its imitation
    # meet at the same counts: "over" for dbench, "up" for the ramfs suite.
    return sweep("over" if seed == "000" else "up", smp, False)


def columns(seed):
    """The variant names a seed's table has, this kernel's then Linux's."""
    s = SEEDS[seed]
    if "allocs" in s:
        mine = ["%s-%s" % (a, b) for b in s["boots"] for a in s["allocs"]]
        return mine + ["linux-%s" % a for a in s["allocs"]]
    return list(s["boots"]) + ["linux"]


RUN = re.compile(r"SEEDRUN seed=(\d+) program=(\S+) threads=(\d+) rep=(\d+)"
                 r"(?: alloc=(\w+))? rate=([0-9.]+) unit=(\S+)")


def boot_values(text, seed, variant, kernel):
    """{(column, threads): mean rate of the boot's runs} from one boot's console text."""
    runs = {}
    for line in text.splitlines():
        m = RUN.search(line)
        if not m or m.group(1) != seed:
            continue
        alloc, n = m.group(5), int(m.group(3))
        if alloc:
            col = "linux-" + alloc if kernel == "linux" else "%s-%s" % (alloc, variant)
        else:
            col = variant
        runs.setdefault((col, n), []).append(float(m.group(6)))
    return {k: sum(v) / len(v) for k, v in runs.items()}


def seed_verdict(ratio):
    if ratio > 1 + MARGIN:
        return "faster"
    if ratio < 1 - MARGIN:
        return "slower"
    return "same"


def seed_row(seed, n, smp):
    """The seed's table row for n clients or threads here: the same share of its CPUs
    (dbench's 8 clients on 8 CPUs are SMP clients on SMP vCPUs); the 2007 and 2010 rows as
    they are. None when the seed has no such row."""
    s = SEEDS[seed]
    if s["seed_cpus"] is None:
        return None
    if seed == "000":
        n = max(1, round(n * s["seed_cpus"] / smp))
    return n if n in s["seed_table"] else None


def seed_value(seed, column, row):
    s = SEEDS[seed]
    cols = list(s["seed_columns"])
    if column not in cols:
        return None
    vals = s["seed_table"].get(row) if s["seed_cpus"] is not None else s["seed_table"][None]
    if vals is None:
        return None
    return vals[cols.index(column)]


def fmt(x):
    if x is None:
        return "n/a"
    return "%.4g" % x if abs(x) < 100 else "%.1f" % x


def analyse(seed, samples, smp):
    """samples: {(column, threads): {round: value}}. Returns (REAL-SEED lines' fields per
    point, REAL-SEED-CMP fields per comparison)."""
    s = SEEDS[seed]
    points = []
    for (col, n), per_round in sorted(samples.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        vals = [per_round[r] for r in sorted(per_round)]
        mean, half = boots.spread(vals)
        points.append({"seed": seed, "program": s["program"],
                       "kernel": "linux" if col.startswith("linux") else "this",
                       "variant": col, "threads": n, "rounds": len(vals), "rate": mean,
                       "ci95": half, "unit": s["unit"]})
    pairs = {}
    for a, b in s["cmps"]:
        for n in counts(seed, smp):
            ra, rb = samples.get((a, n), {}), samples.get((b, n), {})
            both = sorted(set(ra) & set(rb))
            if both:
                pairs[(a, b, n)] = [ra[r] / rb[r] for r in both if rb[r] > 0]
    cmps = []
    for key, c in logratio.rows(pairs, margin=MARGIN).items():
        a, b, n = key
        if c["ratio"] is None:
            continue
        row = seed_row(seed, n, smp)
        sa, sb = seed_value(seed, a, row), seed_value(seed, b, row)
        sr = sa / sb if sa and sb else None
        sv = seed_verdict(sr) if sr else "n/a"
        # One round has no interval: the verdict cannot be read, and says so (doc/console.md).
        verdict = c["verdict"] if c["lo"] is not None else "inconclusive"
        if sr is None or verdict == "inconclusive":
            direction, agrees = "unknown", "n/a"
        else:
            direction = "agrees" if verdict == sv else "differs"
            agrees = "yes" if verdict == sv else "no"
        cmps.append({"seed": seed, "program": s["program"], "a": a, "b": b, "threads": n,
                     "ratio": c["ratio"], "lo": c["lo"], "hi": c["hi"], "ci95": c["ci95"],
                     "verdict": verdict, "rounds": c["n"], "seed_row": row,
                     "seed_ratio": sr, "seed_verdict": sv, "direction": direction,
                     "agrees": agrees})
    return points, cmps


def real_seed_line(p):
    return ("REAL-SEED seed=%s program=%s kernel=%s variant=%s threads=%d rounds=%d rate=%s "
            "ci95=%s unit=%s" % (p["seed"], p["program"], p["kernel"], p["variant"],
                                 p["threads"], p["rounds"], "%.1f" % p["rate"],
                                 "%.1f" % p["ci95"], p["unit"]))


def cmp_line(c):
    def r(x):
        return "n/a" if x is None else "%.3f" % x
    return ("REAL-SEED-CMP seed=%s program=%s a=%s b=%s threads=%d ratio=%s ci95=%s verdict=%s "
            "seed_ratio=%s seed_verdict=%s direction=%s agrees=%s rounds=%d lo=%s hi=%s"
            % (c["seed"], c["program"], c["a"], c["b"], c["threads"], r(c["ratio"]),
               r(c["ci95"]), c["verdict"], r(c["seed_ratio"]), c["seed_verdict"],
               c["direction"], c["agrees"], c["rounds"], r(c["lo"]), r(c["hi"])))


def table(seed, points):
    """The seed's table shaped as its own: a row per client or thread count, a column per
    variant (this kernel's, then Linux), mean +- half-width."""
    cols = [c for c in columns(seed) if any(p["variant"] == c for p in points)]
    rows = sorted({p["threads"] for p in points})
    cell = {(p["variant"], p["threads"]): p for p in points}
    out = ["| %s | %s |" % (SEEDS[seed]["what"], " | ".join(cols)),
           "|---:|" + "---:|" * len(cols)]
    for n in rows:
        out.append("| %d | %s |" % (n, " | ".join(
            "%s ± %s" % (fmt(cell[(c, n)]["rate"]), fmt(cell[(c, n)]["ci95"]))
            if (c, n) in cell else "" for c in cols)))
    return out


def seed_table(seed):
    """The seed's own numbers, in its own columns."""
    s = SEEDS[seed]
    names = list(s["seed_columns"].values())
    what = s["what"] if s["seed_cpus"] is not None else "runs"
    out = ["| %s (seed) | %s |" % (what, " | ".join(names)), "|---:|" + "---:|" * len(names)]
    for row, vals in s["seed_table"].items():
        out.append("| %s | %s |" % ("mean of 100" if row is None else row,
                                    " | ".join("%g" % v for v in vals)))
    return out


def cmp_table(cmps):
    out = ["| a / b | %s | rounds | ratio [95%%, Holm] | verdict | seed's | agrees |"
           % "n", "|---|---:|---:|---|---|---|---|"]
    for c in cmps:
        iv = "[%.3f, %.3f]" % (c["lo"], c["hi"]) if c["lo"] is not None else "(one round)"
        seed = "%.3f %s" % (c["seed_ratio"], c["seed_verdict"]) if c["seed_ratio"] else "n/a"
        out.append("| %s / %s | %d | %d | %.3f %s | %s | %s | %s |"
                   % (c["a"], c["b"], c["threads"], c["rounds"], c["ratio"], iv, c["verdict"],
                      seed, c["agrees"]))
    return out


def imitation_row(seed, bench_seed, cmps):
    """The boot suite's BENCH-SEED line beside the real program's comparison of the same two
    variants at the same count: (text, the real cmp or None)."""
    f = dict(w.split("=", 1) for w in bench_seed.split()[1:] if "=" in w)
    a = f.get("a", "") + ("/" + f["fanout_a"] if "fanout_a" in f else "")
    a = SEEDS[seed].get("imitation_names", {}).get(a, a)
    n = int(f.get("threads", "0"))
    real = next((c for c in cmps if c["a"] == a and c["b"] == f.get("b") and c["threads"] == n),
                None)
    text = "%s / %s at %d: imitation %s ± %s (%s)" % (a, f.get("b"), n, f.get("ratio"),
                                                     f.get("ci95"), f.get("verdict"))
    if real:
        text += ", real program %.3f %s (%s)" % (
            real["ratio"], "[%.3f, %.3f]" % (real["lo"], real["hi"]) if real["lo"] else
            "(one round)", real["verdict"])
    else:
        text += ", real program: no such point in this run"
    return text, real
