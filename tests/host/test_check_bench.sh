#!/bin/bash
# Host test of tests/bench/check_bench.py: the sample logs of tests/host/data/ pass, and each
# check of BENCH-SKIP, BENCH-SEED, BENCH-AA, calib, the verdict rule, BENCH-RUNS, PROFILE and
# LOCKSTAT fails a log broken for it.
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/tests/bench/check_bench.py
data=$root/tests/host/data
quick=$data/bench-quick-smp2.log   # bench=quick at 2 CPUs: seeds, one BENCH-SKIP, calib
aa=$data/bench-aa-smp2.log         # bench=quick,locks,ramfs,calib bench.aa=yes at 2 CPUs
old=$data/bench-old-locks-smp2.log # a real bench=locks,quick log from before BENCH-SEED
full=$data/bench-full-smp8.log     # a default boot at 8 CPUs (its machine lines): suites' own runs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_check_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() {
  passed=$((passed + 1))
}

fail() {
  failed=$((failed + 1))
  echo "test_check_bench: check failed: $1" >&2
  [ -f "$tmp/out" ] && sed 's/^/    /' "$tmp/out" >&2
}

# The CPU count and flags the cases give check_bench: the quick samples' until the full one's.
args=(2 --quick)

# good DESCRIPTION LOG: check_bench exits 0 on LOG with no problem.
good() {
  "$check" "$2" "${args[@]}" > "$tmp/out" 2>&1
  if [ $? -eq 0 ] && grep -q ', 0 problems$' "$tmp/out"; then ok; else fail "$1 passes"; fi
}

# bad DESCRIPTION LOG PATTERN: check_bench exits 1 on LOG and names the problem (grep -E).
bad() {
  "$check" "$2" "${args[@]}" > "$tmp/out" 2>&1
  local rc=$?
  if [ $rc -eq 1 ] && grep -Eq "^check_bench: (line [0-9]+: )?$3" "$tmp/out"; then
    ok
  else
    fail "$1 is caught (exit $rc, wanted a line matching: $3)"
  fi
}

# edit LOG SED-SCRIPT: a copy of LOG edited by sed -E; prints its path. Every edit must
# change the log, or the case would prove nothing: one that does not is noted in
# $tmp/unchanged (edit runs in a subshell, which cannot count it itself).
edit() {
  local out
  out=$(mktemp "$tmp/edit.XXXXXX")
  sed -E "$2" "$1" > "$out"
  cmp -s "$1" "$out" && echo "edit '$2'" >> "$tmp/unchanged"
  echo "$out"
}

# move LOG FROM TO: a copy of LOG with the first line matching FROM moved to just after the
# first line matching TO (both grep -E patterns); prints its path.
move() {
  local out
  out=$(mktemp "$tmp/edit.XXXXXX")
  awk -v from="$2" -v to="$3" '
    !moved && $0 ~ from { held = $0; moved = 1; next }
    { lines[++k] = $0 }
    END { for(i = 1; i <= k; i++) { print lines[i]; if(!put && lines[i] ~ to) { print held; put = 1 } } }
  ' "$1" > "$out"
  cmp -s "$1" "$out" && echo "move '$2'" >> "$tmp/unchanged"
  echo "$out"
}

good "the bench=quick sample" "$quick"
check_out() { grep -q "$1" "$tmp/out" && ok || fail "$2"; }
"$check" "$quick" 2 --quick > "$tmp/out" 2>&1
check_out '60 points and 1 skipped in 9 suites' "the quick sample's points and skip are counted"
check_out ', 4 seed lines, 0 problems$' "the quick sample's seed lines are counted"
check_out '^check_bench: note: calib: plus10 vs base at 2 threads: inconclusive' "plus10's verdict is reported"
good "the A/A sample" "$aa"
"$check" "$aa" 2 --quick > "$tmp/out" 2>&1
check_out '^check_bench: note: A/A: 1 of 12 comparisons false (faster or slower), 11 inconclusive; 1 of 3 families false$' \
  "the A/A false verdicts are reported"
good "a log from before BENCH-SEED and BENCH-SKIP" "$old"
good "an A/A BENCH-SUITE line that names no copy" "$(edit "$aa" 's/,(queued|tas|plus10|plus25|free-rcu)~aa//g')"
good "plus10 not told from base" \
  "$(edit "$quick" 's/(a=plus10 b=base threads=1) ratio=0.914 ci95=0.073 verdict=slower/\1 ratio=0.914 ci95=0.100 verdict=inconclusive/')"
