#!/usr/bin/env python3
# Turns saved serial logs into OUTDIR/report.md, one gnuplot chart per benchmark suite and, from
# PROFILE and LOCKSTAT lines, flame graphs and lock tables (tools/hotspots.py).
# Usage: report.py LOG... OUTDIR   (the line formats are the console contract in doc/console.md)
"""One log: its points, comparisons and seed lines. Several logs (boots of one kernel and
command line): per suite, each boot's means as faint lines and the mean across boots with
its 95% interval (tools/boots.py), and each comparison and headline across the boots. Profiles
and lock statistics, if the logs have them, follow each suite (tools/hotspots.py says how
several boots' are pooled)."""

import os
import re
import shutil
import subprocess
import sys

import boots
import hotspots
from benchlog import EXTRAS, extras_of, label, parse, warn


# Series colours of multi-boot charts: gnuplot 5's default line colours, in its order.
COLOURS = ["9400d3", "009e73", "56b4e9", "e69f00", "f0e442", "0072b2", "e51e10", "000000"]
# A verdict in one character, for the per-boot cells: ? is an interval that holds 1 but is too
# wide to call the two the same (doc/console.md, BENCH-CMP).
SIGN = {"faster": "+", "same": "=", "inconclusive": "?", "slower": "-"}

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
    if log.cmdline is not None:
        rows.append(("command line", "`%s`" % log.cmdline if log.cmdline else "(empty)"))
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
    if log.aa:
        rows.append(("A/A boot", aa_text(log.aa)))
    for p in log.panics:
        rows.append(("panic", p))
    rows.append(("result", log.end or "no END line: the log ends early"))
    if log.skipped:
        rows.append(("skipped lines", "%d malformed (warnings on stderr)"
                     % log.skipped))
    return out + table(("run", ""), rows) + [""]


def aa_text(d):
    """BENCH-AA's counts in words; a line from before the four verdicts has only false=."""
    text = ("each b replaced by a second copy of a: %d of %d comparisons faster or slower "
            "(false)" % (d["false"], d["comparisons"]))
    if "inconclusive" in d:
        text += ", %d inconclusive" % d["inconclusive"]
    if "families" in d and "false_families" in d:
        text += "; %d of %d suites with a false verdict" % (d["false_families"],
                                                            d["families"])
    return text


def skipped_points(log, suite):
    """The suite's BENCH-SKIP points as {(label, threads): reason}."""
    return {(label(k["variant"], k["fanout"]), k["threads"]): k["reason"]
            for k in log.skips.get(suite, [])}


def seed_cell(d):
    return "%.3f (%s)" % (d["seed_ratio"], d["seed_verdict"])


def seed_table(log, suite):
    """The suite's BENCH-SEED lines: the seed's ratio beside this boot's."""
    seeds = log.seeds.get(suite, [])
    if not seeds:
        return []
    rows = [(d["a"], d["b"], d["threads"], seed_cell(d),
             "%.3f ± %.3f (%s)" % (d["ratio"], d["ci95"], d["verdict"]), d["direction"],
             d["magnitude"]) for d in seeds]
    return (["Against the seed (doc/seeds.md): the seed's ratio a/b and this boot's; "
             "direction: this boot's verdict against the seed's, magnitude: the seed's ratio "
             "against this boot's interval:", ""]
            + table(("a", "b", "threads", "seed", "this boot", "direction", "magnitude"),
                    rows) + [""])


def section(log, suite, chart):
    out = ["## " + suite, ""]
    if suite in log.suites:
        info = log.suites[suite]
        out += ["Operation: %s; seed: %s." % (info["op"], info["seed"]), ""]
    groups = series(log, suite, log.points.get(suite, {}))
    skips = skipped_points(log, suite)
    if groups:
        threads = sorted({p["threads"] for _, rows in groups for p in rows} |
                         {t for _, t in skips})
        out += ["Operations per second, mean ± 95% confidence half-width:", ""]
        out += sweep_table(log, groups, threads, lambda p: "%s ± %s" % (
            human(p["mean"]), human(p["ci95"])), skips)
        # One table per extra keeps each as narrow as the main one.
        for key in extras_of(log, suite):
            unit = EXTRAS.get(key, key)
            if any(key in p["extras"] for _, rows in groups for p in rows):
                out += ["%s (mean over the runs):" % unit, ""]
                out += sweep_table(log, groups, threads, lambda p: human(
                    p["extras"][key]) if key in p["extras"] else "")
    else:
        out += ["No points were measured.", ""]
    if skips:
        out += ["Not measured (BENCH-SKIP): %s." % "; ".join(
            "%s at %d threads (%s)" % (v, t, r) for (v, t), r in skips.items()), ""]
    cmps = log.cmps.get(suite, [])
    if cmps:
        rows = [(c["a"], c["b"], c["threads"],
                 "%.3f ± %.3f" % (c["ratio"], c["ci95"]), c["verdict"])
                for c in cmps]
        out += ["Comparisons (ratio of a to b, 95% confidence):", ""]
        out += table(("a", "b", "threads", "ratio a/b", "verdict"), rows)
        out += [""]
    out += seed_table(log, suite)
    if chart:
        out += ["![%s](%s)" % (suite, chart), ""]
    return out


