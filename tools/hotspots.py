# The report's account of where a point's time goes: a flame graph per profiled point, a
# differential one per suite's headline pair (tools/flamegraph.py), and the top locks per point.
"""From PROFILE and LOCKSTAT lines (doc/console.md). With several logs a point's
profile is pooled: each stack's count, and the samples, summed over the boots
that profiled the point (samples of one workload, so more of them draw the
same graph more sharply); a lock's counts and times are summed over the boots
that listed it and its max_wait_ns is the largest, and the table says how many
boots that was (each boot lists only its most contended locks, so a lock some
boots left out is under-counted there). A log without these lines adds nothing
to the report."""

import os
import re

import flamegraph
from benchlog import label

FLAME_DIR = "flame"
ONLY_B = 3       # frames only b has, named in the Markdown (the SVG lists more)
SUMMED = ("acquisitions", "contended", "wait_ns", "hold_ns")   # LOCKSTAT's additive fields


def name(*parts):
    """A file name from parts that stays inside the flame directory."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(str(p) for p in parts if p != ""))


def point_name(suite, key):
    v, f, t = key
    return name(suite, v, "f%d" % f if f is not None else "", "t%d" % t)


def pooled(logs, suite):
    """{(variant, fanout, threads): {"samples", "stacks", "boots"}} over the logs."""
    out = {}
    for log in logs:
        for key, p in log.profiles.get(suite, {}).items():
            q = out.setdefault(key, {"samples": 0, "stacks": {}, "boots": 0})
            q["samples"] += max(p["samples"], sum(p["stacks"].values()))
            q["boots"] += 1
            for s, c in p["stacks"].items():
                q["stacks"][s] = q["stacks"].get(s, 0) + c
    return out


def summed_locks(logs, suite):
    """{point: [lock row]}: each lock's counts summed over the boots that listed it for the
    point, max_wait_ns the largest, "boots" how many; rows by wait time, largest first."""
    out = {}
    for log in logs:
        for key, rows in log.locks.get(suite, {}).items():
            per = out.setdefault(key, {})
            for r in rows:
                q = per.setdefault(r["lock"], {"lock": r["lock"], "boots": 0, "max_wait_ns": 0,
                                               **{k: 0 for k in SUMMED}})
                for k in SUMMED:
                    q[k] += r[k]
                q["max_wait_ns"] = max(q["max_wait_ns"], r["max_wait_ns"])
                q["boots"] += 1
    return {key: sorted(per.values(), key=lambda r: (-r["wait_ns"], -r["contended"],
                                                     r["lock"]))
            for key, per in out.items()}


def ordered(logs, suite, keys):
    """Points in the suite's BENCH-SUITE variant order, then by threads."""
    order = next((log.suites[suite]["variants"] for log in logs if suite in log.suites), [])

    def rank(key):
        lab = label(key[0], key[1])
        return (order.index(lab) if lab in order else len(order), key[0], key[1] or 0, key[2])
    return sorted(keys, key=rank)


def hottest(stacks, total):
    """The leaf frame with the most samples of its own, as 'name share'."""
    own = {}
    for s, c in stacks.items():
        own[s[-1]] = own.get(s[-1], 0) + c
    leaf = min(own, key=lambda f: (-own[f], f))
    return "%s %.1f%%" % (leaf, 100 * own[leaf] / total)


def pair(logs, suite, profs):
    """The suite's pair to draw as a differential: its first headline (BENCH-SEED), at the
    headline's thread count if both points were profiled there; else (or with no headline,
    its first BENCH-CMP pair) at the largest thread count where both were. Returns (key a,
    key b) or None."""
    cmps = [c for log in logs for c in log.cmps.get(suite, [])]
    heads = [(c, s["threads"]) for log in logs for s in log.seeds.get(suite, [])
             for c in cmps if (c["a"], c["vb"], c["threads"]) == (s["a"], s["b"], s["threads"])]
    if heads:
        first, want = heads[0]
    elif cmps:
        first, want = cmps[0], None
    else:
        return None

    def keys(t):
        return (first["va"], first["fa"], t), (first["vb"], first["fb"], t)
    both = [t for t in sorted({k[2] for k in profs}) if all(k in profs for k in keys(t))]
    if not both:
        return None
    return keys(want if want in both else both[-1])


def duration(ns):
    """Nanoseconds in the unit a reader takes in at a glance."""
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%d ns" % ns


def write(path, text, written):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    written.append(path)


