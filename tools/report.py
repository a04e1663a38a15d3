#!/usr/bin/env python3
# Turns a saved serial log into OUTDIR/report.md and one gnuplot chart per benchmark suite.
# Usage: report.py LOG OUTDIR   (the line formats are the console contract in doc/console.md)

import os
import re
import shutil
import subprocess
import sys

# Headings for the extras' tables; an extra not here is headed by its own name. Without a
# BENCH-SUITE line to name a suite's extras, these are the ones looked for.
EXTRAS = {
    "mb_per_sec": "MB/s",
    "ns_per_op": "ns/op",
    "faults_per_op": "faults/op",
    "ipis_per_op": "IPIs/op",
    "lazy_freed": "lazy freed",
}

STAMP = re.compile(r"\[\s*\d+\.\d+\] ?")
# BENCH-SUITE: space-free key=value words, then op= and seed=, texts without '='.
SUITE_LINE = re.compile(r"(?P<words>.*?) op=(?P<op>[^=]*) seed=(?P<seed>[^=]*)")
DECIMAL = re.compile(r"\d+(\.\d+)?")
COUNT = re.compile(r"\d+")


class BadLine(Exception):
    """A machine-readable line that cannot be used; the message says why."""


class Log:
    """Everything the report needs from one serial log."""

    def __init__(self):
        self.boot = None          # fields of the BOOT line
        self.done = None          # fields of BENCH-DONE
        self.end = None           # "pass" or "fail"
        self.selftests = []       # (name, result)
        self.panics = []          # text after PANIC
        self.suites = {}          # suite -> its BENCH-SUITE line, in log order
        self.points = {}          # suite -> {(variant, fanout, threads): point}
        self.cmps = {}            # suite -> [comparison]
        self.skipped = 0


def warn(msg):
    print("report: " + msg, file=sys.stderr)


def fields(words):
    """key=value words to a dict; a word without '=' makes the line unusable."""
    d = {}
    for w in words:
        key, eq, value = w.partition("=")
        if not eq or not key:
            raise BadLine("'%s' is not key=value" % w)
        d[key] = value
    return d


def need(d, key, kind=None):
    """The field key of d, checked to be a decimal or a count when kind says so."""
    if key not in d or d[key] == "":
        raise BadLine("missing %s" % key)
    v = d[key]
    if kind == "decimal":
        if not DECIMAL.fullmatch(v):
            raise BadLine("%s=%s is not a number" % (key, v))
        return float(v)
    if kind == "count":
        if not COUNT.fullmatch(v) or int(v) == 0:
            raise BadLine("%s=%s is not a positive count" % (key, v))
        return int(v)
    return v


def optional(d, key, kind):
    return need(d, key, kind) if key in d else None


def take_suite(log, text):
    """A BENCH-SUITE line: what the suite measures, its seed, variants and extras."""
    m = SUITE_LINE.fullmatch(text)
    if not m:
        raise BadLine("no op= and seed= at its end")
    d = fields(m.group("words").split())
    suite = need(d, "suite")
    labels = [v for key in ("variants", "skipped") for v in d.get(key, "").split(",") if v]
    if not labels:
        raise BadLine("no variants")
    log.suites[suite] = {
        "op": m.group("op").strip(),
        "seed": m.group("seed").strip(),
        "variants": labels,
        "extras": [e for e in d.get("extras", "").split(",") if e],
    }


def extras_of(log, suite):
    """The extras the suite's BENCH-SUITE line names; without one, doc/console.md's."""
    return log.suites[suite]["extras"] if suite in log.suites else list(EXTRAS)


def take_bench(log, d):
    suite = need(d, "suite")
    p = {
        "variant": need(d, "variant"),
        "fanout": optional(d, "fanout", "count"),
        "threads": need(d, "threads", "count"),
        "runs": need(d, "runs", "count"),
        "mean": need(d, "ops_per_sec", "decimal"),
        "stddev": need(d, "stddev", "decimal"),
        "ci95": need(d, "ci95", "decimal"),
        "extras": {},
    }
    for key in extras_of(log, suite):
        if key in d:
            p["extras"][key] = need(d, key, "decimal")
    pts = log.points.setdefault(suite, {})
    ident = (p["variant"], p["fanout"], p["threads"])
    if ident in pts:
        warn("%s %s threads=%d measured twice; keeping the later line"
             % (suite, label(p["variant"], p["fanout"]), p["threads"]))
    pts[ident] = p


