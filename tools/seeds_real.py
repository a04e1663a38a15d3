#!/usr/bin/env python3
# make seeds-real: the seeds' own programs (dbench, fs_mark, sysbench with jemalloc), unmodified,
# on this kernel's variants and on Debian's Linux, boots alternating; tables, REAL-SEED lines.
"""Each seed's variants are chosen on the kernel command line, one boot each (pagecache=,
ramfs.free=, madvise.lock=; doc/console.md); a round boots every variant of every seed once
and Linux once per seed, in an order reversed every other round. Every boot runs
tests/seeds/real.sh, which prints a SEEDRUN line per run. Linux boots with make
compare-linux's equal terms (tools/terms.py) and its /init (user/linux/init.c), which mounts
a ramfs at /tmp where the runs work, as this kernel's /tmp is its root ramfs.

Usage: seeds_real.py [--smp N] [--rounds R] [--seeds 000,001,003] [--secs S] [--reps K]
                     [--counts 1,2] [--mem M] [--cpu C] [--accel A] [--pkg LINUX_PKG] [--linux-list F]
                     [--imitation LOG] [--logdir DIR] [--report DIR] [--jobs 1]
       seeds_real.py --logs DIR[,DIR...]   (re-read the boots of earlier runs, as one)
Prints the tables and REAL-SEED / REAL-SEED-CMP lines (doc/console.md), writes
build/report/seeds-real.md and a chart per seed; exit non-zero only when a boot failed (or no
Linux could be fetched: COMPARE-LINUX missing=, as make compare-linux says it)."""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

import newc
import report
import seeds_data as sd
import terms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "seeds-real")
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
PROGRAMS = ["/usr/bin/dbench", "/usr/bin/fs_mark", "/usr/bin/sysbench"]
DATA = ["/usr/share/dbench/client.txt"]
WORKDIR = "/tmp/seeds"
# busybox's applets tests/seeds/real.sh uses, for Linux's archive (this kernel's initramfs
# has them all in /bin).
APPLETS = ["sh", "awk", "cat", "mkdir", "rm", "sed", "tail", "tr"]


def options(argv):
    o = {"smp": "8", "rounds": "3", "seeds": "000,001,003", "secs": "", "reps": "",
         "mem": "2G", "cpu": "max", "accel": "", "pkg": "", "logs": None,
         "linux-list": os.path.join(ROOT, "build", "linux", "initrd.cpio.list"),
         "imitation": "", "busybox": "/bin/busybox",
         "logdir": os.path.join(ROOT, "build", "logs"), "jobs": "1", "counts": "",
         "report": os.path.join(ROOT, "build", "report")}
    args = list(argv)
    while args:
        k = args.pop(0)
        if not k.startswith("--") or k[2:] not in o or not args:
            sys.exit("seeds_real.py: %s: unknown option or no value" % k)
        o[k[2:]] = args.pop(0)
    for k in ("smp", "rounds", "jobs"):
        if not o[k].isdigit() or int(o[k]) < 1:
            sys.exit("seeds_real.py: --%s must be a positive count" % k)
    given = o["seeds"].split(",")
    o["seeds"] = [s for s in sd.ORDER if s in given]
    if not o["seeds"] or len(o["seeds"]) != len(given):
        sys.exit("seeds_real.py: --seeds: a comma list of 000, 001, 003")
    # Quick at 1 or 2 vCPUs (make test's form); at more, runs long enough for dbench's warm-up
    # (a fifth of its time) to settle under TCG. A boot's runs are one sample; the rounds give
    # the interval.
    o["secs"] = o["secs"] or ("3" if int(o["smp"]) <= 2 else "5")
    o["reps"] = o["reps"] or "1"
    if not re.fullmatch(r"\d+", o["secs"]) or not re.fullmatch(r"\d+", o["reps"]):
        sys.exit("seeds_real.py: --secs and --reps are whole numbers")
    # dbench spends a fifth of its time (at least a whole second) warming up: -t 1 measures
    # nothing and says 0 MB/sec.
    if int(o["secs"]) < 2:
        sys.exit("seeds_real.py: --secs (make's SECS=) must be 2 or more: dbench -t 1 measures nothing")
    if not re.fullmatch(r"(\d+(,\d+)*)?", o["counts"]):
        sys.exit("seeds_real.py: --counts (make's COUNTS=): a comma list of client or thread counts")
    o["counts"] = [int(n) for n in o["counts"].split(",") if n]
    for seed in o["seeds"]:
        if not seed_counts(o, seed):
            sys.exit("seeds_real.py: --counts %s: none of seed %s's counts at %s vCPUs (%s)" % (
                ",".join(map(str, o["counts"])), seed, o["smp"],
                ",".join(map(str, sd.counts(seed, int(o["smp"]))))))
    return o


