#!/usr/bin/env python3
# cover_report.py: what share of the kernel a boot ran, from tools/cover/tbcover.c's list of
# translated block starts: functions reached per directory, and the system calls never entered.
"""usage: cover_report.py ELF BLOCKS [--base BLOCKS] [--table kernel/syscall.c]

ELF is the image that ran (build/debug/kernel.elf); BLOCKS the plugin's output (one hex address
a line). A function counts as reached when a block starting inside it was translated, i.e.
ran. Functions are those the compiler emitted (nm's t/T symbols with a size): a static
function inlined into its callers is counted in them. --base subtracts what a plain boot
reached, leaving what the workload added. Prints, a line each:
  COVER dir=<dir> functions=<reached>/<total> blocks=<n>
  COVER syscalls=<entered>/<in the table> never=<name,...>
"""
import bisect
import os
import re
import subprocess
import sys


def functions(elf):
    """(start, end, name, directory) of every function with a size, sorted by start."""
    out = subprocess.run(["nm", "-l", "-S", "--defined-only", elf], check=True,
                         capture_output=True, text=True).stdout
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + "/"
    funcs = []
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) [tT] (\S+)(?:\s+(\S+):\d+)?$", line)
        if not m:
            continue
        start, size = int(m.group(1), 16), int(m.group(2), 16)
        path = (m.group(4) or "").replace(top, "")
        funcs.append((start, start + size, m.group(3), room(path)))
    funcs.sort()
    return funcs


def room(path):
    """The directory a function's file is counted under: two levels for arch/, kernel/ subdirs."""
    if not path or path.startswith("/"):
        return "other"
    parts = path.split("/")
    if parts[0] in ("arch", "tests", "drivers") or (parts[0] == "kernel" and len(parts) > 2):
        return "/".join(parts[:2])
    return parts[0]


def blocks(name):
    with open(name) as f:
        return {int(line, 16) for line in f if line.strip()}


def reached(funcs, addrs):
    """Index of each function holding at least one address."""
    starts = [f[0] for f in funcs]
    hit = set()
    for a in addrs:
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < funcs[i][1]:
            hit.add(i)
    return hit


def table_calls(path):
    """The functions kernel/syscall.c's table dispatches to: SYS(nr, fn, ...) and
    ALIAS(nr, name, fn, ...) both call sys_fn."""
    text = open(path).read()
    calls = set(re.findall(r"\bSYS\(\s*\d+\s*,\s*(\w+)", text))
    calls |= set(re.findall(r"\bALIAS\(\s*\d+\s*,\s*\w+\s*,\s*(\w+)", text))
    return {"sys_" + c for c in calls}


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    elf, blockfile = argv[1], argv[2]
    base, table = None, "kernel/syscall.c"
    rest = argv[3:]
    while rest:
        opt = rest.pop(0)
        if opt == "--base" and rest:
            base = rest.pop(0)
        elif opt == "--table" and rest:
            table = rest.pop(0)
        else:
            sys.exit(f"cover_report.py: unknown argument {opt}")
    funcs = functions(elf)
    addrs = blocks(blockfile)
    hit = reached(funcs, addrs)
    if base:
        hit -= reached(funcs, blocks(base))
    if not funcs or not addrs:
        sys.exit("cover_report.py: no functions in the image or no blocks in the list")
    rooms = sorted({f[3] for f in funcs})
    starts = [f[0] for f in funcs]
    for r in rooms:
        idx = [i for i, f in enumerate(funcs) if f[3] == r]
        nblocks = 0
        for a in addrs:
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < funcs[i][1] and funcs[i][3] == r:
                nblocks += 1
        got = sum(1 for i in idx if i in hit)
        print(f"COVER dir={r} functions={got}/{len(idx)} blocks={nblocks}")
    if os.path.exists(table):
        calls = table_calls(table)
        names = {f[2]: i for i, f in enumerate(funcs)}
        entered = {c for c in calls if c in names and names[c] in hit}
        never = sorted(c for c in calls if c not in entered)
        print(f"COVER syscalls={len(entered)}/{len(calls)} never={','.join(never) or '-'}")


if __name__ == "__main__":
    main(sys.argv)
