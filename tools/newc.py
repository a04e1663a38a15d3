#!/usr/bin/env python3
# Writes a cpio "newc" archive from a list of entries, as Linux's usr/gen_init_cpio does, so an
# archive can hold device nodes without root (the Linux initramfs of make compare-linux).
"""Usage: newc.py OUT.cpio LIST

LIST has one entry a line (gen_init_cpio's format; '#' starts a comment):
  dir  <name> <mode> <uid> <gid>
  file <name> <source> <mode> <uid> <gid>
  nod  <name> <mode> <uid> <gid> <c|b> <major> <minor>
  slink <name> <target> <mode> <uid> <gid>
Modes are octal. Entries are written in the list's order, with mtime 0, so the archive
depends on the list and the files alone. Exit 0, or 1 with a message naming the bad line."""

import os
import stat
import sys

MAGIC = b"070701"   # newc: cpio's "new ASCII" format, no checksum (Documentation/driver-api/early-userspace/buffer-format.rst)


def pad4(n):
    return b"\0" * (-n % 4)


def entry(ino, name, mode, uid, gid, data=b"", rmaj=0, rmin=0):
    """One header, its name and its data, each padded to 4 bytes."""
    name = name.lstrip("/").encode() + b"\0"
    fields = (ino, mode, uid, gid, 1, 0, len(data), 0, 0, rmaj, rmin, len(name), 0)
    head = MAGIC + b"".join(b"%08X" % f for f in fields)
    out = head + name + pad4(len(head) + len(name))
    return out + data + pad4(len(data))


class Listing:
    """A list under construction, for the tools that write one (tools/rootfs.py,
    tools/seeds_real.py): add() puts each name once, after its parent directories, which
    it adds (mode 0755, root's) when they are not there yet."""

    def __init__(self):
        self.lines, self.names = [], set()

    def add(self, kind, name, rest):
        if name in self.names:
            return
        parent = os.path.dirname(name)
        if parent != "/" and parent not in self.names:
            self.add("dir", parent, "0755 0 0")
        self.names.add(name)
        self.lines.append("%s %s %s" % (kind, name, rest))


def parse(line):
    """An entry's (name, mode, uid, gid, data, rdev major, rdev minor)."""
    w = line.split()
    kind = w[0]
    if kind == "dir" and len(w) == 5:
        return w[1], stat.S_IFDIR | int(w[2], 8), int(w[3]), int(w[4]), b"", 0, 0
    if kind == "file" and len(w) == 6:
        with open(w[2], "rb") as f:
            data = f.read()
        return w[1], stat.S_IFREG | int(w[3], 8), int(w[4]), int(w[5]), data, 0, 0
    if kind == "nod" and len(w) == 8 and w[5] in ("c", "b"):
        kind_bits = stat.S_IFCHR if w[5] == "c" else stat.S_IFBLK
        return (w[1], kind_bits | int(w[2], 8), int(w[3]), int(w[4]), b"", int(w[6]),
                int(w[7]))
    if kind == "slink" and len(w) == 6:
        return w[1], stat.S_IFLNK | int(w[3], 8), int(w[4]), int(w[5]), w[2].encode(), 0, 0
    raise ValueError("not a dir, file, nod or slink entry with its fields")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, listing = argv[1], argv[2]
    archive = []
    with open(listing, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                name, mode, uid, gid, data, rmaj, rmin = parse(line)
            except (ValueError, OSError) as e:
                print("newc: %s:%d: %s" % (listing, n, e), file=sys.stderr)
                return 1
            archive.append(entry(len(archive) + 1, name, mode, uid, gid, data, rmaj, rmin))
    archive.append(entry(0, "TRAILER!!!", 0, 0, 0))
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"".join(archive))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
