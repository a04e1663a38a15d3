#!/bin/bash
# `make test` and `make check`: the tests in named groups (host, fuzz, selftest, tty, compare,
# boots, inject, planted, bench, gdb), each timed; ends "N passed, N failed", exit 0 if none failed.
#
# Usage: tests/run.sh [--check] [--groups a,b,...]
#   no option      every group of make test, in the order above;
#   --groups a,b   only those (make test GROUPS=a,b), still in that order;
#   --check        make check, the developer's loop: the groups host, fuzz, selftest, bench and
#                  planted in their short form (host unit tests and the layout test, the fuzzers
#                  replaying their corpus, one selftest=all boot at 8 vCPUs, one bench=quick
#                  boot, one planted bug); --groups picks among these.
# Each group prints "== <group>", a PASS or FAIL line per check (a failure followed by the lines
# that explain it: CI keeps only stdout), and "-- <group> done in N s". Logs: build/test-logs/.
set -u
cd "$(dirname "$0")/.."
. tests/planted.sh
logs=build/test-logs
mkdir -p "$logs"
# python3 through a version manager's shim (pyenv's is a bash script that picks the version:
# 0.4 s a start here) costs more than many of the scripts it runs (test_check_bench.sh alone
# starts check_bench.py over 100 times): the interpreter the shim picks, found once, goes first on
# PATH, so every python3 of the run is that same interpreter, started directly.
py=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null)
if [ -n "$py" ] && [ "$(readlink -f "$(command -v python3)")" != "$(readlink -f "$py")" ]; then
  PATH=$(dirname "$py"):$PATH
fi

TEST_GROUPS="host fuzz selftest tty compare boots inject planted bench gdb"
CHECK_GROUPS="host fuzz selftest bench planted"
usage() { echo "usage: tests/run.sh [--check] [--groups a,b,...]" >&2; exit 2; }
check=no want=""
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=yes ;;
    --groups) [ $# -ge 2 ] || usage; want=$2; shift ;;
    *) usage ;;
  esac
  shift
