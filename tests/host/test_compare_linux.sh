#!/bin/bash
# Host test of make compare-linux's tools: tools/compare_linux.py on canned logs of known
# values (geometric means, log-scale intervals, Holm's correction, the four verdicts and the
# margin, the explanatory ratios, the equal-terms check, failed boots, one round), planted
# bugs it must catch, tools/logratio.py's t against table values, tools/newc.py's archive read
# back by cpio, and tools/fetch_linux.sh against stand-ins for apt.
root=$(cd "$(dirname "$0")/../.." && pwd)
compare=$root/tools/compare_linux.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_compare_linux.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

has() { grep -qxF "$1" "$2"; }

# tools/logratio.py's Student t, written out, against printed tables (NIST/SEMATECH
# e-Handbook 1.3.6.7.2): two-sided quantiles, and the p-values of those quantiles.
check "t quantiles and p-values match the tables" python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import logratio as L
for a, df, t in [(0.05, 1, 12.706), (0.05, 2, 4.303), (0.05, 5, 2.571), (0.01, 10, 3.169),
                 (0.001, 3, 12.924), (0.05, 30, 2.042), (0.10, 4, 2.132), (0.02, 7, 2.998)]:
    assert abs(L.t_quantile(a, df) - t) < 0.0015, (a, df, L.t_quantile(a, df))
    assert abs(L.p_value(t, df) - a) < a * 0.01, (a, df, L.p_value(t, df))
' "$root/tools"

# this_log FILE LINE...: a boot of this kernel: its own BENCH-DONE first, a boot benchmark's
# line the comparison must not read, then the program's lines, all timestamped.
this_log() {
  local f=$1 t=3
  shift
  {
    echo "[    0.100000] BOOT cpus=2 possible=2 mem_mib=1023 tsc_khz=2994512 boot_us=41187"
    echo "[    1.000000] BENCH suite=locks variant=ticket threads=1 runs=3 ops_per_sec=5.000 stddev=0.000 ci95=0.000"
    echo "[    1.500000] BENCH-DONE suites=0 secs=0.000"
    echo "[    2.000000] init: /bin/ubench: a file, 812345 bytes"
    for l in "$@"; do
      printf '[%5d.000000] %s\n' "$t" "$l"
      t=$((t + 1))
    done
    echo "[   80.000000] BENCH-DONE suites=2 secs=70.000"
    echo "[   80.100000] init: /bin/ubench exited with status 0"
    echo "[   80.200000] END result=pass"
  } > "$f"
}

# The `init: seen` lines of user/linux/init.c on an equal-terms Linux (as a real boot printed
# them) and on Debian's defaults.
EQUAL_LINE=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import terms; print(" ".join(terms.EQUAL))' "$root/tools")
seen_equal() {
  echo "init: seen cmdline: console=ttyS0,115200 quiet panic=-1 no5lvl $EQUAL_LINE -- --secs 0.25"
  echo "init: seen thp: always madvise [never]"
  echo "init: seen lsm: lockdown,capability"
  echo "init: seen psi: absent"
  echo "init: seen clocksource: tsc"
  echo "init: seen klog: Dynamic Preempt: none"
  echo "init: seen klog: cgroup: Disabling memory control group subsystem"
  echo "init: seen klog: audit: disabled (until reboot)"
  echo 'init: seen klog: Unknown kernel command line parameters "no5lvl", will be passed to user space.'
  echo "init: seen klog: mem auto-init: stack:all(zero), heap alloc:off, heap free:off"
  echo "init: seen klog: clocksource: Switched to clocksource tsc-early"
  echo "init: seen klog: clocksource: Switched to clocksource tsc"
}
seen_debian() {
  echo "init: seen cmdline: console=ttyS0,115200 quiet panic=-1 no5lvl -- --secs 0.25"
  echo "init: seen thp: [always] madvise never"
  echo "init: seen clocksource: hpet"
  echo "init: seen klog: mem auto-init: stack:all(zero), heap alloc:on, heap free:off"
}

# linux_log KIND FILE LINE...: a boot of Linux: a kernel line with its timestamp,
# user/linux/init.c's lines and the program's, without.
linux_log() {
  local kind=$1 f=$2
  shift 2
  {
    echo "[    0.912345] Run /init as init process"
    if [ "$kind" = linux ]; then seen_equal; else seen_debian; fi
    echo "init: /bin/ubench: a file, 812345 bytes"
    printf '%s\n' "$@"
    echo "BENCH-DONE suites=2 secs=70.000"
    echo "init: /bin/ubench exited with status 0"
    echo "[   79.000000] reboot: Power down"
  } > "$f"
}