def seed_counts(o, seed):
    """The seed's client or thread counts at this SMP, only those --counts names if given."""
    return [n for n in sd.counts(seed, int(o["smp"])) if not o["counts"] or n in o["counts"]]


def archive_lines():
    """newc.py list lines: the programs, their libraries (tools/solibs.sh), jemalloc, dbench's
    loadfile and the scripts under /seeds; parents first, each name once."""
    listing = newc.Listing()
    add = listing.add

    missing = [p for p in PROGRAMS + DATA + [JEMALLOC] if not os.path.exists(p)]
    if missing:
        sys.exit("seeds-real: missing on this host: %s (tools/deps.sh installs dbench, fsmark, "
                 "sysbench, libjemalloc2)" % " ".join(missing))
    for p in PROGRAMS:
        add("file", p, "%s 0755 0 0" % os.path.realpath(p))
    for p in DATA:
        add("file", p, "%s 0644 0 0" % p)
    add("file", JEMALLOC, "%s 0644 0 0" % os.path.realpath(JEMALLOC))
    r = subprocess.run([os.path.join(ROOT, "tools", "solibs.sh")] + PROGRAMS + [JEMALLOC],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("seeds-real: tools/solibs.sh: %s" % r.stderr.strip())
    for l in r.stdout.splitlines():
        kind, name, rest = l.split(" ", 2)
        add(kind, name, rest)
    for f, mode in (("real.sh", "0755"), ("txn.lua", "0644")):
        add("file", "/seeds/" + f, "%s %s 0 0" % (os.path.join(ROOT, "tests", "seeds", f), mode))
    add("dir", "/tmp", "1777 0 0")
    return listing.lines


def write_archive(path, lines, gz):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".list", "w") as f:
        f.write("\n".join(lines) + "\n")
    cpio = path[:-3] if gz else path
    if subprocess.run([os.path.join(ROOT, "tools", "newc.py"), cpio, path + ".list"]).returncode:
        sys.exit("seeds-real: tools/newc.py failed on %s.list" % path)
    if gz:
        with open(path, "wb") as f:
            subprocess.run(["gzip", "-n", "-1", "-c", cpio], stdout=f, check=True)


def archives(o):
    """This kernel's INITRD= archive and Linux's initramfs (compare-linux's, plus busybox as
    /bin/sh and these files)."""
    mine = archive_lines()
    write_archive(os.path.join(OUT, "seeds.cpio.gz"), mine, True)
    try:
        base = open(o["linux-list"]).read().splitlines()
    except OSError:
        sys.exit("seeds-real: no %s (make seeds-real builds it)" % o["linux-list"])
    names = {l.split()[1] for l in base if l.strip()}
    extra = ["file /bin/busybox %s 0755 0 0" % os.path.realpath(o["busybox"])] + \
        ["slink /bin/%s busybox 0777 0 0" % a for a in APPLETS]
    linux = base + [l for l in extra + mine if l.split()[1] not in names]
    write_archive(os.path.join(OUT, "linux.cpio"), linux, False)


def script_args(o, seed):
    s = sd.SEEDS[seed]
    # fs_mark's runs last a second or two: three times as many of them, for a boot's mean.
    reps = int(o["reps"]) * (3 if seed == "003" else 1)
    args = [WORKDIR, seed, o["secs"], str(reps),
            ",".join(str(n) for n in seed_counts(o, seed))]
    return args + ([",".join(s["allocs"])] if "allocs" in s else [])


