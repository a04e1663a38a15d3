#!/bin/bash
# `make test`: host unit tests, the parsers' fuzzers, QEMU boots at several CPU counts with every
# self-test, each planted test alone (it must be caught), bad command lines, and gdb.
# Ends "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
logs=build/test-logs
mkdir -p "$logs"
passed=0
failed=0
start=$(date +%s)

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

# The lines that say why a run failed: from the first panic, watchdog or NMI report on (or the
# last 40 lines when there is none), at most 120 lines, indented under the FAIL line.
show_failure() {
  local from
  from=$(grep -nE 'kernel panic on cpu|watchdog:|nmi: CPU|hung task|soft lockup|FAILED|LOCKDEP|SELFTEST name=[a-z0-9-]+ result=fail|LEAK-CHECK result=fail|END result=fail|leakcheck:' "$1" \
         | head -n 1 | cut -d: -f1)
  if [ -n "$from" ]; then
    tail -n +"$from" "$1" | head -n 120
  else
    tail -n 40 "$1"
  fi | sed 's/^/      | /'
}

# boot NAME SMP CMDLINE [OPTION...]: one QEMU run, serial log in $logs/NAME.log, more
# tools/qemu.sh options after the command line; returns qemu.sh's status. Without --image,
# qemu.sh picks the debug image for a command line that runs self-tests, else release.
boot() {
  tools/qemu.sh --smp "$2" --cmdline "$3" --timeout 300 --log "$logs/$1.log" "${@:4}" \
    > "$logs/$1.out" 2>&1 < /dev/null
}

has() { grep -qE "$2" "$logs/$1.log"; }

# booted NAME IMAGE: the run's "kernel: booted by" line (kernel/main.c) names IMAGE;
# bootline NAME prints that line.
booted() { has "$1" "^(\[ *[0-9.]+\] )?kernel: booted by .*, image $2\$"; }
bootline() { grep -m 1 'kernel: booted by' "$logs/$1.log"; }

echo "== host unit tests (kernel sources built for the host with ASan and UBSan)"
# The Makefile's list, not whatever build/host holds: a test taken out of it leaves its binary.
host_tests=$(MAKEFLAGS= make -s --no-print-directory host-test-list)
[ -n "$host_tests" ] || result "host/test list" 1 "(make host-test-list named no test)"
for t in $host_tests; do
  name=$(basename "$t")
  "$t" > "$logs/$name.out" 2>&1
  result "host/$name" $? "($(tail -n 1 "$logs/$name.out"))"