bench() { # bench SUITE VARIANT THREADS OPS
  echo "BENCH suite=$1 variant=$2 threads=$3 runs=3 ops_per_sec=$4 stddev=1.000 ci95=2.000"
}

meta() { # meta DIR: compare.json of a 2-vCPU run
  echo '{"fetch": "COMPARE-LINUX package=linux-image-6.1.0-57-amd64 version=6.1.192-3 sha256=abc", "opts": {"smp": "2", "cpu": "max", "mem": "1G", "accel": "", "secs": "0.25", "runs": "3", "threads": "1,2"}, "load": {"start": "1.50 1.20 1.00", "end": "1.70 1.30 1.10"}}' > "$1/compare.json"
}

# Three rounds, four kinds (ratios this/linux per round; the expected figures were computed
# apart, the t quantile by Simpson integration of the density):
# - ucreate private, 1 thread: this 100, 110, 120 against linux 200: 0.50, 0.55, 0.60;
#   geometric mean 0.548, p 0.0076, Holm's rank 2 of 4 rows, rejected at 5%/3: [0.367,
#   0.820], ci95 0.272 (the upper arm), slower.
# - ucreate private, 2 threads: this 1000 against 800, 1000, 1250: 1.25, 1.00, 0.80;
#   geometric mean 1.000 (their arithmetic mean is 1.017), at 5%/2 (the two rows not
#   rejected): [0.450, 2.224], inconclusive.
# - ufault anon, 1 thread: this 1000, 1010, 990 against 1000: at 5%/2 [0.965, 1.036]: same
#   inside the default 5% margin, inconclusive inside a 3% one.
# - upread shared, 2 threads: 3.0 every round, no spread: p 0, faster with ci95 0.000.
# - ustat deep, 1 thread: only on this kernel: n/a.
# this_halt is 0.8 x this and linux_debian 0.8 x linux every round: the explanatory ratios
# 0.800 and 1.250, no spread.
mk3() {
  local d=$1 i lin=(800 1000 1250) this1=(100 110 120) anon=(1000 1010 990)
  mkdir -p "$d"
  for i in 1 2 3; do
    local a=${this1[$((i - 1))]} b=${anon[$((i - 1))]}
    this_log "$d/r$i-this.log" "BENCH-SUITE suite=ucreate sweep=up threads=1,2 variants=private,shared op=create + unlink of an empty file seed=2010 ramfs" \
      "$(bench ucreate private 1 $a.000)" "$(bench ucreate private 2 1000.000)" \
      "$(bench ufault anon 1 $b.000)" "$(bench upread shared 2 300.000)" "$(bench ustat deep 1 50.000)"
    this_log "$d/r$i-this_halt.log" \
      "$(bench ucreate private 1 $((a * 8 / 10)).000)" "$(bench ucreate private 2 800.000)" \
      "$(bench ufault anon 1 $((b * 8 / 10)).000)" "$(bench upread shared 2 240.000)" "$(bench ustat deep 1 40.000)"
    linux_log linux "$d/r$i-linux.log" "$(bench ucreate private 1 200.000)" \
      "$(bench ucreate private 2 ${lin[$((i - 1))]}.000)" "$(bench ufault anon 1 1000.000)" \
      "$(bench upread shared 2 100.000)"
    linux_log linux_debian "$d/r$i-linux_debian.log" "$(bench ucreate private 1 160.000)" \
      "$(bench ucreate private 2 $((${lin[$((i - 1))]} * 8 / 10)).000)" "$(bench ufault anon 1 800.000)" \
      "$(bench upread shared 2 80.000)"
  done
  meta "$d"
}
mk3 "$tmp/three"
sed -i "s/^\[    2.000000\] init: \/bin\/ubench: a file/[    0.200000] cmdline: ignoring 'ipi.wait=spin': unknown key\n&/" "$tmp/three/r1-this.log"
"$compare" --logs "$tmp/three" --report "$tmp/rep" > "$tmp/out" 2> "$tmp/err"
check "exit 0 when every boot ran the program to its end" [ $? -eq 0 ]
check "the COMPARE-LINUX line kept" has "COMPARE-LINUX package=linux-image-6.1.0-57-amd64 version=6.1.192-3 sha256=abc" "$tmp/out"
L_SLOWER="COMPARE suite=ucreate variant=private threads=1 this=110.0 this_halt=88.0 linux=200.0 linux_debian=160.0 ratio=0.548 ci95=0.272 verdict=slower"
L_INCONC="COMPARE suite=ucreate variant=private threads=2 this=1000.0 this_halt=800.0 linux=1016.7 linux_debian=813.3 ratio=1.000 ci95=1.224 verdict=inconclusive"
L_SAME="COMPARE suite=ufault variant=anon threads=1 this=1000.0 this_halt=800.0 linux=1000.0 linux_debian=800.0 ratio=1.000 ci95=0.036 verdict=same"
L_FASTER="COMPARE suite=upread variant=shared threads=2 this=300.0 this_halt=240.0 linux=100.0 linux_debian=80.0 ratio=3.000 ci95=0.000 verdict=faster"
check "slower: geometric mean, log-scale interval at Holm's 5%/3" has "$L_SLOWER" "$tmp/out"
check "inconclusive: the geometric mean of 1.25, 1, 0.8 is 1, at 5%/2" has "$L_INCONC" "$tmp/out"
check "same: inside 1 ± 5%" has "$L_SAME" "$tmp/out"
check "faster, no spread" has "$L_FASTER" "$tmp/out"
check "a point Linux lacks: n/a" has \
  "COMPARE suite=ustat variant=deep threads=1 this=50.0 this_halt=40.0 linux=n/a linux_debian=n/a ratio=n/a ci95=n/a verdict=n/a" "$tmp/out"