done
valid=$TEST_GROUPS
[ $check = yes ] && valid=$CHECK_GROUPS
groups=$valid
if [ -n "$want" ]; then
  for g in ${want//,/ }; do
    if ! grep -qwF -- "$g" <<< "$valid"; then
      echo "tests/run.sh: no group '$g'$([ $check = yes ] && echo ' in make check');" \
        "the groups are: ${valid// /, }" >&2
      exit 2
    fi
  done
  groups=""
  for g in $valid; do
    grep -qwF -- "$g" <<< "${want//,/ }" && groups="$groups $g"
  done
fi

passed=0
failed=0
start=$(date +%s)
: > "$logs/times"   # "SECONDS STEP" a line: every boot and tool run, for the summary at the end

result() { # result NAME OK [DETAIL [LOG]]: a failure shows the end of LOG (CI keeps only stdout)
  if [ "$2" = 0 ]; then
    passed=$((passed + 1))
    printf 'PASS  %s\n' "$1"
  else
    failed=$((failed + 1))
    printf 'FAIL  %s %s\n' "$1" "${3:-}"
    if [ -n "${4:-}" ] && [ -f "$4" ]; then
      show_failure "$4"
    fi
  fi
}

# The lines that say why a run failed: from the first panic, watchdog or NMI report, failed
# check or test on (or the last 40 lines when there is none), at most 120 lines, indented
# under the FAIL line.
show_failure() {
  local from
  from=$(grep -nE 'kernel panic on cpu|watchdog:|nmi: CPU|hung task|soft lockup|FAILED|^FAIL |LOCKDEP|SELFTEST name=[a-z0-9-]+ result=fail|LEAK-CHECK result=fail|END result=fail|leakcheck:|TIMEOUT' "$1" \
         | head -n 1 | cut -d: -f1)
  if [ -n "$from" ]; then
    tail -n +"$from" "$1" | head -n 120
  else
    tail -n 40 "$1"
  fi | sed 's/^/      | /'
}

# timed STEP COMMAND...: runs COMMAND, noting its seconds in $logs/times; returns its status.
timed() {
  local t0=$(date +%s) rc
  "${@:2}"
  rc=$?
  echo "$(( $(date +%s) - t0 )) $1" >> "$logs/times"
  return $rc
}

# boot NAME SMP CMDLINE [OPTION...]: one QEMU run, serial log in $logs/NAME.log, more
# tools/qemu.sh options after the command line; returns qemu.sh's status. Without --image,
# qemu.sh picks the debug image for a command line that runs self-tests, else release.
boot() {
  timed "boot $1" tools/qemu.sh --smp "$2" --cmdline "$3" --timeout 300 --log "$logs/$1.log" \
    "${@:4}" > "$logs/$1.out" 2>&1 < /dev/null
}

has() { grep -qE "$2" "$logs/$1.log"; }

# booted NAME IMAGE: the run's "kernel: booted by" line (kernel/main.c) names IMAGE;
# bootline NAME prints that line.
booted() { has "$1" "^(\[ *[0-9.]+\] )?kernel: booted by .*, image $2\$"; }
bootline() { grep -m 1 'kernel: booted by' "$logs/$1.log"; }

# selftest_results NAME TAG: a result per SELFTEST line of boot NAME, as selftest/<test>@TAG; a
# failed test shows its own lines of the log (from "selftest: running" to its SELFTEST line).
selftest_results() {
  local line t ok
  while read -r line; do
    t=$(sed -E 's/.*SELFTEST name=([a-z0-9-]+).*/\1/' <<< "$line")
    grep -q "result=pass" <<< "$line"
    ok=$?
    result "selftest/$t@$2" $ok "($line)"
    [ $ok = 0 ] || selftest_part "$logs/$1.log" "$t" | tail -n 60 | sed 's/^/      | /'
  done < <(grep -E 'SELFTEST name=' "$logs/$1.log")
}

# Jobs on the host (host tests, fuzzers) run side by side, one per core: pjob NAME COMMAND...
# starts COMMAND once fewer than that are running, its output in $logs/NAME.out and its status
# in $logs/NAME.rc; pwait waits for them all. QEMU boots always run one at a time.
jobs_max=$(nproc 2> /dev/null || echo 1)
pjob() {
  local name=$1
  shift
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
    wait -n
  done
  rm -f "$logs/$name.rc"
  (timed "$name" "$@" > "$logs/$name.out" 2>&1 < /dev/null; echo $? > "$logs/$name.rc") &
}
pwait() { wait; }
prc() { cat "$logs/$1.rc" 2> /dev/null || echo 1; }

# ---------------------------------------------------------------------------------------------
group_host() {
  if [ $check = yes ]; then
    echo "== host: unit tests (kernel sources built for the host with ASan and UBSan), the layout test"
  else
    echo "== host: unit tests (kernel sources built for the host with ASan and UBSan), tests/host/*.sh"
  fi
  # The Makefile's list, not whatever build/host holds: a test taken out of it leaves its binary.
  local host_tests scripts t name
  host_tests=$(MAKEFLAGS= make -s --no-print-directory host-test-list)
  [ -n "$host_tests" ] || result "host/test list" 1 "(make host-test-list named no test)"
  scripts=$(ls tests/host/*.sh 2> /dev/null)
  [ $check = yes ] && scripts=tests/host/test_layout.sh
  # A test with threads of its own (spinlocks, RCU) runs with nothing beside it: a waiter
  # spinning on the core its lock holder needs would make it many times slower.
  local threaded="" others=""
  for t in $host_tests $scripts; do
    if nm -u "$t" 2> /dev/null | grep -q pthread_create; then
      threaded="$threaded $t"
    else
      others="$others $t"
    fi
  done
  for t in $threaded; do
    jobs_max=1 pjob "$(basename "$t")" "$t"
  done
  pwait
  for t in $others; do
    pjob "$(basename "$t" .sh)" "$t"
  done
  pwait
  for t in $host_tests $scripts; do
    name=$(basename "$t" .sh)
    result "host/$name" "$(prc "$name")" "($(tail -n 1 "$logs/$name.out"))" "$logs/$name.out"
  done
}

group_fuzz() {
  local fuzzers f name mode=--runs
  if [ $check = yes ]; then
    mode=--replay
    echo "== fuzz: each parser's fuzzer replays its corpus, tests/fuzz/corpus/ (tests/fuzz/run.sh --replay)"
  else
    echo "== fuzz: each parser for a fixed, seeded number of inputs (tests/fuzz/run.sh --runs), then the system-call fuzzer for 60 s"
  fi
  fuzzers=$(MAKEFLAGS= make -s --no-print-directory fuzz-list)
  [ -n "$fuzzers" ] || result "fuzz/list" 1 "(make fuzz-list named no fuzzer)"
  for f in $fuzzers; do
    pjob "$(basename "$f")" tests/fuzz/run.sh $mode "$f"
  done
  pwait
  for f in $fuzzers; do
    name=$(basename "$f")
    result "fuzz/${name#fuzz_}" "$(prc "$name")" \
      "$(sed -nE 's/^(PASS|FAIL)  fuzz\/[a-z0-9]+ //p' "$logs/$name.out")"
    grep '^      ' "$logs/$name.out"   # a failure's input and report
  done
  [ $check = yes ] && return
  # make fuzz-syscalls' 60-second form at 8 vCPUs, the debug image with lockdep, ending with the
  # leak check (doc/testing.md). The seed is fixed so that a failure here repeats each worker's
  # sequence of calls on a rerun; the interleaving of 8 vCPUs does not repeat.
  timed "boot fuzz-syscalls" tools/fuzz_syscalls.sh --smp 8 --secs 60 --seed 1 \
    --log "$logs/fuzz-syscalls.log" > "$logs/fuzz-syscalls.out" 2>&1 < /dev/null
  result "fuzz/syscalls for 60 s at 8 vCPUs" $? "($(tail -n 1 "$logs/fuzz-syscalls.out"))" \
    "$logs/fuzz-syscalls.log"
  grep -m 1 'sysfuzz: calls=' "$logs/fuzz-syscalls.out" | sed 's/^/      /'
  grep -E '^(\[main\] Ran [0-9]+ syscalls|trinity: [0-9]+ distinct calls|fuzz-syscalls: trinity skipped)' \
    "$logs/fuzz-syscalls.out" | sed 's/^/      /'
}

# The shell test: each selftest=all boot then runs init=/bin/sh -- /etc/test/script.sh
# (Debian's busybox and tests/shell/script.sh from the built-in initramfs); the same two files,
# taken from the archive, run on the host give the output it must print. Without busybox in the
# archive (tools/mkinitramfs.sh says why) the boots run no init= and the test says SKIP.
# shell_setup sets shell_init, once.
shell_done=no shell_init=""
shell_setup() {
  [ $shell_done = yes ] && return
  shell_done=yes
  local shelldir
  shelldir=$(mktemp -d "${TMPDIR:-/tmp}/shell-test.XXXXXX")
  gzip -dc build/initramfs.cpio.gz |
    (cd "$shelldir" && cpio -id --quiet '*bin/busybox' '*etc/test/script.sh')
  if [ -x "$shelldir/bin/busybox" ] && [ -f "$shelldir/etc/test/script.sh" ]; then
    shell_init=" init=/bin/sh -- /etc/test/script.sh"
    (cd / && env -i HOME=/ TERM=linux PATH=/bin:/usr/bin "$shelldir/bin/busybox" sh \
      "$shelldir/etc/test/script.sh") > "$logs/shell-script-host.out" 2>&1 < /dev/null
    result "shell/script on the host's busybox sh" $? "($logs/shell-script-host.out)" \
      "$logs/shell-script-host.out"
  else
    echo "SKIP  shell/script: no /bin/busybox in build/initramfs.cpio.gz (Debian's busybox-static, tools/deps.sh)"
  fi
  rm -rf "$shelldir"
}

# script_lines FILE: the script's output, "== script begin" to "== script end", without the
# timestamps and without the kernel's notes on a system call it lacks (once per boot, should
# busybox try one).
script_lines() {
  tr -d '\r' < "$1" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | sed -n '/^== script begin$/,/^== script end$/p' |
    grep -vE '^syscall: .*, not implemented: ENOSYS$'
}

# One selftest=all boot per CPU count (make check: the 8-vCPU one), each SELFTEST line a test,
# then the shell test. The 2-vCPU boot runs on QEMU's -cpu max (XSAVE with AVX, SMEP, SMAP), so
# that every test, the user-* ones among them, runs once with those on, and brings its second
# AP online past the deadline (smp.late_ap=1: smp-bringup's case, doc/testing.md), on per-core
# page tables (vm.pt=percore: every test once on them, doc/design.md). The 8-vCPU boot also
# loads an archive of the user's own (make's INITRD=): a plain cpio one, unpacked after the
# built-in gzip one.
group_selftest() {
  local cpus="1 2 8" smp name late opts rc userdir
  [ $check = yes ] && cpus=8
  echo "== selftest: a selftest=all boot at $(sed 's/ /, /g' <<< "$cpus") vCPUs, each SELFTEST line a test, then the shell test"
  shell_setup
  userdir=$(mktemp -d "${TMPDIR:-/tmp}/user-initrd.XXXXXX")
  mkdir -p "$userdir/etc" && printf 'user archive\n' > "$userdir/etc/user-initrd"
  (cd "$userdir" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$logs/user-initrd.cpio"
  rm -rf "$userdir"
  for smp in $cpus; do
    name=selftest-all-smp$smp
    late="" opts=()
    [ $smp = 2 ] && late=" smp.late_ap=1 vm.pt=percore" opts=(--cpu max)
    # One CPU interleaves nothing but at sleeps: its torture runs last a second each (rcutorture
    # 5 s otherwise); the 2- and 8-vCPU boots keep each test's own length.
    [ $smp = 1 ] && late=" torture.secs=1"
    [ $smp = 8 ] && opts=(--initrd "$logs/user-initrd.cpio")
    boot "$name" "$smp" "bench=none selftest=all$late$shell_init" "${opts[@]}"
    rc=$?
    result "boot/$name" $rc "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
    has "$name" 'INITRAMFS archive=initramfs.cpio.gz .*result=pass .*errors=0'
    result "initramfs/built-in archive unpacked@smp$smp" $? "($(grep -m 1 'INITRAMFS' "$logs/$name.log"))"
    if [ $smp = 8 ]; then
      has "$name" 'INITRAMFS archive=user-initrd.cpio .*result=pass entries=3 files=1 dirs=1 '
      result "initramfs/INITRD= archive unpacked@smp$smp" $? \
        "($(grep 'INITRAMFS' "$logs/$name.log" | tail -n 1))"
    fi
    if [ $smp = 2 ]; then
      has "$name" 'fpu: xsave, xcr0 0x7' && has "$name" 'user: .*smep on, smap on'
      result "user/-cpu max uses XSAVE, AVX, SMEP and SMAP@smp$smp" $? \
        "($(grep -m 2 -E 'fpu:|user:' "$logs/$name.log" | paste -sd' ' -))"
      has "$name" 'SELFTEST name=user-[a-z0-9-]+ result=pass'
      result "user/the user-* tests ran on -cpu max@smp$smp" $?
      has "$name" 'vm: vm.pt=percore: '
      result "selftest/every test on per-core page tables (vm.pt=percore)@smp$smp" $? \
        "($(grep -m 1 'vm: vm.pt=' "$logs/$name.log"))"
    fi
    selftest_results "$name" "smp$smp"
    has "$name" 'selftest: [0-9]+ passed, 0 failed'
    result "selftest/summary@smp$smp" $? "($(grep -m 1 -E 'selftest: [0-9]+ passed' "$logs/$name.log"))"
    booted "$name" debug
    result "boot/$name ran the debug image" $? "($(bootline $name))"
    ! has "$name" 'LOCKDEP kind=' && has "$name" 'lockdep: [0-9]+ classes, .* 0 reports, 0 errors'
    result "lockdep/no report@smp$smp" $? "($(grep -m 1 'LOCKDEP kind=' "$logs/$name.log"))"
    if [ -n "$shell_init" ]; then
      script_lines "$logs/$name.log" > "$logs/shell-script-smp$smp.out"
      # The host's output is the oracle: it must itself have run to the end.
      [ -s "$logs/shell-script-smp$smp.out" ] && grep -qx '== script end' "$logs/shell-script-host.out" &&
        diff -u "$logs/shell-script-host.out" "$logs/shell-script-smp$smp.out" > "$logs/shell-script-smp$smp.diff"
      result "shell/script@smp$smp prints what it prints on the host" $? \
        "($logs/shell-script-smp$smp.diff)" "$logs/shell-script-smp$smp.diff"
      has "$name" 'init: /bin/sh exited with status 0$'
      result "shell/script@smp$smp exits 0" $? "($(grep -m 1 'init: /bin/sh ' "$logs/$name.log"))"
    fi
  done
}

# typed_session NAME [ttydrive options]: one boot driven by tools/ttydrive.py, each of its
# PASS/FAIL lines a result, and the session as a whole one more.
typed_session() {
  local name=$1 rc verdict t rest
  shift
  timed "boot $name" python3 tools/ttydrive.py qemu "$@" --smp 2 --timeout 300 --image debug \
    --log "$logs/$name.log" > "$logs/$name.out" 2>&1
  rc=$?
  while read -r verdict t rest; do
    [ "$verdict" = PASS ]
    result "$t" $? "$rest"
  done < <(grep -E '^(PASS|FAIL)  tty/' "$logs/$name.out")
  grep -qE '^[0-9]+ passed, 0 failed$' "$logs/$name.out"
  result "boot/$name typed session" $? "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
}

# The serial console as a terminal: tools/ttydrive.py types into init=/test/bin/termios (QEMU's
# serial on pipes: lines, erase, kill, ^D, raw mode, VTIME, EAGAIN, EINTR, SA_RESTART, ^\ to a
# handler, then ^C: status 130), then into init=/bin/sh (busybox: the prompt, a pipeline, line
# editing, ^C to a sleeping and a spinning program, ^Z, jobs, bg and fg, background jobs stopped
# by SIGTTIN and SIGTTOU, ubench by hand, exit 3); the debug image, so lockdep watches the
# input path and job control's.
group_tty() {
  echo "== tty: tools/ttydrive.py types into init=/test/bin/termios, then into init=/bin/sh (busybox)"
  shell_setup
  typed_session tty-smp2
  if [ -n "$shell_init" ]; then
    typed_session shell-smp2 --session shell
  else
    echo "SKIP  tty/shell: no /bin/busybox in build/initramfs.cpio.gz"
  fi
}

# make compare-linux's own tool with a few points and short runs, only the verdict's pair of
# boots (--explain no: this kernel with ipi.wait=spin, Linux on equal terms, whose terms the
# tool checks in its log): both kernels must run the program and report every suite. Without Linux (no package
# to fetch) its half is skipped, not failed.
group_compare() {
  echo "== compare: compare-linux, short: /bin/ubench on this kernel and on Linux, one round at 2 vCPUs"
  local name=compare-linux-smp2 rc s out
  out=$logs/$name.out
  timed "compare $name" tools/compare_linux.py --smp 2 --rounds 1 --secs 0.1 --runs 2 --threads 1,2 \
    --explain no --timeout 300 --logdir "$logs/$name" --report "$logs/$name-report" > "$out" 2>&1 < /dev/null
  rc=$?
  result "compare/$name" $rc "(exit $rc, $out)" "$out"
  for s in usyscall ucreate upread ufault umadvise ustat ufork uexec; do
    grep -qE "^COMPARE suite=$s .* this=[0-9]" "$out"
    result "compare/this kernel reports $s" $? "($out)"
  done
  if grep -q '^COMPARE-LINUX missing=' "$out"; then
    echo "SKIP  compare/Linux: $(grep -m 1 '^COMPARE-LINUX' "$out") (no Linux package to fetch)"
  else
    grep -q '^COMPARE-LINUX package=linux-image-[^ ]* version=[^ ]* sha256=[0-9a-f]\{64\}$' "$out"
    result "compare/COMPARE-LINUX names the package" $? "($(grep -m 1 '^COMPARE-LINUX' "$out"))"
    for s in usyscall ucreate upread ufault umadvise ustat ufork uexec; do
      grep -qE "^COMPARE suite=$s .* linux=[0-9]" "$out"
      result "compare/Linux reports $s" $? "($out)"
    done
  fi
  seeds_real_quick
}

# make seeds-real's quick form (SMP=2 ROUNDS=1 COUNTS=1,2, runs of 2 s): every seed's own
# program on every variant and on Linux, a boot each, two boots at a time (a check, not a
# measurement). One round decides nothing (every REAL-SEED-CMP must say inconclusive); what
# must hold is that every boot ran every run and every point is reported.
seeds_real_quick() {
  local name=seeds-real-smp2 rc out n want
  out=$logs/$name.out
  timed "compare $name" tools/seeds_real.py --smp 2 --rounds 1 --secs 2 --counts 1,2 --jobs 2 --logdir "$logs/$name" \
    --report "$logs/$name-report" --linux-list build/linux/initrd.cpio.list --imitation "" > "$out" 2>&1 < /dev/null
  rc=$?
  if grep -q '^COMPARE-LINUX missing=' "$out"; then
    echo "SKIP  compare/$name: $(grep -m 1 '^COMPARE-LINUX' "$out") (no Linux package to fetch)"
    return
  fi
  result "compare/$name: make seeds-real SMP=2 ROUNDS=1 SECS=2 COUNTS=1,2" $rc "(exit $rc, $out)" "$out"
  # Points at counts 1 and 2: 000 six columns, 003 four, 001 six; comparisons: two, two and
  # three a count.
  for want in "000 12 4" "003 8 4" "001 12 6"; do
    set -- $want
    # A rate of 0 is a run that measured nothing: real.sh fails it, and none may be here.
    n=$(grep -c "^REAL-SEED seed=$1 .* rounds=1 rate=[0-9.]*[1-9][0-9.]* ci95=0.0 unit=" "$out")
    result "compare/$name: seed $1 reports its $2 points" "$([ "$n" = "$2" ] && echo 0 || echo 1)" "($n; $out)"
    n=$(grep -c "^REAL-SEED-CMP seed=$1 .* verdict=inconclusive .* direction=unknown agrees=n/a rounds=1 " "$out")
    result "compare/$name: seed $1's $3 comparisons, inconclusive on one round" "$([ "$n" = "$3" ] && echo 0 || echo 1)" "($n; $out)"
  done
  test -s "$logs/$name-report/seeds-real.md"
  result "compare/$name: the report is written" $? "($logs/$name-report/seeds-real.md)"
}

group_boots() {
  echo "== boots: BOOT cpus=N at each CPU count, nr_cpus=, init= with -- arguments, bad command-line words, TIMEOUT, Debian's programs"
  local smp name rc bad w missing
  for smp in 4 16; do
    name=boot-smp$smp
    boot "$name" "$smp" "bench=none"
    rc=$?
    has "$name" "BOOT cpus=$smp possible=$smp "
    result "boot/$name" $((rc | $?)) "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
  done
  # nr_cpus=3 before --, and the words after it, nr_cpus=1 among them, init's own: the kernel
  # must neither take nor name them (3 CPUs come up, not 1).
  name=nr-cpus-3
  boot "$name" 8 "bench=none nr_cpus=3 init=/bin/hello -- one nr_cpus=1 --" --image debug
  rc=$?
  has "$name" "BOOT cpus=3 possible=8 "
  result "boot/nr_cpus=3@smp8" $((rc | $?)) "(exit $rc)" "$logs/$name.log"
  has "$name" 'argv\[1\] = one$' && has "$name" 'argv\[2\] = nr_cpus=1$' && has "$name" 'argv\[3\] = --$' &&
    has "$name" 'init: /bin/hello exited with status 0' && ! has "$name" "ignoring 'nr_cpus=1'"
  result "user/init= gets the words after -- verbatim" $? "(log $logs/$name.log)" "$logs/$name.log"
  has "$name" 'init: /bin/hello: a file, [0-9]+ bytes'
  result "user/init= runs the initramfs's /bin/hello" $? "($(grep -m 1 'init: /bin/hello:' "$logs/$name.log"))"
  # The default image, and --image (make's DEBUG=) overriding it either way.
  booted boot-smp4 release
  result "boot/bench=none ran the release image" $? "($(bootline boot-smp4))"
  booted nr-cpus-3 debug
  result "boot/--image debug ran the debug image" $? "($(bootline nr-cpus-3))"

  bad="bench=none bench=nosuch frobnicate=1 nr_cpus=0 bench.secs=0.25s selftest=Bad_Name poweroff=maybe noequals"
  boot bad-cmdline 2 "$bad" --image release
  rc=$?
  missing=""
  for w in bench=nosuch frobnicate=1 nr_cpus=0 bench.secs=0.25s selftest=Bad_Name poweroff=maybe noequals; do
    grep -qF "ignoring '$w'" "$logs/bad-cmdline.log" || missing="$missing $w"
  done
  [ $rc = 0 ] && [ -z "$missing" ]
  result "boot/bad-cmdline" $? "(exit $rc; not named:$missing)" "$logs/bad-cmdline.log"
  booted bad-cmdline release   # its selftest= word alone would pick debug
  result "boot/--image release ran the release image" $? "($(bootline bad-cmdline))"

  # A run that never ends must be killed at TIMEOUT and fail (poweroff=no keeps it up).
  timed "boot timeout" tools/qemu.sh --smp 2 --cmdline "bench=none poweroff=no" --timeout 5 \
    --log "$logs/timeout.log" > "$logs/timeout.out" 2>&1 < /dev/null
  rc=$?
  [ $rc != 0 ] && grep -q TIMEOUT "$logs/timeout.out"
  result "boot/TIMEOUT kills a run that stays up" $? "(exit $rc)" "$logs/timeout.out"

  # Debian's own programs, dynamically linked, against the host's output (make realprogs): every
  # case must pass, and all eighteen must have run. Their files on the seeds' oldest variants
  # (a global lock's hash, inodes freed at once), which the selftest=all boots, on the
  # default root, do not reach.
  name=realprogs-smp8
  timed "boot $name" tools/realprogs.sh --smp 8 --log "$logs/$name.log" \
    --cmdline "pagecache=hash-global ramfs.free=now" > "$logs/$name.out" 2>&1 < /dev/null
  rc=$?
  local tally
  tally=$(tail -n 1 "$logs/$name.out")
  [ $rc = 0 ] && [[ $tally =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -ge 18 ] &&
    grep -aq "vfs: ramfs at / (hash-global, fanout 64, inodes free-now, ref-walk)" "$logs/$name.log"
  result "user/realprogs@smp8: Debian's coreutils, xz, zstd, sqlite3, fs_mark, python3, dbench, busybox, procps, musl, Go, bash as on the host, on pagecache=hash-global ramfs.free=now" \
    $? "(exit $rc: $tally)" "$logs/$name.out"

  # 64 vCPUs, once: BOOT cpus=64, and a short torture: RCU and the kernel's own locks with 64
  # CPUs in play, each held to its work floor (tests/kernel/torture.h), and the stale-TLB check
  # under per-core page tables, whose record of CPUs holds 64 at most. make torture runs every
  # torture test.
  name=torture-smp64
  boot "$name" 64 "bench=none selftest=rcutorture,locktorture-spinlock,locktorture-mutex,locktorture-rwsem,tlb-shootdown-percore"
  rc=$?
  has "$name" "BOOT cpus=64 possible=64 "
  result "boot/BOOT cpus=64@smp64" $? "($(grep -m 1 'BOOT cpus=' "$logs/$name.log"))" "$logs/$name.log"
  [ $rc = 0 ] && [ "$(grep -c 'SELFTEST name=.* result=pass' "$logs/$name.log")" = 5 ]
  result "boot/torture@smp64" $? "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
}

# A short form of the issue's six boots: the self-tests at a moderate rate, the benchmarks at
# the highest with short runs. Each must pass, show that allocations really failed, and give
# every page and slab object back (LEAK-CHECK). The self-tests' boot is not the plain 8-vCPU
# one: under injection tests may skip (result=pass skipped=enomem) and 37 run with injection
# paused, so that one's "every test passes" would mean less. Its torture runs last half a
# second (torture.secs=0.5, 11 s less): it is there for the failure paths; the plain boots
# give the tortures their length.
group_inject() {
  echo "== inject: failslab=/failpage= on every path, and nothing leaked"
  local spec name rc
  for spec in "selftest-inject-smp8|bench=none selftest=all failslab=5 failpage=5 torture.secs=0.5" \
              "bench-inject-smp8|bench=quick bench.secs=0.05 bench.runs=2 failslab=20 failpage=20"; do
    name=${spec%%|*}
    boot "$name" 8 "${spec#*|}"
    rc=$?
    has "$name" 'FAULT-INJECT slab_failed=[1-9][0-9]* page_failed=[1-9][0-9]*' &&
      has "$name" 'LEAK-CHECK result=pass ' && ! has "$name" 'SELFTEST name=.* result=fail'
    result "inject/$name" $((rc | $?)) "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
  done
}

# planted_alone NAME: NAME booted on its own, at 2 vCPUs; it must be caught.
planted_alone() {
  local rc why
  boot "$1" 2 "bench=none selftest=$1"
  rc=$?
  why=$(planted_alone_check "$1" $rc "$logs/$1.log")
  result "planted/$1 caught" $? "(exit $rc, log $logs/$1.log${why:+: $why})" "$logs/$1.log"
}

# Each planted bug must be caught. Those that fail by returning with a named field share one
# boot, in tests/planted.sh's order; the rest (panics, wedged CPUs) boot alone. make check
# boots planted-panic alone: a fault must panic with a symbolized backtrace.
group_planted() {
  if [ $check = yes ]; then
    echo "== planted: planted-panic alone, which must be caught"
    planted_alone planted-panic
    return
  fi
  echo "== planted: every planted-* test must be caught; the ones caught by a named field share one boot"
  local planted shared t name rc why missing="" n pass fail
  boot selftest-list 1 "bench=none selftest=list"
  planted=$(sed -nE 's/.*selftest: (planted-[a-z0-9-]+).*/\1/p' "$logs/selftest-list.log")
  [ -n "$planted" ]
  result "boot/selftest=list names planted tests" $? "" "$logs/selftest-list.log"
  shared=$(planted_shared_names)
  for t in $shared; do
    grep -qx -- "$t" <<< "$planted" || missing="$missing $t"
  done
  [ -z "$missing" ]
  result "planted/every shared test is in selftest=list" $? "(not there:$missing)"

  name=planted-batch
  n=$(wc -w <<< "$shared")
  boot "$name" 2 "bench=none selftest=$(paste -sd, <<< "$shared")"
  rc=$?
  # The boot as a whole: it fails, ran every test to its SELFTEST line (none panicked: a
  # panic would end the boot) and in the debug image (its "kernel: booted by" line is cut
  # short by the long command line: the lockdep summary says it); planted-leak is the one
  # that passes.
  pass=$(sed -nE 's/.*selftest: ([0-9]+) passed, ([0-9]+) failed.*/\1/p' "$logs/$name.log")
  fail=$(sed -nE 's/.*selftest: ([0-9]+) passed, ([0-9]+) failed.*/\2/p' "$logs/$name.log")
  [ $rc != 0 ] && has "$name" 'END result=fail' && ! has "$name" 'PANIC cpu=' &&
    [ "${pass:-0}" = 1 ] && [ "${fail:-0}" = $((n - 1)) ] &&
    has "$name" '^(\[ *[0-9.]+\] )?lockdep: [0-9]+ classes, '
  result "boot/$name: $n planted tests in one boot, in order, none panicked" $? \
    "(exit $rc; $(grep -m 1 -E 'selftest: [0-9]+ passed' "$logs/$name.log"); log $logs/$name.log)" \
    "$logs/$name.log"
  for t in $shared; do
    why=$(planted_batch_failing "$logs/$name.log" | sed -n "s/^$t: //p")
    [ -z "$why" ]
    rc=$?
    result "planted/$t caught (shared boot)" $rc "($why)"
    [ $rc = 0 ] || selftest_part "$logs/$name.log" "$t" | tail -n 40 | sed 's/^/      | /'
  done
  # The checker on the same log with one test's lines taken away, for each test: only that
  # one may be found not caught.
  why=$(planted_batch_prove "$logs/$name.log")
  result "planted/the shared boot's checker: each test's verdict rests on its own lines" $? \
    "($(head -n 3 <<< "$why" | paste -sd';' -))"

  for t in $planted; do
    grep -qx -- "$t" <<< "$shared" || planted_alone "$t"
  done
}

group_bench() {
  local cpus="2 8" smp name rc ok words
  [ $check = yes ] && cpus=2
  echo "== bench: bench=quick at $(sed 's/ /, /g' <<< "$cpus") vCPUs, every point of each suite checked by tests/bench/check_bench.py"
  for smp in $cpus; do
    name=bench-quick-smp$smp
    # make test's 2-vCPU boot runs 0.05-s runs (11 s, not 45): what it checks is every suite's
    # lines at 2 CPUs; quick's own runs are the 8-vCPU boot's, and make check's.
    words=bench=quick
    [ $smp = 2 ] && [ $check = no ] && words="bench=quick bench.secs=0.05 bench.runs=2"
    boot "$name" "$smp" "$words"
    rc=$?
    tests/bench/check_bench.py "$logs/$name.log" "$smp" --quick > "$logs/$name.check" 2>&1
    ok=$?
    result "bench/quick@smp$smp" $((rc | ok)) "(exit $rc; $(tail -n 1 "$logs/$name.check"))" \
      "$logs/$name.log"
    [ $ok = 0 ] || sed 's/^/      check: /' "$logs/$name.check" | head -n 20
    booted "$name" release
    result "bench/quick@smp$smp ran the release image" $? "($(bootline $name))"
    # The front page's console excerpt comes from this command line at 8 vCPUs: its lines,
    # numbers aside, must be this boot's, in order (tools/check_excerpt.py).
    if [ $smp = 8 ]; then
      timed "check_excerpt" tools/check_excerpt.py README.md "$logs/$name.log" > "$logs/excerpt.out" 2>&1
      result "doc/README's console excerpt matches bench=quick@smp8" $? "($(tail -n 1 "$logs/excerpt.out"))"
    fi
  done
  [ $check = yes ] && return
  # vmscale, which only a boot that names it runs (shared and per-core page tables, issue 34):
  # its lines checked as every suite's, and per-core tables must send no shootdown IPI for a
  # thread's own memory. Short runs: a check, not a measurement (3.5 s instead of 10).
  name=bench-vmscale-smp4
  boot "$name" 4 "bench=quick,vmscale bench.secs=0.05 bench.runs=2"
  rc=$?
  tests/bench/check_bench.py "$logs/$name.log" 4 --quick > "$logs/$name.check" 2>&1
  ok=$?
  result "bench/vmscale@smp4" $((rc | ok)) "(exit $rc; $(tail -n 1 "$logs/$name.check"))" \
    "$logs/$name.log"
  local points zero
  points=$(grep -cE 'BENCH suite=vmscale variant=percore threads=' "$logs/$name.log")
  zero=$(grep -cE 'BENCH suite=vmscale variant=percore threads=.* ipis_per_op=0\.000' "$logs/$name.log")
  [ "$points" -ge 3 ] && [ "$zero" = "$points" ]
  result "bench/vmscale@smp4: percore sends no shootdown IPI for private memory" $? \
    "($(grep -E 'BENCH suite=vmscale variant=percore threads' "$logs/$name.log" |
        grep -oE 'threads=[0-9]+|ipis_per_op=[0-9.]+' | paste -sd' ' -))"
  # bench.aa=yes: every suite with each b variant replaced by a copy of a. A suite that keeps
  # state between runs keeps it per column (ctx->slot), so a variant and its copy each have
  # their own: shared, the copy's setup would build over the original's (radix, pagecache) and
  # leak.
  name=bench-aa-smp2
  boot "$name" 2 "bench=quick bench.aa=yes bench.secs=0.02 bench.runs=2"
  rc=$?
  has "$name" "^(\[ *[0-9.]+\] )?BENCH-AA suites=[1-9][0-9]* comparisons=[1-9][0-9]* false=[0-9]+ inconclusive=[0-9]+ families=[1-9][0-9]* false_families=[0-9]+\$" &&
    has "$name" "^(\[ *[0-9.]+\] )?LEAK-CHECK result=pass" && has "$name" "^(\[ *[0-9.]+\] )?END result=pass"
  result "bench/aa@smp2" $((rc | $?)) "(exit $rc; $(grep -m 1 'BENCH-AA' "$logs/$name.log"))" \
    "$logs/$name.log"
}

