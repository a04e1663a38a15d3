#!/bin/bash
# Host test of tools/report.py: runs it on the sample serial log and on broken logs and
# checks report.md, the per-suite PNG charts, the malformed-line warnings and the exit codes.
root=$(cd "$(dirname "$0")/../.." && pwd)
report=$root/tools/report.py
sample=$root/tests/host/data/sample-bench.log
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() { # check DESCRIPTION COMMAND...
  desc=$1; shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "test_report: check failed: $desc" >&2
  fi
}

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
  check "$s verdict" grep -Eq '\| (same|faster|slower) \|$' <(section $s)
  check "$s chart embedded" grep -qxF "![$s]($s.png)" <(section $s)
  check "$s.png is a PNG" is_png "$tmp/out/$s.png"
  check "$s.gp and $s.dat kept" [ -s "$tmp/out/$s.gp" -a -s "$tmp/out/$s.dat" ]
done
check "human units and ci95" grep -q '^| 1 | 9.78M ± 322k |' <(section locks)
check "fanout in the column name" grep -q '^| threads | hash-global | radix-lock/16 | radix-rcu/64 |$' <(section pagecache)
check "rows beyond ncpu marked" grep -q '^| 12 (>ncpu) |' <(section locks)
check "extras tabulated" grep -qx 'IPIs/op (mean over the runs):' <(section madvise)
check "ncpu line in the chart" grep -q "^set arrow from 8, graph 0 to 8, graph 1" "$tmp/out/locks.gp"
check "one warning for the garbage line" [ "$(grep -c 'skipped BENCH line: missing ci95' "$tmp/stderr")" -eq 1 ]
check "warning count" grep -qx 'report: skipped 1 malformed line' "$tmp/stderr"
check "no traceback" [ "$(grep -c Traceback "$tmp/stderr")" -eq 0 ]

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

echo "test_report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
