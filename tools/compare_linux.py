#!/usr/bin/env python3
# make compare-linux: the same user-space benchmark program (user/ubench) on this kernel and on
# Debian's Linux in the same QEMU, booted alternately; a table per benchmark and COMPARE lines.
"""Usage: compare_linux.py [--smp N] [--rounds R] [--secs S] [--runs K] [--threads LIST]
                        [--suites LIST] [--margin PERCENT] [--explain yes|no]
                        [--pkg PACKAGE] [--cpu MODEL] [--mem M] [--accel A] [--timeout T]
                        [--initrd CPIO] [--logdir DIR] [--report DIR]
       compare_linux.py --logs DIR [--margin PERCENT] [--report DIR]
       compare_linux.py --agree FILE1 FILE2

Fetches Linux (tools/fetch_linux.sh: PACKAGE, default the one linux-image-amd64 depends
on) and prints its COMPARE-LINUX line; then R rounds of four boots (tools/terms.py): this
kernel with ipi.wait=spin (this), with ipi.wait=halt (this_halt), Linux on equal terms
(linux) and Linux with Debian's defaults (linux_debian), kernels alternating, the order
reversed every other round; --explain no boots only this and linux. All through
tools/qemu.sh with the same QEMU options (-machine pc -cpu MODEL -smp N -m M, the
accelerator) but for how the kernel is loaded. Every boot runs /bin/ubench with the same
arguments: --secs S --runs K --threads LIST [--suites LIST] --dir /tmp/ubench (on Linux,
/tmp is a ramfs that user/linux/init.c mounts). An equal-terms Linux boot whose log does not
show its terms in effect (tools/terms.py, CHECKS) counts as failed. Logs go to
DIR/compare-<date>-<time>/r<round>-<kind>.log (DIR: build/logs).

Then, per point of the program's u* BENCH lines (suite, variant, threads): the mean over
the rounds of each kind's operations per second, and ratio, the geometric mean of the
rounds' ratios this/linux with its interval on the log scale, Holm-corrected over the rows
(tools/logratio.py); verdict faster or slower when the interval excludes 1, same when it
lies inside 1 +- MARGIN percent (default 5), inconclusive otherwise, n/a with one round.
this_halt/this and linux/linux_debian, geometric means with 95% intervals, say what the
wait policy and Debian's defaults are worth. Printed as a table per suite and variant and as
COMPARE lines; written to REPORT/compare-linux.md and .png (REPORT: build/report). Without
Linux (COMPARE-LINUX missing=) this kernel's boots still run. Exit 1 when a boot failed, 2
on bad usage, else 0. --logs re-reads the logs of an earlier run.

Agreement: a run (or --logs) keeps its verdicts in REPORT/compare-linux.verdicts (its
options, then its COMPARE lines); the next one with the same options sets its own beside
them and prints
COMPARE-AGREE decided=<rows faster or slower in either run> disagree=<those whose verdicts
differ> opposite=<those faster in one run and slower in the other>, and a line per
disagreeing row. --agree does the same for any two files holding
COMPARE lines (make compare-linux's output, compare-linux.md, .verdicts): exit 0 when they
agree, 1 when not, 2 when a file has no COMPARE line."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

import boots
import logratio
import report
import terms
from benchlog import label, parse
from terms import KINDS, NAMES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = "/bin/ubench"
# ubench's own default, inside the ramfs user/linux/init.c mounts at /tmp on Linux.
WORKDIR = "/tmp/ubench"
LOG_NAME = re.compile(r"r(\d+)-(%s)\.log" % "|".join(KINDS))
PROGRAM_DONE = re.compile(r"^(\[\s*\d+\.\d+\] ?)?init: %s exited with status (\d+)$" % PROGRAM)


def defaults(smp):
    """The program's arguments for an SMP-vCPU machine, chosen so that SMP=8 ROUNDS=3
    (9 boots) fits in 15 minutes on a 2-core host running TCG: 1 thread and one per CPU,
    and 2 x CPUs for umadvise (ubench's "2x": the 2007 table ran past the CPU count),
    3 timed runs of 0.25 s after a warm-up."""
    return {"secs": "0.25", "runs": "3", "threads": "1,2x" if smp == 1 else "1,%d,2x" % smp}


def options(argv):
    opts = {"smp": "8", "rounds": "3", "secs": "", "runs": "", "threads": "", "suites": "",
            "pkg": "", "this-cmdline": "",
            "cpu": "max", "mem": "1G", "accel": "", "timeout": "", "explain": "yes",
            "margin": "5",
            "initrd": os.path.join(ROOT, "build", "linux", "initrd.cpio"),
            "logdir": os.path.join(ROOT, "build", "logs"),
            "report": os.path.join(ROOT, "build", "report"), "logs": None,
            "qemu": os.path.join(ROOT, "tools", "qemu.sh"),
            "fetch": os.path.join(ROOT, "tools", "fetch_linux.sh")}
    args = list(argv)
    while args:
        key = args.pop(0)
        if not key.startswith("--") or key[2:] not in opts or not args:
            return "%s: unknown option or no value" % key
        opts[key[2:]] = args.pop(0)
    if not re.fullmatch(r"\d+(\.\d+)?", opts["margin"]) or float(opts["margin"]) >= 100:
        return "--margin (make's MARGIN=) must be a percentage below 100"
    # Words of this kernel's command line only: the ones the comparison sets stay its own.
    for w in opts["this-cmdline"].split():
        if not re.fullmatch(r"[a-z0-9_.]+=[A-Za-z0-9_.,-]+", w) or \
           w.split("=")[0] in ("bench", "ipi.wait", "init"):
            return "--this-cmdline (make's CMDLINE=): %s is not a key=value word of this" \
                   " kernel's own (bench=, ipi.wait= and init= are the comparison's)" % w
    if opts["logs"] is not None:
        return opts
    for k in ("smp", "rounds"):
        if not opts[k].isdigit() or int(opts[k]) < 1:
            return "--%s must be a positive count" % k
    d = defaults(int(opts["smp"]))
    for k in ("secs", "runs", "threads"):
        opts[k] = opts[k] or d[k]
    if not re.fullmatch(r"\d+(\.\d+)?", opts["secs"]) or float(opts["secs"]) <= 0:
        return "--secs (make's SECS=) must be a positive decimal"
    if not opts["runs"].isdigit() or int(opts["runs"]) < 1:
        return "--runs must be a positive count"
    if not re.fullmatch(r"\d+(,\d+)*(,2x)?", opts["threads"]):
        return "--threads must be a comma list of thread counts (and a last 2x)"
    if not re.fullmatch(r"([a-z0-9]+)(,[a-z0-9]+)*|", opts["suites"]):
        return "--suites must be a comma list of ubench's suites"
    if opts["explain"] not in ("yes", "no"):
        return "--explain is yes or no"
    if not opts["timeout"]:
        # Generous: a warm-up and the runs of some 10 variants per thread count, and boots.
        points = 10 * len(opts["threads"].split(","))
        opts["timeout"] = str(int(240 + 6 * points * (int(opts["runs"]) + 1)
                                  * float(opts["secs"])))
    return opts


def program_args(opts):
    return ["--secs", opts["secs"], "--runs", opts["runs"], "--threads", opts["threads"]] + \
        (["--suites", opts["suites"]] if opts.get("suites") else []) + ["--dir", WORKDIR]


def cmdline(kind, opts):
    """The kernel command line of a boot of kind (tools/terms.py)."""
    return terms.cmdline(kind, " ".join(program_args(opts)), opts.get("this-cmdline", ""))


def qemu_argv(kind, opts, vmlinuz, log):
    argv = [opts["qemu"], "--smp", opts["smp"], "--mem", opts["mem"], "--cpu", opts["cpu"],
            "--accel", opts["accel"], "--timeout", opts["timeout"], "--log", log]
    if kind.startswith("this"):
        return argv + ["--cmdline", cmdline(kind, opts), "--image", "release"]
    return argv + ["--linux", vmlinuz, "--linux-initrd", opts["initrd"],
                   "--append", cmdline(kind, opts)]


def fetch(opts):
    """Prints the COMPARE-LINUX line, then fetch_linux.sh's messages; returns (that line,
    the vmlinuz path or None)."""
    r = subprocess.run([opts["fetch"]] + ([opts["pkg"]] if opts["pkg"] else []),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    out = r.stdout.splitlines()
    line = out[0] if out and out[0].startswith("COMPARE-LINUX ") else \
        "COMPARE-LINUX missing=fetch-failed"
    print(line, flush=True)
    for l in r.stderr.splitlines():
        print("compare-linux: " + l.replace("fetch_linux: ", ""), flush=True)
    if r.returncode == 0 and len(out) >= 2 and os.path.isfile(out[1]):
        return line, out[1]
    return line, None


def shown(path):
    """A path as the user would type it from the repository root."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def newdir(parent):
    os.makedirs(parent, exist_ok=True)
    stem = os.path.join(parent, time.strftime("compare-%Y%m%d-%H%M%S"))
    path, n = stem, 1
    while True:
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            n += 1
            path = "%s-%d" % (stem, n)