good "madvise's seed at the largest quick count below the CPUs" \
  "$(edit "$quick" '/a=free-rlock b=dontneed-wlock threads=1 /{p;s/BENCH-CMP (.*) verdict=faster/BENCH-SEED \1 verdict=faster seed_ratio=2.087 seed_verdict=faster direction=agrees magnitude=below/}')"

# BENCH-SKIP: replaces a point; a point neither measured nor skipped is missing.
bad "a point neither measured nor skipped" "$(edit "$quick" '/BENCH-SKIP/d')" \
  "dbench: point \('radix-lock', 16, 4\) missing"
bad "a point measured and skipped" \
  "$(edit "$quick" '/BENCH suite=dbench variant=hash-global threads=4 /{p;s/BENCH .*/BENCH-SKIP suite=dbench variant=hash-global threads=4 reason=enomem/}')" \
  "dbench \('hash-global', None, 4\) measured or skipped twice"
bad "a skipped point outside the sweep" "$(edit "$quick" 's/(BENCH-SKIP .*) threads=4/\1 threads=3/')" \
  "dbench: point \('radix-lock', 16, 3\) not in the quick set"
bad "a BENCH-SKIP without a reason" "$(edit "$quick" 's/(BENCH-SKIP .*) reason=enomem/\1/')" \
  "BENCH-SKIP reason=None is not a word"
bad "a comparison of a skipped point" \
  "$(edit "$quick" '/a=radix-lock b=hash-global fanout_a=16 threads=2 /{p;s/threads=2/threads=4/}')" \
  "BENCH-CMP a=radix-lock fanout=16 threads=4: no such point"

# BENCH-SEED: one per headline, a copy of its BENCH-CMP line, after its suite's table.
bad "a headline without BENCH-SEED" "$(edit "$quick" '/BENCH-SEED suite=pagecache/d')" \
  "pagecache: no BENCH-SEED line for the headline radix-rcu/64 vs hash-global at 4 threads"
f=$(edit "$quick" '/BENCH-CMP suite=pagecache a=radix-rcu b=hash-global fanout_a=64 threads=4 /d')
bad "a headline without BENCH-CMP" "$f" \
  "pagecache: no BENCH-CMP line for the headline radix-rcu/64 vs hash-global at 4 threads"
bad "a BENCH-SEED without BENCH-CMP" "$f" "BENCH-SEED without its BENCH-CMP line"
bad "a BENCH-SEED ratio not copied" "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) ratio=3.595/\1 ratio=3.594/')" \
  "BENCH-SEED ratio=3.594, but line [0-9]+ has 3.595"
bad "a BENCH-SEED ci95 not copied" "$(edit "$quick" 's/(BENCH-SEED suite=webserve.*) ci95=0.110/\1 ci95=0.111/')" \
  "BENCH-SEED ci95=0.111, but line [0-9]+ has 0.110"
bad "a BENCH-SEED verdict not copied" \
  "$(edit "$quick" 's/(BENCH-SEED suite=dbench.*) ci95=0.079 verdict=inconclusive direction=unknown magnitude=inside/\1 ci95=0.020 verdict=faster direction=differs magnitude=below/')" \
  "BENCH-SEED verdict=faster, but line [0-9]+ has inconclusive"
# direction= is the verdict against the seed's (unknown when inconclusive), magnitude= the
# seed's ratio against the interval: both from the line's own fields.
bad "direction=agrees with an inconclusive verdict" \
  "$(edit "$quick" 's/(BENCH-SEED suite=ramfs.*) direction=unknown/\1 direction=agrees/')" \
  "direction=agrees, but verdict=inconclusive and seed_verdict=slower say unknown"
bad "direction=agrees with a verdict that is not the seed's" \
  "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) direction=differs/\1 direction=agrees/')" \
  "direction=agrees, but verdict=faster and seed_verdict=same say differs"
bad "direction= missing" "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) direction=differs/\1/')" \
  "BENCH-SEED without direction="
bad "magnitude=inside with the seed's ratio below the interval" \
  "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) magnitude=below/\1 magnitude=inside/')" \
  "magnitude=inside, but seed_ratio=0.935 against 3.595 \+- 0.382 is below"
bad "magnitude=above with the seed's ratio inside" \
  "$(edit "$quick" 's/(BENCH-SEED suite=webserve.*) magnitude=inside/\1 magnitude=above/')" \
  "magnitude=above, but seed_ratio=1.004 against 1.039 \+- 0.110 is inside"
good "a seed's ratio on the interval's edge is inside" \
  "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) seed_ratio=0.935 (.*) magnitude=below/\1 seed_ratio=3.213 \2 magnitude=inside/')"
