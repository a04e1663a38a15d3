#!/bin/bash
# make fuzz-syscalls SMP=n SECS=s [SEED=x]: one boot of the debug image (lockdep on) running
# /test/bin/sysfuzz, then Debian's trinity (tools/fetch_trinity.sh), half of s seconds each;
# PASS only on END and LEAK-CHECK pass, no LOCKDEP, no PANIC, and each fuzzer's summary.
# Without trinity (no apt, no network) sysfuzz runs the whole time, and the run says so.
set -u
smp=8 secs=600 seed="" mem=1G accel="" procs="" threads="" calls="" check_log="" log="" cover=no
trinity=yes
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
    --log) log=$2; shift ;;        # the serial log's path (default: build/logs/, named by seed)
    --cover) cover=yes ;;          # kernel coverage by QEMU's TCG (tools/cover/tbcover.c)
    --no-trinity) trinity=no ;;    # sysfuzz alone, all the time
    --check-log) check_log=$2; shift ;;   # no boot: the verdict on a log already written
    *) echo "fuzz_syscalls.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
strip() { sed -E 's/^\[ *[0-9.]+\] //'; }   # the printk timestamp

# verdict LOG RC: the run's lines and its verdict; exit status 0 only for a clean pass. A
# separate function so that tests/host/test_fuzz_syscalls.sh proves it on planted logs.
verdict() {
  local log=$1 rc=$2 fail=""
  # The fuzzer's own lines, without the printk timestamp: its start, summary and per-call table.
  # trinity's seed, summary ("Ran N syscalls") and the calls it made (--stats: one
  # "name: (attempted:N. success:S. failures:F." line per call it tried).
  grep -aE '^(\[ *[0-9.]+\] )?sysfuzz: (seed=|calls=|call=|workers killed|FAILED|done)' "$log" | strip
  grep -aE '^(\[ *[0-9.]+\] )?(fuzz-init: |\[main\] (Using user passed random seed|Ran [0-9]+ syscalls|Bailing))' "$log" | strip
  grep -aqE '^(\[ *[0-9.]+\] )?END result=pass$' "$log" || fail="$fail no-END-pass"
  grep -aqE '^(\[ *[0-9.]+\] )?LEAK-CHECK result=pass' "$log" || fail="$fail no-LEAK-CHECK-pass"
  grep -aqE '^(\[ *[0-9.]+\] )?LOCKDEP kind=' "$log" && fail="$fail LOCKDEP"
  grep -aqE '^(\[ *[0-9.]+\] )?PANIC' "$log" && fail="$fail PANIC"
  # Enough work for the verdict to mean something: every call of the table reached, and at
  # least 200 calls a second (a 2-vCPU run makes over 4,000; a boot that fuzzed almost
  # nothing passes nothing).
  local sum want made reached of
  sum=$(grep -aoE 'sysfuzz: calls=[0-9]+ distinct_calls=[0-9]+ of [0-9]+' "$log" | head -n 1)
  want=$(grep -aoE 'sysfuzz: seed=[0-9]+ .*secs=[0-9]+' "$log" | head -n 1 | sed -E 's/.*secs=//')
  if [ -z "$sum" ] || [ -z "$want" ]; then
    fail="$fail no-summary"
  else
    read -r made reached of < <(sed -E 's/.*calls=([0-9]+) distinct_calls=([0-9]+) of ([0-9]+)/\1 \2 \3/' <<< "$sum")
    [ "$reached" -eq "$of" ] || fail="$fail reached-$reached-of-$of-calls"
    [ "$made" -ge $((want * 200)) ] || fail="$fail only-$made-calls-in-${want}s"
  fi
  # trinity, when the boot ran it (init=/bin/sh -- /fuzz.sh: tools/fuzz_init.sh): its summary
  # and at least one call it attempted.
  if grep -aqE "command line '[^']*init=/bin/sh -- /fuzz.sh" "$log"; then
    local tcalls
    tcalls=$(grep -aE '^(\[ *[0-9.]+\] )?[a-z0-9_]+: \(attempted:[1-9]' "$log" | strip | cut -d: -f1 | sort -u | wc -l)
    echo "trinity: $tcalls distinct calls attempted${tgiven:+ of $tgiven}"
    grep -aqE '^(\[ *[0-9.]+\] )?\[main\] Ran [0-9]+ syscalls' "$log" || fail="$fail no-trinity-summary"
    [ "$tcalls" -gt 0 ] || fail="$fail no-trinity-calls"
  fi
  [ "$rc" -eq 0 ] || fail="$fail qemu-status-$rc"
  # The kernel's verdict lines, for whoever reads the failure.
  grep -aE '^(\[ *[0-9.]+\] )?(LEAK-CHECK|LOCKDEP|PANIC|END|init: /test/bin/sysfuzz|init: /bin/sh)' "$log" | strip
  if [ -n "$fail" ]; then
    echo "fuzz-syscalls: FAIL ($fail ) seed=$seed log $log"
    exit 1
  fi
  echo "fuzz-syscalls: PASS seed=$seed log $log"
}