def outcome(log):
    """A boot's result for the table of boots."""
    text = log.end or "no END line"
    if log.panics:
        text += " (panic: %s)" % log.panics[0]
    failed = [name for name, result in log.selftests if result != "pass"]
    if failed:
        text += " (self-tests failed: %s)" % ", ".join(failed)
    return text


def boots_header(logs, paths):
    """The report of several boots begins with a table of them."""
    out = ["# Benchmark report: %d boots" % len(logs), "",
           "Each boot is one sample. A cell is the mean of the boots' values ± the "
           "half-width of its 95% interval across boots (Student's t with boots - 1 "
           "degrees of freedom); the charts also draw each boot's means as faint lines.", ""]
    rows = []
    for i, (log, path) in enumerate(zip(logs, paths), 1):
        bench = ("%s suites in %s s" % (log.done["suites"], log.done["secs"]) if log.done
                 else "did not finish")
        if log.aa:
            bench += "; A/A: " + aa_text(log.aa)
        rows.append((i, "`%s`" % path, log.boot["cpus"] if log.boot else "?",
                     "`%s`" % log.cmdline if log.cmdline else "", bench, outcome(log)))
    out += table(("boot", "log", "CPUs", "command line", "benchmarks", "result"), rows) + [""]
    for what, values in (("CPU counts", {log.boot["cpus"] if log.boot else "?"
                                         for log in logs}),
                         ("command lines", {log.cmdline for log in logs})):
        if len(values) > 1:
            out += ["**The boots differ in their %s: their points measure different "
                    "things.**" % what, ""]
            warn("the logs differ in their %s" % what)
    skipped = sum(log.skipped for log in logs)
    if skipped:
        out += ["%d malformed lines skipped (warnings on stderr)." % skipped, ""]
    return out


