#!/bin/sh
# Makes the built-in initramfs: a cpio "newc" archive, gzip-compressed, of a small tree with
# the user programs in /bin. Usage: mkinitramfs.sh OUT.cpio.gz PROGRAM...
# The tree (what the kernel unpacks into "/", README "The initramfs"):
#   /bin/<program>     each PROGRAM, mode 0755
#   /etc/initramfs     a text file naming the archive (the self-test reads it)
#   /etc/hello-link -> ../bin/hello   a relative symbolic link, /usr/bin -> /bin an absolute one
#   /tmp               mode 1777, /root mode 0700
# Every entry is owned by root (cpio -R 0:0), in sorted order, so the archive depends on the
# programs alone.
set -e
out=$1; shift
root=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/etc" "$root/usr" "$root/tmp" "$root/root"
chmod 755 "$root" "$root/bin" "$root/etc" "$root/usr"
chmod 1777 "$root/tmp"
chmod 700 "$root/root"
for p in "$@"; do
  install -m 0755 "$p" "$root/bin/$(basename "$p")"
done
printf 'built-in initramfs\n' > "$root/etc/initramfs"
chmod 644 "$root/etc/initramfs"
ln -s ../bin/hello "$root/etc/hello-link"
ln -s /bin "$root/usr/bin"
cpio_out=$out.tmp.cpio
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$cpio_out"
gzip -n -9 -c "$cpio_out" > "$out.tmp"
mv "$cpio_out" "${out%.gz}"
mv "$out.tmp" "$out"
