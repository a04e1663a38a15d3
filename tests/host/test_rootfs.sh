#!/bin/bash
# Host test of make rootfs (tools/rootfs.py): an archive of a package as this host has it, with
# what it depends on (zstd: liblzma5, libc6 and the loader), no documentation, root's
# /etc/passwd; and a package that is not there named, not packed.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_rootfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

out=$("$root/tools/rootfs.py" "$tmp/r.cpio.gz" zstd 2>&1)
check "rootfs.py packs zstd ($out)" test -s "$tmp/r.cpio.gz"
list=$tmp/r.cpio.gz.d/list
has() { grep -qE "$1" "$list"; }
check "zstd itself" has '^file /usr/bin/zstd /usr/bin/zstd 755 0 0$'
check "liblzma5, a dependency" has '^(file|slink) /(usr/)?lib/x86_64-linux-gnu/liblzma\.so\.5 '
check "libc6 and the loader" has '^(file|slink) /lib64/ld-linux-x86-64\.so\.2 '
check "root in /etc/passwd" grep -qx 'root:x:0:0:root:/root:/bin/sh' "$tmp/r.cpio.gz.d/passwd"
check "no documentation" bash -c "! grep -q ' /usr/share/doc/' '$list'"
check "parents before children" bash -c "awk '{print \$1, \$2}' '$list' | awk '
  \$1 == \"dir\" { seen[\$2] = 1 } { p = \$2; sub(\"/[^/]*$\", \"\", p); if(p != \"\" && !seen[p]) bad = 1 }
  END { exit bad }'"
gzip -t "$tmp/r.cpio.gz"
check "a valid gzip" test $? = 0
# A package that is not installed: as root apt-get cannot find it, as anyone the line to run.
"$root/tools/rootfs.py" "$tmp/n.cpio.gz" no-such-package-zz > "$tmp/n.out" 2>&1
check "a missing package fails" test $? != 0
check "and is named" grep -q 'no-such-package-zz' "$tmp/n.out"
check_summary