def plan(o, rnd):
    """A round's boots as (seed, kernel, variant); within each seed the variants, Linux
    last, reversed every other round (counterbalanced against the host's drift)."""
    out = []
    for seed in o["seeds"]:
        b = [(seed, "this", v) for v in sd.SEEDS[seed]["boots"]] + [(seed, "linux", "linux")]
        out += b if rnd % 2 == 0 else b[::-1]
    return out


def timeout(o, seed):
    """Generous: every run at twice its length plus 20 s of setup, and two minutes to boot."""
    runs = len(seed_counts(o, seed)) * int(script_args(o, seed)[3]) * \
        (2 if "allocs" in sd.SEEDS[seed] else 1)
    return 120 + runs * (2 * int(o["secs"]) * (1 if seed != "003" else 0) + 20)


def boot(o, vmlinuz, seed, kernel, variant, log):
    script = " ".join(["/seeds/real.sh"] + script_args(o, seed))
    argv = [os.path.join(ROOT, "tools", "qemu.sh"), "--smp", o["smp"], "--mem", o["mem"],
            "--cpu", o["cpu"], "--accel", o["accel"], "--timeout", str(timeout(o, seed)),
            "--log", log]
    if kernel == "this":
        words = sd.SEEDS[seed]["boots"][variant]
        argv += ["--image", "release", "--initrd", os.path.join(OUT, "seeds.cpio.gz"),
                 "--cmdline", "bench=none %s init=/bin/sh -- %s" % (words, script)]
    else:
        argv += ["--linux", vmlinuz, "--linux-initrd", os.path.join(OUT, "linux.cpio"),
                 "--append", terms.cmdline("linux", "/bin/sh " + script)]
    return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def outcome(text, seed, kernel):
    """None when the boot's runs all ended well, else why not. This kernel must also end its
    boot well (END result=pass: no panic, the leak check passed, doc/console.md)."""
    m = re.search(r"SEEDRUN-DONE seed=%s runs=(\d+) failed=(\d+)" % seed, text)
    if not m:
        fail = re.search(r"SEEDRUN-FAIL .*", text)
        return "no SEEDRUN-DONE" + (" (%s)" % fail.group(0).strip() if fail else "")
    if m.group(2) != "0":
        return "%s of %s runs failed" % (m.group(2), m.group(1))
    if kernel == "this" and not re.search(r"END result=pass", text):
        leak = re.search(r"LEAK-CHECK result=fail \S+ \S+", text)
        return "no END result=pass" + (" (%s)" % leak.group(0) if leak else "")
    return None


LOG = re.compile(r"r(\d+)-(\d{3})-(this|linux)-(.+)\.log$")


def read_logs(dirs, seeds):
    """{seed: {(column, threads): {round: value}}} and the failures, from the logs of one run
    or of several with the same settings, whose rounds follow one another."""
    samples, fails, base = {}, [], 0
    for where in dirs:
        last = -1
        for name in sorted(os.listdir(where)):
            m = LOG.match(name)
            if not m:
                continue
            rnd, seed, kernel, variant = int(m.group(1)), m.group(2), m.group(3), \
                m.group(4).replace("_", "/")
            last = max(last, rnd)
            text = open(os.path.join(where, name), errors="replace").read()
            if seed not in seeds:
                continue
            why = outcome(text, seed, kernel)
            if why:
                fails.append("%s: %s" % (name if len(dirs) == 1 else
                                         os.path.join(os.path.basename(where), name), why))
                continue
            for key, v in sd.boot_values(text, seed, variant, kernel).items():
                samples.setdefault(seed, {}).setdefault(key, {})[base + rnd] = v
        base += last + 1
    return samples, fails


IMITATION = {"000": "dbench", "003": "ramfs", "001": "madvise"}


def imitation(log):
    """The boot suites' BENCH-SEED line for each seed, from a benchmark boot's log."""
    out = {}
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return out
    for seed, suite in IMITATION.items():
        hits = re.findall(r"BENCH-SEED suite=%s .*" % suite, text)
        if hits:
            out[seed] = hits[-1].strip()
    return out