done
for t in tests/host/*.sh; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .sh)
  "$t" > "$logs/$name.out" 2>&1
  result "host/$name" $? "($(tail -n 1 "$logs/$name.out"))"
done

echo "== fuzzers: each parser for a fixed, seeded number of inputs (tests/fuzz/run.sh --runs)"
fuzzers=$(MAKEFLAGS= make -s --no-print-directory fuzz-list)
[ -n "$fuzzers" ] || result "fuzz/list" 1 "(make fuzz-list named no fuzzer)"
for f in $fuzzers; do
  name=$(basename "$f")
  tests/fuzz/run.sh --runs "$f" > "$logs/$name.out" 2>&1
  result "fuzz/${name#fuzz_}" $? "$(sed -nE 's/^(PASS|FAIL)  fuzz\/[a-z0-9]+ //p' "$logs/$name.out")"
  grep '^      ' "$logs/$name.out"   # a failure's input and report
done

echo "== self-tests: one selftest=all boot per CPU count, each SELFTEST line a test"
# Each of these boots then runs the shell test, init=/bin/sh -- /etc/test/script.sh (Debian's
# busybox and tests/shell/script.sh from the built-in initramfs); the same two files, taken
# from the archive, run on the host give the output it must print. Without busybox in the
# archive (tools/mkinitramfs.sh says why) the boots run no init= and the test says SKIP.
shelldir=$(mktemp -d "${TMPDIR:-/tmp}/shell-test.XXXXXX")
gzip -dc build/initramfs.cpio.gz | (cd "$shelldir" && cpio -id --quiet '*bin/busybox' '*etc/test/script.sh')
shell_init=""
if [ -x "$shelldir/bin/busybox" ] && [ -f "$shelldir/etc/test/script.sh" ]; then
  shell_init=" init=/bin/sh -- /etc/test/script.sh"
  (cd / && env -i HOME=/ TERM=linux PATH=/bin:/usr/bin "$shelldir/bin/busybox" sh \
    "$shelldir/etc/test/script.sh") > "$logs/shell-script-host.out" 2>&1 < /dev/null
  result "shell/script on the host's busybox sh" $? "($logs/shell-script-host.out)"
else
  echo "SKIP  shell/script: no /bin/busybox in build/initramfs.cpio.gz (Debian's busybox-static, tools/deps.sh)"
fi
rm -rf "$shelldir"
# script_lines FILE: the script's output, "== script begin" to "== script end", without the
# timestamps and without the kernel's notes on a system call it lacks (once per boot, should
# busybox try one).
script_lines() {
  tr -d '\r' < "$1" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | sed -n '/^== script begin$/,/^== script end$/p' |
    grep -vE '^syscall: .*, not implemented: ENOSYS$'
}
# The 8-CPU boot also loads an archive of the user's own (make's INITRD=): a plain cpio one,
# unpacked after the built-in gzip one.
userdir=$(mktemp -d "${TMPDIR:-/tmp}/user-initrd.XXXXXX")
mkdir -p "$userdir/etc" && printf 'user archive\n' > "$userdir/etc/user-initrd"
(cd "$userdir" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$logs/user-initrd.cpio"
rm -rf "$userdir"
for smp in 1 2 8; do
  name=selftest-all-smp$smp
  late="" initrd=()
  [ $smp = 2 ] && late=" smp.late_ap=1"   # smp-bringup: an AP online past the deadline (doc/testing.md)
  [ $smp = 8 ] && initrd=(--initrd "$logs/user-initrd.cpio")
  boot "$name" "$smp" "bench=none selftest=all$late$shell_init" "${initrd[@]}"
  rc=$?
  result "boot/$name" $rc "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
  has "$name" 'INITRAMFS archive=initramfs.cpio.gz .*result=pass .*errors=0'
  result "initramfs/built-in archive unpacked@smp$smp" $? "($(grep -m 1 'INITRAMFS' "$logs/$name.log"))"
  if [ $smp = 8 ]; then
    has "$name" 'INITRAMFS archive=user-initrd.cpio .*result=pass entries=3 files=1 dirs=1 '
    result "initramfs/INITRD= archive unpacked@smp$smp" $? \
      "($(grep 'INITRAMFS' "$logs/$name.log" | tail -n 1))"
  fi
  while read -r line; do
    t=$(sed -E 's/.*SELFTEST name=([a-z0-9-]+).*/\1/' <<< "$line")
    grep -q "result=pass" <<< "$line"
    result "selftest/$t@smp$smp" $? "($line)"
  done < <(grep -E 'SELFTEST name=' "$logs/$name.log")
  has "$name" 'selftest: [0-9]+ passed, 0 failed'
  result "selftest/summary@smp$smp" $?
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

echo "== user mode on QEMU's -cpu max (XSAVE with AVX, SMEP, SMAP), and init= with -- arguments"
name=user-cpumax-smp2
# Every user-* test but user-oom (16 s of page faults that no CPU feature changes).
user_tests=$(grep -oE 'SELFTEST name=user-[a-z0-9-]+' "$logs/selftest-all-smp2.log" | sed 's/.*=//' |
  grep -v '^user-oom$' | paste -sd, -)
