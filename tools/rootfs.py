#!/usr/bin/env python3
# make rootfs PKGS="python3 dbench": an initramfs archive (tools/newc.py) of Debian packages as
# this host has them installed, with every package they depend on (Depends and Pre-Depends,
# the first installed alternative), so their programs run unmodified under this kernel
# (INITRD=, or PKGS= to make qemu-smpN). Documentation, manual pages and translations are left
# out; /etc/passwd and /etc/group get root. Missing packages are installed with apt-get when
# run as root, else named with the line that would install them.
# Usage: rootfs.py OUT.cpio.gz PKG...
import os
import stat
import subprocess
import sys

import newc

SKIP = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/locale/",
        "/usr/share/lintian/", "/usr/share/bug/")
HERE = os.path.dirname(os.path.abspath(__file__))


def query(pkg, field):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${" + field + "}", pkg],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def installed(pkg):
    status = query(pkg, "Status")
    return status is not None and status.endswith("installed") and "not-installed" not in status


def depends(pkg):
    """The packages pkg needs: each Depends or Pre-Depends entry's first installed choice."""
    out = []
    for field in ("Depends", "Pre-Depends"):
        for entry in (query(pkg, field) or "").split(","):
            for choice in entry.split("|"):
                name = choice.strip().split(" ")[0].split(":")[0]
                if name and installed(name):
                    out.append(name)
                    break
    return out


def closure(pkgs):
    """pkgs and every package they depend on, at any depth (a depth-first walk)."""
    seen, pending = [], list(pkgs)
    while pending:
        p = pending.pop()
        if p not in seen:
            seen.append(p)
            pending.extend(depends(p))
    return seen


def entries(pkgs):
    """newc.py list lines: directories first of all, each name once."""
    out = newc.Listing()
    add = out.add

    for p in pkgs:
        listing = subprocess.run(["dpkg", "-L", p], capture_output=True, text=True).stdout.splitlines()
        # Python's compiled modules are made at install time, not listed: a directory's
        # __pycache__ comes along, or python3 would write them into the archive's tree at
        # every start (and the leak check would count them).
        for d in [l for l in listing if os.path.isdir(os.path.join(l, "__pycache__"))]:
            cache = os.path.join(d, "__pycache__")
            listing += [os.path.join(cache, n) for n in sorted(os.listdir(cache))]
        for path in listing:
            if not path.startswith("/") or path == "/." or path.startswith(SKIP) or " " in path:
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue   # a conffile removed, a diversion
            mode = stat.S_IMODE(st.st_mode)
            # A link to a directory (/bin, /lib and /lib64 on a merged-/usr host) is made a
            # directory: the names dpkg lists under it go there, beside the built-in
            # initramfs's own /bin.
            if stat.S_ISLNK(st.st_mode) and os.path.isdir(path):
                add("dir", path, "755 0 0")
            elif stat.S_ISLNK(st.st_mode):
                add("slink", path, f"{os.readlink(path)} 0777 0 0")
            elif stat.S_ISDIR(st.st_mode):
                add("dir", path, f"{mode:o} 0 0")
            elif stat.S_ISREG(st.st_mode):
                add("file", path, f"{path} {mode:o} 0 0")
    return out.lines, out.names


def main(argv):
    if len(argv) < 2:
        print("usage: rootfs.py OUT.cpio.gz PKG...", file=sys.stderr)
        return 2
    out, pkgs = argv[0], argv[1:]
    missing = [p for p in pkgs if not installed(p)]
    if missing:
        if os.geteuid() != 0:
            print("rootfs: not installed: apt-get install " + " ".join(missing))
            return 1
        if subprocess.run(["apt-get", "install", "-y"] + missing).returncode != 0:
            print("rootfs: apt-get install " + " ".join(missing) + " failed")
            return 1
    pkgs = closure(pkgs)
    lines, names = entries(pkgs)
    tmp = out + ".d"
    os.makedirs(tmp, exist_ok=True)
    with open(f"{tmp}/passwd", "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\n")
    with open(f"{tmp}/group", "w") as f:
        f.write("root:x:0:\n")
    for name, src in (("/etc", None), ("/etc/passwd", f"{tmp}/passwd"),
                      ("/etc/group", f"{tmp}/group"), ("/etc/ld.so.cache", "/etc/ld.so.cache"),
                      ("/tmp", None)):
        if name not in names:
            lines.append(f"dir {name} {'1777' if name == '/tmp' else '0755'} 0 0" if src is None
                         else f"file {name} {src} 0644 0 0")
            names.add(name)
    with open(f"{tmp}/list", "w") as f:
        f.write("\n".join(lines) + "\n")
    cpio = out[:-3] if out.endswith(".gz") else out
    if subprocess.run([f"{HERE}/newc.py", cpio, f"{tmp}/list"]).returncode != 0:
        return 1
    if out.endswith(".gz"):
        with open(out, "wb") as f:
            if subprocess.run(["gzip", "-n", "-1", "-c", cpio], stdout=f).returncode != 0:
                return 1
    size = sum(os.path.getsize(l.split()[2]) for l in lines if l.startswith("file "))
    print(f"rootfs: {out}: {len(pkgs)} packages ({' '.join(sorted(pkgs))}), "
          f"{sum(l.startswith('file ') for l in lines)} files, {size >> 20} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
