#!/usr/bin/env python3
# check_excerpt.py README.md LOG: the README's console excerpt must come from a real boot.
# Each line but `...` must occur in LOG in order, numbers aside; exit 1 names the first one missing.
import re
import sys

BEGIN, END = "<!-- console-excerpt: begin -->", "<!-- console-excerpt: end -->"
# The lines the README promises its excerpt shows, after the timestamp: BOOT, a BENCH line or a
# row of a suite's table (a thread count, then figures), BENCH-DONE, LEAK-CHECK and END.
REQUIRED = {"BOOT line": r"BOOT ", "BENCH line or table row": r"(BENCH |\s+[0-9]+\s+[0-9])",
            "BENCH-DONE line": r"BENCH-DONE ", "LEAK-CHECK line": r"LEAK-CHECK ", "END line": r"END result="}


def excerpt(readme):
    text = open(readme, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        sys.exit(f"check_excerpt: {readme} has no '{BEGIN}' ... '{END}'")
    body = text.split(BEGIN, 1)[1].split(END, 1)[0].strip().splitlines()
    if len(body) < 2 or body[0].strip() != "```text" or body[-1].strip() != "```":
        sys.exit(f"check_excerpt: the excerpt in {readme} is not one ```text fence")
    return [l for l in body[1:-1] if l.strip() != "..."]


def shape(line):
    # Digit runs stand for any number; runs of blanks for any run (a timestamp past 99.999999 s
    # has one space fewer inside its brackets).
    return re.sub(r"\s+", " ", re.sub(r"[0-9]+", "#", line)).strip()


def first_missing(lines, log):
    """Index of the first excerpt line not found after the previous one's match, or None."""
    shapes, at = [shape(l) for l in log], 0
    for i, line in enumerate(lines):
        want = shape(line)
        while at < len(shapes) and shapes[at] != want:
            at += 1
        if at == len(shapes):
            return i
        at += 1
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_excerpt.py README.md LOG")
    lines = excerpt(sys.argv[1])
    log = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
    for kind, pattern in REQUIRED.items():
        if not any(re.match(r"(\[ *[0-9.]+\] )?" + pattern, l) for l in lines):
            sys.exit(f"check_excerpt: the excerpt has no {kind}")
    miss = first_missing(lines, log)
    if miss is not None:
        print(f"check_excerpt: not in {sys.argv[2]} (in order, numbers aside): {lines[miss]}")
        sys.exit(1)
    # Planted: the same log without the line the excerpt's last line matched must fail, or this
    # check cannot fail at all.
    last = shape(lines[-1])
    cut = [l for l in log if shape(l) != last]
    if first_missing(lines, cut) is None:
        sys.exit("check_excerpt: planted self-check passed on a log missing a line: broken")
    print(f"check_excerpt: {len(lines)} lines of the excerpt found in order in {sys.argv[2]}")


if __name__ == "__main__":
    main()