def outcome(kind, path):
    """Whether a boot's log shows the program ran to its end: its exit status 0 (this
    kernel's init= line, or user/linux/init.c's identical one) after its BENCH-DONE; else
    a few words saying what is missing."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return "no log"
    started = done = False
    status = None
    for l in lines:
        if ("init: %s:" % PROGRAM) in l:
            started = True
        elif started and re.match(r"^(\[\s*\d+\.\d+\] ?)?BENCH-DONE ", l):
            done = True
        m = PROGRAM_DONE.match(l)
        if m:
            status = int(m.group(2))
    if not started:
        return "the program never started"
    if status is None:
        return "no exit status of the program"
    if status != 0:
        return "the program exited with status %d" % status
    if not done:
        return "no BENCH-DONE from the program"
    return terms.check(kind, terms.seen(path))


def read_logs(where):
    """The logs of a run's directory: {round: {kind: path}}."""
    rounds = {}
    for p in glob.glob(os.path.join(where, "r*-*.log")):
        m = LOG_NAME.fullmatch(os.path.basename(p))
        if m:
            rounds.setdefault(int(m.group(1)), {})[m.group(2)] = p
    return [rounds[r] for r in sorted(rounds)]


def points(rounds):
    """Per point of the program's u* suites, grouped by suite and variant: the values of each kind
    ({kind: [(round, ops/s)]}), with the suites' BENCH-SUITE texts."""
    table, suites = {}, {}
    for i, logs in enumerate(rounds):
        for kind in KINDS:
            if kind not in logs:
                continue
            log = parse(logs[kind])
            for s, info in log.suites.items():
                if s.startswith("u"):
                    suites.setdefault(s, info)
            for s, pts in log.points.items():
                if not s.startswith("u"):
                    continue
                for (v, f, t), p in pts.items():
                    key = (s, label(v, f), t)
                    row = table.setdefault(key, {k: [] for k in KINDS})
                    row[kind].append((i, p["mean"]))
    # Each suite and variant together, in first-seen order, its thread counts rising.
    groups = list(dict.fromkeys(k[:2] for k in table))
    order = sorted(table, key=lambda k: (groups.index(k[:2]), k[2]))
    return {k: table[k] for k in order}, suites


