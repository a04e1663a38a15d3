#!/bin/bash
# Host test of make seeds-real's reading of its boots (tools/seeds_real.py --logs,
# tools/seeds_data.py): canned logs of known rates give known REAL-SEED means and intervals,
# known REAL-SEED-CMP verdicts against the seeds' own rows, and planted faults (a failed run, a
# boot cut short, one round only) must be caught; tests/seeds/real.sh's rate parsers read the
# programs' real output, run here on the host.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_seeds_real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

# boot DIR ROUND SEED KERNEL VARIANT LINE...: one boot's log, timestamped as the console's.
boot() {
  local d=$1 f="$1/r$2-$3-$4-$5.log" t=5 kernel=$4
  shift 5
  mkdir -p "$d"
  printf '[    0.100000] BOOT cpus=2 possible=2 mem_mib=2047\n' > "$f"
  for l in "$@"; do
    printf '[ %4d.000000] %s\n' $t "$l" >> "$f"
    t=$((t + 1))
  done
  # This kernel ends its boot with its own verdict; Linux's /init powers off.
  [ "$kernel" = this ] && printf '[ %4d.000000] LEAK-CHECK result=pass pages=0 objects=0\n[ %4d.000000] END result=pass\n' $t $t >> "$f"
  return 0
}
# run SEED PROGRAM THREADS REP RATE [ALLOC]
run() { echo "SEEDRUN seed=$1 program=$2 threads=$3 rep=$4${6:+ alloc=$6} rate=$5 unit=x"; }
meta() { # meta DIR SMP SEEDS...
  local d=$1 smp=$2
  shift 2
  python3 -c 'import json, sys; json.dump({"smp": sys.argv[2], "seeds": sys.argv[3:],
    "line": "canned", "imitation": {}, "imitation_log": ""}, open(sys.argv[1], "w"))' \
    "$d/meta.json" "$smp" "$@"
}
reread() { # reread DIR OUT: tools/seeds_real.py --logs, its exit status in OUT.rc
  (cd "$root" && tools/seeds_real.py --logs "$1" --report "$tmp/report") > "$2" 2>&1
  echo $? > "$2.rc"
}
has() { grep -qxF -- "$1" "$2"; }

# Two rounds at 2 vCPUs. 003: free-rcu-ref 1.000 and 1.001 x free-now at 1 and 2 threads, each
# boot three runs whose mean is the boot's value. 001: free-wlock 2.00 and 2.02 x dontneed-wlock
# at 4 threads, free-rlock as free-wlock (same) there.
d=$tmp/good
for r in 0 1; do
  now=$((1000 + r * 100))
  boot "$d" $r 003 this free-now "$(run 003 fs_mark 1 1 $((now - 10)))" \
    "$(run 003 fs_mark 1 2 $now)" "$(run 003 fs_mark 1 3 $((now + 10)))" \
    "$(run 003 fs_mark 2 1 $((2 * now)))" "SEEDRUN-DONE seed=003 runs=4 failed=0"
  rcu=$(python3 -c "print(round($now * (1 + $r / 1000), 3))")
  boot "$d" $r 003 this free-rcu-ref "$(run 003 fs_mark 1 1 "$rcu")" \
    "$(run 003 fs_mark 2 1 "$(python3 -c "print(2 * $rcu)")")" "SEEDRUN-DONE seed=003 runs=2 failed=0"
  boot "$d" $r 003 linux linux "$(run 003 fs_mark 1 1 900)" "$(run 003 fs_mark 2 1 1700)" \
    "SEEDRUN-DONE seed=003 runs=2 failed=0"
  w=$((r ? 202 : 200))
  boot "$d" $r 001 this wlock "$(run 001 sysbench 4 1 100 dontneed)" "$(run 001 sysbench 4 1 $w free)" \
    "SEEDRUN-DONE seed=001 runs=2 failed=0"
  boot "$d" $r 001 this rlock "$(run 001 sysbench 4 1 100 dontneed)" "$(run 001 sysbench 4 1 $w free)" \
    "SEEDRUN-DONE seed=001 runs=2 failed=0"
  boot "$d" $r 001 linux linux "$(run 001 sysbench 4 1 150 dontneed)" "$(run 001 sysbench 4 1 160 free)" \
    "SEEDRUN-DONE seed=001 runs=2 failed=0"