def spread_section(logs, suite, chart):
    """A suite across boots: its points, comparisons and headlines."""
    ref = next((log for log in logs if suite in log.suites), logs[0])
    out = ["## " + suite, ""]
    if suite in ref.suites:
        info = ref.suites[suite]
        out += ["Operation: %s; seed: %s." % (info["op"], info["seed"]), ""]
    groups = series(ref, suite, boots.points(logs, suite))
    ran = sum(1 for log in logs if log.points.get(suite))
    skips = {k: r for log in logs for k, r in skipped_points(log, suite).items()}
    if groups:
        threads = sorted({p["threads"] for _, rows in groups for p in rows})
        out += ["Operations per second, mean of %d boots ± 95%% across boots (a point "
                "fewer boots measured says how many):" % ran, ""]
        out += sweep_table(ref, groups, threads, lambda p: "%s ± %s%s" % (
            human(p["mean"]), human(p["ci95"]),
            "" if p["n"] == ran else " (%d boots)" % p["n"]), skips)
        for key in extras_of(ref, suite):
            if any(key in p["extras"] for _, rows in groups for p in rows):
                out += ["%s (mean over the boots):" % EXTRAS.get(key, key), ""]
                out += sweep_table(ref, groups, threads, lambda p: human(
                    p["extras"][key]) if key in p["extras"] else "")
    else:
        out += ["No points were measured.", ""]
    cmps = boots.comparisons(logs, suite)
    if cmps:
        rows = []
        for q in cmps:
            per = {i: c for i, c in q["boots"]}
            rows.append([q["a"], q["b"], q["threads"]] +
                        ["%.3f %s" % (per[i]["ratio"], SIGN[per[i]["verdict"]])
                         if i in per else "" for i in range(len(logs))] +
                        ["%.3f ± %.3f" % (q["ratio"], q["ci95"]),
                         "%d/%d/%d/%d" % (q["faster"], q["same"], q["inconclusive"],
                                          q["slower"])])
        out += ["Comparisons, boot by boot (ratio a/b; + faster, = same, ? inconclusive, "
                "- slower), and the mean ratio ± 95% across boots:", ""]
        out += table(["a", "b", "threads"] + ["boot %d" % (i + 1) for i in range(len(logs))]
                     + ["mean ± 95%", "faster/same/inconclusive/slower"], rows) + [""]
    for q in boots.seeds(logs, suite):
        rows = [(i + 1, seed_cell(d), "%.3f ± %.3f" % (d["ratio"], d["ci95"]), d["verdict"],
                 d["direction"], d["magnitude"]) for i, d in q["boots"]]
        rows.append(("mean of %d" % q["n"], seed_cell(q["boots"][0][1]),
                     "%.3f ± %.3f" % (q["ratio"], q["ci95"]),
                     "faster %d, same %d, inconclusive %d, slower %d"
                     % (q["faster"], q["same"], q["inconclusive"], q["slower"]),
                     "agrees in %d of %d" % (q["agrees"], q["n"]),
                     "inside %d, above %d, below %d" % (q["inside"], q["above"], q["below"])))
        out += ["Headline %s vs %s at %d threads against the seed (doc/seeds.md), boot by "
                "boot:" % (q["a"], q["b"], q["threads"]), ""]
        out += table(("boot", "seed", "ratio a/b", "verdict", "direction", "magnitude"),
                     rows) + [""]
    if chart:
        out += ["![%s](%s)" % (suite, chart), ""]
    return out


def sweep_table(log, groups, threads, show, skips=()):
    """Rows are thread counts, columns the series; show(point) fills a cell, and a point
    in skips ({(series, threads): reason}) says so."""
    n = cpus(log)
    rows = []
    for t in threads:
        r = ["%d%s" % (t, " (>ncpu)" if n and t > n else "")]
        for s, pts in groups:
            p = next((p for p in pts if p["threads"] == t), None)
            r.append(show(p) if p else "skipped" if (s, t) in skips else "")
        rows.append(r)
    return table(["threads"] + [name for name, _ in groups], rows) + [""]


def quote(s):
    """A gnuplot single-quoted string: only the quote itself needs doubling."""
    return "'" + s.replace("'", "''") + "'"


def lines(*texts):
    """A gnuplot double-quoted string of one line per text ("\\n" breaks)."""
    return '"' + "\\n".join(t.replace("\\", "\\\\").replace('"', '\\"')
                             for t in texts) + '"'


def chart_script(log, suite, groups, terminal, nboots=1):
    """The gnuplot script for the suite's chart; the data sit in NAME.dat (chart_data's
    layout, or with several boots spread_data's)."""
    name = filename(suite)
    title = [suite]
    if suite in log.suites:
        # The kernel's texts are too long for the y axis: both go above the plot.
        title = [suite + ": " + log.suites[suite]["seed"],
                 "one operation: " + log.suites[suite]["op"]]
    if nboots > 1:
        title.append("%d boots: each boot's means faint, their mean bold with its 95%% "
                     "interval across boots" % nboots)
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
    if nboots > 1:
        gp.append("set tmargin %d" % (len(title) + 3))   # room for the ncpu label
    if n:
        gp += ["set arrow from %d, graph 0 to %d, graph 1 nohead dashtype 2 "
               "linecolor rgb 'gray30'" % (n, n),
               # Above the plot, so no point at ncpu can hide it.
               "set label 'ncpu' at %d, graph 1 center offset 0, 0.6 "
               "textcolor rgb 'gray30'" % n]
    # Point shapes differ too, so the lines stay apart in grey print.
    data = quote(name + ".dat")
    if nboots == 1:
        plots = ["%s index %d using 1:2:3 with yerrorlines linewidth 2 "
                 "pointtype %d title %s" % (data, i, (7, 5, 9, 11, 13)[i % 5], quote(s))
                 for i, (s, _) in enumerate(groups)]
    else:
        # A boot's line in its series' colour, three quarters transparent ("#AARRGGBB",
        # AA the transparency): the spread shows as a band of lines around the bold one.
        plots = []
        for i, (s, _) in enumerate(groups):
            rgb = COLOURS[i % len(COLOURS)]
            plots += ["%s index %d using 1:2 with linespoints linewidth 1 pointtype 7 "
                      "pointsize 0.5 linecolor rgb '#A0%s' notitle" % (data, 2 * i + 1, rgb),
                      "%s index %d using 1:2:3 with yerrorlines linewidth 2.5 pointtype %d "
                      "linecolor rgb '#%s' title %s" % (data, 2 * i, (7, 5, 9, 11, 13)[i % 5],
                                                        rgb, quote(s))]
        plots.append("NaN with linespoints linewidth 1 pointtype 7 pointsize 0.5 "
                     "linecolor rgb '#A0000000' title 'one boot'")
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