bad "a seed's ratio a thousandth below the interval" \
  "$(edit "$quick" 's/(BENCH-SEED suite=pagecache.*) seed_ratio=0.935 (.*) magnitude=below/\1 seed_ratio=3.212 \2 magnitude=inside/')" \
  "magnitude=inside, but seed_ratio=3.212 against 3.595 \+- 0.382 is below"
bad "a seed verdict against the seed ratio" \
  "$(edit "$quick" 's/(BENCH-SEED suite=ramfs.*) seed_verdict=slower (.*) direction=unknown/\1 seed_verdict=faster \2 direction=unknown/')" \
  "seed_verdict=faster with seed_ratio=0.880"
f=$(edit "$quick" 's/(BENCH-SEED suite=webserve.*) threads=2 (.*) ratio=1.039 ci95=0.110/\1 threads=1 \2 ratio=1.009 ci95=0.072/')
bad "a BENCH-SEED for no headline" "$f" \
  "BENCH-SEED for webserve hash-bucket vs hash-global at 1 threads, which is no headline"
bad "a headline's BENCH-SEED at the wrong threads" "$f" \
  "webserve: no BENCH-SEED line for the headline hash-bucket vs hash-global at 2 threads"
bad "a BENCH-SEED twice" "$(edit "$quick" '/BENCH-SEED suite=ramfs/p')" "a second BENCH-SEED for"
bad "a BENCH-SEED inside its suite's table" \
  "$(move "$quick" 'BENCH-SEED suite=ramfs' 'BENCH suite=ramfs variant=free-now threads=2 ')" \
  "BENCH-SEED before the last BENCH line of ramfs"
bad "a BENCH-SEED after the next suite began" \
  "$(move "$quick" 'BENCH-SEED suite=ramfs' 'BENCH-SUITE suite=lookup')" \
  "BENCH-SEED of ramfs not in its suite's part of the log"

# BENCH-AA: in A/A boots only, after BENCH-DONE, counting suites, comparisons, false (faster
# or slower), inconclusive, families (suites with a comparison) and the false families.
bad "an A/A boot without BENCH-AA" "$(edit "$aa" '/BENCH-AA/d')" "0 BENCH-AA lines in an A/A boot"
bad "BENCH-AA comparisons= wrong" "$(edit "$aa" 's/comparisons=12/comparisons=11/')" \
  "BENCH-AA comparisons=11, but the log has 12"
bad "BENCH-AA false= wrong" "$(edit "$aa" 's/false=1/false=0/')" "BENCH-AA false=0, but the log has 1"
bad "BENCH-AA suites= wrong" "$(edit "$aa" 's/BENCH-AA suites=3/BENCH-AA suites=2/')" \
  "BENCH-AA suites=2, but the log has 3"
bad "BENCH-AA inconclusive= wrong" "$(edit "$aa" 's/inconclusive=11 /inconclusive=12 /')" \
  "BENCH-AA inconclusive=12, but the log has 11"
bad "BENCH-AA families= wrong" "$(edit "$aa" 's/ families=3 / families=2 /')" \
  "BENCH-AA families=2, but the log has 3"
bad "BENCH-AA false_families= wrong" "$(edit "$aa" 's/false_families=1$/false_families=2/')" \
  "BENCH-AA false_families=2, but the log has 1"
# Two false verdicts in one suite are one false family; one in another suite makes two.
f=$(edit "$aa" 's/(a=queued b=queued~aa threads=1) ratio=0.978 ci95=0.065 verdict=inconclusive/\1 ratio=0.900 ci95=0.065 verdict=slower/; s/false=1 inconclusive=11/false=2 inconclusive=10/')
good "two false verdicts in one family" "$f"
bad "two false verdicts in one family counted as two" "$(edit "$f" 's/false_families=1$/false_families=2/')" \
  "BENCH-AA false_families=2, but the log has 1"
good "false verdicts in two families" \
  "$(edit "$aa" 's/(a=free-rcu b=free-rcu~aa threads=1) ratio=1.009 ci95=0.090 verdict=inconclusive/\1 ratio=1.109 ci95=0.090 verdict=faster/; s/false=1 inconclusive=11 families=3 false_families=1/false=2 inconclusive=10 families=3 false_families=2/')"
bad "BENCH-AA without the four words' counts" "$(edit "$aa" 's/ inconclusive=11 families=3 false_families=1$//')" \
  "BENCH-AA inconclusive=None is not a count"
