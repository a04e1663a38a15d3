#!/bin/bash
# Host test of tools/bench_repeat.py (make bench-repeat): BENCH-REPEAT lines from logs of known
# ratios (mean, Student-t ci95, the four verdicts' counts), the A/A summary of bench.aa=yes boots,
# and N boots through a stand-in for qemu.sh.
root=$(cd "$(dirname "$0")/../.." && pwd)
repeat=$root/tools/bench_repeat.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_bench_repeat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

has() { grep -qxF "$1" "$2"; }

# log FILE LINE...: a serial log of one boot with these BENCH-CMP lines (timestamped), its
# command line $CMDLINE (bench=locks unless set), its last line before END $LAST if set.
log() {
  local f=$1 t=1
  shift
  {
    echo "[    0.000000] kernel: booted by GRUB 2.06, command line '${CMDLINE:-bench=locks}'"
    for l in "$@"; do
      printf '[%5d.000000] BENCH-CMP %s\n' "$t" "$l"
      t=$((t + 1))
    done
    echo "[   90.000000] BENCH-DONE suites=3 secs=89.000"
    [ -n "${LAST:-}" ] && echo "[   90.500000] $LAST"
    echo "[   91.000000] END result=pass"
  } > "$f"
}

# Three boots. queued/ticket: 1.0, 1.2, 1.4, so the mean is 1.2, the standard deviation 0.2
# and ci95 t(0.975, 2) 0.2 / sqrt(3) = 4.303 x 0.11547 = 0.497. radix-rcu/64 against
# radix-lock/64: 2.0 three times, no spread. free-rcu/free-now in boots 1 and 3 only: 0.9 and
# 1.1, mean 1.0, ci95 12.706 x 0.14142 / sqrt(2) = 1.271, one slower and one inconclusive.
# Boot 2 has a malformed line.
log "$tmp/1.log" "suite=locks a=queued b=ticket threads=2 ratio=1.000 ci95=0.050 verdict=same" \
  "suite=pagecache a=radix-rcu b=radix-lock fanout_a=64 fanout_b=64 threads=4 ratio=2.000 ci95=0.100 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-now threads=1 ratio=0.900 ci95=0.050 verdict=slower"
log "$tmp/2.log" "suite=locks a=queued b=ticket threads=2 ratio=1.200 ci95=0.050 verdict=faster" \
  "suite=pagecache a=radix-rcu b=radix-lock fanout_a=64 fanout_b=64 threads=4 ratio=2.000 ci95=0.100 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-now threads=1 ratio=0.950 ci95=0.050"
log "$tmp/3.log" "suite=locks a=queued b=ticket threads=2 ratio=1.400 ci95=0.050 verdict=faster" \
  "suite=pagecache a=radix-rcu b=radix-lock fanout_a=64 fanout_b=64 threads=4 ratio=2.000 ci95=0.100 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-now threads=1 ratio=1.100 ci95=0.150 verdict=inconclusive"
"$repeat" --logs "$tmp/1.log" "$tmp/2.log" "$tmp/3.log" > "$tmp/out" 2> "$tmp/err"
check "exit 0 on saved logs" [ $? -eq 0 ]
check "mean, Student-t ci95 and counts" has \
  "BENCH-REPEAT suite=locks a=queued b=ticket threads=2 boots=3 ratio=1.200 ci95=0.497 faster=2 same=1 inconclusive=0 slower=0" "$tmp/out"
check "fanouts, and no spread" has \
  "BENCH-REPEAT suite=pagecache a=radix-rcu b=radix-lock fanout_a=64 fanout_b=64 threads=4 boots=3 ratio=2.000 ci95=0.000 faster=3 same=0 inconclusive=0 slower=0" "$tmp/out"
check "two boots, the malformed line left out, inconclusive counted" has \
  "BENCH-REPEAT suite=ramfs a=free-rcu b=free-now threads=1 boots=2 ratio=1.000 ci95=1.271 faster=0 same=0 inconclusive=1 slower=1" "$tmp/out"
check "one line per comparison" [ "$(grep -c '^BENCH-REPEAT ' "$tmp/out")" -eq 3 ]
check "in the order the boots printed them" \
  [ "$(grep -o 'suite=[a-z]*' "$tmp/out" | tr '\n' ' ')" = "suite=locks suite=pagecache suite=ramfs " ]
check "the malformed line named" grep -q 'skipped BENCH-CMP line: missing verdict' "$tmp/err"
check "no other line skipped (inconclusive is a verdict)" [ "$(wc -l < "$tmp/err")" -eq 1 ]
check "no A/A summary without A/A boots" [ "$(grep -c 'A/A' "$tmp/out")" -eq 0 ]

