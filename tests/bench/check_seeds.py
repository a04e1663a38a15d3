# The BENCH-SEED checks of tests/bench/check_bench.py, and the thread sweeps and headline
# comparisons of doc/console.md that they and the other checks are measured against.
"""After each seed suite's table, one BENCH-SEED line for each headline comparison
whose two points were measured (doc/console.md's five, scaled to the CPUs by
headlines()), carrying its BENCH-CMP line's ratio, ci95 and verdict, with
direction= and magnitude= what those fields say."""

import re
from decimal import Decimal

VERDICTS = ("faster", "slower", "same", "inconclusive")
# The suites whose headline claims no difference (seed verdict same): their point takes 50 runs.
EQUIVALENCE = ("dbench", "webserve", "ramfs")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")


def sweep(kind, cpus, quick):
    """doc/console.md's thread counts, in increasing order, without repeats."""
    if kind == "fixed":
        counts = [1, 8] if quick else [1, 2, 4, 8, 16]
    elif quick:
        counts = [1, cpus] + ([2 * cpus] if kind == "over" else [])
    else:
        counts = []
        t = 1
        while t < cpus:
            counts.append(t)
            t *= 2
        counts.append(cpus)
        if kind == "over":
            counts += [(3 * cpus + 1) // 2, 2 * cpus, (5 * cpus + 1) // 2]
    return sorted(set(counts))


def headlines(cpus):
    """doc/console.md's headline comparisons at cpus CPUs, as (suite, a, fanout_a, b,
    threads): the seeds' thread counts at 8 CPUs (16, 8, 8, 1, 8) scaled to cpus, madvise's
    the largest count of its fixed sweep that the CPUs can run one thread each."""
    fixed = max(t for t in sweep("fixed", cpus, False) if t <= cpus)
    return [("pagecache", "radix-rcu", 64, "hash-global", 2 * cpus),
            ("dbench", "radix-lock", 128, "hash-global", cpus),
            ("webserve", "hash-bucket", None, "hash-global", cpus),
            ("ramfs", "free-rcu", None, "free-now", 1),
            ("madvise", "free-rlock", None, "dontneed-wlock", fixed)]


def show(v, f):
    return v if f is None else "%s/%d" % (v, f)


def magnitude(seed, ratio, ci95):
    """BENCH-SEED's magnitude= of the printed seed_ratio against ratio +- ci95 (Decimals)."""
    if seed > ratio + ci95:
        return "above"
    if seed < ratio - ci95:
        return "below"
    return "inside"


def direction(verdict, seed_verdict):
    """BENCH-SEED's direction=: unknown when this boot's verdict is inconclusive."""
    if verdict == "inconclusive":
        return "unknown"
    return "agrees" if verdict == seed_verdict else "differs"


class SeedChecks:
    """Mixed into check_bench's Checker, whose comparison, number, bad, side, measured,
    suites, cmps, seeds and last_point these use."""

    def seed(self, n, d):
        if not self.comparison(n, d, "BENCH-SEED", (
                "suite", "a", "b", "threads", "seed_ratio", "seed_verdict", "ratio", "ci95",
                "verdict", "direction", "magnitude")):
            return
        if d["suite"] != self.current:
            self.bad(n, "BENCH-SEED of %s not in its suite's part of the log" % d["suite"])
        ratio = self.number(n, d, "seed_ratio", True)
        if d["seed_verdict"] not in VERDICTS:
            self.bad(n, "seed_verdict=%s" % d["seed_verdict"])
        elif ratio is not None and (d["seed_verdict"] == "faster" and ratio <= 1 or
                                    d["seed_verdict"] == "slower" and ratio >= 1):
            self.bad(n, "seed_verdict=%s with seed_ratio=%s" % (d["seed_verdict"],
                                                                 d["seed_ratio"]))
        if d["seed_verdict"] in VERDICTS:
            want = direction(d["verdict"], d["seed_verdict"])
            if d["direction"] != want:
                self.bad(n, "direction=%s, but verdict=%s and seed_verdict=%s say %s"
                         % (d["direction"], d["verdict"], d["seed_verdict"], want))
        if ratio is not None and DECIMAL.match(d["ratio"]) and DECIMAL.match(d["ci95"]):
            want = magnitude(Decimal(d["seed_ratio"]), Decimal(d["ratio"]), Decimal(d["ci95"]))
            if d["magnitude"] != want:
                self.bad(n, "magnitude=%s, but seed_ratio=%s against %s +- %s is %s"
                         % (d["magnitude"], d["seed_ratio"], d["ratio"], d["ci95"], want))
        self.seeds.append((n, d))

    def find_cmp(self, suite, a, fa, b, t):
        for n, d in self.cmps:
            if (d["suite"], d["a"], self.side(d, "a")[1], d["b"], int(d["threads"])) == \
                    (suite, a, fa, b, t):
                return n, d
        return None

    def finish_seeds(self):
        heads = [h for h in headlines(self.cpus) if h[0] in self.suites]
        seen = {}
        for n, d in self.seeds:
            fa = int(d["fanout_a"]) if "fanout_a" in d else None
            key = (d["suite"], d["a"], fa, d["b"], int(d["threads"]))
            if key in seen:
                self.bad(n, "a second BENCH-SEED for %s (line %d)" % (key, seen[key]))
            seen[key] = n
            if not self.aa and key not in heads and not self.quick_madvise(key):
                self.bad(n, "BENCH-SEED for %s %s vs %s at %s threads, which is no headline "
                         "comparison at %d CPUs" % (d["suite"], show(d["a"], fa), d["b"],
                                                    d["threads"], self.cpus))
            if n < self.last_point.get(d["suite"], 0):
                self.bad(n, "BENCH-SEED before the last BENCH line of %s" % d["suite"])
            found = self.find_cmp(*key)
            if not found:
                self.bad(n, "BENCH-SEED without its BENCH-CMP line")
                continue
            for k in ("ratio", "ci95"):
                if float(d[k]) != float(found[1][k]):
                    self.bad(n, "BENCH-SEED %s=%s, but line %d has %s" % (k, d[k], found[0],
                                                                          found[1][k]))
            if d["verdict"] != found[1]["verdict"]:
                self.bad(n, "BENCH-SEED verdict=%s, but line %d has %s"
                         % (d["verdict"], found[0], found[1]["verdict"]))
        if self.aa:
            return   # an A/A boot replaces every b: no headline is compared
        for h in heads:
            suite, a, fa, b, t = h
            if not self.measured(suite, a, fa, t) or not self.measured(suite, b, None, t):
                continue   # skipped, or not in this boot's set (bench=quick)
            if not self.find_cmp(*h):
                self.bad(0, "%s: no BENCH-CMP line for the headline %s vs %s at %d threads"
                         % (suite, show(a, fa), b, t))
            if h not in seen:
                self.bad(0, "%s: no BENCH-SEED line for the headline %s vs %s at %d threads"
                         % (suite, show(a, fa), b, t))

    def head_column(self, suite, key):
        """Whether key, (variant, fanout, threads) of suite, is one of the two columns of a
        headline that claims no difference, at its point."""
        name, fanout, threads = key
        return any(h[0] == suite and h[4] == threads and
                   (name, fanout) in ((h[1], h[2]), (h[3], None))
                   for h in headlines(self.cpus) if h[0] in EQUIVALENCE)

    def quick_madvise(self, key):
        """bench=quick measures madvise at 1 and 8 threads only: a kernel may then take the
        largest of those the CPUs can run one thread each, which is accepted, not required."""
        suite, a, fa, b, t = key
        quick = max(c for c in sweep("fixed", self.cpus, True) if c <= self.cpus)
        return self.quick and (suite, a, fa, b) == ("madvise", "free-rlock", None,
                                                   "dontneed-wlock") and t == quick
