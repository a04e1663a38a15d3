#!/bin/sh
# Makes the built-in initramfs: a cpio "newc" archive, gzip-compressed, of a small tree with
# the user programs in /bin. Usage:
#   mkinitramfs.sh [--busybox FILE] [--test FILE]... OUT.cpio.gz PROGRAM...
# The tree (what the kernel unpacks into "/", doc/initramfs.md):
#   /bin/<program>     each PROGRAM, mode 0755
#   /bin/busybox       FILE, Debian's busybox-static, when it is there and static (tools/deps.sh
#                      installs it), with /bin/<applet> -> busybox for every applet of
#                      `busybox --list` but the PROGRAMs; without it the archive has no shell
#                      and the shell tests say SKIP (tests/run.sh). The test programs are not
#                      here: they are the test archive's /test/bin/<name> (the Makefile's
#                      TEST_PROGS), which only the debug image's boots load
#   /etc/test/<name>   each --test FILE, mode 0644 (the shell test's script)
#   /etc/initramfs     a text file naming the archive (the self-test reads it)
#   /etc/hello-link -> ../bin/hello   a relative symbolic link, /usr/bin -> /bin an absolute one
#   /tmp               mode 1777, /root mode 0700
# Every entry is owned by root (cpio -R 0:0), in sorted order, so the archive depends on its
# inputs alone.
set -e
busybox="" tests=""
while [ $# -gt 0 ]; do
  case $1 in
    --busybox) busybox=$2; shift 2 ;;
    --test) tests="$tests $2"; shift 2 ;;
    *) break ;;
  esac
done
out=$1; shift
root=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/etc/test" "$root/usr" "$root/tmp" "$root/root"
chmod 755 "$root" "$root/bin" "$root/etc" "$root/etc/test" "$root/usr"
chmod 1777 "$root/tmp"
chmod 700 "$root/root"
for p in "$@"; do
  install -m 0755 "$p" "$root/bin/$(basename "$p")"
done
for t in $tests; do
  install -m 0644 "$t" "$root/etc/test/$(basename "$t")"
done
# The kernel runs static binaries only (a PT_INTERP is refused): Debian's dynamic busybox
# package installs the same path.
if [ -z "$busybox" ]; then
  echo "initramfs: no busybox given (BUSYBOX=): no /bin/sh; the shell tests will say SKIP"
elif [ ! -x "$busybox" ]; then
  echo "initramfs: no $busybox (Debian's busybox-static; tools/deps.sh installs it as root):" \
    "no /bin/sh; the shell tests will say SKIP"
elif LC_ALL=C readelf -l "$busybox" | grep -q 'program interpreter'; then
  echo "initramfs: $busybox is dynamically linked (install busybox-static):" \
    "no /bin/sh; the shell tests will say SKIP"
else
  install -m 0755 "$busybox" "$root/bin/busybox"
  n=0
  for a in $("$busybox" --list); do
    [ "$a" = busybox ] && continue
    [ -e "$root/bin/$a" ] && continue
    ln -s busybox "$root/bin/$a"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { echo "initramfs: $busybox --list named no applet" >&2; exit 1; }
fi
printf 'built-in initramfs\n' > "$root/etc/initramfs"
chmod 644 "$root/etc/initramfs"
ln -s ../bin/hello "$root/etc/hello-link"
ln -s /bin "$root/usr/bin"
cpio_out=$out.tmp.cpio
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$cpio_out"
gzip -n -9 -c "$cpio_out" > "$out.tmp"
mv "$cpio_out" "${out%.gz}"
mv "$out.tmp" "$out"
