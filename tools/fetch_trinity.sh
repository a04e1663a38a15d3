#!/bin/bash
# Fetches Debian's trinity (the kernel developers' system call fuzzer) with apt-get download and
# packs it, the host's loader and libc into an INITRD= archive for make fuzz-syscalls.
# Usage: fetch_trinity.sh
# The archive (build/trinity/<version>/trinity.cpio) holds
#   /usr/bin/trinity                      the Debian binary, unmodified (dynamically linked)
#   /lib64/ld-linux-x86-64.so.2, /lib/x86_64-linux-gnu/libc.so.6 and any other library it
#                                         needs: the host's, as ldd names them
#   /trinity.sh                           the launcher: exec the loader on trinity with "$@"
#                                         and one -c per system call of this kernel
#   /fuzz.sh                              tools/fuzz_init.sh: make fuzz-syscalls's init
#   /tmp                                  for trinity's working directory (its test files)
# trinity runs through its loader named by hand (as archives made before execve loaded
# PT_INTERP itself did; either way the same loader runs it). The -c list does not fit on the command line:
# init= takes at most 32 words after -- (INIT_ARGS_MAX, Linux's MAX_INIT_ARGS), so it lives in
# the launcher, which /bin/sh runs as init and which execs trinity in its place (same pid).
# Prints, on stdout, the console line
#   TRINITY package=trinity version=<v> calls=<n>
# and on a second line the archive's path; exit 0. When it cannot, one line
#   TRINITY missing=<why>   (why: no-apt, no-package, download-failed, no-binary, no-library)
# with the details on stderr, and exit 1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${TRINITY_CACHE:-$top/build/trinity}

missing() { # missing WHY DETAIL
  echo "TRINITY missing=$1"
  echo "fetch_trinity: $2" >&2
  exit 1
}

found() { # found DIR
  echo "TRINITY package=trinity version=$(cat "$1/version") calls=$(cat "$1/calls")"
  echo "$1/trinity.cpio"
  exit 0
}

command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null ||
  missing no-apt "apt-get and dpkg-deb are needed (a Debian host: apt-get install apt dpkg)"
