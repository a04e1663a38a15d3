#!/usr/bin/env python3
# Checks the BENCH lines of a serial log against the contract (shared/CONTRACT.md): every point
# of each suite present, numbers sane, one BENCH-DONE, END result=pass. Exit 0 only if all hold.
"""Usage: check_bench.py LOG CPUS [--quick]

For every suite with at least one BENCH line in LOG, the expected points of a
CPUS-CPU run (the quick set with --quick, else the full sweeps) must each
appear exactly once, and no other point may. Every number must be a plain
decimal, ops_per_sec positive, the suite's extras present (dbench: mb_per_sec),
runs= what the command line asked for, and at one thread, where nothing
contends, ci95 below the mean (contended points on a host with fewer cores than
vCPUs are legitimately noisy and only need to be finite). With 3 runs or fewer
(bench=quick) Student's t is 4.3 or more, so one run slowed by the host breaks
that bound without anything being wrong in the kernel: there the bound is the
standard deviation below the mean. BENCH-CMP lines must name measured points; BENCH-DONE must appear
once and count the suites; END result=pass must be the last machine line.
"""

import re
import sys

# The contract's suites: sweep and variants as (name, fanout or None).
SUITES = {
    "locks": ("over", [("ticket", None), ("queued", None), ("tas", None)]),
    "radix": ("up", [("lookup", 16), ("lookup", 64), ("lookup", 128)]),
    "pagecache": ("over", [("hash-global", None), ("hash-bucket", None)]
                  + [(v, f) for v in ("radix-lock", "radix-rcu") for f in (16, 64, 128)]),
    "dbench": ("over", [("hash-global", None), ("radix-lock", 128), ("radix-lock", 16),
                        ("radix-rcu", 64)]),
    "webserve": ("up", [("hash-global", None), ("hash-bucket", None)]),
    "ramfs": ("up", [("free-now", None), ("free-rcu", None)]),
    "lookup": ("up", [("rcu-walk", None), ("ref-walk", None)]),
    "madvise": ("fixed", [("dontneed-wlock", None), ("dontneed-rlock", None),
                          ("free-wlock", None), ("free-rlock", None)]),
}
QUICK_KEEPS_ALL = {"dbench"}   # "dbench keeps its four columns"
EXTRAS = {"dbench": ["mb_per_sec"]}   # extras the contract's suite table names
QUICK_RUNS = 3
DEFAULT_RUNS = 5               # kernel/bench.c's default when bench.runs= is not given

STAMP = re.compile(r"^\[\s*\d+\.\d+\] ")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
COUNT = re.compile(r"^[1-9]\d*$")
MACHINE = ("BOOT", "BENCH", "BENCH-CMP", "BENCH-DONE", "SELFTEST", "PANIC", "END")


def sweep(kind, cpus, quick):
    """The contract's thread counts, in increasing order, without repeats."""
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


def expected(suite, cpus, quick):
    kind, variants = SUITES[suite]
    if quick and suite not in QUICK_KEEPS_ALL:
        variants = [(v, f) for v, f in variants if f in (None, 64)]
    return {(v, f, t) for v, f in variants for t in sweep(kind, cpus, quick)}


def fields(words):
    d = {}
    for w in words:
        key, eq, value = w.partition("=")
        if not eq or not key or key in d:
            return None
        d[key] = value
    return d