if [ -n "$check_log" ]; then
  [ -r "$check_log" ] || { echo "fuzz_syscalls.sh: cannot read $check_log" >&2; exit 2; }
  seed=$(grep -aoE 'sysfuzz: seed=[0-9]+' "$check_log" | head -n 1 | cut -d= -f2)
  tgiven=""
  verdict "$check_log" 0
  exit
fi
case $secs in ''|*[!0-9]*) echo "fuzz_syscalls.sh: SECS=$secs: whole seconds, 1 or more" >&2; exit 2 ;; esac
[ "$secs" -ge 1 ] || { echo "fuzz_syscalls.sh: SECS must be 1 or more" >&2; exit 2; }
# Unset, the seed is the date and time (UTC), printed so that the run can be made again.
[ -n "$seed" ] || seed=$(date -u +%Y%m%d%H%M%S)
case $seed in *[!0-9]*) echo "fuzz_syscalls.sh: SEED=$seed: a decimal number" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$log" ] || log=$top/build/logs/fuzz-syscalls-smp$smp-$seed-$(date +%Y%m%d-%H%M%S).log
# trinity, fetched and packed once (build/trinity/); a run with CALLS= narrows sysfuzz alone.
archive="" tgiven=""
# Its init is the initramfs's /bin/sh: busybox, absent when built with BUSYBOX= (empty).
bb=$(sed -n 's/^BUSYBOX=//p' "$top/build/busybox" 2>/dev/null)
if [ "$trinity" = yes ] && [ -z "$calls" ] && [ "$secs" -ge 2 ] && [ -z "$bb" ]; then
  echo "fuzz-syscalls: trinity skipped (no /bin/sh in the initramfs: built with BUSYBOX= empty): sysfuzz alone"
elif [ "$trinity" = yes ] && [ -z "$calls" ] && [ "$secs" -ge 2 ]; then
  if out=$("$top/tools/fetch_trinity.sh" 2>&1); then
    archive=$(printf '%s\n' "$out" | tail -n 1)
    printf '%s\n' "$out" | grep '^TRINITY '
    tgiven=$(sed -n 's/.*calls=//p' <<< "$out" | head -n 1)
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
plugin=()
if [ $cover = yes ]; then
  [ -f "$top/build/tools/tbcover.so" ] || { echo "fuzz_syscalls.sh: no build/tools/tbcover.so: make fuzz-syscalls COVER=1 builds it" >&2; exit 2; }
  plugin=(--plugin "$top/build/tools/tbcover.so,out=$log.cover")
fi
"$top/tools/qemu.sh" --smp "$smp" --mem "$mem" --accel "$accel" --timeout "$timeout" \
  --image debug --log "$log" "${initrd[@]}" --cmdline "$cmdline" "${plugin[@]}" >/dev/null
rc=$?
# Coverage: the functions of each directory whose code ran during the boot, and the system
# calls of the table never entered (tools/cover_report.py); the list of blocks is $log.cover.
[ $cover = yes ] && "$top/tools/cover_report.py" "$top/build/debug/kernel.elf" "$log.cover" \
  --table "$top/kernel/syscall.c"
verdict "$log" $rc