def take_cmp(log, d):
    suite = need(d, "suite")
    c = {
        "a": label(need(d, "a"), optional(d, "fanout_a", "count")),
        "b": label(need(d, "b"), optional(d, "fanout_b", "count")),
        "threads": need(d, "threads", "count"),
        "ratio": need(d, "ratio", "decimal"),
        "ci95": need(d, "ci95", "decimal"),
        "verdict": need(d, "verdict"),
    }
    if c["verdict"] not in ("same", "faster", "slower"):
        raise BadLine("verdict=%s is not same, faster or slower" % c["verdict"])
    log.cmps.setdefault(suite, []).append(c)


def take(log, word, rest):
    """Records one machine line; raises BadLine when it is unusable."""
    if word == "PANIC":
        log.panics.append(" ".join(rest))
        return
    if word == "BENCH-SUITE":
        take_suite(log, " ".join(rest))
        return
    d = fields(rest)
    if word == "BENCH":
        take_bench(log, d)
    elif word == "BENCH-CMP":
        take_cmp(log, d)
    elif word == "BOOT":
        need(d, "cpus", "count")
        for key in ("possible", "mem_mib", "tsc_khz", "boot_us"):
            optional(d, key, "decimal")
        log.boot = d
    elif word == "BENCH-DONE":
        need(d, "suites", "decimal")
        need(d, "secs", "decimal")
        log.done = d
    elif word == "SELFTEST":
        log.selftests.append((need(d, "name"), need(d, "result")))
    elif word == "END":
        log.end = need(d, "result")


def parse(path):
    log = Log()
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    for n, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        m = STAMP.match(text)
        if m:
            text = text[m.end():]
        words = text.split()
        if not words or words[0] not in ("BOOT", "BENCH-SUITE", "BENCH",
                                         "BENCH-CMP", "BENCH-DONE", "SELFTEST",
                                         "PANIC", "END"):
            continue
        try:
            # A log cut mid-line can end in a number that looks whole but is
            # not ("ci95=12" of "ci95=1234.5"): trust only finished lines.
            if not line.endswith("\n"):
                raise BadLine("cut short (no newline at the end of the log)")
            take(log, words[0], words[1:])
        except BadLine as e:
            warn("%s:%d: skipped %s line: %s" % (path, n, words[0], e))
            log.skipped += 1
    return log


def label(variant, fanout):
    return variant if fanout is None else "%s/%d" % (variant, fanout)


def series(log, suite, pts):
    """The suite's points grouped by variant(/fanout), in its BENCH-SUITE
    line's order; variants it does not name follow, sorted."""
    order = log.suites[suite]["variants"] if suite in log.suites else []
    keys = sorted({(v, f) for v, f, _ in pts},
                  key=lambda k: (order.index(label(*k)) if label(*k) in order
                                 else len(order), k[0], k[1] or 0))
    out = []
    for v, f in keys:
        rows = sorted((p for p in pts.values()
                       if p["variant"] == v and p["fanout"] == f),
                      key=lambda p: p["threads"])
        out.append((label(v, f), rows))
    return out


def figures(x):
    """Three significant figures, without an exponent."""
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.3g" % x


def human(x):
    """1234567 -> 1.23M: the units a reader compares at a glance."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return figures(x / scale) + suffix
    return figures(x)


def cell(text):
    return str(text).replace("|", "\\|")


def table(head, rows):
    out = ["| " + " | ".join(cell(h) for h in head) + " |",
           "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return out


def filename(suite):
    """A file name for the suite that stays inside the output directory."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", suite)


def cpus(log):
    return int(log.boot["cpus"]) if log.boot else None