done
meta "$d" 2 003 001
reread "$d" "$tmp/good.out"
out=$tmp/good.out
check "a good run exits 0" test "$(cat "$out.rc")" = 0
# free-now at 1 thread: boots of mean 1000 and 1100: mean 1050, half-width t(1) 12.706 x 50.
check "REAL-SEED mean and interval over the boots" has "REAL-SEED seed=003 program=fs_mark kernel=this variant=free-now threads=1 rounds=2 rate=1050.0 ci95=635.3 unit=files/s" "$out"
check "Linux's row is kernel=linux variant=linux" has "REAL-SEED seed=003 program=fs_mark kernel=linux variant=linux threads=2 rounds=2 rate=1700.0 ci95=0.0 unit=files/s" "$out"
check "001's Linux columns name the allocator" grep -q "^REAL-SEED seed=001 .*kernel=linux variant=linux-free threads=4 " "$out"
check "001's columns are allocator-lock" grep -q "^REAL-SEED seed=001 .*kernel=this variant=free-rlock threads=4 rounds=2 rate=201.0 " "$out"
check "fs_mark 1.000 and 1.001: same, as the seed; agrees" grep -q "^REAL-SEED-CMP seed=003 program=fs_mark a=free-rcu-ref b=free-now threads=1 ratio=1.000 ci95=0.0[0-9]* verdict=same seed_ratio=1.007 seed_verdict=same direction=agrees agrees=yes rounds=2 " "$out"
check "MADV_FREE 2.00 and 2.02 x at 4: faster, as the seed's 1.785" grep -q "^REAL-SEED-CMP seed=001 program=sysbench a=free-wlock b=dontneed-wlock threads=4 ratio=2.010 .* verdict=faster seed_ratio=1.785 seed_verdict=faster direction=agrees agrees=yes " "$out"
check "the read lock at 4: same here, same in the seed" grep -q "^REAL-SEED-CMP seed=001 program=sysbench a=free-rlock b=free-wlock threads=4 ratio=1.000 .* verdict=same seed_ratio=1.005 seed_verdict=same direction=agrees" "$out"
check "the headline pair at 4 is compared too" grep -q "^REAL-SEED-CMP seed=001 program=sysbench a=free-rlock b=dontneed-wlock threads=4 " "$out"
check "no comparison without both sides" sh -c "! grep -q 'REAL-SEED-CMP seed=001 .* threads=8 ' '$out'"
check "the tables are shaped as the seed's" has "| threads | free-now | free-rcu-ref | linux |" "$out"
check "the seed's own table follows" has "| mean of 100 | 39648.8 | 39916.7 |" "$out"
check "the report is written" grep -q "^## Seed 001" "$tmp/report/seeds-real.md"

# The seed's row for 000 is the same share of its 8 CPUs: 2 clients on 4 vCPUs read row 4.
check "000 at 4 vCPUs, 2 clients: the seed's row 4" python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import seeds_data as s
assert s.seed_row("000", 2, 4) == 4 and s.seed_row("000", 10, 8) == 10
assert s.seed_row("000", 40, 8) is None and s.seed_row("001", 3, 8) is None
assert s.counts("000", 8) == [1, 2, 4, 8, 12, 16, 20] and s.counts("003", 8) == [1, 2, 4, 8]
assert s.counts("000", 2) == [1, 2, 3, 4, 5]' "$root/tools"

# The boot suite's BENCH-SEED beside the real comparison of the same pair: ramfs's free-rcu is
# walked by reference, so it is set beside free-rcu-ref, not free-rcu.
check "the imitation's line is read beside the matching real comparison" python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import seeds_data as s
c = {"a": "free-rcu-ref", "b": "free-now", "threads": 1, "ratio": 1.5, "lo": 1.2, "hi": 1.9,
     "verdict": "faster"}
t, real = s.imitation_row("003", "BENCH-SEED suite=ramfs a=free-rcu b=free-now threads=1 "
    "seed_ratio=1.007 seed_verdict=same ratio=0.959 ci95=0.020 verdict=slower", [c])
assert real is c and "imitation 0.959" in t and "real program 1.500 [1.200, 1.900] (faster)" in t, t
t, real = s.imitation_row("000", "BENCH-SEED suite=dbench a=radix-lock b=hash-global "
    "fanout_a=128 threads=8 ratio=1.040 ci95=0.06 verdict=inconclusive", [])
assert real is None and t.startswith("radix-lock/128 / hash-global at 8"), t' "$root/tools"

# Planted faults: each must make the run fail, and say which boot.
planted() { # planted NAME FILE SED WANT
  rm -rf "$tmp/$1" && cp -r "$d" "$tmp/$1"
  sed -i "$3" "$tmp/$1/$2"
  reread "$tmp/$1" "$tmp/$1.out"
  check "planted $1: fails" test "$(cat "$tmp/$1.out.rc")" != 0
  check "planted $1: says '$4'" grep -qF -- "$4" "$tmp/$1.out"
}
planted runfail r1-001-this-rlock.log 's/runs=2 failed=0/runs=2 failed=1/' \
  "seeds-real: FAILED boot r1-001-this-rlock.log: 1 of 2 runs failed"
planted cut r0-003-this-free-now.log '/SEEDRUN-DONE/d' \
  "seeds-real: FAILED boot r0-003-this-free-now.log: no SEEDRUN-DONE"
planted leak r1-003-this-free-rcu-ref.log 's/LEAK-CHECK result=pass pages=0 objects=0/LEAK-CHECK result=fail pages=1 objects=2/; s/END result=pass/END result=fail/' \
  "seeds-real: FAILED boot r1-003-this-free-rcu-ref.log: no END result=pass (LEAK-CHECK result=fail pages=1 objects=2)"
# A failed boot leaves its round out of that variant's points, not the others'.
check "planted cut: the other rounds still reported" grep -q "^REAL-SEED seed=003 .*variant=free-now threads=1 rounds=1 rate=1100.0 " "$tmp/cut.out"

