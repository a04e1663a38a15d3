#!/bin/bash
# make realprogs SMP=n: Debian's own programs, unmodified and dynamically linked, under this
# kernel, each case's output against the same case run on the host (the oracle), in one boot
# of the debug image whose init is tests/realprogs/cases.sh under busybox's sh.
# Usage: realprogs.sh [--smp N] [--log FILE] [--timeout S] [--cases "a b ..."] [--cmdline "k=v ..."]
#        (--cmdline: more words for the kernel's command line, e.g. pagecache=hash-global)
#        realprogs.sh --compare HOST_OUT LOG   (only the comparison, of runs already made: the
#        checker's own test, tests/host/test_realprogs.sh, feeds it runs with planted faults)
# The host runs the cases first, in a ramfs of its own (mounted here: root is needed), as the
# kernel's files are, under strace. The archive (build/realprogs/realprogs.cpio.gz, an INITRD=)
# then holds the programs the cases run, from the host's /usr/bin, every file the host's run
# used (tools/tracefiles.py), the loader and libraries (tools/solibs.sh), /etc/passwd and
# /etc/group with root, and the cases as /realprogs.sh. Prints a PASS or FAIL
# line per case (a failure with the diff, host's lines "-", this kernel's "+"), then
#   N passed, N failed
# (the contract's last line); exit 0 only when every case passed and the boot ended with
# END and LEAK-CHECK passing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
smp=8 log="" timeout=900 cases="" compare="" extra=""
while [ $# -gt 0 ]; do
  case $1 in
    --compare) compare=$2 log=$3; shift 2 ;;
    --smp) smp=$2; shift ;;
    --log) log=$2; shift ;;
    --timeout) timeout=$2; shift ;;
    --cases) cases=$2; shift ;;
    --cmdline) extra=$2; shift ;;
    *) echo "realprogs.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=$top/build/realprogs
[ -n "$compare" ] && out=$(mktemp -d)
mkdir -p "$out" "$top/build/logs"
log=${log:-$top/build/logs/realprogs-smp$smp.log}

# The runs: the archive, the host's run and this kernel's, unless given (--compare).
run() {
  # Every program a case runs from /usr/bin (tests/realprogs/cases.sh); tools/deps.sh installs
  # the packages they come from.
  progs="ls sort cp du stat md5sum sha256sum wc seq touch head tail sed cut cmp find grep xz zstd
    sqlite3 fs_mark python3 dbench bash diff ps pgrep lscpu readlink sleep"
  for p in $progs; do
    if [ ! -x "/usr/bin/$p" ]; then
      echo "realprogs: /usr/bin/$p is missing on this host (tools/deps.sh installs it)"
      exit 1
    fi
  done

  # A program of musl's, static (tests/realprogs/musl.c): the host's run finds it through
  # MUSL_PROG, this kernel's at /usr/local/bin/musl-stat.
  if ! musl-gcc -static -O2 -o "$out/musl-stat" "$top/tests/realprogs/musl.c"; then
    echo "realprogs: musl-gcc could not build tests/realprogs/musl.c (tools/deps.sh installs musl-tools)"
    exit 1
  fi

  # A Go program (tests/realprogs/goprog.go), built static with Debian's golang, found the same
  # way through GO_PROG and at /usr/local/bin/goprog.
  if ! (cd "$top/tests/realprogs" && HOME="$out" GOCACHE="$out/gocache" CGO_ENABLED=0 \
        go build -o "$out/goprog" goprog.go); then
    echo "realprogs: go could not build tests/realprogs/goprog.go (tools/deps.sh installs golang-go)"
    exit 1
  fi

  # The host's run, in a ramfs (directory sizes, link counts and errnos as this kernel's files
  # have them), with the same busybox sh as the initramfs's /bin/sh, under strace: what it
  # used of the host's files is what the archive needs.
  ram=$out/host-ram
  mkdir -p "$ram"
  if ! mount -t ramfs none "$ram" 2> /dev/null; then
    echo "realprogs: cannot mount a ramfs for the host's run (root is needed)"
    exit 1
  fi
  rm -rf "$out/trace" && mkdir -p "$out/trace"
  # shellcheck disable=SC2086
  (cd / && strace -f -ff -qq -e trace=%file -e signal=none -o "$out/trace/t" \
     env -i MUSL_PROG="$out/musl-stat" GO_PROG="$out/goprog" /bin/busybox sh "$top/tests/realprogs/cases.sh" "$ram/rp" \
     $cases) > "$out/host.out" 2>&1
  umount "$ram"

  # The archive: the programs, every file the host's run used (tools/tracefiles.py: Python's
  # modules, dbench's loadfile, the loader's cache), the libraries ldd names, /etc/passwd and
  # /etc/group with root, and the cases; each name once.
  list=$out/list
  printf 'root:x:0:0:root:/root:/bin/sh\n' > "$out/passwd"
  printf 'root:x:0:\n' > "$out/group"
  paths=""
  for p in $progs; do paths="$paths /usr/bin/$p"; done
  # shellcheck disable=SC2086
  {
    echo "dir /usr 0755 0 0"
    echo "dir /usr/bin 0755 0 0"
    for p in $progs; do echo "file /usr/bin/$p $(readlink -f "/usr/bin/$p") 0755 0 0"; done
    echo "dir /etc 0755 0 0"
    echo "file /etc/passwd $out/passwd 0644 0 0"
    echo "file /etc/group $out/group 0644 0 0"
    echo "file /realprogs.sh $top/tests/realprogs/cases.sh 0755 0 0"
    echo "dir /usr/local 0755 0 0"
    echo "dir /usr/local/bin 0755 0 0"
    echo "file /usr/local/bin/musl-stat $out/musl-stat 0755 0 0"
    echo "file /usr/local/bin/goprog $out/goprog 0755 0 0"
    echo "dir /tmp 01777 0 0"
    "$top/tools/solibs.sh" --skip-dirs "/usr /usr/bin /etc /tmp" $paths ||
      { echo "realprogs: tools/solibs.sh could not list the libraries" >&2; exit 1; }
    "$top/tools/tracefiles.py" --skip-dirs "/usr /usr/bin /etc /tmp" "$out"/trace/t.* ||
      { echo "realprogs: tools/tracefiles.py could not read the trace" >&2; exit 1; }
  } > "$list.all" || exit 1
  awk '!seen[$1 " " $2]++' "$list.all" > "$list"
  "$top/tools/newc.py" "$out/realprogs.cpio" "$list" || exit 1
  gzip -n -1 -c "$out/realprogs.cpio" > "$out/realprogs.cpio.gz" || exit 1

  # This kernel's run.
  cmdline="bench=none${extra:+ $extra} init=/bin/sh -- /realprogs.sh /tmp/rp${cases:+ $cases}"
  "$top/tools/qemu.sh" --smp "$smp" --image debug --initrd "$out/realprogs.cpio.gz" \
    --cmdline "$cmdline" --timeout "$timeout" --log "$log" > /dev/null 2>&1
  rc=$?
}
rc=given
if [ -n "$compare" ]; then
  cp "$compare" "$out/host.out"
