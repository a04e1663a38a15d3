#!/bin/bash
# make fuzz-syscalls SMP=n SECS=s [SEED=x]: one boot of the debug image (lockdep on) running
# /test/bin/sysfuzz, then Debian's trinity (tools/fetch_trinity.sh), half of s seconds each;
# PASS only on END and LEAK-CHECK pass, no LOCKDEP, no PANIC, and each fuzzer's summary.
# Without trinity (no apt, no network) sysfuzz runs the whole time, and the run says so.
set -u
smp=8 secs=600 seed="" mem=1G accel="" procs="" threads="" calls="" trinity=yes
while [ $# -gt 0 ]; do
  case $1 in
    --smp) smp=$2; shift ;;
    --secs) secs=$2; shift ;;
    --seed) seed=$2; shift ;;
    --mem) mem=$2; shift ;;
    --accel) accel=$2; shift ;;
    --procs) procs=$2; shift ;;
    --threads) threads=$2; shift ;;
    --calls) calls=$2; shift ;;   # a comma list of the table's names: to narrow a finding down
    --no-trinity) trinity=no ;;   # sysfuzz alone, all the time
    *) echo "fuzz_syscalls.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
case $secs in ''|*[!0-9]*) echo "fuzz_syscalls.sh: SECS=$secs: whole seconds, 1 or more" >&2; exit 2 ;; esac
[ "$secs" -ge 1 ] || { echo "fuzz_syscalls.sh: SECS must be 1 or more" >&2; exit 2; }
# Unset, the seed is the date and time (UTC), printed so that the run can be made again.
[ -n "$seed" ] || seed=$(date -u +%Y%m%d%H%M%S)
case $seed in *[!0-9]*) echo "fuzz_syscalls.sh: SEED=$seed: a decimal number" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/logs/fuzz-syscalls-smp$smp-$seed-$(date +%Y%m%d-%H%M%S).log
# trinity, fetched and packed once (build/trinity/); a run with CALLS= narrows sysfuzz alone.
archive=""
# Its init is the initramfs's /bin/sh: busybox, absent when built with BUSYBOX= (empty).
bb=$(sed -n 's/^BUSYBOX=//p' "$top/build/busybox" 2>/dev/null)
if [ "$trinity" = yes ] && [ -z "$calls" ] && [ "$secs" -ge 2 ] && [ -z "$bb" ]; then
  echo "fuzz-syscalls: trinity skipped (no /bin/sh in the initramfs: built with BUSYBOX= empty): sysfuzz alone"
elif [ "$trinity" = yes ] && [ -z "$calls" ] && [ "$secs" -ge 2 ]; then
  if out=$("$top/tools/fetch_trinity.sh" 2>&1); then
    archive=$(printf '%s\n' "$out" | tail -n 1)
    printf '%s\n' "$out" | grep '^TRINITY '
  else
    echo "fuzz-syscalls: trinity skipped ($(printf '%s\n' "$out" | tr '\n' ' ')): sysfuzz alone"
  fi
fi
sargs="${procs:+ --procs $procs}${threads:+ --threads $threads}${calls:+ --calls $calls}"
if [ -n "$archive" ]; then
  # Half each; trinity's children: one per vCPU (each forks a lot: dup_mm is slow under TCG).
  ssecs=$((secs / 2)) tsecs=$((secs - secs / 2))
  cmdline="bench=none init=/bin/sh -- /fuzz.sh $ssecs $tsecs $seed $smp$sargs"
  initrd=(--initrd "$archive")
else
  ssecs=$secs tsecs=0
  cmdline="bench=none init=/test/bin/sysfuzz -- --secs $secs --seed $seed$sargs"
  initrd=()
fi
# The boot and the debug image's checks before init= take about a minute under TCG on a busy
# machine; the workers' drain, the reaping and the leak check seconds more; trinity's end
# after SIGINT up to 60 s (tools/fuzz_init.sh). Twice the time plus 360 s leaves room for a
# loaded host; past it qemu.sh's NMI dump shows where it hung.
timeout=$((secs * 2 + 360))
echo "fuzz-syscalls: seed=$seed $smp vCPUs, $secs s (sysfuzz ${ssecs}s, trinity ${tsecs}s), time-out ${timeout}s, log $log"
echo "fuzz-syscalls: again with: make fuzz-syscalls SMP=$smp SECS=$secs SEED=$seed${calls:+ CALLS=$calls}"
"$top/tools/qemu.sh" --smp "$smp" --mem "$mem" --accel "$accel" --timeout "$timeout" \
  --image debug --log "$log" "${initrd[@]}" --cmdline "$cmdline" >/dev/null
rc=$?
# The fuzzers' own lines, without the printk timestamp: sysfuzz's start, summary and per-call
# table; trinity's seed, summary ("Ran N syscalls") and the calls it made (--stats: one
# "name: (attempted:N. success:S. failures:F." line per call it tried).
strip() { sed -E 's/^\[ *[0-9.]+\] //'; }
grep -aE '^(\[ *[0-9.]+\] )?sysfuzz: (seed=|calls=|call=|workers killed|FAILED|done)' "$log" | strip
grep -aE '^(\[ *[0-9.]+\] )?(fuzz-init: |\[main\] (Using user passed random seed|Ran [0-9]+ syscalls|Bailing))' "$log" | strip
fail=""
grep -aqE '^(\[ *[0-9.]+\] )?END result=pass$' "$log" || fail="$fail no-END-pass"
grep -aqE '^(\[ *[0-9.]+\] )?LEAK-CHECK result=pass' "$log" || fail="$fail no-LEAK-CHECK-pass"
grep -aqE '^(\[ *[0-9.]+\] )?LOCKDEP kind=' "$log" && fail="$fail LOCKDEP"
grep -aqE '^(\[ *[0-9.]+\] )?PANIC' "$log" && fail="$fail PANIC"
grep -aqE '^(\[ *[0-9.]+\] )?sysfuzz: calls=' "$log" || fail="$fail no-summary"
if [ -n "$archive" ]; then
  tcalls=$(grep -aE '^(\[ *[0-9.]+\] )?[a-z0-9_]+: \(attempted:[1-9]' "$log" | strip | cut -d: -f1 | sort -u | wc -l)
  echo "trinity: $tcalls distinct calls attempted of $(sed -n 's/.*calls=//p' <<< "$out" | head -n 1)"
  grep -aqE '^(\[ *[0-9.]+\] )?\[main\] Ran [0-9]+ syscalls' "$log" || fail="$fail no-trinity-summary"
  [ "$tcalls" -gt 0 ] || fail="$fail no-trinity-calls"
fi
[ $rc -eq 0 ] || fail="$fail qemu-status-$rc"
# The kernel's verdict lines, for whoever reads the failure.
grep -aE '^(\[ *[0-9.]+\] )?(LEAK-CHECK|LOCKDEP|PANIC|END|init: /test/bin/sysfuzz|init: /bin/sh)' "$log" | strip
if [ -n "$fail" ]; then
  echo "fuzz-syscalls: FAIL ($fail ) seed=$seed log $log"
  exit 1
fi
echo "fuzz-syscalls: PASS seed=$seed log $log"