check "every COMPARE line in the contract's form (doc/console.md)" [ "$(grep '^COMPARE ' "$tmp/out" | grep -cvE '^COMPARE suite=[a-z0-9]+( variant=[^ ]+)? threads=[0-9]+ this=([0-9]+\.[0-9]|n/a) this_halt=([0-9]+\.[0-9]|n/a) linux=([0-9]+\.[0-9]|n/a) linux_debian=([0-9]+\.[0-9]|n/a) ratio=([0-9]+\.[0-9]{3}|n/a) ci95=([0-9]+\.[0-9]{3}|n/a) verdict=(faster|slower|same|inconclusive|n/a)$')" -eq 0 ]
check "only the program's u* lines" [ "$(grep -c 'suite=locks' "$tmp/out")" -eq 0 ]
check "one COMPARE line per point" [ "$(grep -c '^COMPARE ' "$tmp/out")" -eq 5 ]
ROW1='| 1 | 110 ± 24.8 | 88.0 ± 19.9 | 200 | 160 | 0.548 ± 0.272 [0.367, 0.820] | slower | 0.800 [0.800, 0.800] | 1.250 [1.250, 1.250] |'
check "the table's row: means, ratio ± ci95 [interval], verdict, explanatory ratios" grep -qxF "$ROW1" "$tmp/out"
check "a heading per suite and variant" [ "$(grep '^### ' "$tmp/out" | tr '\n' ' ')" = "### ucreate private ### ufault anon ### upread shared ### ustat deep " ]
check "the suite's operation from BENCH-SUITE" grep -qF 'One operation: create + unlink of an empty file; seed: 2010 ramfs.' "$tmp/out"
md=$tmp/rep/compare-linux.md
check "compare-linux.md written" [ -s "$md" ]
check "the report's table" grep -qxF "$ROW1" "$md"
check "the report's COMPARE lines" grep -qxF "$L_FASTER" "$md"
check "the report names each boot" [ "$(grep -c '^| round [123], .* | pass' "$md")" -eq 12 ]
check "rounds counterbalanced: round 2 in reverse order" [ "$(grep -o '^| round 2, [a-z_]*' "$md" | tr '\n' ' ')" = "| round 2, linux_debian | round 2, this_halt | round 2, linux | round 2, this " ]
check "the equal-terms Linux command line in the report" grep -qF "| linux: command line | \`console=ttyS0,115200 quiet panic=-1 no5lvl $EQUAL_LINE -- --secs 0.25 --runs 3 --threads 1,2 --dir /tmp/ubench\` |" "$md"
check "this kernel's command line in the report" grep -qF '`bench=none ipi.wait=spin init=/bin/ubench -- --secs 0.25' "$md"
check "QEMU's options in the report" grep -qF '`-machine pc -cpu max -smp 2 -m 1G' "$md"
check "the host's load in the report" grep -qF '1.50 1.20 1.00 at the start, 1.70 1.30 1.10 at the end' "$md"
check "Holm and the margin named in the report" grep -qF 'corrected for the 4 rows with two rounds or more by Holm' "$md"
check "what each Linux showed, in the report" grep -qxF '| transparent huge pages | — | — | `always madvise [never]` | `[always] madvise never` |' "$md"
check "the clocksource each Linux used, in the report" grep -qxF '| clocksource | — | — | `tsc` | `hpet` |' "$md"
check "an ipi.wait= this kernel did not know, in the report" grep -qF '`ipi.wait=spin unknown to this kernel`' "$md"
if command -v gnuplot > /dev/null; then
  check "compare-linux.png is a PNG" [ "$(head -c 8 "$tmp/rep/compare-linux.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
fi
check "no traceback" [ "$(grep -c Traceback "$tmp/err")" -eq 0 ]
"$compare" --logs "$tmp/three" --margin 3 --report "$tmp/rep3" > "$tmp/out3m" 2>&1
check "a 3% margin: the same row is inconclusive" grep -qxF "${L_SAME% verdict=same} verdict=inconclusive" "$tmp/out3m"

# Holm against Bonferroni, two rows each. ucreate: ratios 1.1972, 1.3231, 1.4623 (p 0.040,
# between 5%/2 and 5%); upread: 2.0 every round (p 0). Holm rejects the ucreate row at its
# step, 5%/1, where Bonferroni's 5%/2 would not: faster, [1.032, 1.696]. Then two rows of p
# 0.040: the first step, 5%/2, rejects neither, nor would Bonferroni: both at 5%/2, [0.925,
# 1.893], inconclusive (an uncorrected 95% interval would call both faster).
mkholm() { # mkholm DIR UPREAD-RATE...: the upread row's rate of each round
  local d=$1 i r=(1197.2 1323.1 1462.3)
  shift
  mkdir -p "$d"
  for i in 1 2 3; do
    this_log "$d/r$i-this.log" "$(bench ucreate private 1 ${r[$((i - 1))]})" "$(bench upread shared 1 $1)"
    linux_log linux "$d/r$i-linux.log" "$(bench ucreate private 1 1000.000)" "$(bench upread shared 1 1000.000)"
    shift
  done
  meta "$d"
}
mkholm "$tmp/holm" 2000.000 2000.000 2000.000
"$compare" --logs "$tmp/holm" --report "$tmp/reph" > "$tmp/outh" 2>&1
L_HOLM="COMPARE suite=ucreate variant=private threads=1 this=1327.5 this_halt=n/a linux=1000.0 linux_debian=n/a ratio=1.323 ci95=0.373 verdict=faster"
check "Holm rejects where Bonferroni would not" has "$L_HOLM" "$tmp/outh"
check "Holm: the other row" grep -q '^COMPARE suite=upread variant=shared threads=1 .* ratio=2.000 ci95=0.000 verdict=faster$' "$tmp/outh"
mkholm "$tmp/neither" 1197.2 1323.1 1462.3
"$compare" --logs "$tmp/neither" --report "$tmp/repn" > "$tmp/outn" 2>&1
L_NEITHER="COMPARE suite=ucreate variant=private threads=1 this=1327.5 this_halt=n/a linux=1000.0 linux_debian=n/a ratio=1.323 ci95=0.570 verdict=inconclusive"
check "neither Holm nor Bonferroni rejects two rows of p 0.04" has "$L_NEITHER" "$tmp/outn"
check "neither: the twin row alike" has "${L_NEITHER/suite=ucreate variant=private/suite=upread variant=shared}" "$tmp/outn"

# Planted bugs, each in a doctored copy of the tools, each caught by the checks above: the
# arithmetic mean of the ratios in place of the geometric mean, and no correction across rows
# (every row's interval at 95%).
plant() { # plant NAME FROM TO: a copy of tools/ with FROM replaced by TO in logratio.py
  rm -rf "$tmp/$1" && cp -r "$root/tools" "$tmp/$1" &&
    python3 -c '
import sys
p, a, b = sys.argv[1:]
s = open(p).read()
assert s.count(a) == 1, "the planted bug: its text is not in logratio.py once"
open(p, "w").write(s.replace(a, b))' "$tmp/$1/logratio.py" "$2" "$3"
}
plant arith "return math.exp(mean), mean, sd / math.sqrt(n), n" "return sum(ratios) / n, mean, sd / math.sqrt(n), n"
check "planted: the arithmetic mean written" [ $? -eq 0 ]
"$tmp/arith/compare_linux.py" --logs "$tmp/three" --report "$tmp/repa" > "$tmp/outa" 2>&1
check "planted arithmetic mean: the geometric-mean check catches it" [ "$(grep -cxF "$L_INCONC" "$tmp/outa")" -eq 0 ]
check "planted arithmetic mean: it ran (ratio 1.017)" grep -q '^COMPARE suite=ucreate variant=private threads=2 .* ratio=1.017 ' "$tmp/outa"
plant noholm "levels = holm(pvals, alpha)" "levels = {r: (pvals[r] <= alpha, alpha) for r in pvals}"
check "planted: no correction written" [ $? -eq 0 ]
"$tmp/noholm/compare_linux.py" --logs "$tmp/neither" --report "$tmp/repx" > "$tmp/outx" 2>&1
check "planted missing correction: the neither-rejects check catches it" [ "$(grep -cxF "$L_NEITHER" "$tmp/outx")" -eq 0 ]
check "planted missing correction: it ran (faster at 95%)" grep -q '^COMPARE suite=ucreate variant=private threads=1 .* ci95=0.373 verdict=faster$' "$tmp/outx"
"$tmp/noholm/compare_linux.py" --logs "$tmp/three" --report "$tmp/repx" > "$tmp/outx3" 2>&1
check "planted missing correction: the slower row's interval check catches it" [ "$(grep -cxF "$L_SLOWER" "$tmp/outx3")" -eq 0 ]

# Agreement of two runs: the first has no predecessor; the same logs again agree; a run whose
# faster row turned slower, and whose slower row turned inconclusive, disagrees on both;
# --agree on two outputs says the same; other options: no check.
"$compare" --logs "$tmp/three" --report "$tmp/agree" > "$tmp/ag1" 2>&1
check "agreement: none before the first run" [ "$(grep -c '^COMPARE-AGREE' "$tmp/ag1")" -eq 0 ]
check "agreement: the verdicts kept" grep -q '^COMPARE suite=upread variant=shared threads=2 .* verdict=faster$' "$tmp/agree/compare-linux.verdicts"
"$compare" --logs "$tmp/three" --report "$tmp/agree" > "$tmp/ag2" 2>&1
check "agreement: the same run agrees" has "COMPARE-AGREE decided=2 disagree=0 opposite=0" "$tmp/ag2"
mk3 "$tmp/flip"
for i in 1 2 3; do
  sed -i 's/suite=upread variant=shared threads=2 runs=3 ops_per_sec=300.000/suite=upread variant=shared threads=2 runs=3 ops_per_sec=50.000/' "$tmp/flip/r$i-this.log"
  sed -i 's/variant=private threads=1 runs=3 ops_per_sec=200.000/variant=private threads=1 runs=3 ops_per_sec=110.000/' "$tmp/flip/r$i-linux.log"
done
"$compare" --logs "$tmp/flip" --report "$tmp/agree" > "$tmp/ag3" 2>&1
check "agreement: two rows disagree, one of them a contradiction" has "COMPARE-AGREE decided=2 disagree=2 opposite=1" "$tmp/ag3"
check "agreement: the row named" grep -qxF "compare-linux: upread shared at 2 threads: faster in the previous run, slower in this one" "$tmp/ag3"
check "agreement: the other, inconclusive now" grep -qxF "compare-linux: ucreate private at 1 thread: slower in the previous run, inconclusive in this one" "$tmp/ag3"
"$compare" --agree "$tmp/ag1" "$tmp/ag3" > "$tmp/ag4" 2>&1
check "--agree: exit 1 when two rows disagree" [ $? -eq 1 ]
check "--agree: the same count" has "COMPARE-AGREE decided=2 disagree=2 opposite=1" "$tmp/ag4"
"$compare" --agree "$tmp/ag1" "$tmp/agree/compare-linux.verdicts" > /dev/null 2>&1
check "--agree: a file against the .verdicts" [ $? -eq 1 ]
"$compare" --agree "$tmp/ag1" "$tmp/ag2" > "$tmp/ag5" 2>&1
check "--agree: exit 0 when they agree" [ $? -eq 0 ]
"$compare" --agree "$tmp/ag1" "$tmp/f-none" > /dev/null 2>&1
check "--agree: exit 2 on a missing file" [ $? -eq 2 ]
printf 'COMPARE suite=usyscall threads=1 this=1.0 this_halt=n/a linux=1.0 linux_debian=n/a ratio=1.000 ci95=0.100 verdict=faster\n' > "$tmp/nv1"
printf 'COMPARE suite=usyscall threads=1 this=1.0 this_halt=n/a linux=1.0 linux_debian=n/a ratio=1.000 ci95=0.100 verdict=slower\n' > "$tmp/nv2"
"$compare" --agree "$tmp/nv1" "$tmp/nv2" > "$tmp/ag7" 2>&1
check "--agree: a line without variant= is read" has "COMPARE-AGREE decided=1 disagree=1 opposite=1" "$tmp/ag7"
sed -i 's/"smp": "2"/"smp": "4"/' "$tmp/flip/compare.json"
"$compare" --logs "$tmp/flip" --report "$tmp/agree" > "$tmp/ag6" 2>&1
check "agreement: other options, no check" grep -q "^compare-linux: the previous run had other options (smp=2 " "$tmp/ag6"

# One round: no interval, no verdict.
mkdir -p "$tmp/one"
cp "$tmp/three"/r1-* "$tmp/one/"
"$compare" --logs "$tmp/one" --report "$tmp/rep1" > "$tmp/out1" 2>&1
check "exit 0 with one round" [ $? -eq 0 ]
check "one round: ci95 and verdict n/a" has \
  "COMPARE suite=ucreate variant=private threads=1 this=100.0 this_halt=80.0 linux=200.0 linux_debian=160.0 ratio=0.500 ci95=n/a verdict=n/a" "$tmp/out1"
check "one round: the ratio's cell" grep -qxF '| 1 | 100 | 80.0 | 200 | 160 | 0.500 (n/a) | n/a | 0.800 (n/a) | 1.250 (n/a) |' "$tmp/out1"

# Only the verdict's pair (--explain no): the others' columns n/a, still a chart. No Linux at
# all: no chart.
rm "$tmp/one"/r1-this_halt.log "$tmp/one"/r1-linux_debian.log
"$compare" --logs "$tmp/one" --report "$tmp/rep2" > "$tmp/out2" 2>&1
check "the verdict's pair alone: exit 0" [ $? -eq 0 ]
check "the verdict's pair alone: the others n/a" grep -qF 'this=100.0 this_halt=n/a linux=200.0 linux_debian=n/a ratio=0.500' "$tmp/out2"
if command -v gnuplot > /dev/null; then
  check "the verdict's pair alone: still a chart" [ -s "$tmp/rep2/compare-linux.png" ]
fi
rm "$tmp/one"/r1-linux.log
"$compare" --logs "$tmp/one" --report "$tmp/rep2" > "$tmp/out3" 2>&1
check "this kernel alone: exit 0" [ $? -eq 0 ]
check "this kernel alone: no chart, not an old one" [ ! -e "$tmp/rep2/compare-linux.png" ]
check "this kernel alone: no chart named" [ "$(grep -c 'png' "$tmp/rep2/compare-linux.md")" -eq 0 ]

# A failed boot: Linux's program killed in round 2, this kernel's cut short in round 3, and an
# equal-terms Linux in round 1 that ran with huge pages and zeroing allocations after all.
mk3 "$tmp/bad"
sed -i 's/exited with status 0/killed by signal 9/' "$tmp/bad/r2-linux.log"
sed -i '/BENCH-DONE suites=2/,$d' "$tmp/bad/r3-this.log"
sed -i 's/init: seen thp: always madvise \[never\]/init: seen thp: [always] madvise never/; s/heap alloc:off/heap alloc:on/; s/seen clocksource: tsc/seen clocksource: hpet/' "$tmp/bad/r1-linux.log"
"$compare" --logs "$tmp/bad" --report "$tmp/repbad" > "$tmp/outbad" 2>&1
check "exit 1 when a boot failed" [ $? -eq 1 ]
check "the killed program named" grep -qF 'round 2, linux: no exit status of the program' "$tmp/outbad"
check "the boot cut short named" grep -qF 'round 3, this: no exit status of the program' "$tmp/outbad"
check "equal terms not in effect: named" grep -qxF 'compare-linux: round 1, linux: did not take effect: [never] in transparent_hugepage/enabled; mem auto-init: heap alloc:off, heap free:off; clocksource tsc or tsc-early' "$tmp/outbad"
check "the report says which failed" grep -q '^| round 2, linux | FAILED' "$tmp/repbad/compare-linux.md"
check "still a table of what was measured" grep -q '^COMPARE suite=ucreate variant=private threads=1 ' "$tmp/outbad"
mk3 "$tmp/old"
sed -i '/init: seen/d' "$tmp/old/r2-linux.log"
sed -i 's/ hardened_usercopy=off//' "$tmp/old/r3-linux.log"
"$compare" --logs "$tmp/old" --report "$tmp/repold" > "$tmp/outold" 2>&1
check "an equal-terms Linux without seen lines fails" grep -qF 'round 2, linux: no `init: seen` lines' "$tmp/outold"
check "a word missing from its command line fails" grep -qxF 'compare-linux: round 3, linux: not on its command line: hardened_usercopy=off' "$tmp/outold"
check "Debian's defaults are not checked" [ "$(grep -c 'linux_debian:' "$tmp/outold")" -eq 0 ]
"$compare" --logs "$tmp/nothing" > /dev/null 2>&1
check "exit 2 on a directory without logs" [ $? -eq 2 ]
"$compare" --smp 0 > /dev/null 2>&1
check "exit 2 on --smp 0" [ $? -eq 2 ]
"$compare" --margin 100 > /dev/null 2>&1
check "exit 2 on --margin 100" [ $? -eq 2 ]
# CMDLINE=: words for this kernel's boots only, never the comparison's own.
"$compare" --this-cmdline "ipi.wait=halt" > "$tmp/tc" 2>&1
check "exit 2 on CMDLINE=ipi.wait=halt" [ $? -eq 2 ]
check "CMDLINE=ipi.wait=halt is refused as the comparison's word" grep -q "the comparison's" "$tmp/tc"
check "CMDLINE= reaches this kernel's boots, not Linux's" python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import compare_linux as C
o = C.options(["--smp", "4", "--this-cmdline", "vm.pt=percore"])
assert C.cmdline("this", o).startswith("bench=none ipi.wait=spin vm.pt=percore init=/bin/ubench -- ")
assert "vm.pt" not in C.cmdline("linux", o) and "vm.pt" not in C.cmdline("linux_debian", o)
' "$root/tools"

# tools/newc.py: a device node without root, files and directories, read back by cpio.
printf 'hello\n' > "$tmp/f"
printf '%s\n' 'dir /dev 0755 0 0' 'nod /dev/console 0600 0 0 c 5 1' "file /bin/f $tmp/f 0755 0 0" \
  'dir /tmp 1777 0 0  # sticky' > "$tmp/list"
"$root/tools/newc.py" "$tmp/a.cpio" "$tmp/list"
check "newc.py: exit 0" [ $? -eq 0 ]
cpio -itv < "$tmp/a.cpio" > "$tmp/cpio.out" 2> /dev/null
check "newc.py: cpio reads it" [ $? -eq 0 ]
check "newc.py: the console node" grep -qE '^crw------- +1 root +root +5, +1 .* dev/console$' "$tmp/cpio.out"
check "newc.py: the file" grep -qE '^-rwxr-xr-x +1 root +root +6 .* bin/f$' "$tmp/cpio.out"
check "newc.py: a sticky directory" grep -qE '^drwxrwxrwt .* tmp$' "$tmp/cpio.out"
(mkdir "$tmp/x" && cd "$tmp/x" && cpio -id --quiet bin/f < "$tmp/a.cpio")
check "newc.py: the file's bytes" cmp -s "$tmp/f" "$tmp/x/bin/f"
echo 'file /nope' > "$tmp/badlist"
"$root/tools/newc.py" "$tmp/b.cpio" "$tmp/badlist" 2> "$tmp/newc.err"
check "newc.py: a bad line named" [ $? -eq 1 ] && grep -qF "badlist:1:" "$tmp/newc.err"

# tools/fetch_linux.sh with stand-ins for apt-cache and apt-get (on PATH before the real
# ones) and a real .deb made with dpkg-deb: fetch, cache hit, missing package and download.
if command -v dpkg-deb > /dev/null; then
  mkdir -p "$tmp/deb/DEBIAN" "$tmp/deb/boot" "$tmp/deb/lib/modules" "$tmp/bin"
  printf 'a bzImage\n' > "$tmp/deb/boot/vmlinuz-6.1.0-99-amd64"
  printf 'CONFIG_INIT_STACK_ALL_ZERO=y\n' > "$tmp/deb/boot/config-6.1.0-99-amd64"
  printf 'a module\n' > "$tmp/deb/lib/modules/m.ko"
  printf 'Package: linux-image-6.1.0-99-amd64\nVersion: 6.1.999-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
    > "$tmp/deb/DEBIAN/control"
  dpkg-deb -Zgzip --build "$tmp/deb" "$tmp/k.deb" > /dev/null
  cat > "$tmp/bin/apt-cache" <<'EOF'
#!/bin/sh
case "$1 $2" in
  "depends linux-image-amd64") printf 'linux-image-amd64\n  Depends: linux-image-6.1.0-99-amd64\n' ;;
  "show --no-all-versions") [ "$3" = linux-image-6.1.0-99-amd64 ] && printf 'Package: %s\nVersion: 6.1.999-1\n' "$3" ;;
