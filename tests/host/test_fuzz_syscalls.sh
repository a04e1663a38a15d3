#!/bin/bash
# Host test: the verdict of make fuzz-syscalls (tools/fuzz_syscalls.sh --check-log), proven on
# a clean log and on planted copies of it, each of which must fail for its own reason.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rc=0

# A clean run's lines, as a 60-second run at 2 vCPUs printed them (timestamps as printk's).
cat > "$tmp/clean.log" <<'LOG'
[    1.912001] init: /test/bin/sysfuzz: a file, 941232 bytes
[    2.473920] sysfuzz: seed=7 procs=4 threads=4 secs=60
sysfuzz: calls=273515 distinct_calls=126 of 126 errnos=426 child_signals=6 workers_started=162 workers_died=141 watchdog_kills=0 pokes=6680 grandchildren=281 secs=60.0
sysfuzz: workers killed by signal 9: 5
[   64.102311] init: /test/bin/sysfuzz exited with status 0
[   64.500112] LEAK-CHECK result=pass pages=0 objects=0
[   64.500999] END result=pass
LOG

# expect NAME WANT REASON: the verdict on $tmp/NAME.log is WANT (PASS or FAIL) and a FAIL
# names REASON.
expect() {
  local out
  out=$(tools/fuzz_syscalls.sh --check-log "$tmp/$1.log" 2>&1 | tail -n 1)
  case $2 in
    PASS) [[ $out == "fuzz-syscalls: PASS seed=7 "* ]] ;;
    FAIL) [[ $out == "fuzz-syscalls: FAIL ("*"$3"* ]] ;;
  esac
  if [ $? -eq 0 ]; then
    echo "PASS  fuzz-syscalls/verdict $1"
  else
    echo "FAIL  fuzz-syscalls/verdict $1: wanted $2 $3, got: $out"; rc=1
  fi
}

# plant NAME SED: a copy of the clean log edited by SED.
plant() { sed -E "$2" "$tmp/clean.log" > "$tmp/$1.log"; }

expect clean PASS
plant no-end '/END result=pass/d';                                  expect no-end FAIL no-END-pass
plant end-fail 's/END result=pass/END result=fail/';                expect end-fail FAIL no-END-pass
plant leak 's/LEAK-CHECK result=pass pages=0/LEAK-CHECK result=fail pages=3/'
expect leak FAIL no-LEAK-CHECK-pass
plant lockdep '/init: .* exited/i [   60.1] LOCKDEP kind=inversion lock=a held=b cpu=1'
expect lockdep FAIL LOCKDEP
plant panic '/init: .* exited/i [   60.1] PANIC cpu=2 page fault'; expect panic FAIL PANIC
plant no-summary '/sysfuzz: calls=/d';                              expect no-summary FAIL no-summary
plant unreached 's/distinct_calls=126 of 126/distinct_calls=97 of 126/'
expect unreached FAIL reached-97-of-126
plant idle 's/calls=273515 /calls=11000 /';                         expect idle FAIL only-11000-calls
# A boot that ran trinity after sysfuzz (init=/bin/sh -- /fuzz.sh): its summary and calls too.
trin() { sed -E "1i [    0.000000] kernel: booted by GRUB 2.06, command line 'bench=none init=/bin/sh -- /fuzz.sh 30 30 7 8', image debug" "$tmp/clean.log"; }
trin | sed -E '/LEAK-CHECK/i [   60.2] [main] Ran 3463 syscalls. Successes: 1201  Failures: 2262\n[   60.3] read: (attempted:12. success:3. failures:9.' > "$tmp/trinity.log"
expect trinity PASS
trin > "$tmp/trinity-no-summary.log";                               expect trinity-no-summary FAIL no-trinity-summary
sed '/attempted:/d' "$tmp/trinity.log" > "$tmp/trinity-idle.log";   expect trinity-idle FAIL no-trinity-calls
exit $rc