# Two runs read as one: their rounds in turn (a third round here from the first run's first).
two=$tmp/two
mkdir -p "$two" && cp "$d"/r0-* "$d/meta.json" "$two"
reread "$d,$two" "$tmp/two.out"
check "two runs as one: exit 0" test "$(cat "$tmp/two.out.rc")" = 0
check "two runs as one: three rounds" grep -q "^REAL-SEED seed=003 .*variant=free-now threads=1 rounds=3 rate=1033.3 " "$tmp/two.out"

# One round has no interval: inconclusive, direction unknown, never a verdict.
one=$tmp/one
mkdir -p "$one" && cp "$d"/r0-* "$one" && cp "$d/meta.json" "$one"
reread "$one" "$tmp/one.out"
check "one round: exit 0" test "$(cat "$tmp/one.out.rc")" = 0
check "one round: inconclusive, direction unknown" grep -q "^REAL-SEED-CMP seed=001 program=sysbench a=free-wlock b=dontneed-wlock threads=4 ratio=2.000 ci95=n/a verdict=inconclusive .* direction=unknown agrees=n/a rounds=1 " "$tmp/one.out"

# --counts (make's COUNTS=): a subset of each seed's sweep; a word that is not a count, or a
# subset a seed has none of, stops before anything is built or booted.
check "--counts 1,2,16 at 8 vCPUs: 001 and 000 keep those" python3 -c '
import sys; sys.path.insert(0, "'"$root"'/tools"); import seeds_real as r
o = r.options(["--smp", "8", "--counts", "1,2,16"])
assert r.seed_counts(o, "001") == [1, 2, 16] and r.seed_counts(o, "000") == [1, 2, 16], o'
(cd "$root" && tools/seeds_real.py --smp 2 --seeds 003 --counts 4) > "$tmp/counts.out" 2>&1
check "--counts 4 at 2 vCPUs: 003 has none, said" grep -q "none of seed 003's counts at 2 vCPUs (1,2)" "$tmp/counts.out"
(cd "$root" && tools/seeds_real.py --counts 1,x) > "$tmp/counts2.out" 2>&1
check "--counts 1,x: refused" grep -q "a comma list of client or thread counts" "$tmp/counts2.out"

# tests/seeds/real.sh's parsers on the programs' own output, run on the host: each program's
# rate must be found, a positive number.
if command -v dbench > /dev/null && command -v fs_mark > /dev/null; then
  sed -e "s#^FSMARK_FILES=.*#FSMARK_FILES=500#" -e "s#/seeds/txn.lua#$root/tests/seeds/txn.lua#" \
    "$root/tests/seeds/real.sh" > "$tmp/real.sh"
  sh "$tmp/real.sh" "$tmp/work" 003 1 1 1,2 > "$tmp/fsmark.out" 2>&1
  check "real.sh: fs_mark's rate read" grep -qE '^SEEDRUN seed=003 program=fs_mark threads=2 rep=1 rate=[0-9.]+ unit=files/s$' "$tmp/fsmark.out"
  sh "$tmp/real.sh" "$tmp/work" 000 2 1 1 > "$tmp/dbench.out" 2>&1
  check "real.sh: dbench's rate read, not 0" grep -qE '^SEEDRUN seed=000 program=dbench threads=1 rep=1 rate=[0-9.]*[1-9][0-9.]* unit=MB/s$' "$tmp/dbench.out"
  check "real.sh: SEEDRUN-DONE with no failure" grep -qx 'SEEDRUN-DONE seed=000 runs=1 failed=0' "$tmp/dbench.out"
  # Planted: a program that prints no rate is a failed run, with its output.
  sed 's#/usr/bin/dbench -c#/bin/echo -c#' "$tmp/real.sh" > "$tmp/planted.sh"
  sh "$tmp/planted.sh" "$tmp/work" 000 1 1 1 > "$tmp/planted.out" 2>&1
  check "planted no-rate: real.sh fails" test $? != 0
  check "planted no-rate: named" grep -q '^SEEDRUN-FAIL seed=000 program=dbench threads=1 rep=1 why=no-rate' "$tmp/planted.out"
  # dbench -t 1 says "Throughput 0 MB/sec": a run that measured nothing fails.
  sh "$tmp/real.sh" "$tmp/work" 000 1 1 1 > "$tmp/zero.out" 2>&1
  check "planted zero-rate: real.sh fails" test $? != 0
  check "planted zero-rate: named" grep -q '^SEEDRUN-FAIL seed=000 program=dbench threads=1 rep=1 why=zero-rate' "$tmp/zero.out"
fi
if command -v sysbench > /dev/null && [ -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ]; then
  sh "$tmp/real.sh" "$tmp/work" 001 1 1 2 dontneed,free > "$tmp/sysbench.out" 2>&1
  check "real.sh: sysbench's rate read, both allocators" test "$(grep -cE '^SEEDRUN seed=001 program=sysbench threads=2 rep=1 alloc=(dontneed|free) rate=[0-9.]+ unit=tps$' "$tmp/sysbench.out")" = 2
fi
check_summary