bad "BENCH-AA before BENCH-DONE" "$(move "$aa" 'BENCH-DONE' 'BENCH-AA')" "BENCH-AA before BENCH-DONE"
bad "BENCH-AA in a plain boot" "$(edit "$quick" '/BENCH-DONE/{p;s/BENCH-DONE.*/BENCH-AA suites=9 comparisons=39 false=25 inconclusive=18 families=8 false_families=6/}')" \
  "BENCH-AA in a boot without bench.aa=yes"
f=$(edit "$aa" 's/ bench.aa=yes//')
bad "a ~aa variant in a plain boot" "$f" "variant=queued~aa in a boot without bench.aa=yes"
bad "a ~aa variant in a plain boot's BENCH-SUITE" "$f" "locks: variant queued~aa in a boot without bench.aa=yes"
bad "an A/A comparison of two variants" "$(edit "$aa" 's/a=tas b=tas~aa threads=1/a=tas b=queued~aa threads=1/')" \
  "BENCH-CMP a=tas b=queued~aa in an A/A boot: b is not a's copy"

# calib: in every default boot, and plus25 must be slower than base.
bad "a default boot without calib" \
  "$(edit "$quick" '/suite=calib/d; s/BENCH-DONE suites=9/BENCH-DONE suites=8/')" \
  "calib: no BENCH-SUITE line, though no suite was named"
good "quick: plus25 told from base at one thread count of two" \
  "$(edit "$quick" 's/(a=plus25 b=base threads=2) ratio=0.808 ci95=0.070 verdict=slower/\1 ratio=0.808 ci95=0.200 verdict=inconclusive/')"
good "quick: plus25 told from base at no thread count (noted)" \
  "$(edit "$quick" 's/(a=plus25 b=base threads=2) ratio=0.808 ci95=0.070 verdict=slower/\1 ratio=0.808 ci95=0.200 verdict=inconclusive/; s/(a=plus25 b=base threads=1) ratio=0.825 ci95=0.043 verdict=slower/\1 ratio=0.825 ci95=0.200 verdict=inconclusive/')"
bad "plus25 faster than base" \
  "$(edit "$quick" 's/(a=plus25 b=base threads=1) ratio=0.825 ci95=0.043 verdict=slower/\1 ratio=1.250 ci95=0.043 verdict=faster/')" \
  "calib: plus25 vs base at 1 threads: faster"
bad "plus25 vs base not compared" "$(edit "$quick" '/a=plus25 b=base threads=1 /d')" \
  "calib: no BENCH-CMP line for plus25 vs base at 1 threads"

# The verdict is the one the interval states at the boot's margin (bench.margin=, else 5%):
# faster or slower when it excludes 1, same inside 1 +- margin, inconclusive when it holds 1 and
# reaches past the margin; exactly, on the three printed places the kernel decides on.
bad "same for an interval without 1" \
  "$(edit "$quick" 's/(a=queued b=ticket threads=4) ratio=0.894 ci95=0.059 verdict=slower/\1 ratio=0.894 ci95=0.059 verdict=same/')" \
  "locks queued vs ticket at 4 threads: verdict=same, but the interval 0.894 \+- 0.059 excludes 1"
bad "inconclusive for an interval without 1" \
  "$(edit "$quick" 's/(a=queued b=ticket threads=4) ratio=0.894 ci95=0.059 verdict=slower/\1 ratio=0.894 ci95=0.059 verdict=inconclusive/')" \
  "locks queued vs ticket at 4 threads: verdict=inconclusive, but the interval 0.894 \+- 0.059 excludes 1"
bad "slower for an interval with 1" \
  "$(edit "$quick" 's/(a=queued b=ticket threads=1) ratio=0.967 ci95=0.073 verdict=inconclusive/\1 ratio=0.967 ci95=0.073 verdict=slower/')" \
  "locks queued vs ticket at 1 threads: verdict=slower, but the interval 0.967 \+- 0.073 holds 1 and reaches past 1 \+- 0.05"
bad "same for an interval wider than the margin" \
  "$(edit "$quick" 's/(a=queued b=ticket threads=1) ratio=0.967 ci95=0.073 verdict=inconclusive/\1 ratio=0.967 ci95=0.073 verdict=same/')" \
  "locks queued vs ticket at 1 threads: verdict=same, but the interval 0.967 \+- 0.073 holds 1 and reaches past 1 \+- 0.05"
bad "inconclusive for an interval inside the margin" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.004 ci95=0.040 verdict=inconclusive/')" \
  "locks tas vs ticket at 1 threads: verdict=inconclusive, but the interval 1.004 \+- 0.040 lies inside 1 \+- 0.05"