def paired(values, a, b):
    """Round by round, a's rate over b's, for the rounds that have both."""
    other = dict(values[b])
    return [m / other[i] for i, m in values[a] if other.get(i) and m > 0]


def analyse(table, margin):
    """Every row's numbers: means of each kind (with their own 95% half-widths), the
    verdict's ratio this/linux (tools/logratio.py: geometric mean, log-scale interval,
    Holm over the rows with two rounds or more) and the explanatory ratios this_halt/this and
    linux/linux_debian with plain 95% intervals. {key: dict}."""
    verdicts = logratio.rows({k: paired(v, "this", "linux") for k, v in table.items()},
                             0.05, margin / 100)
    out = {}
    for key, values in table.items():
        c = {k: (boots.spread([m for _, m in values[k]]) if values[k] else None) for k in KINDS}
        c.update(verdicts[key])
        for name, a, b in (("halt", "this_halt", "this"), ("debian", "linux", "linux_debian")):
            ratios = paired(values, a, b)
            c[name] = logratio.interval(ratios, 0.05) if ratios else None
        out[key] = c
    return out


def num(x, fmt="%.1f"):
    return "n/a" if x is None else fmt % x


def compare_line(key, c):
    """The COMPARE line of a row (doc/console.md); variant= only where the suite has one."""
    s, v, t = key
    mean = lambda k: num(c[k] and c[k][0])
    return ("COMPARE suite=%s%s threads=%d this=%s this_halt=%s linux=%s linux_debian=%s "
            "ratio=%s ci95=%s verdict=%s" % (s, " variant=%s" % v if v else "", t,
                                             mean("this"), mean("this_halt"), mean("linux"),
                                             mean("linux_debian"), num(c["ratio"], "%.3f"),
                                             num(c["ci95"], "%.3f"), c["verdict"]))