version=$(apt-cache show --no-all-versions trinity 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
if [ -z "$version" ]; then
  # apt knows nothing (its lists gone): what was fetched before still runs.
  d=$(ls -dt "$cache"/*/ 2>/dev/null | head -n 1)
  [ -n "$d" ] && [ -s "${d%/}/trinity.cpio" ] && found "${d%/}"
  missing no-package "apt-cache knows no package trinity (run apt-get update)"
fi
dir=$cache/$version
# The archive depends on the kernel's table and the init script too: made again when
# doc/syscalls.md or tools/fuzz_init.sh is newer.
[ -s "$dir/trinity.cpio" ] && [ "$dir/trinity.cpio" -nt "$top/doc/syscalls.md" ] &&
  [ "$dir/trinity.cpio" -nt "$top/tools/fuzz_init.sh" ] && found "$dir"

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -s "$dir/trinity" ]; then
  cp "$dir/trinity" "$tmp/trinity"
else
  echo "fetch_trinity: apt-get download trinity=$version" >&2
  # As root apt warns that its _apt user cannot write here; the download itself works.
  if ! (cd "$tmp" && apt-get download -q "trinity=$version") > "$tmp/apt.log" 2>&1; then
    missing download-failed "apt-get download trinity=$version failed: $(grep -v '^W:' "$tmp/apt.log" | tail -n 1)"
  fi
  deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || missing download-failed "apt-get download trinity=$version left no .deb"
  mkdir -p "$tmp/root"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/root" ./usr/bin/trinity 2> "$tmp/tar.log"
  [ -s "$tmp/root/usr/bin/trinity" ] ||
    missing no-binary "trinity $version has no /usr/bin/trinity: $(tail -n 1 "$tmp/tar.log")"
  mv "$tmp/root/usr/bin/trinity" "$tmp/trinity"
fi

# The libraries, as the host's loader resolves them: "name => path (addr)" and the loader's
# own "path (addr)" line; linux-vdso has no file.
libs=$(ldd "$tmp/trinity" 2>&1) || missing no-library "ldd $tmp/trinity: $libs"
list=$tmp/list
{
  echo "dir /usr 0755 0 0"
  echo "dir /usr/bin 0755 0 0"
  echo "file /usr/bin/trinity $tmp/trinity 0755 0 0"
  echo "file /trinity.sh $tmp/trinity.sh 0755 0 0"
  echo "file /fuzz.sh $top/tools/fuzz_init.sh 0755 0 0"
  echo "dir /tmp 01777 0 0"
} > "$list"
dirs=""
for lib in $(printf '%s\n' "$libs" | sed -nE 's/^\s*(\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/\2/p'); do
  [ -f "$lib" ] || missing no-library "ldd names $lib, which is not a file"
  d=$(dirname "$lib")
  # Each directory once, parents first (newc.py makes no parents itself).
  p=""
  for part in $(echo "${d#/}" | tr / ' '); do
    p=$p/$part
    case " $dirs " in *" $p "*) ;; *) dirs="$dirs $p"; echo "dir $p 0755 0 0" >> "$list" ;; esac
  done
  echo "file $lib $(readlink -f "$lib") 0755 0 0" >> "$list"
done
loader=$(printf '%s\n' "$libs" | sed -nE 's/^\s*(\/\S*ld-linux\S*) \(0x[0-9a-f]+\)$/\1/p' | head -n 1)
[ -n "$loader" ] || missing no-library "ldd names no loader for trinity: $libs"

# The calls: this kernel's numbers (doc/syscalls.md, one row per entry of kernel/syscall.c's
# table: tests/host/test_syscall_doc.sh) by trinity's own names for them (trinity -L prints
# "entrypoint <nr> <name> : [64-bit] Enabled [AVOID]"; its names are not always Linux's:
# newfstat, fstatat64). Calls trinity marks AVOID it refuses to fuzz (exit, fork, clone,
# kill, pause, ...): left out. -L only lists its tables; it runs no system call at random.
# It writes trinity-child<n>.log files where it runs: in the scratch directory.
(cd "$tmp" && ./trinity -L -a 64) > "$tmp/names" 2>&1 ||
  missing no-binary "$tmp/trinity -L failed: $(tail -n 1 "$tmp/names")"
nrs=$(awk -F'|' '/^\| [0-9]+ \|/ { gsub(/ /, "", $2); print $2 }' "$top/doc/syscalls.md")
cargs=""
n=0
for nr in $nrs; do
  name=$(awk -v nr="$nr" '$1 == "entrypoint" && $2 == nr && /64-bit/ && !/AVOID/ { print $3 }' "$tmp/names")
  # A name trinity cannot take back with -c (rseq is listed as "rseq,"): left out.
  case $name in ''|*[!a-z0-9_]*) continue ;; esac
  cargs="$cargs -c $name"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || missing no-binary "trinity -L lists none of this kernel's calls"
{
  echo "#!/bin/sh"
  echo "# Made by tools/fetch_trinity.sh: trinity through the loader, on this kernel's $n calls."
  echo "exec $loader /usr/bin/trinity \"\$@\"$cargs"
} > "$tmp/trinity.sh"
"$top/tools/newc.py" "$tmp/trinity.cpio" "$list" || missing no-binary "newc.py could not pack $list"

mkdir -p "$dir.new"
mv "$tmp/trinity" "$tmp/trinity.cpio" "$tmp/trinity.sh" "$dir.new/"
printf '%s\n' "$version" > "$dir.new/version"
printf '%s\n' "$n" > "$dir.new/calls"
rm -rf "$dir"
mv "$dir.new" "$dir"
found "$dir"
