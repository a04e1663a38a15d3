#!/usr/bin/env python3
# Prints tools/newc.py list lines for the files a program run used, from its strace -ff trace
# (-e trace=%file): every absolute path under /usr, /etc, /bin, /sbin, /lib or /lib64 that a
# call opened, ran or looked at successfully and that is a regular file on this host, with its
# parent directories, each once. make realprogs builds the archive of Debian's programs so:
# Python's modules, a loadfile, the loader's cache come along without a list of their own.
# Usage: tracefiles.py [--skip-dirs "D1 D2"] TRACE...   (TRACE: the files strace -ff -o wrote)
import os
import re
import stat
import sys

ROOTS = ("/usr/", "/etc/", "/bin/", "/sbin/", "/lib/", "/lib64/")
# A call's first path argument, absolute, given as the path itself or from AT_FDCWD, and a
# result that is not an error: "openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3".
CALL = re.compile(r'^[a-z0-9_]+\((?:AT_FDCWD, )?"(/[^"]*)".* = (\d+|0x[0-9a-f]+)(?: .*)?$')


def paths(trace):
    with open(trace, errors="replace") as f:
        for line in f:
            m = CALL.match(line.rstrip("\n"))
            if m and m.group(1).startswith(ROOTS):
                yield os.path.normpath(m.group(1))


def main(argv):
    skip = set()
    if argv[:1] == ["--skip-dirs"]:
        skip = set(argv[1].split())
        argv = argv[2:]
    if not argv:
        print("usage: tracefiles.py [--skip-dirs DIRS] TRACE...", file=sys.stderr)
        return 2
    files = set()
    for trace in argv:
        files.update(p for p in paths(trace) if os.path.isfile(p))
    dirs = set(skip)
    for p in sorted(files):
        parts = p.split("/")[1:-1]
        for i in range(len(parts)):
            d = "/" + "/".join(parts[:i + 1])
            if d not in dirs:
                dirs.add(d)
                print(f"dir {d} 0755 0 0")
        real = os.path.realpath(p)
        mode = stat.S_IMODE(os.stat(real).st_mode) & 0o755
        print(f"file {p} {real} {mode:o} 0 0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