def ops_cell(x):
    if x is None:
        return "—"
    mean, h = x
    return report.human(mean) + (" ± %s" % report.human(h) if h else "")


def ratio_cell(c):
    """ratio ± ci95 and the log-scale interval the verdict reads."""
    if c["ratio"] is None:
        return "—"
    if c["ci95"] is None:
        return "%.3f (n/a)" % c["ratio"]
    return "%.3f ± %.3f [%.3f, %.3f]" % (c["ratio"], c["ci95"], c["lo"], c["hi"])


def explain_cell(x):
    """An explanatory ratio: geometric mean [its 95% interval]."""
    if x is None:
        return "—"
    gm, lo, hi = x
    return "%.3f" % gm + (" [%.3f, %.3f]" % (lo, hi) if lo is not None else " (n/a)")


def tables(table, rows, suites, smp):
    """Markdown: a heading and a table per suite and variant."""
    out = []
    groups = {}
    for key in table:
        groups.setdefault(key[:2], []).append(key)
    for (s, v), keys in groups.items():
        out += ["### %s %s" % (s, v), ""]
        if s in suites:
            out += ["One operation: %s; seed: %s." % (suites[s]["op"], suites[s]["seed"]), ""]
        cells = []
        for key in sorted(keys, key=lambda k: k[2]):
            c = rows[key]
            t = key[2]
            cells.append(("%d%s" % (t, " (>ncpu)" if smp and t > smp else ""),
                          ops_cell(c["this"]), ops_cell(c["this_halt"]), ops_cell(c["linux"]),
                          ops_cell(c["linux_debian"]), ratio_cell(c), c["verdict"],
                          explain_cell(c["halt"]), explain_cell(c["debian"])))
        out += report.table(("threads", "this", "this_halt", "linux", "linux_debian",
                             "this/linux", "verdict", "this_halt/this",
                             "linux/linux_debian"), cells) + [""]
    return out


