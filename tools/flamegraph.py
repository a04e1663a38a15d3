#!/usr/bin/env python3
# Folded stacks to a static SVG flame graph, and the differential flame graph of two profiles:
# the pictures tools/report.py draws for the PROFILE lines (doc/console.md); usable on its own.
"""Usage: flamegraph.py [--title T] FOLDED > out.svg
       flamegraph.py --diff [--title T] FOLDED_A FOLDED_B > out.svg

FOLDED holds one stack a line, root first, frames split by ';', then a space and
its sample count ("bench_worker;spin_lock;queued_spin_lock_slowpath 42"), the
format of Brendan Gregg's stackcollapse scripts and of this kernel's PROFILE
lines. The idea is his: the flame graph (Gregg, "The Flame Graph", CACM 59(6),
2016; https://www.brendangregg.com/flamegraphs.html) draws each stack as a
column of frames, root at the bottom, siblings merged and sorted by name, so a
frame's width is its share of all samples (its own and its callees'); and the
differential flame graph (Gregg, "Differential Flame Graphs", 2014;
https://www.brendangregg.com/blog/2014-11-09/differential-flame-graphs.html)
draws one profile's shapes coloured by how each frame's share changed.

--diff draws A's graph and colours each frame by its share of A's samples minus
its share of B's (each profile normalised to its own total): red where A spends
a larger share there, blue a smaller, white the same, the strongest change
drawn fully saturated. Frames that only B has cannot be drawn in A's shape:
they are listed below the graph with their share of B.

The SVG needs no script and no network: every frame has a <title> (its
tooltip: name, samples, share) and a label where it is wide enough. Colours
are a function of the frame's name alone, so the same function looks the same
in every graph of a report.
"""

import hashlib
import sys
from xml.sax.saxutils import escape

WIDTH = 1200          # the SVG's width in pixels, as Gregg's flamegraph.pl
PAD = 10              # left and right margins
FRAME = 16            # height of one frame
FONT = 12             # label size; a character of Verdana is about 0.59 of it wide
CHAR = 0.59 * FONT
MIN_WIDTH = 0.1       # narrower frames are left out: invisible, yet they would bloat the file
TOP = 3 * FRAME       # room for the title and the subtitle
ONLY_B = 12           # at most this many frames only B has are listed
SPECIAL = {"idle": "rgb(200,200,200)", "user": "rgb(120,190,120)"}


class Node:
    """A frame in the tree of stacks: its samples are its own and its callees'."""

    def __init__(self, name):
        self.name = name
        self.value = 0
        self.children = {}

    def child(self, name):
        if name not in self.children:
            self.children[name] = Node(name)
        return self.children[name]


def tree(stacks):
    """{(frame, ...): count} to the tree under the root frame "all"."""
    root = Node("all")
    for frames, count in stacks.items():
        root.value += count
        node = root
        for f in frames:
            node = node.child(f)
            node.value += count
    return root


def shares(root, total):
    """{path: share of total} for every frame of the tree; a path is the frames from the
    root's child down, so the same function called from two places is two frames."""
    out = {}

    def walk(node, path):
        for name, c in node.children.items():
            p = path + (name,)
            out[p] = c.value / total
            walk(c, p)
    walk(root, ())
    return out