def header(log, path):
    out = ["# Benchmark report", "", "From `%s`." % path, ""]
    rows = []
    if log.boot:
        b = log.boot
        ncpu = b["cpus"]
        if "possible" in b:
            ncpu += " online of %s possible" % b["possible"]
        rows.append(("CPUs", ncpu))
        if "mem_mib" in b:
            rows.append(("memory", "%s MiB" % b["mem_mib"]))
        if "tsc_khz" in b:
            rows.append(("TSC", "%.3f GHz" % (float(b["tsc_khz"]) / 1e6)))
        if "boot_us" in b:
            rows.append(("boot to all CPUs online",
                         "%.1f ms" % (float(b["boot_us"]) / 1e3)))
    else:
        rows.append(("CPUs", "unknown: no BOOT line in the log"))
    if log.done:
        rows.append(("benchmarks", "%s suites in %s s"
                     % (log.done["suites"], log.done["secs"])))
    else:
        rows.append(("benchmarks", "no BENCH-DONE line: the run did not finish"))
    if log.selftests:
        failed = [name for name, result in log.selftests if result != "pass"]
        text = "%d passed, %d failed" % (len(log.selftests) - len(failed),
                                         len(failed))
        if failed:
            text += " (" + ", ".join(failed) + ")"
        rows.append(("self-tests", text))
    for p in log.panics:
        rows.append(("panic", p))
    rows.append(("result", log.end or "no END line: the log ends early"))
    if log.skipped:
        rows.append(("skipped lines", "%d malformed (warnings on stderr)"
                     % log.skipped))
    return out + table(("run", ""), rows) + [""]


def section(log, suite, chart):
    out = ["## " + suite, ""]
    if suite in log.suites:
        info = log.suites[suite]
        out += ["Operation: %s; seed: %s." % (info["op"], info["seed"]), ""]
    groups = series(log, suite, log.points.get(suite, {}))
    if groups:
        threads = sorted({p["threads"] for _, rows in groups for p in rows})
        out += ["Operations per second, mean ± 95% confidence half-width:", ""]
        out += sweep_table(log, groups, threads, lambda p: "%s ± %s" % (
            human(p["mean"]), human(p["ci95"])))
        # One table per extra keeps each as narrow as the main one.
        for key in extras_of(log, suite):
            unit = EXTRAS.get(key, key)
            if any(key in p["extras"] for _, rows in groups for p in rows):
                out += ["%s (mean over the runs):" % unit, ""]
                out += sweep_table(log, groups, threads, lambda p: human(
                    p["extras"][key]) if key in p["extras"] else "")
    else:
        out += ["No points were measured.", ""]
    cmps = log.cmps.get(suite, [])
    if cmps:
        rows = [(c["a"], c["b"], c["threads"],
                 "%.3f ± %.3f" % (c["ratio"], c["ci95"]), c["verdict"])
                for c in cmps]
        out += ["Comparisons (ratio of a to b, 95% confidence):", ""]
        out += table(("a", "b", "threads", "ratio a/b", "verdict"), rows)
        out += [""]
    if chart:
        out += ["![%s](%s)" % (suite, chart), ""]
    return out


def sweep_table(log, groups, threads, show):
    """Rows are thread counts, columns the series; show(point) fills a cell."""
    n = cpus(log)
    rows = []
    for t in threads:
        r = ["%d%s" % (t, " (>ncpu)" if n and t > n else "")]
        for _, pts in groups:
            p = next((p for p in pts if p["threads"] == t), None)
            r.append(show(p) if p else "")
        rows.append(r)
    return table(["threads"] + [name for name, _ in groups], rows) + [""]


def quote(s):
    """A gnuplot single-quoted string: only the quote itself needs doubling."""
    return "'" + s.replace("'", "''") + "'"


def lines(*texts):
    """A gnuplot double-quoted string of one line per text ("\\n" breaks)."""
    return '"' + "\\n".join(t.replace("\\", "\\\\").replace('"', '\\"')
                             for t in texts) + '"'


def chart_script(log, suite, groups, terminal):
    """The gnuplot script for the suite's chart; the data sit in NAME.dat."""
    name = filename(suite)
    title = [suite]
    if suite in log.suites:
        # The kernel's texts are too long for the y axis: both go above the plot.
        title = [suite + ": " + log.suites[suite]["seed"],
                 "one operation: " + log.suites[suite]["op"]]
    threads = sorted({p["threads"] for _, rows in groups for p in rows})
    n = cpus(log)
    lo, hi = threads[0], max(threads[-1], n or 0)
    font = ' font ",10"' if terminal == "pngcairo" else ""
    gp = [
        "# The %s chart; edit and re-run with: gnuplot %s.gp" % (suite, name),
        "set terminal %s size 960,600 noenhanced%s" % (terminal, font),
        "set output %s" % quote(name + ".png"),
        "set title %s" % lines(*title),
        "set xlabel 'threads'",
        "set ylabel 'operations per second'",
        # The sweeps double the threads, so a log2 axis spaces them evenly.
        "set logscale x 2",
        "set xrange [%g:%g]" % (lo / 1.25, hi * 1.25),
        "set xtics (%s)" % ", ".join(str(t) for t in threads),
        "unset mxtics",
        "set yrange [0:*]",
        "set format y '%.1s%c'",
        "set grid",
        "set key outside right top",
    ]
    if n:
        gp += ["set arrow from %d, graph 0 to %d, graph 1 nohead dashtype 2 "
               "linecolor rgb 'gray30'" % (n, n),
               # Above the plot, so no point at ncpu can hide it.
               "set label 'ncpu' at %d, graph 1 center offset 0, 0.6 "
               "textcolor rgb 'gray30'" % n]
    # Point shapes differ too, so the lines stay apart in grey print.
    plots = ["%s index %d using 1:2:3 with yerrorlines linewidth 2 "
             "pointtype %d title %s" % (quote(name + ".dat"), i,
                                        (7, 5, 9, 11, 13)[i % 5], quote(s))
             for i, (s, _) in enumerate(groups)]
    gp.append("plot " + ", \\\n     ".join(plots))
    return "\n".join(gp) + "\n"