class Checker:
    def __init__(self, cpus, quick):
        self.cpus = cpus
        self.quick = quick
        self.problems = []
        self.points = {}      # suite -> {(variant, fanout, threads): fields}
        self.cmps = []
        self.done = []
        self.last = None      # the last machine line's first word and fields
        self.runs = QUICK_RUNS if quick else DEFAULT_RUNS

    def bad(self, n, msg):
        self.problems.append("line %d: %s" % (n, msg) if n else msg)

    def number(self, n, d, key, positive):
        v = d.get(key)
        if v is None:
            self.bad(n, "%s= missing" % key)
            return None
        if not DECIMAL.match(v):
            self.bad(n, "%s=%s is not a plain decimal" % (key, v))
            return None
        x = float(v)
        if positive and x <= 0:
            self.bad(n, "%s=%s is not positive" % (key, v))
        return x

    def bench(self, n, d):
        suite = d.get("suite")
        if suite not in SUITES:
            self.bad(n, "unknown suite %s" % suite)
            return
        fanout = d.get("fanout")
        if fanout is not None and not COUNT.match(fanout):
            self.bad(n, "fanout=%s is not a count" % fanout)
            return
        if not COUNT.match(d.get("threads", "")) or not COUNT.match(d.get("runs", "")):
            self.bad(n, "threads= or runs= missing or not a count")
            return
        key = (d.get("variant"), int(fanout) if fanout else None, int(d["threads"]))
        pts = self.points.setdefault(suite, {})
        if key in pts:
            self.bad(n, "%s %s measured twice" % (suite, key))
        pts[key] = d
        if int(d["runs"]) != self.runs:
            self.bad(n, "runs=%s, expected %d" % (d["runs"], self.runs))
        mean = self.number(n, d, "ops_per_sec", True)
        for extra in EXTRAS.get(suite, []):
            self.number(n, d, extra, False)
        sd = self.number(n, d, "stddev", False)
        ci = self.number(n, d, "ci95", False)
        if mean is None or ci is None or sd is None or key[2] != 1:
            return
        if int(d["runs"]) > 3 and ci >= mean:
            self.bad(n, "%s %s: ci95 %s is not below the mean %s" % (suite, key, ci, mean))
        if int(d["runs"]) <= 3 and sd >= mean:
            self.bad(n, "%s %s: stddev %s is not below the mean %s" % (suite, key, sd, mean))

    def cmp(self, n, d):
        for key in ("suite", "a", "b", "threads", "ratio", "ci95", "verdict"):
            if key not in d:
                self.bad(n, "BENCH-CMP without %s=" % key)
                return
        if d["verdict"] not in ("same", "faster", "slower"):
            self.bad(n, "verdict=%s" % d["verdict"])
        self.number(n, d, "ratio", False)
        self.number(n, d, "ci95", False)
        self.cmps.append((n, d))

    def line(self, n, text):
        text = STAMP.sub("", text.rstrip("\r\n"))
        words = text.split()
        if not words or words[0] not in MACHINE:
            return
        d = fields(words[1:])
        if words[0] in ("PANIC", "SELFTEST"):
            self.last = (words[0], d or {})
            return
        if d is None:
            self.bad(n, "not key=value words: %s" % text)
            return
        self.last = (words[0], d)
        if words[0] == "BENCH":
            self.bench(n, d)
        elif words[0] == "BENCH-CMP":
            self.cmp(n, d)
        elif words[0] == "BENCH-DONE":
            self.done.append((n, d))

    def finish(self):
        for suite, pts in sorted(self.points.items()):
            want = expected(suite, self.cpus, self.quick)
            for p in sorted(want - set(pts), key=str):
                self.bad(0, "%s: point %s missing" % (suite, p))
            for p in sorted(set(pts) - want, key=str):
                self.bad(0, "%s: point %s not in the %s set" % (suite, p,
                         "quick" if self.quick else "full"))
        for n, d in self.cmps:
            pts = self.points.get(d["suite"], {})
            t = int(d["threads"]) if COUNT.match(d["threads"]) else None
            for side in ("a", "b"):
                f = d.get("fanout_" + side)
                if (d[side], int(f) if f else None, t) not in pts:
                    self.bad(n, "BENCH-CMP %s=%s fanout=%s threads=%s: no such point"
                             % (side, d[side], f, d["threads"]))
        if len(self.done) != 1:
            self.bad(0, "%d BENCH-DONE lines, expected 1" % len(self.done))
        else:
            n, d = self.done[0]
            self.number(n, d, "secs", False)
            if d.get("suites") != str(len(self.points)):
                self.bad(n, "BENCH-DONE suites=%s but %d suites printed points"
                         % (d.get("suites"), len(self.points)))
        if self.last != ("END", {"result": "pass"}):
            self.bad(0, "the last machine line is not END result=pass")


def main(argv):
    args = [a for a in argv[1:] if a != "--quick"]
    if len(args) != 2 or not COUNT.match(args[1]):
        print(__doc__, file=sys.stderr)
        return 2
    path, cpus = args[0], int(args[1])
    c = Checker(cpus, "--quick" in argv[1:])
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    for line in lines:
        m = re.search(r"command line '.*\bbench\.runs=(\d+)", line)
        if m:
            c.runs = int(m.group(1))
            break
    for n, line in enumerate(lines, 1):
        c.line(n, line)
    c.finish()
    for p in c.problems:
        print("check_bench: " + p)
    npoints = sum(len(p) for p in c.points.values())
    print("check_bench: %d points in %d suites (%s), %d comparisons, %d problems"
          % (npoints, len(c.points), " ".join(sorted(c.points)) or "none", len(c.cmps),
             len(c.problems)))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
