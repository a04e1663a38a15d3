#!/bin/bash
# make torture SMP=n SECS=s: one boot running every torture and stress self-test for s seconds
# each (torture.secs=), with QEMU's time-out derived from s; like Linux's kvm.sh --duration.
set -u
smp=8 secs="" mem=1G accel=""
while [ $# -gt 0 ]; do
  case $1 in
    --smp) smp=$2; shift ;;
    --secs) secs=$2; shift ;;
    --mem) mem=$2; shift ;;
    --accel) accel=$2; shift ;;
    *) echo "torture.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# The tests that run for torture.secs, then the madvise checks, which do a fixed amount of
# work on every CPU whatever the duration.
tests=rcutorture,locktorture-ticket,locktorture-queued,locktorture-tas,locktorture-spinlock
tests=$tests,locktorture-rwlock,locktorture-mutex,locktorture-rwsem,ramfs-stress,pagecache-race
tests=$tests,rcu-walk-unlink,rcu-walk-rename,brlock-writer,tlb-shootdown,madvise-dontneed,madvise-free,madvise-suite
timed=15
# The kernel's own rule (kernel/lib/cmdline.c): digits, optionally '.' and 1 to 6 more.
if ! [[ $secs =~ ^[0-9]+(\.[0-9]{1,6})?$ ]] ||
   ! awk -v s="$secs" 'BEGIN { exit !(s >= 0.1 && s <= 86400) }'; then
  echo "torture.sh: SECS=$secs: seconds from 0.1 to 86400, such as 30 or 0.5" >&2
  exit 2
fi
# Each timed test may run up to 3 times its duration (TORTURE_CAP, tests/kernel/torture.h), the
# seven locktortures 10 times (LOCK_CAP, tests/kernel/locktorture.c), to meet their work floors;
# 600 s more cover the boot, the fixed tests and the threads' drain (a fair lock's waiters each
# take it once more after the stop: seconds at 64 vCPUs).
timeout=$(awk -v s="$secs" -v n=$timed 'BEGIN { printf "%d", ((n - 7) * 3 + 7 * 10) * s + 600 }')
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/logs/torture-smp$smp-$(date +%Y%m%d-%H%M%S).log
echo "torture: $smp vCPUs, torture.secs=$secs, time-out ${timeout}s, log $log"
"$top/tools/qemu.sh" --smp "$smp" --mem "$mem" --accel "$accel" --timeout "$timeout" \
  --image debug --log "$log" --cmdline "bench=none torture.secs=$secs selftest=$tests"
rc=$?
# The kernel's summary line, last, as make test ends with its own.
grep -hE '^(\[ *[0-9.]+\] )?selftest: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 |
  sed -E 's/^\[ *[0-9.]+\] //'
# Every test named must have run and passed: a selftest= word the kernel ignored (longer than
# CMDLINE_WORD_MAX, include/cmdline.h) runs none and prints no summary at all.
all=$(echo "$tests" | tr ',' '\n' | wc -l)
grep -qE "selftest: $all passed, 0 failed" "$log" || rc=1
exit $rc
