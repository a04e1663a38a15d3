#!/usr/bin/env python3
# Checks the BENCH lines of a serial log against the contract (doc/console.md): every point
# of each suite present, numbers sane, one BENCH-DONE, END result=pass. Exit 0 only if all hold.
"""Usage: check_bench.py LOG CPUS [--quick]

Each suite the kernel ran announces itself with a BENCH-SUITE line: its sweep,
thread counts, variants and extras. The thread counts must be doc/console.md's
sweep at CPUS CPUs (the quick set with --quick, else the full sweeps), bench=quick
may leave out only variants with a fanout other than 64 (skipped=), and every
variant must then be measured at every thread count exactly once, and no other
point may appear. Every number must be a plain decimal, ops_per_sec positive,
the suite's extras present, runs= what the command line asked for, and at one
thread, where nothing contends, ci95 below the mean (contended points on a host
with fewer cores than vCPUs are legitimately noisy and only need to be finite).
With 3 runs or fewer (bench=quick) Student's t is 4.3 or more, so one run
slowed by the host breaks that bound without anything being wrong in the
kernel: there the bound is the standard deviation below the mean. BENCH-CMP
lines must name measured points; BENCH-DONE must appear once and count the
suites; END result=pass must be the last machine line. A boot that names no
suite (bench=all, bench=quick, or no bench=) must run at least the suites
listed in DEFAULT_SUITES, in that order.
"""

import re
import sys

# The suites a boot that names none must run, in the order they run: kept here on purpose,
# apart from the kernel's registry, so that a suite that goes missing is noticed. A new suite
# need not be added: any other suite is checked from its BENCH-SUITE line alike.
DEFAULT_SUITES = ["locks", "radix", "pagecache", "dbench", "webserve", "ramfs", "lookup",
                  "madvise"]
QUICK_FANOUT = 64              # bench=quick keeps the variants with this fanout or none
QUICK_RUNS = 3
DEFAULT_RUNS = 5               # kernel/bench/bench.c's default when bench.runs= is not given

STAMP = re.compile(r"^\[\s*\d+\.\d+\] ")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
COUNT = re.compile(r"^[1-9]\d*$")
NAME = re.compile(r"^[a-z0-9-]+$")
MACHINE = ("BOOT", "BENCH-SUITE", "BENCH", "BENCH-CMP", "BENCH-DONE", "SELFTEST", "PANIC",
           "END")
# BENCH-SUITE: space-free key=value words, then op= and seed=, texts without '='.
SUITE_LINE = re.compile(r"^BENCH-SUITE (?P<words>.*?) op=(?P<op>[^=]*) seed=(?P<seed>[^=]*)$")


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


def variant(label):
    """A variant as (name, fanout): radix-lock/128 is ("radix-lock", 128), ticket is
    ("ticket", None); None if label is malformed."""
    name, slash, fanout = label.partition("/")
    if not NAME.match(name) or (slash and not COUNT.match(fanout)):
        return None
    return (name, int(fanout) if slash else None)


def variants(text):
    """A BENCH-SUITE list of variants, or None if one is malformed."""
    out = [variant(v) for v in text.split(",")] if text else []
    return None if None in out else out


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
        self.suites = {}      # suite -> its BENCH-SUITE line's fields, in log order
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

    def suite(self, n, text):
        m = SUITE_LINE.match(text)
        d = fields(m.group("words").split()) if m else None
        if d is None:
            self.bad(n, "BENCH-SUITE is not key=value words ending in op= and seed=: %s"
                     % text)
            return
        name = d.get("suite", "")
        if not NAME.match(name):
            self.bad(n, "BENCH-SUITE suite=%s is not a name" % name)
            return
        if name in self.suites:
            self.bad(n, "a second BENCH-SUITE line for %s" % name)
            return
        if not m.group("op").strip() or not m.group("seed").strip():
            self.bad(n, "%s: empty op= or seed=" % name)
        kind = d.get("sweep")
        threads = d.get("threads", "").split(",")
        measured, skipped = variants(d.get("variants", "")), variants(d.get("skipped", ""))
        if kind not in ("up", "over", "fixed") or not all(COUNT.match(t) for t in threads):
            self.bad(n, "%s: sweep=%s threads=%s" % (name, kind, d.get("threads")))
            return
        if not measured or skipped is None:
            self.bad(n, "%s: variants=%s skipped=%s" % (name, d.get("variants"),
                                                         d.get("skipped")))
            return
        want = sweep(kind, self.cpus, self.quick)
        if [int(t) for t in threads] != want:
            self.bad(n, "%s: threads=%s, but the %s sweep at %d CPUs is %s" % (
                name, d["threads"], kind, self.cpus, ",".join(map(str, want))))
        for v, f in skipped:
            if not self.quick or f in (None, QUICK_FANOUT):
                self.bad(n, "%s: %s left out, which %s runs" % (
                    name, v if f is None else "%s/%d" % (v, f),
                    "bench=quick" if self.quick else "a full run"))
        extras = d.get("extras", "").split(",") if d.get("extras") else []
        self.suites[name] = {"threads": want, "variants": measured, "extras": extras}

    def bench(self, n, d):
        suite = d.get("suite")
        if suite not in self.suites:
            self.bad(n, "a BENCH line of %s before its BENCH-SUITE line" % suite)
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
        for extra in self.suites[suite]["extras"]:
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
        if words[0] == "BENCH-SUITE":
            self.last = (words[0], {})
            self.suite(n, text)
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

    def finish(self, named):
        if not named:
            ran = [s for s in self.suites if s in DEFAULT_SUITES]
            for s in DEFAULT_SUITES:
                if s not in self.suites:
                    self.bad(0, "%s: no BENCH-SUITE line, though no suite was named" % s)
            if ran != [s for s in DEFAULT_SUITES if s in ran]:
                self.bad(0, "the suites ran in the order %s, not %s"
                         % (" ".join(ran), " ".join(DEFAULT_SUITES)))
        for suite, info in self.suites.items():
            pts = self.points.get(suite, {})
            want = {(v, f, t) for v, f in info["variants"] for t in info["threads"]}
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
            if d.get("suites") != str(len(self.suites)):
                self.bad(n, "BENCH-DONE suites=%s but %d BENCH-SUITE lines"
                         % (d.get("suites"), len(self.suites)))
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
    named = False
    for line in lines:
        m = re.search(r"command line '(.*)'", line)
        if m:
            words = m.group(1).split()
            for w in words:
                if re.match(r"bench\.runs=\d+$", w):
                    c.runs = int(w[len("bench.runs="):])
                if w.startswith("bench="):
                    named = bool(set(w[len("bench="):].split(",")) - {"all", "quick"})
            break
    for n, line in enumerate(lines, 1):
        c.line(n, line)
    c.finish(named)
    for p in c.problems:
        print("check_bench: " + p)
    npoints = sum(len(p) for p in c.points.values())
    print("check_bench: %d points in %d suites (%s), %d comparisons, %d problems"
          % (npoints, len(c.suites), " ".join(c.suites) or "none", len(c.cmps),
             len(c.problems)))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