def folded(stacks):
    """The profile as folded stacks, for other flame-graph tools (and flamegraph.py)."""
    return "".join("%s %d\n" % (";".join(s), c) for s, c in sorted(stacks.items()))


def profile_part(logs, suite, outdir, written, table):
    profs = pooled(logs, suite)
    if not profs:
        return []
    os.makedirs(os.path.join(outdir, FLAME_DIR), exist_ok=True)
    many = len(logs) > 1
    rows = []
    for key in ordered(logs, suite, profs):
        p = profs[key]
        base = point_name(suite, key)
        title = "%s %s at %d threads" % (suite, label(key[0], key[1]), key[2])
        svg = flamegraph.flame(p["stacks"], p["samples"], title)
        write(os.path.join(outdir, FLAME_DIR, base + ".svg"), svg, written)
        write(os.path.join(outdir, FLAME_DIR, base + ".folded"), folded(p["stacks"]), written)
        rows.append([label(key[0], key[1]), key[2], p["samples"]] + ([p["boots"]] if many else [])
                    + ["[svg](%s/%s.svg)" % (FLAME_DIR, base), hottest(p["stacks"], p["samples"])])
    out = ["Profiles (`profile=`): a flame graph per point, root at the bottom, a frame's width "
           "its share of the point's samples (hover for the counts)%s:" % (
               "; each point's samples pooled over the boots that profiled it" if many else ""),
           ""]
    out += table(["variant", "threads", "samples"] + (["boots"] if many else []) +
                 ["flame graph", "most samples of its own"], rows) + [""]
    pr = pair(logs, suite, profs)
    if pr:
        out += diff_part(suite, profs, pr, outdir, written)
    return out


def diff_part(suite, profs, pr, outdir, written):
    """The pair's differential flame graphs: a's shape against b embedded, and b's against
    a linked, which draws what only b has (Gregg draws both ways too, --negate)."""
    out = []
    for n, (kx, ky) in enumerate((pr, pr[::-1])):
        lx, ly = label(kx[0], kx[1]), label(ky[0], ky[1])
        px, py = profs[kx], profs[ky]
        title = "%s: %s against %s at %d threads" % (suite, lx, ly, kx[2])
        svg, missing = flamegraph.diff(px["stacks"], px["samples"], py["stacks"], py["samples"],
                                       title, (lx, ly))
        base = name(suite, "diff", point_name("", kx), "vs", point_name("", ky))
        write(os.path.join(outdir, FLAME_DIR, base + ".svg"), svg, written)
        if n == 0:
            out += ["Differential flame graph, %s against %s at %d threads: the shape of %s's "
                    "profile, each frame red where its share of the samples is larger than in "
                    "%s's, blue where smaller (Gregg's differential flame graph):"
                    % (lx, ly, kx[2], lx, ly), "",
                    "![%s](%s/%s.svg)" % (title, FLAME_DIR, base), ""]
            only = ("Frames only %s has (%d; share of its samples): %s; " % (
                ly, len(missing), ", ".join("`%s` %.1f%%" % (";".join(p), 100 * s)
                                           for p, s in missing[:ONLY_B]))
                    if missing else "")
        else:
            out += ["%s%she other way round, in %s's shape: [svg](%s/%s.svg)." % (
                only, "t" if only else "T", lx, FLAME_DIR, base), ""]
    return out


def lock_part(logs, suite, table):
    locks = summed_locks(logs, suite)
    if not locks:
        return []
    many = len(logs) > 1
    rows = []
    for key in ordered(logs, suite, locks):
        for r in locks[key]:
            share = 100 * r["contended"] / r["acquisitions"] if r["acquisitions"] else 0
            rows.append([label(key[0], key[1]), key[2], "`%s`" % r["lock"], r["acquisitions"],
                         "%d (%.1f%%)" % (r["contended"], share), duration(r["wait_ns"]),
                         duration(r["max_wait_ns"]), duration(r["hold_ns"])]
                        + ([r["boots"]] if many else []))
    out = ["Top locks (`lockstat=yes`) per point, by total wait%s:" % (
        "; counts and times summed over the boots that listed the lock" if many else ""), ""]
    return out + table(["variant", "threads", "lock", "acquisitions", "contended", "wait",
                        "max wait", "hold"] + (["boots"] if many else []), rows) + [""]


def pictures(logs, suite, outdir, written, table):
    """The suite's profile and lock parts of report.md, writing the SVGs and folded stacks
    under OUTDIR/flame/; table(head, rows) makes a Markdown table. [] without the lines."""
    return profile_part(logs, suite, outdir, written, table) + lock_part(logs, suite, table)