bad "faster for a ratio below 1" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=2) ratio=0.777 ci95=0.088 verdict=slower/\1 ratio=0.777 ci95=0.088 verdict=faster/')" \
  "locks tas vs ticket at 2 threads: verdict=faster"
# The edges, to the thousandth: an interval that touches 1 holds it; one that touches 1 +-
# margin is inside it.
good "an interval touching 1 and past the margin is inconclusive" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.040 ci95=0.040 verdict=inconclusive/')"
bad "faster for an interval touching 1" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.040 ci95=0.040 verdict=faster/')" \
  "locks tas vs ticket at 1 threads: verdict=faster, but the interval 1.040 \+- 0.040 holds 1"
good "an interval touching 1 + margin is same" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.010 ci95=0.040 verdict=same/')"
bad "inconclusive for an interval touching 1 + margin" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.010 ci95=0.040 verdict=inconclusive/')" \
  "locks tas vs ticket at 1 threads: verdict=inconclusive, but the interval 1.010 \+- 0.040 lies inside 1 \+- 0.05"
bad "same for an interval a thousandth past the margin" \
  "$(edit "$quick" 's/(a=tas b=ticket threads=1) ratio=1.004 ci95=0.040 verdict=same/\1 ratio=1.011 ci95=0.040 verdict=same/')" \
  "locks tas vs ticket at 1 threads: verdict=same, but the interval 1.011 \+- 0.040 holds 1 and reaches past 1 \+- 0.05"
# The margin is the command line's: at 10% two of the sample's inconclusive intervals are same.
margin10="s/command line 'bench=quick'/command line 'bench=quick bench.margin=10'/"
bad "the margin read from the command line" "$(edit "$quick" "$margin10")" \
  "dbench radix-lock vs hash-global at 2 threads: verdict=inconclusive, but the interval 0.988 \+- 0.046 lies inside 1 \+- 0.1"
good "a boot's own margin" \
  "$(edit "$quick" "$margin10; s/(ratio=0.988 ci95=0.046|ratio=1.009 ci95=0.072) verdict=inconclusive/\1 verdict=same/")"
bad "a margin of 0: nothing is same" \
  "$(edit "$quick" "s/command line 'bench=quick'/command line 'bench=quick bench.margin=0'/")" \
  "locks tas vs ticket at 1 threads: verdict=same, but the interval 1.004 \+- 0.040 holds 1 and reaches past 1 \+- 0"
good "a margin the kernel ignores (above 50) leaves 5" \
  "$(edit "$quick" "s/command line 'bench=quick'/command line 'bench=quick bench.margin=60'/")"
# The added fields of a BENCH-CMP line: pairs= and the paired interval, whose verdict follows
# from it as the line's own does.
paired='s/(a=queued b=ticket threads=4 ratio=0.894 ci95=0.059 verdict=slower)$/\1 pairs=3 paired_ratio=0.880 paired_ci95=0.300 paired_verdict=inconclusive/'
good "a comparison with its paired interval" "$(edit "$quick" "$paired")"
bad "a paired verdict its interval does not say" \
  "$(edit "$quick" "${paired/paired_ci95=0.300/paired_ci95=0.030}")" \
  "locks queued vs ticket at 4 threads: paired_verdict=inconclusive, but the interval 0.880 \+- 0.030 excludes 1"
bad "pairs= not a count" "$(edit "$quick" "${paired/pairs=3/pairs=x}")" "BENCH-CMP pairs=x is not a count"
bad "a paired interval without its verdict" \
  "$(edit "$quick" "${paired/ paired_verdict=inconclusive/}")" "BENCH-CMP with an incomplete paired interval"

# BENCH-RUNS (bench.rates=yes): after each BENCH line its runs' rates, whose mean is the line's
# ops_per_sec to the thousandth. The sample's means are no mean of whole rates, so this log
# rounds each down to a whole number and gives its point the rates mean+5, mean-5, mean.
rates=$(mktemp "$tmp/edit.XXXXXX")
awk '{ print }
  / BENCH suite=/ {
    match($0, /suite=[^ ]+ variant=[^ ]+ (fanout=[^ ]+ )?threads=[^ ]+/); point = substr($0, RSTART, RLENGTH)
    match($0, /ops_per_sec=[0-9]+/); mean = substr($0, RSTART + 12, RLENGTH - 12)
    printf "[    0.000000] BENCH-RUNS %s slot=0 of=4 rates=%d,%d,%d\n", point, mean + 5, mean - 5, mean
  }' "$quick" | sed -E "s/(ops_per_sec=[0-9]+)\.[0-9]+/\1.000/; s/command line 'bench=quick'/command line 'bench=quick bench.rates=yes'/" > "$rates"