# A/A boots (bench.aa=yes on the command line, or a BENCH-AA line), among them a plain boot whose
# verdicts are not counted. Per suite, a family is its comparisons in one boot, false if one is
# faster or slower: locks false in boots 1 and 3 (two false verdicts there, one family), ramfs
# in boot 2 only. locks/queued~aa at 2 threads: 0.90, 0.99, 1.20, mean 1.03, ci95 4.303 x 0.15395 /
# sqrt(3) = 0.382.
CMDLINE="bench=quick,locks,ramfs bench.aa=yes" log "$tmp/aa1.log" \
  "suite=locks a=queued b=queued~aa threads=1 ratio=1.010 ci95=0.080 verdict=inconclusive" \
  "suite=locks a=queued b=queued~aa threads=2 ratio=0.900 ci95=0.080 verdict=slower" \
  "suite=ramfs a=free-rcu b=free-rcu~aa threads=1 ratio=1.000 ci95=0.020 verdict=same"
CMDLINE="bench=quick,locks,ramfs bench.aa=yes" LAST="BENCH-AA suites=2 comparisons=4 false=1 inconclusive=2 families=2 false_families=1" \
  log "$tmp/aa2.log" \
  "suite=locks a=queued b=queued~aa threads=1 ratio=1.010 ci95=0.080 verdict=inconclusive" \
  "suite=locks a=queued b=queued~aa threads=2 ratio=0.990 ci95=0.080 verdict=inconclusive" \
  "suite=ramfs a=free-rcu b=free-rcu~aa threads=1 ratio=1.100 ci95=0.020 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-rcu~aa threads=2 ratio=1.000 ci95=0.020 verdict=same"
CMDLINE="bench=quick,locks,ramfs" LAST="BENCH-AA suites=2 comparisons=3 false=2 inconclusive=0 families=2 false_families=1" \
  log "$tmp/aa3.log" \
  "suite=locks a=queued b=queued~aa threads=1 ratio=1.100 ci95=0.080 verdict=faster" \
  "suite=locks a=queued b=queued~aa threads=2 ratio=1.200 ci95=0.080 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-rcu~aa threads=1 ratio=1.000 ci95=0.020 verdict=same"
log "$tmp/plain.log" "suite=locks a=queued b=ticket threads=1 ratio=1.500 ci95=0.080 verdict=faster" \
  "suite=ramfs a=free-rcu b=free-now threads=1 ratio=0.500 ci95=0.080 verdict=slower"
"$repeat" --logs "$tmp/aa1.log" "$tmp/plain.log" "$tmp/aa2.log" "$tmp/aa3.log" > "$tmp/aa.out" 2> "$tmp/aa.err"
check "exit 0 on A/A logs" [ $? -eq 0 ]
check "A/A: a BENCH-REPEAT line per comparison first" has \
  "BENCH-REPEAT suite=locks a=queued b=queued~aa threads=2 boots=3 ratio=1.030 ci95=0.382 faster=1 same=0 inconclusive=1 slower=1" "$tmp/aa.out"
check "A/A: a suite false in two boots of three" has \
  "bench-repeat: A/A suite=locks families=3 false_families=2 rate=66.7%" "$tmp/aa.out"
check "A/A: a suite false in one boot of three" has \
  "bench-repeat: A/A suite=ramfs families=3 false_families=1 rate=33.3%" "$tmp/aa.out"
check "A/A: all suites, the plain boot left out" has \
  "bench-repeat: A/A all families=6 false_families=3 rate=50.0% comparisons=10 false=4 inconclusive=3" "$tmp/aa.out"
check "A/A: after the BENCH-REPEAT lines, suites in first-seen order" \
  [ "$(grep -v '^BENCH-REPEAT ' "$tmp/aa.out" | cut -d' ' -f3 | tr '\n' ' ')" = "suite=locks suite=ramfs all " ]
check "A/A: no warning" [ ! -s "$tmp/aa.err" ]

# Six boots: 1..6, mean 3.5, sd 1.8708, ci95 t(0.975, 5) 1.8708 / sqrt(6) = 2.571 x 0.76376.
for i in 1 2 3 4 5 6; do
  log "$tmp/six$i.log" "suite=locks a=tas b=ticket~aa threads=1 ratio=$i.000 ci95=0.500 verdict=faster"
done
"$repeat" --logs "$tmp"/six?.log > "$tmp/out"
check "six boots (t at 5 degrees of freedom)" has \
  "BENCH-REPEAT suite=locks a=tas b=ticket~aa threads=1 boots=6 ratio=3.500 ci95=1.964 faster=6 same=0 inconclusive=0 slower=0" "$tmp/out"
log "$tmp/one.log" "suite=locks a=tas b=ticket threads=1 ratio=1.500 ci95=0.100 verdict=faster"
"$repeat" --logs "$tmp/one.log" > "$tmp/out"
check "one boot has no spread" has \
  "BENCH-REPEAT suite=locks a=tas b=ticket threads=1 boots=1 ratio=1.500 ci95=0.000 faster=1 same=0 inconclusive=0 slower=0" "$tmp/out"
t=$(cd "$root/tools" && python3 -c 'import boots; print(boots.t975(0), boots.t975(1), boots.t975(30), boots.t975(35), boots.t975(5000))')
check "t(0.975, df): none at 0, the table's rows, the lower row between rows" [ "$t" = "0.0 12.706 2.042 2.042 1.962" ]
"$repeat" --logs "$tmp/missing.log" > /dev/null 2>&1
check "exit 2 on a log that is not there" [ $? -eq 2 ]

