# Reads a saved serial log into the points, comparisons, seed lines, profiles, lock statistics and
# boot facts that tools/report.py and tools/bench_repeat.py use (formats: doc/console.md).

import os
import re
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
CMDLINE = re.compile(r"command line '(.*)'")
# The lines read here; any other, BENCH-RUNS among them (tools/aa_check.py reads it), is passed
# over like the human text.
MACHINE = ("BOOT", "BENCH-SUITE", "BENCH", "BENCH-SKIP", "BENCH-CMP", "BENCH-SEED",
           "BENCH-DONE", "BENCH-AA", "PROFILE", "LOCKSTAT", "SELFTEST", "PANIC", "END")
# doc/console.md's four verdict words; BENCH-SEED's direction and magnitude words.
VERDICTS = ("faster", "slower", "same", "inconclusive")
DIRECTIONS = ("agrees", "differs", "unknown")
MAGNITUDES = ("inside", "above", "below")
# BENCH-AA's counts: the first three since the line began, the rest since the four words.
AA_FIELDS = ("suites", "comparisons", "false")
AA_ADDED = ("inconclusive", "families", "false_families")
# BENCH-SUITE: space-free key=value words, then op= and seed=, texts without '='.
SUITE_LINE = re.compile(r"(?P<words>.*?) op=(?P<op>[^=]*) seed=(?P<seed>[^=]*)")
DECIMAL = re.compile(r"\d+(\.\d+)?")
COUNT = re.compile(r"\d+")
# PROFILE frames: a function name (with GCC's .isra.0, .cold suffixes), idle, user, or 0x<hex>.
FRAME = re.compile(r"[A-Za-z0-9_.]+")
# LOCKSTAT lock classes: any printable word but '=' (&mapping->tree_lock, mm->mmap_sem).
LOCK = re.compile(r"[!-<>-~]+")
LOCK_FIELDS = ("acquisitions", "contended", "wait_ns", "max_wait_ns", "hold_ns")


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
        self.skips = {}           # suite -> [point left out: variant, fanout, threads, reason]
        self.seeds = {}           # suite -> [headline: BENCH-SEED's fields]
        self.aa = None            # BENCH-AA's counts (a bench.aa=yes boot), as ints
        self.profiles = {}        # suite -> {(variant, fanout, threads): profile}
        self.locks = {}           # suite -> {(variant, fanout, threads): [LOCKSTAT's fields]}
        self.cmdline = None       # the kernel's command line, as the boot reported it
        self.skipped = 0


def warn(msg):
    """A warning on stderr, named after the script that reads the log."""
    prog = os.path.splitext(os.path.basename(sys.argv[0]))[0] or "benchlog"
    print("%s: %s" % (prog, msg), file=sys.stderr)


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
    if kind == "tally":
        if not COUNT.fullmatch(v):
            raise BadLine("%s=%s is not a count" % (key, v))
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


def one_of(d, key, words):
    """The field key of d, which must be one of words."""
    v = need(d, key)
    if v not in words:
        raise BadLine("%s=%s is not %s or %s" % (key, v, ", ".join(words[:-1]), words[-1]))
    return v


def verdict(d, key):
    return one_of(d, key, VERDICTS)


def direction(verdict, seed_verdict):
    """BENCH-SEED's direction= (doc/console.md): whether this boot's verdict says what the
    seed's did; unknown when it is inconclusive."""
    if verdict == "inconclusive":
        return "unknown"
    return "agrees" if verdict == seed_verdict else "differs"


def magnitude(seed_ratio, ratio, ci95):
    """BENCH-SEED's magnitude= from its printed numbers (strings, as the kernel compares
    them in thousandths): the seed's ratio inside the interval ratio +- ci95, or above or
    below it."""
    s, r, c = milli(seed_ratio), milli(ratio), milli(ci95)
    if s > r + c:
        return "above"
    if s + c < r:
        return "below"
    return "inside"