good "a boot with its runs' rates" "$rates"
check_out '^check_bench: 60 points and 1 skipped' "the runs' rates' points are counted"
good "a mean rounded to the printed thousandth" \
  "$(edit "$rates" 's/(variant=ticket threads=1 runs=3 ops_per_sec=9802344)\.000/\1.333/; s/(variant=ticket threads=1 .* rates=)9802349,/\19802350,/')"
# Runs of different lengths (us=): each counts for its time, so the rates 10.8M, 8.8M and
# 9.8M over 0.1, 0.1 and 0.2 s give 9.8M, the BENCH line's; over 0.1, 0.3 and 0.1 s, 9.4M.
good "runs of different lengths, time-weighted" \
  "$(edit "$rates" 's/(BENCH-RUNS suite=locks variant=ticket threads=1 .* rates=).*$/\110802344,8802344,9802344 us=100000,100000,200000 pos=0,1,2/')"
bad "a time-weighted mean that differs from its BENCH line" \
  "$(edit "$rates" 's/(BENCH-RUNS suite=locks variant=ticket threads=1 .* rates=).*$/\110802344,8802344,9802344 us=100000,300000,100000 pos=0,1,2/')" \
  "BENCH-RUNS of locks \('ticket', None, 1\): the rates' mean is 9402344\.000, but its BENCH line has ops_per_sec=9802344.000"
bad "a place past the round's columns" \
  "$(edit "$rates" 's/(BENCH-RUNS suite=locks variant=ticket threads=1 .* rates=).*$/\110802344,8802344,9802344 us=100000,100000,200000 pos=0,1,4/')" \
  "BENCH-RUNS of locks \('ticket', None, 1\): pos=0,1,4 has a place past of=4"
bad "a mean that differs from its BENCH line" \
  "$(edit "$rates" 's/(BENCH-RUNS suite=locks variant=tas threads=2 .* rates=[0-9]+,[0-9]+),([0-9]+)$/\1,\23/')" \
  "BENCH-RUNS of locks \('tas', None, 2\): the rates' mean is [0-9]+\.000, but its BENCH line has ops_per_sec=3155213.000"
bad "fewer rates than runs" "$(edit "$rates" 's/(BENCH-RUNS suite=radix .* rates=[0-9]+,[0-9]+),[0-9]+$/\1/')" \
  "BENCH-RUNS of radix \('lookup', 64, 1\) has 2 rates, but its BENCH line runs=3"
bad "a BENCH-RUNS line away from its BENCH line" \
  "$(move "$rates" 'BENCH-RUNS suite=locks variant=ticket threads=1 ' 'BENCH suite=locks variant=queued threads=1 ')" \
  "BENCH-RUNS of locks \('ticket', None, 1\) does not follow that point's BENCH line"
bad "a point without BENCH-RUNS in a bench.rates=yes boot" "$(edit "$rates" '/BENCH-RUNS suite=ramfs variant=free-now threads=2 /d')" \
  "ramfs \('free-now', None, 2\): no BENCH-RUNS line in a boot with bench.rates=yes"
bad "BENCH-RUNS without bench.rates=yes" "$(edit "$rates" 's/ bench.rates=yes//')" \
  "BENCH-RUNS in a boot without bench.rates=yes"
bad "rates that are no counts" "$(edit "$rates" '0,/(BENCH-RUNS .* rates=[0-9]+),/s//\1.5,/')" \
  "BENCH-RUNS rates=[0-9]+\.5,[0-9,]+ is not counts separated by commas"