# A stand-in for qemu.sh: records its arguments, writes boot i's log with queued/ticket at
# 1.0 + 0.2 (i - 1), and exits with FAKE_EXIT for the boot numbered FAKE_BOOT.
cat > "$tmp/qemu.sh" <<'EOF'
#!/bin/bash
dir=$(dirname "$0")
i=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo $i > "$dir/count"
printf '%s\n' "$@" > "$dir/args-$i"
while [ $# -gt 0 ]; do [ "$1" = --log ] && log=$2; shift; done
ratio=$(awk -v i=$i 'BEGIN { printf "%.3f", 1 + 0.2 * (i - 1) }')
cat > "$log" <<LOG
[    1.000000] BENCH-CMP suite=locks a=queued b=ticket threads=2 ratio=$ratio ci95=0.050 verdict=faster
[    2.000000] END result=pass
LOG
if [ "$i" = "${FAKE_BOOT:-}" ]; then
  echo "qemu: the kernel reported failure (END result=fail)" >&2
  exit "$FAKE_EXIT"
fi
EOF
chmod +x "$tmp/qemu.sh"
run() { # run NAME [VAR=VALUE...]: three boots through the stand-in, the output in $tmp/NAME.out
  local name=$1
  shift
  rm -f "$tmp/count" "$tmp"/args-*
  env "$@" "$repeat" --boots 3 --smp 3 --mem 2G --cmdline "bench=locks bench.runs=7" \
    --accel tcg --timeout 77 --logdir "$tmp/logs" --qemu "$tmp/qemu.sh" > "$tmp/$name.out" 2>&1
}

run first
check "exit 0 when every boot passed" [ $? -eq 0 ]
dir=$(ls -d "$tmp"/logs/repeat-* 2> /dev/null)
check "one directory of logs" [ "$(echo "$dir" | wc -l)" -eq 1 -a -d "$dir" ]
check "a log per boot" [ -s "$dir/boot-1.log" -a -s "$dir/boot-2.log" -a -s "$dir/boot-3.log" ]
check "three boots" [ "$(cat "$tmp/count")" = 3 ]
printf '%s\n' --smp 3 --mem 2G --cmdline "bench=locks bench.runs=7" --accel tcg --timeout 77 \
  --log "$dir/boot-2.log" > "$tmp/want-args"
check "qemu.sh's options" cmp -s "$tmp/want-args" "$tmp/args-2"
check "the booted ratios aggregated" has \
  "BENCH-REPEAT suite=locks a=queued b=ticket threads=2 boots=3 ratio=1.200 ci95=0.497 faster=3 same=0 inconclusive=0 slower=0" "$tmp/first.out"
check "make report suggested" grep -qF "make report LOG=\"$dir/boot-1.log $dir/boot-2.log $dir/boot-3.log\"" "$tmp/first.out"
sum=$(cat "$dir"/*.log | md5sum)

run second
check "a second run, a second directory" [ "$(ls -d "$tmp"/logs/repeat-* | wc -l)" -eq 2 ]
check "the first run's logs untouched" [ "$(cat "$dir"/*.log | md5sum)" = "$sum" ]

run failing FAKE_BOOT=2 FAKE_EXIT=1
check "exit 1 when a boot failed" [ $? -eq 1 ]
check "every boot still run" [ "$(cat "$tmp/count")" = 3 ]
check "the failed boot named" grep -q '^bench-repeat: 2 boots passed, 1 failed (.*/boot-2.log)' "$tmp/failing.out"
check "qemu.sh's message shown" grep -q 'END result=fail' "$tmp/failing.out"
check "the passed boots aggregated" has \
  "BENCH-REPEAT suite=locks a=queued b=ticket threads=2 boots=2 ratio=1.200 ci95=2.541 faster=2 same=0 inconclusive=0 slower=0" "$tmp/failing.out"

run unstartable FAKE_BOOT=1 FAKE_EXIT=2
check "exit 1 when qemu.sh cannot start a boot" [ $? -eq 1 ]
check "no boot after one qemu.sh could not start" [ "$(cat "$tmp/count")" = 1 ]

"$repeat" --boots 0 > /dev/null 2>&1
check "exit 2 on N=0" [ $? -eq 2 ]

# The Makefile passes N and the qemu variables through (its command, continued lines joined).
MAKEFLAGS= make -C "$root" -n -s bench-repeat N=2 SMP=3 MEM=2G ACCEL=tcg TIMEOUT=77 CMDLINE="bench=locks quick" \
  2>&1 | tr -s '\\\n ' '   ' > "$tmp/make.out"
check "make bench-repeat's command" grep -qF \
  'tools/bench_repeat.py --boots 2 --smp 3 --mem 2G --cmdline "bench=locks quick" --accel "tcg" --timeout 77' \
  "$tmp/make.out"

check_summary