def spread_data(groups, nboots):
    """Two gnuplot data blocks per series (for index): the mean across boots with its
    interval, then each boot's means, one line per boot (single blank lines apart)."""
    out = []
    for s, rows in groups:
        out += ["# %s: mean across boots" % s, "# threads ops_per_sec ci95 boots"]
        out += ["%d %r %r %d" % (p["threads"], p["mean"], p["ci95"], p["n"]) for p in rows]
        out += ["", "", "# %s: each boot's mean" % s, "# threads ops_per_sec boot"]
        per = []
        for i in range(nboots):
            pts = ["%d %r %d" % (p["threads"], m, i + 1) for p in rows
                   for j, m in p["boots"] if j == i]
            if pts:
                per.append("\n".join(pts))
        out += ["\n\n".join(per), "", ""]
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


def chart(outdir, suite, data, script, gnuplot, written, errors):
    """Writes the suite's .dat and .gp and draws its PNG; returns the PNG's name for the
    report, or None when gnuplot failed. Without gnuplot the link stays: running the .gp
    script later draws the chart it points at."""
    name = filename(suite)
    write(os.path.join(outdir, name + ".dat"), data, written)
    write(os.path.join(outdir, name + ".gp"), script, written)
    if gnuplot:
        err = draw(outdir, name)
        if err:
            errors.append(err)
            return None
        written.append(os.path.join(outdir, name + ".png"))
    return name + ".png"


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
    if len(argv) < 3:
        print("usage: report.py LOG... OUTDIR", file=sys.stderr)
        return 2
    paths, outdir = argv[1:-1], argv[-1]
    logs = []
    for path in paths:
        try:
            logs.append(parse(path))
        except OSError as e:
            warn("cannot read the log %s: %s" % (path, e.strerror))
            return 2
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        warn("cannot make %s: %s" % (outdir, e.strerror))
        return 2
    gnuplot = shutil.which("gnuplot")
    term = (terminal() if gnuplot else None) or "pngcairo"
    written, errors = [], []
    if len(logs) == 1:
        log = logs[0]
        md = header(log, paths[0])
        for suite in suites(log):
            groups = series(log, suite, log.points.get(suite, {}))
            png = chart(outdir, suite, chart_data(groups),
                        chart_script(log, suite, groups, term), gnuplot, written,
                        errors) if groups else None
            md += section(log, suite, png)
            md += hotspots.pictures(logs, suite, outdir, written, table)
    else:
        md = boots_header(logs, paths)
        for suite in boots.suites(logs):
            ref = next((log for log in logs if suite in log.suites), logs[0])
            groups = series(ref, suite, boots.points(logs, suite))
            png = chart(outdir, suite, spread_data(groups, len(logs)),
                        chart_script(ref, suite, groups, term, len(logs)), gnuplot,
                        written, errors) if groups else None
            md += spread_section(logs, suite, png)
            md += hotspots.pictures(logs, suite, outdir, written, table)
    if not any(log.points or log.cmps for log in logs):
        md += ["No benchmark results in %s." % ("this log" if len(logs) == 1
                                                 else "these logs"), ""]
    write(os.path.join(outdir, "report.md"), "\n".join(md), written)
    for p in written:
        print(p)
    skipped = sum(log.skipped for log in logs)
    if skipped:
        warn("skipped %d malformed line%s" % (skipped, "" if skipped == 1 else "s"))
    if not gnuplot:
        errors.append("gnuplot is not installed, so no charts were drawn; "
                      "install it with: apt-get install -y gnuplot-nox "
                      "(make deps does this)")
    for e in errors:
        warn(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