boot "$name" 2 "bench=none selftest=${user_tests:-user-hello} init=/bin/hello -- one nr_cpus=1 --" --cpu max
rc=$?
result "boot/$name" $rc "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
has "$name" 'fpu: xsave, xcr0 0x7' && has "$name" 'user: .*smep on, smap on'
result "user/cpumax uses XSAVE, AVX, SMEP and SMAP" $? "($(grep -m 1 -E 'fpu:|user:' "$logs/$name.log"))"
while read -r line; do
  t=$(sed -E 's/.*SELFTEST name=([a-z0-9-]+).*/\1/' <<< "$line")
  grep -q "result=pass" <<< "$line"
  result "selftest/$t@cpumax" $? "($line)"
done < <(grep -E 'SELFTEST name=' "$logs/$name.log")
has "$name" 'argv\[1\] = one$' && has "$name" 'argv\[2\] = nr_cpus=1$' && has "$name" 'argv\[3\] = --$' &&
  has "$name" 'init: /bin/hello exited with status 0' && ! has "$name" "ignoring 'nr_cpus=1'"
result "user/init= gets the words after -- verbatim" $? "(log $logs/$name.log)"
has "$name" 'init: /bin/hello: a file, [0-9]+ bytes'
result "user/init= runs the initramfs's /bin/hello" $? "($(grep -m 1 'init: /bin/hello:' "$logs/$name.log"))"

echo "== the serial console as a terminal: tools/ttydrive.py types into init=/test/bin/termios"
# QEMU's serial on pipes: lines, erase, kill, ^D, raw mode, VTIME, EAGAIN, EINTR, SA_RESTART,
# ^\ to a handler, then ^C (status 130); the debug image, so lockdep watches the input path.
# typed_session NAME [ttydrive options]: one boot driven by tools/ttydrive.py, each of its
# PASS/FAIL lines a result, and the session as a whole one more.
typed_session() {
  local name=$1 rc verdict t rest
  shift
  python3 tools/ttydrive.py qemu "$@" --smp 2 --timeout 300 --image debug \
    --log "$logs/$name.log" > "$logs/$name.out" 2>&1
  rc=$?
  while read -r verdict t rest; do
    [ "$verdict" = PASS ]
    result "$t" $? "$rest"
  done < <(grep -E '^(PASS|FAIL)  tty/' "$logs/$name.out")
  grep -qE '^[0-9]+ passed, 0 failed$' "$logs/$name.out"
  result "boot/$name typed session" $? "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
}
typed_session tty-smp2

echo "== the interactive shell: tools/ttydrive.py types into init=/bin/sh (busybox)"
# The prompt, a pipeline, line editing, ^C to a sleeping and a spinning program (the shell
# stays), ^Z, jobs, bg and fg, background jobs stopped by SIGTTIN and SIGTTOU, ubench by hand,
# exit 3; the debug image, so lockdep watches job control's paths.
if [ -n "$shell_init" ]; then
  typed_session shell-smp2 --session shell
else
  echo "SKIP  tty/shell: no /bin/busybox in build/initramfs.cpio.gz"
fi

echo "== compare-linux, short: /bin/ubench on this kernel and on Linux, one round at 2 vCPUs"
# make compare-linux's own tool with a few points and short runs, without the mitigations=off
# boot: both kernels must run the program and report every suite. Without Linux (no package
# to fetch) its half is skipped, not failed.
name=compare-linux-smp2
tools/compare_linux.py --smp 2 --rounds 1 --secs 0.1 --runs 2 --threads 1,2 --nomit no \
  --timeout 300 --logdir "$logs/$name" --report "$logs/$name-report" > "$logs/$name.out" 2>&1 < /dev/null
rc=$?
result "compare/$name" $rc "(exit $rc, $logs/$name.out)" "$logs/$name.out"
for s in usyscall ucreate upread ufault umadvise ustat ufork uexec; do
  grep -qE "^COMPARE suite=$s .* this=[0-9]" "$logs/$name.out"
  result "compare/this kernel reports $s" $? "($logs/$name.out)"
