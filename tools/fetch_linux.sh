#!/bin/bash
# Fetches Debian's Linux kernel for make compare-linux with apt-get download and keeps its
# bzImage (and its config) under build/linux/<package>_<version>/, so the same version is never
# fetched twice.
# Usage: fetch_linux.sh [PACKAGE]
#   PACKAGE (make's LINUX_PKG=): a linux-image-* package; default, the one linux-image-amd64
#   depends on (Debian 12: linux-image-6.1.0-<abi>-amd64).
# Prints, on stdout, the console line
#   COMPARE-LINUX package=<p> version=<v> sha256=<sha256 of the vmlinuz file booted>
# and on a second line the vmlinuz's path; exit 0. When it cannot, one line
#   COMPARE-LINUX missing=<why>   (why: no-apt, no-package, download-failed, no-vmlinuz)
# with the details on stderr, and exit 1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${LINUX_CACHE:-$top/build/linux}
pkg=${1:-}

missing() { # missing WHY DETAIL
  echo "COMPARE-LINUX missing=$1"
  echo "fetch_linux: $2" >&2
  exit 1
}

# found DIR: prints what DIR caches and exits 0.
found() {
  echo "COMPARE-LINUX package=$(cat "$1/package") version=$(cat "$1/version") sha256=$(cat "$1/sha256")"
  echo "$1/vmlinuz"
  exit 0
}

# cached PATTERN: the newest cached directory matching PATTERN, for when apt knows nothing
# (its lists gone): what was fetched before still boots.
cached() {
  ls -dt "$cache"/$1 2>/dev/null | while read -r d; do
    [ -s "$d/vmlinuz" ] && [ -s "$d/sha256" ] && { echo "$d"; break; }
  done
}

command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null ||
  missing no-apt "apt-get and dpkg-deb are needed (a Debian host: apt-get install apt dpkg)"
if [ -z "$pkg" ]; then
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
  if [ -z "$pkg" ]; then
    d=$(cached "linux-image-*_*")
    [ -n "$d" ] && found "$d"
    missing no-package "apt-cache knows no linux-image-amd64 (run apt-get update first)"
  fi
fi
case $pkg in
  *[!A-Za-z0-9.+-]*|'') missing no-package "LINUX_PKG='$pkg' is not a package name" ;;
esac
version=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
if [ -z "$version" ]; then
  d=$(cached "${pkg}_*")
  [ -n "$d" ] && found "$d"
  missing no-package "apt-cache knows no package $pkg (run apt-get update; apt-cache search linux-image lists the names LINUX_PKG= takes)"
fi
dir=$cache/${pkg}_$version
[ -s "$dir/vmlinuz" ] && [ -s "$dir/sha256" ] && found "$dir"

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "fetch_linux: apt-get download $pkg=$version" >&2
# As root apt warns that its _apt user cannot write here; the download itself works.
if ! (cd "$tmp" && apt-get download -q "$pkg=$version") > "$tmp/apt.log" 2>&1; then
  missing download-failed "apt-get download $pkg=$version failed: $(grep -v '^W:' "$tmp/apt.log" | tail -n 1)"
fi
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || missing download-failed "apt-get download $pkg=$version left no .deb"
# dpkg -x unpacks every file (some 400 MB of modules); only the bzImage is needed, which the
# same data archive gives through dpkg-deb --fsys-tarfile, and the kernel's .config (200 KB),
# kept as config beside it: doc/compare-linux.md reads what Debian built in from it
# (CONFIG_INIT_STACK_ALL_ZERO, SLAB_FREELIST_HARDENED, the preemption model).
mkdir -p "$tmp/root"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/root" --wildcards './boot/vmlinuz-*' './boot/config-*' 2> "$tmp/tar.log"
vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$vmlinuz" ] || missing no-vmlinuz "$pkg $version has no /boot/vmlinuz-*: $(tail -n 1 "$tmp/tar.log")"
mkdir -p "$dir.new"
mv "$vmlinuz" "$dir.new/vmlinuz"
config=$(ls "$tmp"/root/boot/config-* 2>/dev/null | head -n 1)
[ -n "$config" ] && mv "$config" "$dir.new/config"
printf '%s\n' "$pkg" > "$dir.new/package"
dpkg-deb -f "$deb" Version > "$dir.new/version"
sha256sum "$dir.new/vmlinuz" | cut -d' ' -f1 > "$dir.new/sha256"
rm -rf "$dir" && mv "$dir.new" "$dir"
found "$dir"