def chart(outdir, seed, points, smp):
    """seeds-real-<seed>.png: rate against clients or threads, a line per variant, and the
    seed's curves scaled to this run's first column at its first point. Returns the PNG's name
    or an error."""
    s = sd.SEEDS[seed]
    name = "seeds-real-%s" % seed
    cols = [c for c in sd.columns(seed) if any(p["variant"] == c for p in points)]
    rows = sorted({p["threads"] for p in points})
    cell = {(p["variant"], p["threads"]): p["rate"] for p in points}
    data = ["# %s %s" % (s["what"], " ".join(cols))]
    for n in rows:
        data.append(" ".join([str(n)] + [sd.fmt(cell.get((c, n))) for c in cols]))
    plots = ["'%s.dat' using 1:%d with linespoints title %s" % (name, i + 2, report.quote(c))
             for i, c in enumerate(cols)]
    # The seed's curves, normalised to its first row and put at this run's first value.
    if s["seed_cpus"] and cols and (cols[0], rows[0]) in cell:
        base = cell[(cols[0], rows[0])]
        first = min(s["seed_table"])
        for j, sc in enumerate(s["seed_columns"].values()):
            seed_data = ["%s %r" % (n * (smp / s["seed_cpus"] if seed == "000" else 1),
                                    base * v[j] / s["seed_table"][first][j])
                         for n, v in sorted(s["seed_table"].items())]
            report.write(os.path.join(outdir, "%s-seed%d.dat" % (name, j)),
                         "\n".join(seed_data) + "\n", [])
            plots.append("'%s-seed%d.dat' using 1:2 with lines dashtype 2 title %s"
                         % (name, j, report.quote("seed: " + sc + " (scaled)")))
    gnuplot = shutil.which("gnuplot")
    gp = ["set terminal %s size 1000,600 noenhanced" % (report.terminal() if gnuplot else "png"),
          "set output '%s.png'" % name, "set title %s" % report.quote(s["title"]),
          "set xlabel %s" % report.quote(s["what"]), "set ylabel %s" % report.quote(s["unit"]),
          "set datafile missing 'n/a'", "set key top right box opaque", "set grid",
          "set yrange [0:*]",
          "plot " + ", \\\n     ".join(plots)]
    report.write(os.path.join(outdir, name + ".dat"), "\n".join(data) + "\n", [])
    report.write(os.path.join(outdir, name + ".gp"), "\n".join(gp) + "\n", [])
    if not gnuplot:
        return name + ".png", "gnuplot is not installed: no %s.png" % name
    return name + ".png", report.draw(outdir, name)


def finish(o, where, meta):
    line = meta["line"]
    samples, fails = read_logs(where.split(","), o["seeds"])
    imit = meta.get("imitation", {})
    md = ["# make seeds-real", "", "%s; logs in %s." % (
        line, ", ".join(os.path.relpath(w, ROOT) for w in where.split(","))), ""]
    os.makedirs(o["report"], exist_ok=True)
    smp = int(o["smp"])
    for seed in o["seeds"]:
        s = sd.SEEDS[seed]
        points, cmps = sd.analyse(seed, samples.get(seed, {}), smp)
        print("\n== seed %s: %s (%s, %s)" % (seed, s["title"], s["program"], s["unit"]))
        for l in sd.table(seed, points):
            print(l)
        print("\nThe seed's own numbers:")
        for l in sd.seed_table(seed):
            print(l)
        for p in points:
            print(sd.real_seed_line(p))
        for c in cmps:
            print(sd.cmp_line(c))
        if seed in imit:
            text, _ = sd.imitation_row(seed, imit[seed], cmps)
            print("seeds-real: seed %s, %s" % (seed, text))
        png, err = chart(o["report"], seed, points, smp)
        if err:
            print("seeds-real: " + err)
        md += ["## Seed %s: %s" % (seed, s["title"]), "",
               "%s, %s, mean ± 95%% half-width over the rounds (boots)." % (s["program"],
                                                                           s["unit"]), ""]
        md += sd.table(seed, points) + ["", "The seed's own numbers:", ""] + sd.seed_table(seed)
        md += ["", "Comparisons the seed made:", ""] + sd.cmp_table(cmps)
        if seed in imit:
            md += ["", "The boot suite's imitation beside it (%s): %s."
                   % (meta["imitation_log"], sd.imitation_row(seed, imit[seed], cmps)[0])]
        md += ["", "![%s](%s)" % (seed, png), ""]
    if fails:
        md += ["## Boots that failed", ""] + ["- " + f for f in fails]
    report.write(os.path.join(o["report"], "seeds-real.md"), "\n".join(md) + "\n", [])
    for f in fails:
        print("seeds-real: FAILED boot %s" % f)
    print("seeds-real: %s; report %s" % (line, os.path.relpath(
        os.path.join(o["report"], "seeds-real.md"), ROOT)))
    return 1 if fails else 0