done
if grep -q '^COMPARE-LINUX missing=' "$logs/$name.out"; then
  echo "SKIP  compare/Linux: $(grep -m 1 '^COMPARE-LINUX' "$logs/$name.out") (no Linux package to fetch)"
else
  grep -q '^COMPARE-LINUX package=linux-image-[^ ]* version=[^ ]* sha256=[0-9a-f]\{64\}$' "$logs/$name.out"
  result "compare/COMPARE-LINUX names the package" $? "($(grep -m 1 '^COMPARE-LINUX' "$logs/$name.out"))"
  for s in usyscall ucreate upread ufault umadvise ustat ufork uexec; do
    grep -qE "^COMPARE suite=$s .* linux=[0-9]" "$logs/$name.out"
    result "compare/Linux reports $s" $? "($logs/$name.out)"
  done
fi

echo "== boots: BOOT cpus=N at each CPU count, nr_cpus=, bad command-line words"
for smp in 4 16 64; do
  name=boot-smp$smp
  boot "$name" "$smp" "bench=none"
  rc=$?
  has "$name" "BOOT cpus=$smp possible=$smp "
  result "boot/$name" $((rc | $?)) "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
done
boot nr-cpus-3 8 "bench=none nr_cpus=3" --image debug
rc=$?
has nr-cpus-3 "BOOT cpus=3 possible=8 "
result "boot/nr_cpus=3@smp8" $((rc | $?)) "(exit $rc)" "$logs/nr-cpus-3.log"
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
tools/qemu.sh --smp 2 --cmdline "bench=none poweroff=no" --timeout 5 --log "$logs/timeout.log" \
  > "$logs/timeout.out" 2>&1 < /dev/null
rc=$?
[ $rc != 0 ] && grep -q TIMEOUT "$logs/timeout.out"
result "boot/TIMEOUT kills a run that stays up" $? "(exit $rc)"

# A short torture boot at 64 vCPUs: RCU and the kernel's own locks with 64 CPUs in play, each
# held to its work floor (tests/kernel/torture.h). make torture runs every one of them.
name=torture-smp64
boot "$name" 64 "bench=none selftest=rcutorture,locktorture-spinlock,locktorture-mutex,locktorture-rwsem"
rc=$?
[ $rc = 0 ] && [ "$(grep -c 'SELFTEST name=.* result=pass' "$logs/$name.log")" = 4 ]
result "boot/torture@smp64" $? "(exit $rc, log $logs/$name.log)" "$logs/$name.log"

echo "== fault injection: failslab=/failpage= on every path, and nothing leaked"
# A short form of the issue's six boots: the self-tests at a moderate rate, the benchmarks at
# the highest with short runs. Each must pass, show that allocations really failed, and give
# every page and slab object back (LEAK-CHECK).
for spec in "selftest-inject-smp8|bench=none selftest=all failslab=5 failpage=5" \
            "bench-inject-smp8|bench=quick bench.secs=0.05 bench.runs=2 failslab=20 failpage=20"; do
  name=${spec%%|*}
  boot "$name" 8 "${spec#*|}"
  rc=$?
  has "$name" 'FAULT-INJECT slab_failed=[1-9][0-9]* page_failed=[1-9][0-9]*' &&
    has "$name" 'LEAK-CHECK result=pass ' && ! has "$name" 'SELFTEST name=.* result=fail'
  result "inject/$name" $((rc | $?)) "(exit $rc, log $logs/$name.log)" "$logs/$name.log"
done