# PROFILE and LOCKSTAT: after every BENCH line of the quick sample, its point's two stacks
# (6 + 3 of 10 samples) and one lock, in a boot whose command line asks for them.
prof=$(edit "$quick" "s/command line 'bench=quick'/command line 'bench=quick profile=97 lockstat=yes'/
/ BENCH suite=/{p;s/BENCH (suite=[^ ]+ variant=[^ ]+ (fanout=[^ ]+ )?threads=[^ ]+) .*/PROFILE \1 samples=10 stack=bench_worker;spin_lock;queued_spin_lock_slowpath count=6/
p;s/stack=[^ ]+ count=6/stack=idle count=3/
p;s/PROFILE (.*) samples=10 stack=idle count=3/LOCKSTAT \1 lock=\&mapping->tree_lock acquisitions=100 contended=5 wait_ns=5000 max_wait_ns=2000 hold_ns=9000/}")
good "a profiled boot" "$prof"
"$check" "$prof" 2 --quick > "$tmp/out" 2>&1
check_out ', 60 profiled points, 60 with locks, 0 problems$' "the profiled points are counted"
good "a function name with GCC's suffix, an address" \
  "$(edit "$prof" 's/(variant=ticket threads=1 samples=10 stack=bench_worker);spin_lock;/\1;spin_lock.isra.0;0xffffffff80104a2c;/')"
good "samples above the counts' sum (stacks not printed)" "$(edit "$prof" 's/samples=10 /samples=12 /g')"
bad "a count that is no number" "$(edit "$prof" '0,/stack=idle count=3/s//stack=idle count=3x/')" \
  "PROFILE samples=10 count=3x: not positive counts"
bad "a count of 0" "$(edit "$prof" '0,/stack=idle count=3/s//stack=idle count=0/')" \
  "PROFILE samples=10 count=0: not positive counts"
bad "an empty frame" "$(edit "$prof" '0,/bench_worker;spin_lock;/s//bench_worker;;/')" \
  "PROFILE stack=bench_worker;;queued_spin_lock_slowpath: frame '' is not a function name"
bad "a frame that is no name" "$(edit "$prof" '0,/;spin_lock;/s//;spin-lock;/')" \
  "PROFILE stack=bench_worker;spin-lock;queued_spin_lock_slowpath: frame 'spin-lock' is not"
bad "samples below the counts' sum" "$(edit "$prof" '0,/samples=10 stack=idle/s//samples=8 stack=idle/;0,/samples=10 stack=bench/s//samples=8 stack=bench/')" \
  "PROFILE of locks \('ticket', None, 1\): samples=8, but its counts add up to 9"
bad "samples differing within a point" "$(edit "$prof" '0,/samples=10 stack=idle/s//samples=11 stack=idle/')" \
  "PROFILE samples=11, but line [0-9]+ of the point has 10"
bad "a stack twice" "$(edit "$prof" '0,/stack=idle count=3/s//stack=bench_worker;spin_lock;queued_spin_lock_slowpath count=3/')" \
  "PROFILE stack=bench_worker;spin_lock;queued_spin_lock_slowpath printed twice"
bad "a profile of no point" "$(edit "$prof" '0,/PROFILE suite=locks variant=ticket threads=1 /s//PROFILE suite=locks variant=ticket threads=3 /')" \
  "PROFILE of locks \('ticket', None, 3\): no such point"
bad "a profiled boot that leaves a point out" "$(edit "$prof" '/PROFILE suite=ramfs variant=free-now threads=2 /d')" \
  "ramfs \('free-now', None, 2\): no PROFILE line in a boot with profile=97"
bad "PROFILE lines without profile=" "$(edit "$prof" 's/ profile=97//')" \
  "PROFILE lines in a boot without profile="
bad "LOCKSTAT lines without lockstat=yes" "$(edit "$prof" 's/ lockstat=yes//')" \
  "LOCKSTAT lines in a boot without lockstat=yes"
bad "more contended than acquired" "$(edit "$prof" '0,/acquisitions=100 contended=5/s//acquisitions=100 contended=101/')" \
  "LOCKSTAT lock=&mapping->tree_lock contended=101 of acquisitions=100"
bad "a longest wait above the total" "$(edit "$prof" '0,/wait_ns=5000 max_wait_ns=2000/s//wait_ns=5000 max_wait_ns=6000/')" \
  "LOCKSTAT lock=&mapping->tree_lock max_wait_ns=6000 above wait_ns=5000"
bad "a wait time that is no count" "$(edit "$prof" '0,/ hold_ns=9000/s// hold_ns=9.5/')" \
  "LOCKSTAT hold_ns=9.5 is not a count"
bad "a lock twice for a point" "$(edit "$prof" '0,/(LOCKSTAT .*)/s//\1\n\1/')" \
  "LOCKSTAT lock=&mapping->tree_lock twice for the point"
bad "a LOCKSTAT line without its lock" "$(edit "$prof" '0,/ lock=&mapping->tree_lock/s///')" \
  "LOCKSTAT lock= is not a name"
bad "a LOCKSTAT line before its suite" "$(edit "$prof" '0,/(LOCKSTAT suite=)locks/s//\1nosuch/')" \
  "a LOCKSTAT line of nosuch before its BENCH-SUITE line"

# A default boot: each suite's own runs (pagecache and calib 10, the others 5), and plus25
# must be slower than base at every thread count, not only at one.
args=(8)
good "a default 8-CPU boot" "$full"
bad "pagecache at 5 runs in a default boot" \
  "$(edit "$full" '0,/(BENCH suite=pagecache .*) runs=10 /s//\1 runs=5 /')" \
  "runs=5, expected 10"
bad "locks at 10 runs in a default boot" \
  "$(edit "$full" '0,/(BENCH suite=locks .*) runs=5 /s//\1 runs=10 /')" \
  "runs=10, expected 5"
bad "plus25 not told from base at one thread count of a full boot" \
  "$(edit "$full" 's/(a=plus25 b=base threads=2) ratio=([0-9.]+) ci95=[0-9.]+ verdict=slower/\1 ratio=\2 ci95=0.300 verdict=same/')" \
  "calib: plus25 vs base at 2 threads: same .*must be slower"
# At the point of each headline claiming no difference its two columns take 50 runs
# (HEAD_RUNS), dbench's 150 and webserve's 100, and the other columns the suite's 5; the
# sample's were set by hand when the rules came, after the boot.
bad "a headline claiming no difference at the suite's 5 runs" \
  "$(edit "$full" '/BENCH suite=ramfs variant=free-now threads=1 /s/ runs=50 / runs=5 /')" \
  "runs=5, expected 50"
bad "webserve's headline at HEAD_RUNS, not its own 100" \
  "$(edit "$full" '/BENCH suite=webserve variant=hash-bucket threads=8 /s/ runs=100 / runs=50 /')" \
  "runs=50, expected 100"
bad "50 runs at a point no headline's" \
  "$(edit "$full" '/BENCH suite=webserve variant=hash-bucket threads=4 /s/ runs=5 / runs=50 /')" \
  "runs=50, expected 5"
bad "dbench's headline at 50 runs, not its own 150" \
  "$(edit "$full" '/BENCH suite=dbench variant=hash-global threads=8 /s/ runs=150 / runs=50 /')" \
  "runs=50, expected 150"
bad "a column beside dbench's headline at the headline's runs" \
  "$(edit "$full" '/BENCH suite=dbench variant=radix-lock fanout=16 threads=8 /s/ runs=5 / runs=150 /')" \
  "runs=150, expected 5"
# A point of more than 16 runs prints its rates over several BENCH-RUNS lines with first=.
# Every point here gets runs= rates equal to its mean (rounded down to a whole number), 16 a
# line, lengths of 0.1 s and places 0.
long=$(mktemp "$tmp/edit.XXXXXX")
awk '
  { print }
  / BENCH suite=/ {
    nw = split($0, w, " "); point = ""; runs = 0; mean = 0
    for(i = 1; i <= nw; i++) {
      if(w[i] ~ /^(suite|variant|fanout|threads)=/) point = point (point ? " " : "") w[i]
      if(w[i] ~ /^runs=/) runs = substr(w[i], 6) + 0
      if(w[i] ~ /^ops_per_sec=/) mean = int(substr(w[i], 13))
    }
    for(first = 1; first <= runs; first += 16) {
      last = first + 15 < runs ? first + 15 : runs
      r = ""; u = ""; p = ""
      for(k = first; k <= last; k++) { r = r (r ? "," : "") mean; u = u (u ? "," : "") 100000; p = p (p ? "," : "") 0 }
      printf "[    0.000000] BENCH-RUNS %s slot=0 of=4%s rates=%s us=%s pos=%s\n", point, (runs > 16 ? " first=" first : ""), r, u, p
    }
  }' "$full" | sed -E "/ BENCH suite=/s/(ops_per_sec=[0-9]+)\.[0-9]+/\1.000/; s/command line ''/command line 'bench.rates=yes'/" > "$long"
good "a default boot with its runs' rates, 50 of them in four lines" "$long"
bad "a point's last BENCH-RUNS part missing" \
  "$(edit "$long" '/BENCH-RUNS suite=ramfs variant=free-rcu threads=1 .* first=49 /d')" \
  "the BENCH-RUNS lines of ramfs \('free-rcu', None, 1\) stop at 48 of runs=50"
bad "a BENCH-RUNS part out of its place" \
  "$(edit "$long" '/BENCH-RUNS suite=ramfs variant=free-rcu threads=1 .* first=17 /d')" \
  "BENCH-RUNS first=33 of ramfs \('free-rcu', None, 1\) does not follow the part before it"
args=(2 --quick)

if [ -s "$tmp/unchanged" ]; then
  sed 's/^/test_check_bench: changed nothing: /' "$tmp/unchanged" >&2
  failed=$((failed + $(wc -l < "$tmp/unchanged")))
fi
edits=$(find "$tmp" -name 'edit.*' | wc -l)
[ "$edits" -ge 100 ] && ok || fail "only $edits edited logs, of the 100 the cases above make"

echo "test_check_bench: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