def main(argv):
    o = options(argv)
    if o["logs"]:
        # Several runs' logs (DIR,DIR,...): one table, their rounds in turn; the first's settings.
        metas = [json.load(open(os.path.join(d, "meta.json"))) for d in o["logs"].split(",")]
        if len({(m["smp"], tuple(m["seeds"])) for m in metas}) != 1:
            sys.exit("seeds_real.py: --logs: the runs differ in SMP or seeds")
        meta = dict(metas[0], line="; ".join(m["line"] for m in metas))
        o["smp"] = meta["smp"]
        if "--seeds" not in argv:   # else only those seeds' tables
            o["seeds"] = meta["seeds"]
        return finish(o, o["logs"], meta)
    r = subprocess.run([os.path.join(ROOT, "tools", "fetch_linux.sh")] +
                       ([o["pkg"]] if o["pkg"] else []), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    out = r.stdout.splitlines()
    # compare-linux's line first (doc/console.md), so a reader knows which Linux, or why none.
    print(out[0] if out else "COMPARE-LINUX missing=fetch-failed", flush=True)
    if r.returncode != 0 or len(out) < 2:
        print("seeds-real: no Linux to compare with: %s" % r.stderr.strip())
        return 1
    vmlinuz, linux = out[1], out[0].replace("COMPARE-LINUX ", "")
    # The imitation's lines are read now: build/logs/last.log is about to be these boots'.
    imit_log = os.path.realpath(o["imitation"]) if o["imitation"] else ""
    imit = imitation(imit_log) if imit_log else {}
    if imit_log and not imit:
        print("seeds-real: no BENCH-SEED lines in %s (a boot of make qemu-smp%s, or "
              "IMITATION=): the imitations' ratios are left out" % (imit_log, o["smp"]))
    archives(o)
    where = os.path.join(o["logdir"], time.strftime("seeds-real-%Y%m%d-%H%M%S"))
    os.makedirs(where)
    t0 = time.time()
    runs = [(rnd, b) for rnd in range(int(o["rounds"])) for b in plan(o, rnd)]

    def one(job):
        rnd, (seed, kernel, variant) = job
        log = os.path.join(where, "r%d-%s-%s-%s.log" % (rnd, seed, kernel,
                                                        variant.replace("/", "_")))
        t = time.time()
        boot(o, vmlinuz, seed, kernel, variant, log)
        why = outcome(open(log, errors="replace").read(), seed, kernel) if os.path.exists(log) \
            else "no log"
        print("seeds-real: round %d seed %s %s %s: %s in %.0f s" % (
            rnd + 1, seed, kernel, variant, why or "ok", time.time() - t), flush=True)

    # --jobs 2 (make test's check of the pipeline) boots two at once: never for a measurement.
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(o["jobs"])) as pool:
        list(pool.map(one, runs))
    nboots = len(runs)
    line = ("SMP=%s ROUNDS=%s SECS=%s REPS=%s%s, %d boots in %.0f s%s, Linux %s, %s"
            % (o["smp"], o["rounds"], o["secs"], o["reps"],
               " COUNTS=" + ",".join(map(str, o["counts"])) if o["counts"] else "",
               nboots, time.time() - t0,
               "" if o["jobs"] == "1" else " (%s at once: no measurement)" % o["jobs"], linux,
               time.strftime("%Y-%m-%d")))
    meta = {"smp": o["smp"], "seeds": o["seeds"], "line": line, "imitation": imit,
            "imitation_log": os.path.relpath(imit_log, ROOT) if imit_log else ""}
    json.dump(meta, open(os.path.join(where, "meta.json"), "w"))
    return finish(o, where, meta)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