def chart(rows, outdir, title):
    """compare-linux.png: per point, this/linux with the interval its verdict read, and the
    two explanatory ratios, on a log scale around 1. Returns an error message or None."""
    data = ["# index this/linux lo hi this_halt/this linux/linux_debian"]
    labels, explained = [], 0
    for i, (key, c) in enumerate(rows.items()):
        labels.append("%s %s %d" % key)
        halt = c["halt"][0] if c["halt"] else None
        deb = c["debian"][0] if c["debian"] else None
        explained += halt is not None or deb is not None
        data.append("%d %s %s %s %s %s" % (i, num(c["ratio"], "%r"),
                                           num(c["lo"] or c["ratio"], "%r"),
                                           num(c["hi"] or c["ratio"], "%r"),
                                           num(halt, "%r"), num(deb, "%r")))
    # The y range holds every point and 1 with a factor of 4 to spare, not every interval: with
    # two rounds a Holm-corrected interval on one degree of freedom spans many decades, which
    # would flatten the points; such a bar runs off the chart.
    pts = [1.0] + [x for c in rows.values() for x in
                   (c["ratio"], c["halt"] and c["halt"][0], c["debian"] and c["debian"][0]) if x]
    gnuplot = shutil.which("gnuplot")
    term = report.terminal() if gnuplot else "pngcairo"
    font = ' font ",10"' if term == "pngcairo" else ""
    gp = ["# The compare-linux chart; edit and re-run with: gnuplot compare-linux.gp",
          "set terminal %s size 1100,600 noenhanced%s" % (term, font),
          "set output 'compare-linux.png'",
          "set title %s" % report.lines(*title),
          "set ylabel 'ratio of operations per second (log scale)'",
          "set logscale y 2", "set grid ytics", "set format y '%g'",
          "set yrange [%r:%r]" % (min(pts) / 4, max(pts) * 4),
          "set datafile missing 'n/a'",
          "set xrange [-0.5:%g]" % (len(labels) - 0.5),
          "set xtics rotate by -45 (%s)" % ", ".join("%s %d" % (report.quote(l), i)
                                                      for i, l in enumerate(labels)),
          "set key top left box opaque",
          "set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 "
          "linecolor rgb 'gray30'",
          "plot 'compare-linux.dat' using 1:2:3:4 with yerrorbars pointtype 7 linewidth 2 "
          "title 'this / linux (Holm-corrected interval)'" + (", \\" if explained else "")]
    if explained:
        gp += ["     'compare-linux.dat' using ($1-0.15):5 with points pointtype 5 "
               "title 'this_halt / this (the halt policy)', \\",
               "     'compare-linux.dat' using ($1+0.15):6 with points pointtype 9 "
               "title 'linux / linux_debian (Debian defaults)'"]
    written = []
    report.write(os.path.join(outdir, "compare-linux.dat"), "\n".join(data) + "\n", written)
    report.write(os.path.join(outdir, "compare-linux.gp"), "\n".join(gp) + "\n", written)
    if not gnuplot:
        return "gnuplot is not installed: no compare-linux.png (make deps installs it)"
    return report.draw(outdir, "compare-linux")