def milli(text):
    """A printed decimal in thousandths, exactly (the kernel prints three places; more are
    cut, fewer filled with zeros)."""
    whole, _, frac = text.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def take_cmp(log, d):
    suite = need(d, "suite")
    c = {
        "va": need(d, "a"),
        "fa": optional(d, "fanout_a", "count"),
        "vb": need(d, "b"),
        "fb": optional(d, "fanout_b", "count"),
        "threads": need(d, "threads", "count"),
        "ratio": need(d, "ratio", "decimal"),
        "ci95": need(d, "ci95", "decimal"),
        "verdict": verdict(d, "verdict"),
    }
    c["a"], c["b"] = label(c["va"], c["fa"]), label(c["vb"], c["fb"])
    log.cmps.setdefault(suite, []).append(c)


def take_skip(log, d):
    suite = need(d, "suite")
    log.skips.setdefault(suite, []).append({
        "variant": need(d, "variant"),
        "fanout": optional(d, "fanout", "count"),
        "threads": need(d, "threads", "count"),
        "reason": need(d, "reason"),
    })


def take_seed(log, d):
    """A BENCH-SEED line: a headline comparison beside the seed's own ratio. A line from
    before direction= and magnitude= (it ended agrees=yes|no) gets both from its own
    numbers and verdicts, as the kernel computes them."""
    suite = need(d, "suite")
    seed = {
        "a": label(need(d, "a"), optional(d, "fanout_a", "count")),
        "b": need(d, "b"),
        "threads": need(d, "threads", "count"),
        "seed_ratio": need(d, "seed_ratio", "decimal"),
        "seed_verdict": verdict(d, "seed_verdict"),
        "ratio": need(d, "ratio", "decimal"),
        "ci95": need(d, "ci95", "decimal"),
        "verdict": verdict(d, "verdict"),
    }
    if "direction" in d or "agrees" not in d:
        seed["direction"] = one_of(d, "direction", DIRECTIONS)
        seed["magnitude"] = one_of(d, "magnitude", MAGNITUDES)
    else:
        seed["direction"] = direction(seed["verdict"], seed["seed_verdict"])
        seed["magnitude"] = magnitude(d["seed_ratio"], d["ratio"], d["ci95"])
    log.seeds.setdefault(suite, []).append(seed)


def point_of(d):
    """The (suite, (variant, fanout, threads)) a PROFILE or LOCKSTAT line belongs to."""
    return need(d, "suite"), (need(d, "variant"), optional(d, "fanout", "count"),
                              need(d, "threads", "count"))


def take_profile(log, d):
    """A PROFILE line: one distinct stack of a point and its count; samples is the point's
    total, the same on each of its lines."""
    suite, key = point_of(d)
    samples, count = need(d, "samples", "count"), need(d, "count", "count")
    frames = tuple(need(d, "stack").split(";"))
    bad = [f for f in frames if not FRAME.fullmatch(f)]
    if bad:
        raise BadLine("stack frame '%s' is not a function name" % bad[0])
    prof = log.profiles.setdefault(suite, {}).setdefault(key, {"samples": samples,
                                                              "stacks": {}})
    if prof["samples"] != samples:
        raise BadLine("samples=%d, but the point's first line has %d" % (samples,
                                                                        prof["samples"]))
    if frames in prof["stacks"]:
        raise BadLine("the stack %s again" % ";".join(frames))
    prof["stacks"][frames] = count


def take_lockstat(log, d):
    suite, key = point_of(d)
    lock = need(d, "lock")
    if not LOCK.fullmatch(lock):
        raise BadLine("lock=%s is not a name" % lock)
    row = {"lock": lock}
    for k in LOCK_FIELDS:
        row[k] = need(d, k, "tally")
    log.locks.setdefault(suite, {}).setdefault(key, []).append(row)


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
    elif word == "BENCH-SKIP":
        take_skip(log, d)
    elif word == "BENCH-SEED":
        take_seed(log, d)
    elif word == "PROFILE":
        take_profile(log, d)
    elif word == "LOCKSTAT":
        take_lockstat(log, d)
    elif word == "BENCH-AA":
        aa = {key: need(d, key, "tally") for key in AA_FIELDS}
        aa.update({key: need(d, key, "tally") for key in AA_ADDED if key in d})
        log.aa = aa
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
        if log.cmdline is None and CMDLINE.search(text):
            log.cmdline = CMDLINE.search(text).group(1)
        if not words or words[0] not in MACHINE:
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
