#!/bin/bash
# Host test of tools/report.py: runs it on the sample serial logs, on broken logs and on several
# logs at once, and checks report.md, the per-suite PNG charts, the warnings and the exit codes.
root=$(cd "$(dirname "$0")/../.." && pwd)
report=$root/tools/report.py
sample=$root/tests/host/data/sample-bench.log
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

# The section of report.md for suite $1: from its heading to the next one.
section() {
  awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$tmp/out/report.md"
}

is_png() {
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

"$report" "$sample" "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"
check "exit 0 on the sample" [ $? -eq 0 ]
check "report.md written" [ -s "$tmp/out/report.md" ]
check "paths printed" grep -qx "$tmp/out/report.md" "$tmp/stdout"
check "BOOT facts in the header" grep -q '^| CPUs | 8 online of 8 possible |$' "$tmp/out/report.md"
check "END result in the header" grep -q '^| result | pass |$' "$tmp/out/report.md"
check "self-test summary" grep -q '^| self-tests | 2 passed, 0 failed |$' "$tmp/out/report.md"
for s in locks pagecache ramfs madvise; do
  check "$s heading" grep -qx "## $s" "$tmp/out/report.md"
  check "$s verdict" grep -Eq '\| (same|faster|slower|inconclusive) \|$' <(section $s)
  check "$s chart embedded" grep -qxF "![$s]($s.png)" <(section $s)
  check "$s.png is a PNG" is_png "$tmp/out/$s.png"
  check "$s.gp and $s.dat kept" [ -s "$tmp/out/$s.gp" -a -s "$tmp/out/$s.dat" ]
done
check "human units and ci95" grep -q '^| 1 | 9.78M ± 322k |' <(section locks)
check "fanout in the column name" grep -q '^| threads | hash-global | radix-lock/16 | radix-rcu/64 |$' <(section pagecache)
check "rows beyond ncpu marked" grep -q '^| 12 (>ncpu) |' <(section locks)
check "extras tabulated" grep -qx 'IPIs/op (mean over the runs):' <(section madvise)
check "ncpu line in the chart" grep -q "^set arrow from 8, graph 0 to 8, graph 1" "$tmp/out/locks.gp"
# What a suite measures and re-runs comes from its BENCH-SUITE line, and so does the order.
check "op and seed from BENCH-SUITE" grep -qxF "Operation: lock + increment a shared counter + unlock; seed: spinlock baseline for the seeds' lock comparisons." <(section locks)
check "seed in the chart title" grep -qF 'set title "locks: spinlock baseline' "$tmp/out/locks.gp"
check "suites in log order" [ "$(grep '^## ' "$tmp/out/report.md" | tr '\n' ' ')" = "## locks ## pagecache ## ramfs ## madvise " ]
check "only the extras BENCH-SUITE names" [ "$(grep -c 'ns/op' <(section madvise))" -eq 0 ]
check "one warning for the garbage line" [ "$(grep -c 'skipped BENCH line: missing ci95' "$tmp/stderr")" -eq 1 ]
check "warning count" grep -qx 'report: skipped 1 malformed line' "$tmp/stderr"
check "no traceback" [ "$(grep -c Traceback "$tmp/stderr")" -eq 0 ]

# A suite no table in report.py knows: everything comes from the log, variants in the order
# its BENCH-SUITE line gives; a BENCH-SUITE line without seed= is skipped with a warning.
cat > "$tmp/new.log" <<'EOF'
[    0.100000] BOOT cpus=2 possible=2 mem_mib=1023 tsc_khz=2994512 boot_us=41187
[    0.200000] BENCH-SUITE suite=widgets sweep=up threads=1,2 variants=zeta,alpha/16 extras=widgets_per_op op=one widget made (cut, bent; glued) seed=a made-up suite, 2024
[    0.300000] BENCH suite=widgets variant=zeta threads=1 runs=3 ops_per_sec=1000.000 stddev=10.000 ci95=20.000 widgets_per_op=2.500
[    0.400000] BENCH suite=widgets variant=zeta threads=2 runs=3 ops_per_sec=1900.000 stddev=10.000 ci95=20.000 widgets_per_op=2.400
[    0.500000] BENCH suite=widgets variant=alpha fanout=16 threads=1 runs=3 ops_per_sec=900.000 stddev=10.000 ci95=20.000 widgets_per_op=1.500
[    0.600000] BENCH suite=widgets variant=alpha fanout=16 threads=2 runs=3 ops_per_sec=1700.000 stddev=10.000 ci95=20.000 widgets_per_op=1.400
[    0.700000] BENCH-SUITE suite=broken sweep=up threads=1 variants=a op=no seed here
[    0.800000] BENCH-DONE suites=2 secs=0.700
[    0.900000] END result=pass
EOF
"$report" "$tmp/new.log" "$tmp/new" > /dev/null 2> "$tmp/new.err"
check "exit 0 on a new suite" [ $? -eq 0 ]
newsec() { awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$tmp/new/report.md"; }
check "new suite's op and seed" grep -qxF "Operation: one widget made (cut, bent; glued); seed: a made-up suite, 2024." <(newsec widgets)
check "new suite's variant order" grep -qx '| threads | zeta | alpha/16 |' <(newsec widgets)
check "new suite's extra" grep -qx 'widgets_per_op (mean over the runs):' <(newsec widgets)
check "new suite's extra values" grep -q '^| 1 | 2.50 | 1.50 |$' <(newsec widgets)
check "BENCH-SUITE without seed= skipped" grep -q 'skipped BENCH-SUITE line: no op= and seed=' "$tmp/new.err"

head -n 10 "$sample" > "$tmp/short.log"
"$report" "$tmp/short.log" "$tmp/short" > /dev/null 2> "$tmp/short.err"
check "exit 0 on a truncated log" [ $? -eq 0 ]
check "report for a truncated log" grep -q 'no END line' "$tmp/short/report.md"

head -c 3000 "$sample" > "$tmp/cut.log"
"$report" "$tmp/cut.log" "$tmp/cut" > /dev/null 2> "$tmp/cut.err"
check "exit 0 on a log cut mid-line" [ $? -eq 0 ]
check "the cut line is skipped" grep -q 'cut short' "$tmp/cut.err"

"$report" "$tmp/missing.log" "$tmp/missing" > /dev/null 2>&1
check "exit 2 without a log" [ $? -eq 2 ]

# Without gnuplot on PATH the report is still written, and the run fails.
mkdir "$tmp/bin"
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/bin/python3"
PATH=$tmp/bin "$tmp/bin/python3" "$report" "$sample" "$tmp/nogp" > /dev/null 2> "$tmp/nogp.err"
check "non-zero exit without gnuplot" [ $? -ne 0 ]
check "report.md without gnuplot" [ -s "$tmp/nogp/report.md" ]
check "gnuplot named on stderr" grep -q 'gnuplot is not installed' "$tmp/nogp.err"

# The contract's newer lines in one log: BENCH-SEED beside the comparisons, BENCH-SKIP in the
# table, the command line and BENCH-AA in the header.
quick=$root/tests/host/data/bench-quick-smp2.log
aa=$root/tests/host/data/bench-aa-smp2.log
"$report" "$quick" "$tmp/q" > /dev/null 2> "$tmp/q.err"
check "exit 0 on the bench=quick sample" [ $? -eq 0 ]
qsec() { awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$tmp/q/report.md"; }
check "command line in the header" grep -qxF '| command line | `bench=quick` |' "$tmp/q/report.md"
check "seed beside this boot's ratio" grep -qxF '| radix-rcu/64 | hash-global | 4 | 0.935 (same) | 3.595 ± 0.382 (faster) | differs | below |' <(qsec pagecache)
check "an inconclusive headline" grep -qxF '| free-rcu | free-now | 1 | 0.880 (slower) | 0.909 ± 0.104 (inconclusive) | unknown | inside |' <(qsec ramfs)
check "an inconclusive comparison" grep -qxF '| queued | ticket | 1 | 0.967 ± 0.073 | inconclusive |' <(qsec locks)
check "a seed per headline" [ "$(grep -c '^Against the seed' "$tmp/q/report.md")" -eq 4 ]
check "a skipped point's cell" grep -q '^| 4 (>ncpu) | [^|]* | [^|]* | skipped | [^|]* |$' <(qsec dbench)
check "skipped points listed" grep -qxF 'Not measured (BENCH-SKIP): radix-lock/16 at 4 threads (enomem).' <(qsec dbench)
check "calib charted" is_png "$tmp/q/calib.png"
check "no warning on the sample" [ ! -s "$tmp/q.err" ]
"$report" "$aa" "$tmp/aa" > /dev/null 2>&1
check "A/A in the header" grep -qxF '| A/A boot | each b replaced by a second copy of a: 1 of 12 comparisons faster or slower (false), 11 inconclusive; 1 of 3 suites with a false verdict |' "$tmp/aa/report.md"
# Logs from before the four words: BENCH-SEED ended agrees=yes|no (direction and magnitude are
# then read off its numbers), BENCH-AA had no inconclusive= or families; and BENCH-RUNS lines
# (bench.rates=yes) are passed over without a warning.
sed -E -e 's/(BENCH-SEED .*) direction=[a-z]+ magnitude=[a-z]+$/\1 agrees=no/' \
  -e '/ BENCH suite=locks /{p;s/BENCH (suite=[^ ]+ variant=[^ ]+ threads=[^ ]+) .*/BENCH-RUNS \1 slot=0 of=3 rates=1,2,3/}' \
  "$quick" > "$tmp/old.log"
"$report" "$tmp/old.log" "$tmp/old" > /dev/null 2> "$tmp/old.err"
check "exit 0 on an older log with BENCH-RUNS lines" [ $? -eq 0 ]
check "the older log's BENCH-RUNS lines are there" [ "$(grep -c BENCH-RUNS "$tmp/old.log")" -eq 9 ]
check "no warning on the older log" [ ! -s "$tmp/old.err" ]
oldsec() { awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$tmp/old/report.md"; }
check "an older BENCH-SEED's direction and magnitude" grep -qxF '| radix-rcu/64 | hash-global | 4 | 0.935 (same) | 3.595 ± 0.382 (faster) | differs | below |' <(oldsec pagecache)
check "an older inconclusive BENCH-SEED: direction unknown" grep -qxF '| free-rcu | free-now | 1 | 0.880 (slower) | 0.909 ± 0.104 (inconclusive) | unknown | inside |' <(oldsec ramfs)
sed -E 's/(BENCH-AA suites=3 comparisons=12 false=1) .*/\1/' "$aa" > "$tmp/oldaa.log"
"$report" "$tmp/oldaa.log" "$tmp/oldaa" > /dev/null 2>&1
check "an older BENCH-AA in the header" grep -qxF '| A/A boot | each b replaced by a second copy of a: 1 of 12 comparisons faster or slower (false) |' "$tmp/oldaa/report.md"
check "A/A copies as columns" grep -qx '| threads | queued | tas | queued~aa | tas~aa |' "$tmp/aa/report.md"

# Several logs: per suite the mean across boots with its Student-t interval, each boot's ratios
# and verdicts, the headlines boot by boot, and a chart with a faint line per boot. Known
# values: ticket at 1 thread 1M, 2M, 3M ops/s (mean 2M, ci95 4.303 x 1M / sqrt(3) = 2.48M);
# queued/ticket at 2 threads 1.05, 1.15, 1.25 (1.15 ± 0.248); boot 3 lacks tas at 4 threads,
# and its dbench headline is same, as the seed's.
sed -E 's/(locks variant=ticket threads=1 runs=3 ops_per_sec=)[0-9.]+/\11000000.000/' "$quick" > "$tmp/b1.log"
sed -E -e 's/(locks variant=ticket threads=1 runs=3 ops_per_sec=)[0-9.]+/\12000000.000/' \
  -e 's/(a=queued b=ticket threads=2) ratio=1.050 ci95=0.109 verdict=inconclusive/\1 ratio=1.150 ci95=0.109 verdict=faster/' \
  "$quick" > "$tmp/b2.log"
sed -E -e 's/(locks variant=ticket threads=1 runs=3 ops_per_sec=)[0-9.]+/\13000000.000/' \
  -e 's/(a=queued b=ticket threads=2) ratio=1.050 ci95=0.109 verdict=inconclusive/\1 ratio=1.250 ci95=0.109 verdict=faster/' \
  -e '/locks variant=tas threads=4 /d' \
  -e 's/(a=radix-lock b=hash-global fanout_a=128 threads=2) ratio=1.026 ci95=0.079 verdict=inconclusive$/\1 ratio=1.026 ci95=0.020 verdict=same/' \
  -e 's/ratio=1.026 ci95=0.079 verdict=inconclusive direction=unknown magnitude=inside$/ratio=1.026 ci95=0.020 verdict=same direction=agrees magnitude=below/' \
  "$quick" > "$tmp/b3.log"
"$report" "$tmp/b1.log" "$tmp/b2.log" "$tmp/b3.log" "$tmp/m" > "$tmp/m.out" 2> "$tmp/m.err"
check "exit 0 on three logs" [ $? -eq 0 ]
msec() { awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$tmp/m/report.md"; }
check "a report of three boots" grep -qx '# Benchmark report: 3 boots' "$tmp/m/report.md"
check "a row per boot" [ "$(grep -c '^| [123] | `.*/b[123].log` | 2 | `bench=quick` | 9 suites in ' "$tmp/m/report.md")" -eq 3 ]
check "mean and interval across boots" grep -q '^| 1 | 2.00M ± 2.48M | ' <(msec locks)
check "a point fewer boots measured" grep -q '^| 4 (>ncpu) | .* (2 boots) |$' <(msec locks)
check "each boot's ratio and verdict" grep -qxF '| queued | ticket | 2 | 1.050 ? | 1.150 + | 1.250 + | 1.150 ± 0.248 | 2/0/1/0 |' <(msec locks)
check "same in every boot" grep -qxF '| tas | ticket | 1 | 1.004 = | 1.004 = | 1.004 = | 1.004 ± 0.000 | 0/3/0/0 |' <(msec locks)
check "the verdicts' columns named" grep -q '| mean ± 95% | faster/same/inconclusive/slower |$' <(msec locks)
check "a headline boot by boot" grep -qx 'Headline free-rcu vs free-now at 1 threads against the seed (doc/seeds.md), boot by boot:' <(msec ramfs)
check "the headline across boots" grep -qxF '| mean of 3 | 0.880 (slower) | 0.909 ± 0.000 | faster 0, same 0, inconclusive 3, slower 0 | agrees in 0 of 3 | inside 3, above 0, below 0 |' <(msec ramfs)
check "a headline that agrees in one boot of three" grep -qxF '| mean of 3 | 0.982 (same) | 1.026 ± 0.000 | faster 0, same 1, inconclusive 2, slower 0 | agrees in 1 of 3 | inside 2, above 0, below 1 |' <(msec dbench)
check "a headline's boot" grep -qxF '| 2 | 0.935 (same) | 3.595 ± 0.382 | faster | differs | below |' <(msec pagecache)
check "a headline across boots" grep -qxF '| mean of 3 | 0.935 (same) | 3.595 ± 0.000 | faster 3, same 0, inconclusive 0, slower 0 | agrees in 0 of 3 | inside 0, above 0, below 3 |' <(msec pagecache)
check "skipped in every boot" grep -q '^| 4 (>ncpu) | [^|]* | [^|]* | skipped | [^|]* |$' <(msec dbench)
for s in locks pagecache calib; do
  check "$s: a PNG across boots" is_png "$tmp/m/$s.png"
  check "$s: chart embedded" grep -qxF "![$s]($s.png)" <(msec $s)
done
check "a faint line per boot" [ "$(grep -c "notitle" "$tmp/m/locks.gp")" -eq 3 ]
check "bold means with intervals" [ "$(grep -c "with yerrorlines" "$tmp/m/locks.gp")" -eq 3 ]
check "two data blocks per series" [ "$(grep -c "^# .*: each boot's mean" "$tmp/m/locks.dat")" -eq 3 ]
check "boot 1's ticket line" grep -qx '1 1000000.0 1' "$tmp/m/locks.dat"
check "the across-boot mean in the data" grep -qx '1 2000000.0 248433[0-9.]* 3' "$tmp/m/locks.dat"
check "no warning for like boots" [ ! -s "$tmp/m.err" ]
"$report" "$sample" "$quick" "$tmp/mix" > /dev/null 2> "$tmp/mix.err"
check "unlike boots warned of" grep -q 'report: the logs differ in their CPU counts' "$tmp/mix.err"
check "unlike boots in the report" grep -q '^\*\*The boots differ in their CPU counts' "$tmp/mix/report.md"
"$report" "$tmp/b1.log" "$tmp/missing.log" "$tmp/x" > /dev/null 2>&1
check "exit 2 when one of the logs is missing" [ $? -eq 2 ]

check_summary