echo "== planted tests: each alone, and each must be caught (PANIC, SELFTEST result=fail, or LEAK-CHECK result=fail)"
boot selftest-list 1 "bench=none selftest=list"
planted=$(sed -nE 's/.*selftest: (planted-[a-z0-9-]+).*/\1/p' "$logs/selftest-list.log")
[ -n "$planted" ]
result "boot/selftest=list names planted tests" $?
for t in $planted; do
  boot "$t" 2 "bench=none selftest=$t"
  rc=$?
  caught=1
  if has "$t" '^(\[ *[0-9.]+\] )?PANIC cpu=[0-9]+ ' || has "$t" "SELFTEST name=$t result=fail" ||
     has "$t" 'LEAK-CHECK result=fail '; then
    caught=0
  fi
  # A caught planted bug fails the run; a PANIC must come with a symbolized backtrace. The
  # debug image runs it: some are caught by its checks alone (DEBUG_SPINLOCK, slab debugging).
  ok=1
  if [ $rc != 0 ] && [ $caught = 0 ] && has "$t" 'END result=fail' && booted "$t" debug; then
    ok=0
    if has "$t" 'PANIC cpu='; then
      has "$t" '#[0-9]+ +0x[0-9a-f]+ [a-z_][a-z0-9_]*\+0x[0-9a-f]+' || ok=1
    fi
  fi
  # Lockdep's planted bugs are caught by lockdep itself: its LOCKDEP line, of the right kind.
  case $t in
  planted-lock-order) kind='circular classes=order_b,order_a' ;;
  planted-irq-lock) kind='irq-inconsistent classes=irq_lock' ;;
  planted-sleep-in-rcu) kind='sleep-in-rcu classes=rcu_read_lock' ;;
  planted-sleep-in-atomic) kind='sleep-in-atomic classes=atomic_lock' ;;
  *) kind= ;;
  esac
  if [ -n "$kind" ]; then
    has "$t" "^(\[ *[0-9.]+\] )?LOCKDEP kind=$kind\$" || ok=1
  fi
  result "planted/$t caught" $ok "(exit $rc, log $logs/$t.log)" "$logs/$t.log"
done

echo "== benchmarks: bench=quick, every point of each suite checked by tests/bench/check_bench.py"
for smp in 2 8; do
  name=bench-quick-smp$smp
  boot "$name" "$smp" "bench=quick"
  rc=$?
  tests/bench/check_bench.py "$logs/$name.log" "$smp" --quick > "$logs/$name.check" 2>&1
  ok=$?
  result "bench/quick@smp$smp" $((rc | ok)) "(exit $rc; $(tail -n 1 "$logs/$name.check"))" \
    "$logs/$name.log"
  [ $ok = 0 ] || sed 's/^/      check: /' "$logs/$name.check" | head -n 20
  booted "$name" release
  result "bench/quick@smp$smp ran the release image" $? "($(bootline $name))"
done

# bench.aa=yes: every suite with each b variant replaced by a copy of a. A suite that keeps
# state between runs keeps it per column (ctx->slot), so a variant and its copy each have their
# own: shared, the copy's setup would build over the original's (radix, pagecache) and leak.
name=bench-aa-smp2
boot "$name" 2 "bench=quick bench.aa=yes bench.secs=0.02 bench.runs=2"
rc=$?
has "$name" "^(\[ *[0-9.]+\] )?BENCH-AA suites=[1-9][0-9]* comparisons=[1-9][0-9]* false=[0-9]+\$" &&
  has "$name" "^(\[ *[0-9.]+\] )?LEAK-CHECK result=pass" && has "$name" "^(\[ *[0-9.]+\] )?END result=pass"
result "bench/aa@smp2" $((rc | $?)) "(exit $rc; $(grep -m 1 'BENCH-AA' "$logs/$name.log"))" \
  "$logs/$name.log"

echo "== gdb"
tests/gdb/smoke.sh 8 > "$logs/gdb-smoke.out" 2>&1
result "gdb/smoke@smp8" $? "($(grep -c FAIL "$logs/gdb-smoke.out") checks failed; $logs/gdb-smoke.out)"
for part in live step fail mm profile lockstat; do
  tests/gdb/session.sh $part > "$logs/gdb-session-$part.out" 2>&1
  result "gdb/session-$part@smp8" $? \
    "($(grep -c '^FAIL' "$logs/gdb-session-$part.out") checks failed; $logs/gdb-session-$part.out)"
done

echo "== done in $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