else
  run || exit 1
fi

# case NAME FILE: that case's lines of a run: its output lines ("| ...") between its BEGIN and
# END lines, and the END line with its status; the console's timestamps, CRs and the kernel's
# own lines in between left out.
case_lines() {
  tr -d '\r' < "$2" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
    awk -v n="$1" '$0 == "REALPROG-BEGIN " n { on = 1; next }
                   on && /^\| / { print }
                   on && $1 == "REALPROG-END" && $2 == n { print; exit }'
}
passed=0 failed=0
names=$(grep -aoE '^REALPROG-BEGIN [a-z_0-9]+' "$out/host.out" | cut -d' ' -f2)
for n in $names; do
  case_lines "$n" "$out/host.out" > "$out/$n.host"
  case_lines "$n" "$log" > "$out/$n.kernel"
  if cmp -s "$out/$n.host" "$out/$n.kernel" && [ -s "$out/$n.host" ]; then
    passed=$((passed + 1))
    echo "PASS  realprog $n"
  else
    failed=$((failed + 1))
    echo "FAIL  realprog $n"
    diff "$out/$n.host" "$out/$n.kernel" | grep -E '^[<>]' | sed 's/^</  -/; s/^>/  +/' | head -n 40
  fi
done
fail() { echo "FAIL  realprogs: $1"; failed=$((failed + 1)); }
[ -n "$names" ] || fail "the host's run printed no case"
grep -aq 'END result=pass' "$log" || fail "no END result=pass (qemu.sh exit $rc; log $log)"
grep -aq 'LEAK-CHECK result=pass' "$log" || fail "no LEAK-CHECK result=pass (log $log)"
# No program may meet ENOSYS for a call Linux has (a number Linux lacks is "(unknown)", ENOSYS
# there too): the kernel names each call once, with the program that made it first.
enosys_calls=$(tr -d '\r' < "$log" | sed -nE 's/.*syscall: ([^[]*)\[[0-9]+\] called system call [0-9]+ \(([a-z_0-9]+)\), not implemented.*/\2 (\1)/p' |
  grep -v '^unknown ' | sort -u | paste -sd, -)
[ -z "$enosys_calls" ] || fail "ENOSYS for $enosys_calls, which Linux has"
echo "$passed passed, $failed failed"
[ -n "$compare" ] && rm -rf "$out"
[ "$failed" = 0 ]