def colour(name):
    """A warm colour that is a function of the name alone (flamegraph.pl's "hot" palette:
    red 205-255, green 0-230, blue 0-55); idle and user time stand apart in grey and green."""
    if name in SPECIAL:
        return SPECIAL[name]
    h = hashlib.md5(name.encode()).digest()
    return "rgb(%d,%d,%d)" % (205 + h[0] * 50 // 255, h[1] * 230 // 255, h[2] * 55 // 255)


def diff_colour(delta, scale):
    """Red for a larger share in A, blue for a smaller, white for none; full at |delta| =
    scale."""
    x = min(1.0, abs(delta) / scale) if scale > 0 else 0.0
    v = round(255 * (1 - x))
    return "rgb(255,%d,%d)" % (v, v) if delta > 0 else "rgb(%d,%d,255)" % (v, v)


def percent(x):
    return "%.2f%%" % (100 * x)


def label(name, width):
    """The name, cut to fit the frame with '..', or nothing if not even three characters fit."""
    fit = int((width - 6) / CHAR)
    if fit < 3:
        return ""
    return name if len(name) <= fit else name[:fit - 2] + ".."


def frames(root, total, fill, tip):
    """The SVG groups of every frame, root at the bottom; x order is the names' (merged
    siblings, as Gregg sorts them), width value / total of the drawing width. fill(path,
    node) and tip(path, node) give a frame's colour and tooltip. Returns (groups, depth)."""
    scale = (WIDTH - 2 * PAD) / total
    out, rows = [], []

    def walk(node, path, x, depth):
        w = node.value * scale
        if w < MIN_WIDTH:
            return
        rows.append(depth)
        out.append((path, node, x, w, depth))
        cx = x
        for name in sorted(node.children):
            c = node.children[name]
            walk(c, path + (name,), cx, depth + 1)
            cx += c.value * scale
    walk(root, (), PAD, 0)
    depth = max(rows, default=-1) + 1
    height = TOP + depth * FRAME
    groups = []
    for path, node, x, w, d in out:
        y = height - (d + 1) * FRAME
        text = label(node.name, w)
        g = ['<g><title>%s</title>' % escape(tip(path, node)),
             '<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2" ry="2"/>'
             % (x, y, w, FRAME - 1, fill(path, node))]
        if text:
            g.append('<text x="%.2f" y="%d">%s</text>' % (x + 3, y + FRAME - 4, escape(text)))
        groups.append("".join(g) + "</g>")
    return groups, depth


def svg(title, subtitle, groups, depth, notes=(), background="#f4f4f4"):
    """The whole document: title, subtitle, frames, then notes (lines of text) below."""
    height = TOP + depth * FRAME + (len(notes) + 1) * FRAME
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="Verdana, sans-serif" font-size="%d">'
           % (WIDTH, height, WIDTH, height, FONT),
           '<rect x="0" y="0" width="%d" height="%d" fill="%s"/>' % (WIDTH, height, background),
           '<text x="%d" y="%d" text-anchor="middle" font-size="%d">%s</text>'
           % (WIDTH // 2, FRAME + 2, FONT + 4, escape(title)),
           '<text x="%d" y="%d" text-anchor="middle" fill="#555">%s</text>'
           % (WIDTH // 2, 2 * FRAME + 4, escape(subtitle))]
    out += groups
    y = TOP + depth * FRAME + FRAME
    for n in notes:
        out.append('<text x="%d" y="%d">%s</text>' % (PAD, y, escape(n)))
        y += FRAME
    out.append("</svg>")
    return "\n".join(out) + "\n"


def flame(stacks, total, title):
    """The flame graph of {(frame, ...): count}. total is the profile's sample count, at
    least the counts' sum: samples whose stacks were not printed leave the root's frame
    short of the full width, as they should."""
    total = max(total, sum(stacks.values()))
    if not stacks:
        return svg(title, "no samples", [], 0)
    root = tree(stacks)

    def tip(path, node):
        own = node.value - sum(c.value for c in node.children.values())
        return "%s: %d samples, %s (own %s)" % (node.name, node.value,
                                                percent(node.value / total), percent(own / total))
    groups, depth = frames(root, total, lambda path, node: colour(node.name), tip)
    sub = ("%d samples; width: share of the samples (the callees' within the caller's); "
           "root at the bottom" % total)
    return svg(title, sub, groups, depth)


def only_in_b(sa, sb):
    """Frames of B whose path A lacks, highest first, not counting the callees of one that
    is listed already (they have its path as a prefix); sa holds the root's path ()."""
    out = [(p, s) for p, s in sb.items() if p not in sa and p[:-1] in sa]
    return sorted(out, key=lambda ps: (-ps[1], ps[0]))


def diff(a, total_a, b, total_b, title, names=("a", "b")):
    """A's flame graph coloured by each frame's change in share from B to A. Returns (the
    SVG, [(path, share in B)] of the frames only B has)."""
    total_a = max(total_a, sum(a.values()))
    total_b = max(total_b, sum(b.values()))
    ra, rb = tree(a), tree(b)
    sa = shares(ra, total_a) if total_a else {}
    sb = shares(rb, total_b) if total_b else {}
    sa[()] = ra.value / total_a if total_a else 0.0
    sb[()] = rb.value / total_b if total_b else 0.0
    delta = {p: s - sb.get(p, 0.0) for p, s in sa.items()}
    scale = max((abs(d) for d in delta.values()), default=0.0)
    missing = only_in_b(sa, sb)
    notes = ["Frames only %s has (share of its samples), not drawn: %s" % (
        names[1], "none" if not missing else "%d" % len(missing))]
    notes += ["  %s  %s" % (percent(s), ";".join(p)) for p, s in missing[:ONLY_B]]
    if len(missing) > ONLY_B:
        notes.append("  ... and %d more" % (len(missing) - ONLY_B))
    if not a:
        return svg(title, "%s has no samples" % names[0], [], 0, notes), missing

    def tip(path, node):
        return "%s: %s %s, %s %s, change %+.2f points" % (
            node.name, names[0], percent(sa[path]), names[1], percent(sb.get(path, 0.0)),
            100 * delta[path])
    groups, depth = frames(ra, total_a, lambda path, node: diff_colour(delta[path], scale),
                           tip)
    sub = ("shape: %s (%d samples); colour: share in %s minus share in %s (%d samples), "
           "red more, blue less, full colour %.2f points" % (names[0], total_a, names[0],
                                                             names[1], total_b, 100 * scale))
    return svg(title, sub, groups, depth, notes, background="#e8e8e8"), missing


def read_folded(path):
    """A folded-stacks file to {(frame, ...): count}; exits with a message on a bad line."""
    stacks = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            frames = tuple(stack.split(";"))
            if not count.isdigit() or not stack or "" in frames:
                sys.exit("flamegraph: %s:%d: not 'frame;frame;... count': %s" % (path, n, line))
            stacks[frames] = stacks.get(frames, 0) + int(count)
    return stacks


def main(argv):
    args = argv[1:]
    title = None
    if "--title" in args:
        i = args.index("--title")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        title = args[i + 1]
        del args[i:i + 2]
    is_diff = "--diff" in args
    args = [a for a in args if a != "--diff"]
    if len(args) != (2 if is_diff else 1):
        sys.exit(__doc__)
    try:
        profiles = [read_folded(p) for p in args]
    except OSError as e:
        sys.exit("flamegraph: %s: %s" % (e.filename, e.strerror))
    if is_diff:
        a, b = profiles
        text, _ = diff(a, 0, b, 0, title or "%s against %s" % tuple(args), tuple(args))
    else:
        text = flame(profiles[0], 0, title or args[0])
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