def summary(meta, rounds, fails, rows, margin):
    """The report's header: what was booted, how, what each Linux showed of its terms, how
    each boot went, the host's load, and how the verdicts were reached."""
    out = ["# This kernel and Linux, the same program in the same QEMU", ""]
    head = [("Linux", "`%s`" % meta["fetch"])]
    if meta.get("opts"):
        o = meta["opts"]
        head += [("QEMU", "`-machine pc -cpu %s -smp %s -m %s -accel %s`, then this kernel "
                  "through GRUB (`-cdrom`), Linux with `-kernel -initrd -append`"
                  % (o["cpu"], o["smp"], o["mem"], o["accel"] or "(tools/qemu.sh's: KVM where usable, else tcg,thread=multi)"))]
        head += [("%s: command line" % k, "`%s`" % cmdline(k, o)) for k in KINDS]
        head += [("rounds", "%d, each %s; every other round in reverse order" % (
            len(rounds), ", ".join(k for k in terms.order(rounds[0] if rounds else (), 0))))]
    load = meta.get("load") or {}
    if load:
        head.append(("host load (/proc/loadavg: 1, 5, 15 min)", "%s at the start, %s at the end"
                     % (load.get("start", "?"), load.get("end", "?"))))
    for i, logs in enumerate(rounds):
        for kind in terms.order(logs, i):
            why = fails.get((i, kind))
            head.append(("round %d, %s" % (i + 1, kind), ("FAILED: %s" % why if why else "pass")
                         + " (`%s`)" % shown(logs[kind])))
    out += report.table(("", ""), head) + [""]
    # What each kind of Linux showed of its terms (user/linux/init.c's `init: seen` lines), and
    # whether this kernel knew ipi.wait=: round 1's log of each kind.
    shows = {}
    for kind in KINDS:
        logs = [r[kind] for r in rounds if kind in r]
        if logs:
            shows[kind] = terms.seen(logs[0])
    kinds = [k for k in KINDS if k in shows]
    settings = [(label,) + tuple("`%s`" % shows[k][key] if key in shows[k] else "—"
                                 for k in kinds)
                for label, key in terms.SHOWN if any(key in shows[k] for k in kinds)]
    if settings:
        out += ["What each kind of boot showed of its settings (round 1's log):", ""]
        out += report.table(("",) + tuple(kinds), settings) + [""]
    m = sum(1 for c in rows.values() if c["p"] is not None)
    out += ["Cells are operations per second, the mean over the rounds (± the half-width of "
            "its 95%% interval when there are several). **this/linux** is the geometric mean "
            "of the rounds' ratios (round i's this against round i's linux), ± ci95, the "
            "longer arm of its interval on the log scale, and that interval in brackets; "
            "**verdict** reads the interval: `faster` or `slower` when it excludes 1, `same` "
            "inside 1 ± %g%% (the margin, `--margin`/`MARGIN=`), `inconclusive` when it holds "
            "1 and reaches beyond the margin, `n/a` with one round." % margin]
    if m:
        out[-1] += (" The intervals are corrected for the %d rows with two rounds or more by "
                    "Holm's step-down procedure, so that all the verdicts of the table hold "
                    "together at 95%%: the row with the smallest p-value is tested at 5%%/%d, "
                    "the next at 5%%/%d, and so on until one is not rejected; each row's "
                    "interval is computed at the level its step used, and the rows from the "
                    "first one not rejected on at that step's level (`tools/logratio.py`)."
                    % (m, m, max(m - 1, 1)))
    out[-1] += (" **this_halt/this** (what this kernel's default wait, halting, is worth) and "
                "**linux/linux_debian** (what Debian's defaults are worth) are geometric means "
                "with plain 95% intervals, explanations without a verdict. The host's other "
                "load is not controlled: compare rows, not single cells.")
    out.append("")
    return out


COMPARE_ROW = re.compile(r"^COMPARE suite=(\S+)(?: variant=(\S+))? threads=(\d+) .* verdict=(\S+)$")
DECIDED = ("faster", "slower")


def verdicts(lines):
    """{(suite, variant, threads): verdict} of the COMPARE lines among lines."""
    out = {}
    for l in lines:
        m = COMPARE_ROW.match(l.strip())
        if m:
            out[(m.group(1), m.group(2) or "", int(m.group(3)))] = m.group(4)
    return out


def agreement(old, new, older="the first", newer="the second"):
    """Prints COMPARE-AGREE for two runs' verdicts, and a line per row whose interval excluded
    1 in either run (faster or slower) without the same verdict in the other. A row that only
    one run has is not compared. opposite counts the disagreements that are contradictions,
    faster in one run and slower in the other; the rest are a verdict in one run that the
    other's wider or shifted interval did not reach (same or inconclusive). Returns the
    number of disagreements."""
    decided, bad = 0, []
    for key in sorted(set(old) & set(new)):
        a, b = old[key], new[key]
        if a in DECIDED or b in DECIDED:
            decided += 1
            if a != b:
                bad.append((key, a, b))
    opposite = sum(1 for _, a, b in bad if a in DECIDED and b in DECIDED)
    print("COMPARE-AGREE decided=%d disagree=%d opposite=%d" % (decided, len(bad), opposite))
    for (s, v, t), a, b in bad:
        print("compare-linux: %s %s at %d thread%s: %s in %s run, %s in %s" %
              (s, v, t, "" if t == 1 else "s", a, older, b, newer))
    return len(bad)


