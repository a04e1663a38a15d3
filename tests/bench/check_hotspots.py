# The PROFILE and LOCKSTAT checks of tests/bench/check_bench.py (doc/console.md): the lines are
# well formed, name the log's points, agree with profile= and lockstat=, and add up.
"""A point's PROFILE lines carry distinct stacks of function names (idle, user
and 0x<hex> included), positive counts and one samples= total at least their
sum; a boot with profile=N (N > 0) profiles every point it measured, a boot
without prints no PROFILE line. A LOCKSTAT line names a lock once per point,
with contended <= acquisitions (at least 1) and max_wait_ns <= wait_ns; only
a lockstat=yes boot prints them. Either line must name a point of the log
(measured, or skipped by BENCH-SKIP)."""

import re

FRAME = re.compile(r"^[A-Za-z0-9_.]+$")     # a function name, idle, user or 0x<hex>
COUNT = re.compile(r"^[1-9]\d*$")
LOCK = re.compile(r"^[!-<>-~]+$")           # any printable word but '='
LOCK_TIMES = ("wait_ns", "max_wait_ns", "hold_ns")


class HotspotChecks:
    """Mixed into check_bench's Checker, whose ident, bad, tally, measured and skips
    these use."""

    def hotspots_init(self):
        self.profile = None   # profile= of the command line (0: off), None if unknown
        self.lockstat = None  # lockstat=yes on the command line, None if unknown
        self.profiles = {}    # (suite, point) -> {"samples", "sum", "stacks", "line"}
        self.locks = {}       # (suite, point) -> {lock name: line}

    def profile_line(self, n, d):
        """A PROFILE line: one distinct stack of a point, samples the point's total."""
        where = self.ident(n, d, "PROFILE")
        if where is None:
            return
        if not COUNT.match(d.get("samples", "")) or not COUNT.match(d.get("count", "")):
            self.bad(n, "PROFILE samples=%s count=%s: not positive counts"
                     % (d.get("samples"), d.get("count")))
            return
        frames = d.get("stack", "").split(";")
        bad = [f for f in frames if not FRAME.match(f)]
        if bad:
            self.bad(n, "PROFILE stack=%s: frame '%s' is not a function name"
                     % (d.get("stack"), bad[0]))
            return
        p = self.profiles.setdefault(where, {"samples": d["samples"], "sum": 0,
                                             "stacks": set(), "line": n})
        if d["samples"] != p["samples"]:
            self.bad(n, "PROFILE samples=%s, but line %d of the point has %s"
                     % (d["samples"], p["line"], p["samples"]))
        if d["stack"] in p["stacks"]:
            self.bad(n, "PROFILE stack=%s printed twice for the point" % d["stack"])
        p["stacks"].add(d["stack"])
        p["sum"] += int(d["count"])

    def lockstat_line(self, n, d):
        where = self.ident(n, d, "LOCKSTAT")
        if where is None or not self.tally(n, d, "LOCKSTAT", ("acquisitions", "contended")
                                           + LOCK_TIMES):
            return
        lock = d.get("lock", "")
        if not LOCK.match(lock):
            self.bad(n, "LOCKSTAT lock=%s is not a name" % lock)
            return
        seen = self.locks.setdefault(where, {})
        if lock in seen:
            self.bad(n, "LOCKSTAT lock=%s twice for the point (line %d)" % (lock, seen[lock]))
        seen[lock] = n
        if int(d["acquisitions"]) == 0 or int(d["contended"]) > int(d["acquisitions"]):
            self.bad(n, "LOCKSTAT lock=%s contended=%s of acquisitions=%s"
                     % (lock, d["contended"], d["acquisitions"]))
        if int(d["max_wait_ns"]) > int(d["wait_ns"]):
            self.bad(n, "LOCKSTAT lock=%s max_wait_ns=%s above wait_ns=%s"
                     % (lock, d["max_wait_ns"], d["wait_ns"]))

    def finish_hotspots(self):
        """PROFILE and LOCKSTAT lines name points of the log, and appear only in boots that
        asked for them; a profile= boot profiles every measured point."""
        for what, found, line in (("PROFILE", self.profiles, lambda v: v["line"]),
                                  ("LOCKSTAT", self.locks, lambda v: min(v.values()))):
            for (suite, key), v in found.items():
                if not self.measured(suite, *key) and key not in self.skips.get(suite, {}):
                    self.bad(line(v), "%s of %s %s: no such point" % (what, suite, key))
        for (suite, key), p in self.profiles.items():
            if p["sum"] > int(p["samples"]):
                self.bad(p["line"], "PROFILE of %s %s: samples=%s, but its counts add up to %d"
                         % (suite, key, p["samples"], p["sum"]))
        if self.profile == 0 and self.profiles:
            self.bad(0, "PROFILE lines in a boot without profile=")
        if self.lockstat is False and self.locks:
            self.bad(0, "LOCKSTAT lines in a boot without lockstat=yes")
        if self.profile:
            for suite, pts in self.points.items():
                for key in sorted((k for k in pts if (suite, k) not in self.profiles), key=str):
                    self.bad(0, "%s %s: no PROFILE line in a boot with profile=%d"
                             % (suite, key, self.profile))