def chart_data(groups):
    """One gnuplot data block per series, two blank lines apart (for index)."""
    out = []
    for s, rows in groups:
        out += ["# " + s, "# threads ops_per_sec ci95 stddev runs"]
        out += ["%d %r %r %r %d" % (p["threads"], p["mean"], p["ci95"],
                                    p["stddev"], p["runs"]) for p in rows]
        out += ["", ""]
    return "\n".join(out)


def terminal():
    """pngcairo draws smoother lines; plain png is the libgd fallback."""
    try:
        r = subprocess.run(["gnuplot", "-e", "set terminal"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "png"
    if re.search(r"^\s*pngcairo\s", r.stdout + r.stderr, re.M):
        return "pngcairo"
    return "png"


def draw(outdir, name):
    """Runs gnuplot on NAME.gp; returns an error message or None."""
    png = os.path.join(outdir, name + ".png")
    if os.path.exists(png):
        os.remove(png)
    try:
        r = subprocess.run(["gnuplot", name + ".gp"], cwd=outdir,
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "gnuplot took over 60 s on %s.gp" % name
    if r.stderr.strip():
        sys.stderr.write(r.stderr)
    if r.returncode != 0 or not os.path.exists(png) or not os.path.getsize(png):
        return "gnuplot failed on %s.gp (exit %d)" % (name, r.returncode)
    return None


def write(path, text, written):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    written.append(path)


def suites(log):
    """In the order the log's BENCH-SUITE lines came; suites without one
    (a log cut short, an older kernel) follow, sorted."""
    known = list(log.suites)
    other = sorted((set(log.points) | set(log.cmps)) - set(log.suites))
    return known + other


def main(argv):
    if len(argv) != 3:
        print("usage: report.py LOG OUTDIR", file=sys.stderr)
        return 2
    path, outdir = argv[1], argv[2]
    try:
        log = parse(path)
    except OSError as e:
        warn("cannot read the log %s: %s" % (path, e.strerror))
        return 2
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        warn("cannot make %s: %s" % (outdir, e.strerror))
        return 2
    gnuplot = shutil.which("gnuplot")
    term = terminal() if gnuplot else None
    written, errors, md = [], [], header(log, path)
    for suite in suites(log):
        groups = series(log, suite, log.points.get(suite, {}))
        chart = None
        if groups:
            name = filename(suite)
            write(os.path.join(outdir, name + ".dat"), chart_data(groups),
                  written)
            write(os.path.join(outdir, name + ".gp"),
                  chart_script(log, suite, groups, term or "pngcairo"),
                  written)
            # Without gnuplot the link stays: running the .gp script
            # later draws the chart it points at.
            chart = name + ".png"
            if gnuplot:
                err = draw(outdir, name)
                if err:
                    errors.append(err)
                    chart = None
                else:
                    written.append(os.path.join(outdir, chart))
        md += section(log, suite, chart)
    if not log.points and not log.cmps:
        md += ["No benchmark results in this log.", ""]
    write(os.path.join(outdir, "report.md"), "\n".join(md), written)
    for p in written:
        print(p)
    if log.skipped:
        warn("skipped %d malformed line%s" % (log.skipped,
                                              "" if log.skipped == 1 else "s"))
    if not gnuplot:
        errors.append("gnuplot is not installed, so no charts were drawn; "
                      "install it with: apt-get install -y gnuplot-nox "
                      "(make deps does this)")
    for e in errors:
        warn(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