def options_line(meta, nrounds):
    """The options two runs must share for their verdicts to be compared; rounds is the
    number of rounds read."""
    o = dict(meta.get("opts") or {}, rounds=str(nrounds))
    return "# options: " + " ".join("%s=%s" % (k, o.get(k, "")) for k in
                                    ("smp", "cpu", "mem", "secs", "runs", "threads", "suites",
                                     "margin", "rounds"))


def agree_with_previous(meta, nrounds, lines, outdir):
    """The automatic check: this run's verdicts against the previous run's of the same
    options (REPORT/compare-linux.verdicts), which this run's then replace."""
    path = os.path.join(outdir, "compare-linux.verdicts")
    head = options_line(meta, nrounds)
    try:
        with open(path, encoding="utf-8") as f:
            prev = f.read().splitlines()
    except OSError:
        prev = []
    if prev and prev[0] == head:
        agreement(verdicts(prev), verdicts(lines), "the previous", "this one")
    elif prev:
        print("compare-linux: the previous run had other options (%s): no agreement check" %
              prev[0][len("# options: "):])
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join([head] + lines) + "\n")


def agree_files(a, b):
    runs = []
    for path in (a, b):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                runs.append(verdicts(f.read().splitlines()))
        except OSError as e:
            print("compare_linux: %s: %s" % (path, e.strerror), file=sys.stderr)
            return 2
        if not runs[-1]:
            print("compare_linux: no COMPARE line in %s" % path, file=sys.stderr)
            return 2
    return 1 if agreement(runs[0], runs[1], shown(a), shown(b)) else 0


