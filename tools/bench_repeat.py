#!/usr/bin/env python3
# make bench-repeat: boots the kernel N times with one command line, keeps every serial log, and
# prints a BENCH-REPEAT line per comparison: how its ratio spreads between boots (doc/console.md).
"""Usage: bench_repeat.py --boots N [--smp S] [--mem M] [--cmdline C] [--accel A]
                       [--timeout T] [--logdir DIR] [--qemu PATH]
       bench_repeat.py --logs LOG...

Boots one after the other with tools/qemu.sh (or PATH) and keeps the serial logs as
DIR/repeat-<date>-<time>/boot-<i>.log, DIR being build/logs: a new directory every
time, so no log is ever overwritten. Then, for each BENCH-CMP comparison of the
boots that passed, in the order they first printed them:

  BENCH-REPEAT suite=<s> a=<v> b=<v> [fanout_a=<f>] [fanout_b=<f>] threads=<n>
    boots=<N> ratio=<mean> ci95=<h> faster=<k> same=<k> inconclusive=<k> slower=<k>

(one line): boots is how many boots printed the comparison, ratio the mean of
their ratios, ci95 the half-width of the Student-t 95% interval of that mean
across the boots (0 with one boot, which has no spread), and faster, same,
inconclusive and slower count the boots' verdicts. Boots with bench.aa=yes (A/A:
every faster or slower is false) are then summed up, for people, per suite and
in all:

  bench-repeat: A/A suite=<s> families=<boots> false_families=<k> rate=<p>%
  bench-repeat: A/A all families=<n> false_families=<k> rate=<p>% comparisons=<m>
    false=<k> inconclusive=<k>

a family being one suite's BENCH-CMP lines in one boot, false when one of them
is faster or slower: the rate each suite's Bonferroni level promises to keep at
5%. Exit status 0 when every boot passed, 1 when one did not (qemu.sh's
non-zero exit), 2 on bad usage. --logs prints the lines for logs saved before,
without booting.
"""

import os
import subprocess
import sys
import time

import boots
from benchlog import parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def usage(msg):
    print("bench_repeat: " + msg, file=sys.stderr)
    print(__doc__, file=sys.stderr)
    return 2


def options(argv):
    """The command line as a dict, or a message saying what is wrong with it."""
    opts = {"boots": None, "smp": "8", "mem": "1G", "cmdline": "", "accel": "",
            "timeout": "900", "logdir": os.path.join(ROOT, "build", "logs"),
            "qemu": os.path.join(ROOT, "tools", "qemu.sh"), "logs": None}
    args = list(argv)
    while args:
        key = args.pop(0)
        if key == "--logs":
            opts["logs"] = args
            break
        if not key.startswith("--") or key[2:] not in opts or not args:
            return "%s: unknown option or no value" % key
        opts[key[2:]] = args.pop(0)
    if opts["logs"] is not None:
        return opts if opts["logs"] else "--logs names no log"
    if opts["boots"] is None or not opts["boots"].isdigit() or int(opts["boots"]) < 1:
        return "--boots (make's N=) must be a count of boots, at least 1"
    return opts


def newdir(parent):
    """A directory of its own for this run's logs: repeat-<date>-<time>, with -2, -3, ...
    when one run already has that name (two runs started in one second)."""
    os.makedirs(parent, exist_ok=True)
    stem = os.path.join(parent, time.strftime("repeat-%Y%m%d-%H%M%S"))
    path, n = stem, 1
    while True:
        try:
            os.mkdir(path)   # fails if it exists: nobody else's logs are written over
            return path
        except FileExistsError:
            n += 1
            path = "%s-%d" % (stem, n)