group_gdb() {
  echo "== gdb: attach at reset (smoke), then the kernel-aware commands on a live kernel"
  local part out
  timed "gdb smoke" tests/gdb/smoke.sh 8 > "$logs/gdb-smoke.out" 2>&1
  result "gdb/smoke@smp8" $? "($(grep -c FAIL "$logs/gdb-smoke.out") checks failed; $logs/gdb-smoke.out)" \
    "$logs/gdb-smoke.out"
  for part in live step fail mm profile lockstat; do
    out=$logs/gdb-session-$part.out
    timed "gdb session-$part" tests/gdb/session.sh $part > "$out" 2>&1
    result "gdb/session-$part@smp8" $? "($(grep -c '^FAIL' "$out") checks failed; $out)" "$out"
  done
}

# ---------------------------------------------------------------------------------------------
[ $check = yes ] && echo "make check: groups" $groups
for g in $groups; do
  t0=$(date +%s)
  group_$g
  echo "-- $g done in $(( $(date +%s) - t0 )) s"
done

# Where the time went: the slowest boots and tools of this run (every one in $logs/times).
echo "== done in $(( $(date +%s) - start )) s; the slowest steps:"
sort -rn "$logs/times" | head -n 8 | awk '{ printf "      %4d s  %s\n", $1, substr($0, index($0, " ") + 1) }'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