def finish(meta, rounds, fails, outdir, smp, margin, keep=False):
    """Prints the table and the COMPARE lines; writes the report. Returns error messages."""
    table, suites = points(rounds)
    rows = analyse(table, margin)
    errors = []
    md = summary(meta, rounds, fails, rows, margin)
    if not table:
        md += ["No u* BENCH line in any log.", ""]
        errors.append("no u* BENCH line in any log")
    md += tables(table, rows, suites, smp)
    lines = [compare_line(k, c) for k, c in rows.items()]
    ratios = any(c["ratio"] is not None for c in rows.values())
    md += ["Machine-read lines (doc/console.md):", "", "```", meta["fetch"]] + lines + \
        ["```", ""] + (["![this kernel / Linux](compare-linux.png)", ""] if ratios else [])
    print("\n".join(tables(table, rows, suites, smp)))
    for l in lines:
        print(l)
    try:
        os.makedirs(outdir, exist_ok=True)
        with open(os.path.join(outdir, "compare-linux.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(md))
        if keep and lines:
            agree_with_previous(dict(meta, opts=dict(meta.get("opts") or {},
                                                     margin="%g" % margin)),
                                len(rounds), lines, outdir)
        png = os.path.join(outdir, "compare-linux.png")
        if os.path.exists(png):
            os.remove(png)    # never an older run's chart beside this report
        if ratios:
            err = chart(rows, outdir, ["this kernel / Linux: the same program, same QEMU",
                                       meta["fetch"]])
            if err:
                errors.append(err)
    except OSError as e:
        errors.append("cannot write the report in %s: %s" % (outdir, e.strerror))
    print("compare-linux: wrote %s%s" % (shown(os.path.join(outdir, "compare-linux.md")),
                                         " and compare-linux.png" if ratios else ""))
    return errors


def loadavg():
    """The host's load averages over 1, 5 and 15 minutes (proc(5)), or "?"."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def run(opts):
    line, vmlinuz = fetch(opts)
    kinds = list(terms.MAIN) if opts["explain"] == "no" else list(KINDS)
    if vmlinuz is None:
        print("compare-linux: no Linux to boot; this kernel's boots run alone", flush=True)
        kinds = [k for k in kinds if k.startswith("this")]
    elif not os.path.isfile(opts["initrd"]):
        print("compare-linux: no %s (make compare-linux builds it)" % opts["initrd"])
        return 2
    try:
        where = newdir(opts["logdir"])
    except OSError as e:
        print("compare-linux: cannot make a directory in %s: %s" % (opts["logdir"],
              e.strerror), file=sys.stderr)
        return 2
    meta = {"fetch": line, "opts": {k: opts[k] for k in ("smp", "cpu", "mem", "accel", "secs",
                                                         "runs", "threads", "suites")},
            "load": {"start": loadavg()}}
    with open(os.path.join(where, "compare.json"), "w") as f:
        json.dump(meta, f)
    n = int(opts["rounds"])
    print("compare-linux: %d round%s of %s on %s vCPUs (every other round reversed); logs in %s"
          % (n, "" if n == 1 else "s", ", ".join(NAMES[k] for k in terms.order(kinds, 0)),
             opts["smp"], shown(where)), flush=True)
    fails = {}
    rounds = []
    try:
        for i in range(n):
            rounds.append({})
            for kind in terms.order(kinds, i):
                log = os.path.join(where, "r%d-%s.log" % (i + 1, kind))
                rounds[i][kind] = log
                print("compare-linux: round %d of %d, %s ..." % (i + 1, n, kind),
                      end=" ", flush=True)
                start = time.time()
                r = subprocess.run(qemu_argv(kind, opts, vmlinuz, log),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, cwd=ROOT)
                why = outcome(kind, log)
                if r.returncode != 0:
                    said = r.stderr.strip().splitlines()
                    why = said[-1] if said else "qemu.sh exit %d" % r.returncode
                if why:
                    fails[(i, kind)] = why
                print("%s in %.0f s" % ("FAILED: " + why if why else "pass",
                                        time.time() - start), flush=True)
    except KeyboardInterrupt:
        print("\ncompare-linux: interrupted; the logs so far are in %s" % where)
        return 130
    meta["load"]["end"] = loadavg()
    with open(os.path.join(where, "compare.json"), "w") as f:
        json.dump(meta, f)
    print("compare-linux: host load %s at the start, %s at the end" % (meta["load"]["start"],
                                                                      meta["load"]["end"]))
    for kind in KINDS:
        said = terms.seen(rounds[0][kind]) if kind in rounds[0] else {}
        if "ipi.wait" in said:
            print("compare-linux: %s: %s: it waited as this_halt does" % (kind, said["ipi.wait"]))
    errors = finish(meta, rounds, fails, opts["report"], int(opts["smp"]),
                    float(opts["margin"]), keep=True)
    for e in errors:
        print("compare-linux: " + e)
    if fails:
        print("compare-linux: %d boot%s failed" % (len(fails), "" if len(fails) == 1 else "s"))
    return 1 if fails else 0


def reread(opts):
    where = opts["logs"]
    rounds = read_logs(where)
    if not rounds:
        print("compare-linux: no r<round>-<kind>.log in %s" % where, file=sys.stderr)
        return 2
    try:
        with open(os.path.join(where, "compare.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        meta = {"fetch": "COMPARE-LINUX missing=unknown"}
    print(meta["fetch"])
    fails = {}
    for i, logs in enumerate(rounds):
        for kind, path in logs.items():
            why = outcome(kind, path)
            if why:
                fails[(i, kind)] = why
                print("compare-linux: round %d, %s: %s" % (i + 1, kind, why))
    smp = int(meta["opts"]["smp"]) if meta.get("opts") else 0
    errors = finish(meta, rounds, fails, opts["report"], smp, float(opts["margin"]), keep=True)
    for e in errors:
        print("compare-linux: " + e)
    return 1 if fails else 0


def main(argv):
    if argv[1:2] == ["--agree"]:
        if len(argv) != 4:
            print("compare_linux: --agree takes two files", file=sys.stderr)
            return 2
        return agree_files(argv[2], argv[3])
    opts = options(argv[1:])
    if isinstance(opts, str):
        print("compare_linux: " + opts, file=sys.stderr)
        print(__doc__, file=sys.stderr)
        return 2
    return reread(opts) if opts["logs"] is not None else run(opts)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