def shown(path):
    """A path as the user would type it from the repository root."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def boot(opts, log):
    """One boot through qemu.sh; returns (its exit status, seconds, what it said on
    stderr)."""
    cmd = [opts["qemu"], "--smp", opts["smp"], "--mem", opts["mem"], "--cmdline",
           opts["cmdline"], "--accel", opts["accel"], "--timeout", opts["timeout"],
           "--log", log]
    start = time.time()
    # The console is in the log: only qemu.sh's own messages (stderr) are kept. No
    # terminal on stdin or stdout, so qemu.sh gives QEMU no monitor to wait on.
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, cwd=ROOT)
    return r.returncode, time.time() - start, r.stderr.strip()


def repeat_lines(logs):
    """The BENCH-REPEAT lines of the parsed logs, one per comparison."""
    out = []
    for q in boots.comparisons(logs):
        fan = "".join(" fanout_%s=%d" % (s, q["f" + s]) for s in ("a", "b")
                      if q["f" + s] is not None)
        out.append("BENCH-REPEAT suite=%s a=%s b=%s%s threads=%d boots=%d ratio=%.3f "
                   "ci95=%.3f faster=%d same=%d inconclusive=%d slower=%d"
                   % (q["suite"], q["va"], q["vb"], fan, q["threads"], q["n"], q["ratio"],
                      q["ci95"], q["faster"], q["same"], q["inconclusive"], q["slower"]))
    return out


def aa_boot(log):
    """Whether a log is of a bench.aa=yes boot: its command line says so, or it printed
    BENCH-AA (a boot cut short before it is still one)."""
    return log.aa is not None or "bench.aa=yes" in (log.cmdline or "").split()


def rate(k, n):
    return "%.1f%%" % (100.0 * k / n) if n else "n/a"


def aa_lines(logs):
    """The A/A summary of the bench.aa=yes boots among logs, from their BENCH-CMP lines: per
    suite in first-seen order, the boots that compared it (families) and those with a false
    verdict; then all suites together, with the comparisons and their verdicts."""
    per = {}   # suite -> [families, false families]
    cmps = false = inconclusive = 0
    for log in logs:
        if not aa_boot(log):
            continue
        for suite, cs in log.cmps.items():
            if not cs:
                continue
            wrong = [c for c in cs if c["verdict"] in ("faster", "slower")]
            f = per.setdefault(suite, [0, 0])
            f[0] += 1
            f[1] += bool(wrong)
            cmps += len(cs)
            false += len(wrong)
            inconclusive += sum(1 for c in cs if c["verdict"] == "inconclusive")
    if not per:
        return []
    out = ["bench-repeat: A/A suite=%s families=%d false_families=%d rate=%s"
           % (s, n, k, rate(k, n)) for s, (n, k) in per.items()]
    n, k = sum(f[0] for f in per.values()), sum(f[1] for f in per.values())
    out.append("bench-repeat: A/A all families=%d false_families=%d rate=%s comparisons=%d "
               "false=%d inconclusive=%d" % (n, k, rate(k, n), cmps, false, inconclusive))
    return out


def report(paths):
    """Prints the BENCH-REPEAT lines of the logs at paths; False if none could be read."""
    logs = []
    for p in paths:
        try:
            logs.append(parse(p))
        except OSError as e:
            print("bench_repeat: cannot read %s: %s" % (p, e.strerror), file=sys.stderr)
            return False
    lines = repeat_lines(logs)
    for line in lines + aa_lines(logs):
        print(line)
    if not lines:
        print("bench_repeat: no BENCH-CMP line in %d log%s" % (len(logs),
              "" if len(logs) == 1 else "s"))
    return True


def main(argv):
    opts = options(argv[1:])
    if isinstance(opts, str):
        return usage(opts)
    if opts["logs"] is not None:
        return 0 if report(opts["logs"]) else 2
    n = int(opts["boots"])
    try:
        where = newdir(opts["logdir"])
    except OSError as e:
        print("bench_repeat: cannot make a directory in %s: %s" % (opts["logdir"],
              e.strerror), file=sys.stderr)
        return 2
    print("bench-repeat: %d boots, %s vCPUs, command line '%s'; logs in %s"
          % (n, opts["smp"], opts["cmdline"], shown(where)), flush=True)
    kept, passed, failed = [], [], []
    try:
        for i in range(1, n + 1):
            log = os.path.join(where, "boot-%d.log" % i)
            kept.append(log)
            print("bench-repeat: boot %d of %d ..." % (i, n), end=" ", flush=True)
            rc, secs, said = boot(opts, log)
            print("%s in %.0f s" % ("pass" if rc == 0 else "FAILED", secs), flush=True)
            if rc == 0:
                passed.append(log)
                continue
            failed.append(log)
            for line in said.splitlines()[-5:]:
                print("bench-repeat:   " + line)
            if rc == 2:
                # qemu.sh's status for a boot it could not start (options, image): the
                # next boots would fail the same way.
                print("bench-repeat: qemu.sh could not start the boot; no more boots")
                break
    except KeyboardInterrupt:
        print("\nbench-repeat: interrupted; the logs so far are in %s" % shown(where))
        return 130
    if passed:
        report(passed)
    if failed:
        print("bench-repeat: %d boots passed, %d failed (%s); the lines above are the "
              "passed boots'" % (len(passed), len(failed), " ".join(shown(p) for p in failed)))
    kept = [p for p in kept if os.path.exists(p)]
    if kept:
        print("bench-repeat: logs in %s; charts of the spread between boots:" % shown(where))
        print('  make report LOG="%s"' % " ".join(shown(p) for p in kept))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
