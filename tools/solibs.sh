#!/bin/bash
# Prints the newc.py list lines (tools/newc.py) for the shared libraries and the loader that
# dynamically linked programs load, as the host's loader resolves them (ldd), with their parent
# directories: what an archive needs to run those programs under this kernel.
# Usage: solibs.sh [--skip-dirs "D1 D2 ..."] PROGRAM...
#   --skip-dirs  directories the list must not name (they are in the archive already)
# Each library goes under the name ldd prints (/lib64/ld-linux-x86-64.so.2, a symbolic link on
# the host, as a file), with the bytes of what the name resolves to. Exit 1 with a message
# when ldd fails or names something that is not a file; a static program adds nothing.
set -u
skip=""
if [ "${1:-}" = --skip-dirs ]; then
  skip=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: solibs.sh [--skip-dirs DIRS] PROGRAM..." >&2; exit 2; }
dirs=" $skip "
seen=" "
for prog in "$@"; do
  out=$(ldd "$prog" 2>&1)
  case $out in
    *"not a dynamic executable"*|*"statically linked"*) continue ;;
  esac
  [ -n "$out" ] || { echo "solibs.sh: ldd $prog printed nothing" >&2; exit 1; }
  # "name => path (addr)", the loader's own "path (addr)"; linux-vdso has no file, and "name =>
  # not found" is a library the host lacks.
  if grep -q "not found" <<< "$out"; then
    echo "solibs.sh: $prog: $(grep "not found" <<< "$out" | head -n 1)" >&2
    exit 1
  fi
  for lib in $(sed -nE 's/^\s*(\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/\2/p' <<< "$out"); do
    [ -f "$lib" ] || { echo "solibs.sh: ldd names $lib, which is not a file" >&2; exit 1; }
    case $seen in *" $lib "*) continue ;; esac
    seen="$seen$lib "
    # Each directory once, parents first (newc.py makes no parents itself).
    p=""
    for part in $(dirname "$lib" | tr / ' '); do
      p=$p/$part
      case $dirs in *" $p "*) ;; *) dirs="$dirs$p "; echo "dir $p 0755 0 0" ;; esac
    done
    echo "file $lib $(readlink -f "$lib") 0755 0 0"
  done
done