esac
EOF
  cat > "$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "\$*" >> "$tmp/apt-get.calls"
[ -n "\${FAKE_APT_FAIL:-}" ] && { echo "E: Failed to fetch"; exit 100; }
cp "$tmp/k.deb" ./linux-image-6.1.0-99-amd64_6.1.999-1_amd64.deb
EOF
  chmod +x "$tmp/bin/apt-cache" "$tmp/bin/apt-get"
  fetch() { PATH=$tmp/bin:$PATH LINUX_CACHE=$tmp/cache "$root/tools/fetch_linux.sh" "$@"; }
  sha=$(printf 'a bzImage\n' | sha256sum | cut -d' ' -f1)
  fetch > "$tmp/f1" 2> /dev/null
  check "fetch: exit 0" [ $? -eq 0 ]
  check "fetch: package, version and the vmlinuz's sha256" \
    has "COMPARE-LINUX package=linux-image-6.1.0-99-amd64 version=6.1.999-1 sha256=$sha" "$tmp/f1"
  check "fetch: the cached vmlinuz" [ "$(sed -n 2p "$tmp/f1")" = "$tmp/cache/linux-image-6.1.0-99-amd64_6.1.999-1/vmlinuz" ]
  check "fetch: the config kept beside it" grep -qx 'CONFIG_INIT_STACK_ALL_ZERO=y' "$tmp/cache/linux-image-6.1.0-99-amd64_6.1.999-1/config"
  check "fetch: only the vmlinuz kept" [ "$(find "$tmp/cache" -type f -name '*.ko' -o -type f -name '*.deb' | wc -l)" -eq 0 ]
  fetch linux-image-6.1.0-99-amd64 > "$tmp/f2" 2> /dev/null
  check "fetch: a second time from the cache" cmp -s "$tmp/f1" "$tmp/f2"
  check "fetch: apt-get download ran once" [ "$(grep -c '^download' "$tmp/apt-get.calls")" -eq 1 ]
  fetch linux-image-nosuch > "$tmp/f3" 2> "$tmp/f3.err"
  check "fetch: an unknown package, exit 1" [ $? -eq 1 ]
  check "fetch: missing=no-package" has "COMPARE-LINUX missing=no-package" "$tmp/f3"
  rm -rf "$tmp/cache"
  FAKE_APT_FAIL=1 fetch > "$tmp/f4" 2> "$tmp/f4.err"
  check "fetch: a failed download, exit 1" [ $? -eq 1 ]
  check "fetch: missing=download-failed" has "COMPARE-LINUX missing=download-failed" "$tmp/f4"
  check "fetch: apt's message shown" grep -qF 'E: Failed to fetch' "$tmp/f4.err"
  fetch 'bad name' > "$tmp/f5" 2> /dev/null
  check "fetch: a bad LINUX_PKG" has "COMPARE-LINUX missing=no-package" "$tmp/f5"
fi

check_summary
