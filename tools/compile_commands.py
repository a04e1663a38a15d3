#!/usr/bin/env python3
# Writes compile_commands.json (clang's "JSON Compilation Database Format Specification") from
# a dry run of make. Usage: compile_commands.py DRY-RUN OUT  (DRY-RUN: make -n -B's output)
"""Every compiler command of the dry run that names a source file gives that file an entry.
A kernel source keeps its exact command; a host test links several sources in one command,
so each of its sources gets that command with -c SOURCE in place of the sources, -o and the
libraries. A source built both ways (kernel/lib/cmdline.c in the kernel and in test_cmdline)
keeps its first, kernel, entry: clangd uses one command per file."""

import json
import os
import re
import shlex
import sys

SOURCE = re.compile(r"\.(c|S)$")
COMPILER = re.compile(r"^(.*-)?(gcc|cc|clang)(-[0-9.]+)?$")


def commands(text):
    """The dry run's recipe lines, continuation lines joined, split at ; && and ||."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            continue   # an echo with unbalanced quotes, never a compiler command
        cmd = []
        for w in words + [";"]:
            if w in (";", "&&", "||"):
                if cmd:
                    yield cmd
                cmd = []
            else:
                cmd.append(w)


def entries(cmd, root):
    """(file, arguments) for each source the command compiles, sources in the repository only
    (the kernel's generated build/ksyms*.S are left out)."""
    if not COMPILER.match(os.path.basename(cmd[0])):
        return []
    sources = [w for w in cmd[1:] if SOURCE.search(w) and not w.startswith("-")]
    sources = [s for s in sources if os.path.isfile(os.path.join(root, s))
               and not s.startswith("build/")]
    if "-c" in cmd:
        return [(s, cmd) for s in sources if len(sources) == 1]
    flags, skip = [], False
    for w in cmd[1:]:
        if skip:
            skip = False
        elif w == "-o":
            skip = True
        elif w in sources or w.startswith("-l") or w.startswith("-L"):
            continue
        else:
            flags.append(w)
    return [(s, [cmd[0]] + flags + ["-c", s]) for s in sources]


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: compile_commands.py DRY-RUN OUT")
    dry_run, out = argv
    root = os.getcwd()
    with open(dry_run) as f:
        text = f.read()
    db, seen = [], set()
    for cmd in commands(text):
        for source, args in entries(cmd, root):
            if source in seen:
                continue
            seen.add(source)
            db.append({"directory": root, "file": source, "arguments": args})
    if not db:
        sys.exit("compile_commands.py: the dry run printed no compiler command")
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(db, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1:])
