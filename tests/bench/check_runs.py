# The BENCH-RUNS checks of tests/bench/check_bench.py (doc/console.md): a bench.rates=yes boot
# prints each point's timed runs' rates right after its BENCH line, and they add up to it.
"""A BENCH-RUNS line names a point as its BENCH line does, and follows that line
with no machine line between; it has slot < of, and rates= one count per timed
run (runs= of the BENCH line), and with us= and pos= one length and one place
in its round per rate, whose time-weighted mean is the line's ops_per_sec (the
plain mean, to the printed thousandth, for lines without us=). A point of more
than 16 runs takes several lines, one after the other, each with first= (the
number of its first run: 1, 17, 33, ...), read as one. A bench.rates=yes boot
prints them for every BENCH line, any other boot none."""

import re
from decimal import Decimal

COUNT = re.compile(r"^[1-9]\d*$")
TALLY = re.compile(r"^\d+$")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")


class RunsChecks:
    """Mixed into check_bench's Checker, whose ident, bad and points these use."""

    def runs_init(self):
        self.rates = False    # bench.rates=yes: a BENCH-RUNS line after every BENCH line
        self.rate_lines = {}  # suite -> {(variant, fanout, threads): line of its BENCH-RUNS}
        self.part = None      # the runs so far of a point whose lines have first=, until whole

    def runs_line(self, n, d, before):
        """A BENCH-RUNS line: right after its point's BENCH line (no machine line between),
        or after the line before it of the same point (first=), one rate per timed run,
        their mean that line's ops_per_sec."""
        where = self.ident(n, d, "BENCH-RUNS")
        if where is None:
            return
        suite, key = where
        if not self.rates:
            self.bad(n, "BENCH-RUNS in a boot without bench.rates=yes")
        if not TALLY.match(d.get("slot", "")) or not COUNT.match(d.get("of", "")) or \
                int(d["slot"]) >= int(d["of"]):
            self.bad(n, "BENCH-RUNS slot=%s of=%s: not a slot of that many" % (d.get("slot"),
                                                                             d.get("of")))
        if not all(TALLY.match(r) for r in d.get("rates", "").split(",")):
            self.bad(n, "BENCH-RUNS rates=%s is not counts separated by commas" % d.get("rates"))
            return
        first = d.get("first")
        if first is not None and not COUNT.match(first):
            self.bad(n, "BENCH-RUNS first=%s is not a count" % first)
            return
        part, self.part = self.part, None
        if part is not None and first in (None, "1"):
            self.part_short(n, part)
            part = None
        if part is not None:
            # A later part: the one before it, of the same point, ended at first - 1.
            if part["where"] != where or len(part["rates"]) + 1 != int(first) or \
                    before is None or before[0] != "BENCH-RUNS":
                self.bad(n, "BENCH-RUNS first=%s of %s %s does not follow the part before it"
                         % (first, suite, key))
                return
            p = part["point"]
        else:
            if first not in (None, "1"):
                self.bad(n, "BENCH-RUNS first=%s of %s %s follows no part" % (first, suite, key))
                return
            if key in self.rate_lines.get(suite, {}):
                self.bad(n, "a second BENCH-RUNS line for %s %s" % (suite, key))
            self.rate_lines.setdefault(suite, {})[key] = n
            word, p = before or (None, {})
            if word != "BENCH" or self.points.get(suite, {}).get(key) is not p:
                self.bad(n, "BENCH-RUNS of %s %s does not follow that point's BENCH line"
                         % (suite, key))
                return
            part = {"where": where, "point": p, "rates": [], "us": [], "pos": [],
                    "has": ("us" in d, "pos" in d)}
        for name in ("rates", "us", "pos"):
            if name in d:
                part[name] += d[name].split(",")
        if not COUNT.match(p.get("runs", "")) or not DECIMAL.match(p.get("ops_per_sec", "")):
            return   # the BENCH line's own problem, reported there
        if first is not None and len(part["rates"]) < int(p["runs"]):
            self.part = part   # more parts to come
            return
        self.runs_whole(n, d, suite, key, p, part)

    def runs_whole(self, n, d, suite, key, p, part):
        """The checks of a point's runs, from its BENCH-RUNS line or lines."""
        rates = part["rates"]
        if len(rates) != int(p["runs"]):
            self.bad(n, "BENCH-RUNS of %s %s has %d rates, but its BENCH line runs=%s"
                     % (suite, key, len(rates), p["runs"]))
            return
        us = part["us"] if part["has"][0] else None
        pos = part["pos"] if part["has"][1] else None
        for name, xs in (("us", us), ("pos", pos)):
            if xs is not None and (len(xs) != len(rates) or not all(TALLY.match(x) for x in xs)):
                self.bad(n, "BENCH-RUNS of %s %s: %s=%s is not one count per rate"
                         % (suite, key, name, ",".join(xs)))
                return
        if pos is not None and any(int(x) >= int(d.get("of", "0") or 0) for x in pos):
            self.bad(n, "BENCH-RUNS of %s %s: pos=%s has a place past of=%s"
                     % (suite, key, ",".join(pos), d.get("of")))
        if us is None:
            # Lines before runs had lengths: the mean of the rates, rounded to the thousandth
            # printed (kernel/lib/stats.c stats_compute).
            mean = Decimal(sum(int(r) for r in rates)) / len(rates)
            slack = Decimal("0.0005")
        else:
            # Each run counts for its time (stats_time_weighted): all operations over all
            # time. The rates are rounded to the unit and the lengths to the microsecond, so
            # the mean is recovered to a part in 10^4, or a unit.
            total = sum(int(u) for u in us)
            if total == 0:
                return
            mean = Decimal(sum(int(r) * int(u) for r, u in zip(rates, us))) / total
            slack = max(Decimal(1), mean / 10000)
        if abs(mean - Decimal(p["ops_per_sec"])) > slack:
            self.bad(n, "BENCH-RUNS of %s %s: the rates' mean is %s, but its BENCH line has "
                     "ops_per_sec=%s" % (suite, key, round(mean, 3), p["ops_per_sec"]))

    def part_short(self, n, part):
        suite, key = part["where"]
        self.bad(n, "the BENCH-RUNS lines of %s %s stop at %d of runs=%s"
                 % (suite, key, len(part["rates"]), part["point"].get("runs")))

    def finish_rates(self):
        if self.part is not None:
            self.part_short(0, self.part)
            self.part = None
        if not self.rates:
            return
        for suite, pts in self.points.items():
            for key in sorted(set(pts) - set(self.rate_lines.get(suite, {})), key=str):
                self.bad(0, "%s %s: no BENCH-RUNS line in a boot with bench.rates=yes"
                         % (suite, key))
