#!/bin/bash
# ubench (user/ubench/, make compare-linux's benchmark) on the host, where Linux is the oracle:
# built as make builds it, run briefly on every suite at 1 and 2 threads in a scratch
# directory; every point must print a well-formed BENCH line (no BENCH-SKIP: Linux has every
# call it uses), a point's runs must have done at least ubench's 20 operations per worker per
# run, the fault suites must fault, and bad arguments must exit 2 with a message.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() {
  echo "FAIL  $*"
  failed=$((failed + 1))
}

if ! gcc -O2 -static -pthread -s -Wall -Werror -std=gnu11 -Wextra -Wno-unused-parameter \
    -iquote "$root/include" -o "$scratch/ubench" "$root"/user/ubench/*.c \
    "$root/kernel/lib/stats.c" "$root/kernel/lib/txnheap.c" -lm 2> "$scratch/build.err"; then
  echo "FAIL  build ubench: $(head -n 3 "$scratch/build.err")"
  exit 1
fi

runs=2
"$scratch/ubench" --secs 0.02 --runs $runs --threads 1,2 --dir "$scratch/work" \
  > "$scratch/out" 2>&1
status=$?
[ "$status" = 0 ] || fail "ubench exited with status $status: $(tail -n 2 "$scratch/out")"
[ -e "$scratch/work" ] && fail "ubench left its directory $scratch/work behind"

# Every suite's BENCH-SUITE line, and a BENCH line per variant and thread count.
python3 - "$scratch/out" "$runs" <<'EOF' || failed=$((failed + 1))
import re, sys
out, runs = open(sys.argv[1]).read().splitlines(), int(sys.argv[2])
want = {"ucreate": ["dir-per-thread", "shared-dir"], "upread": ["random-4k"],
        "ufault": ["file-shared", "anon"], "umadvise": ["dontneed", "free"],
        "ustat": ["deep-path"]}
faults = {"ufault", "umadvise"}
bench = re.compile(r"BENCH suite=(\S+) variant=(\S+) threads=(\d+) runs=(\d+) "
                   r"ops_per_sec=(\d+\.\d{3}) stddev=\d+\.\d{3} ci95=\d+\.\d{3}"
                   r"(?: faults_per_op=(\d+\.\d{3}))?$")
human = re.compile(r"ubench: (\S+): (\S+) at (\d+) threads?: (\d+) operations in (\d+) timed runs")
short = re.compile(r"ubench: (\S+): (\S+) at (\d+) threads?: STOPPED SHORT: ")
bad, seen, suites, ops, fpo, capped = [], {}, [], {}, {}, set()
for line in out:
    # This kernel's console passes a program's lines whole up to 199 bytes (include/process.h).
    if len(line.encode()) > 199:
        bad.append("longer than 199 bytes: " + line)
    if line.startswith("BENCH-SUITE "):
        suites.append(re.match(r"BENCH-SUITE suite=(\S+) ", line).group(1))
    elif line.startswith("BENCH-SKIP") or "FAILED" in line:
        bad.append(line)
    elif line.startswith("BENCH "):
        m = bench.match(line)
        if not m:
            bad.append("malformed: " + line)
            continue
        s, v, t, r, rate, f = m.groups()
        key = (s, v, int(t))
        seen[key] = float(rate)
        if int(r) != runs or float(rate) <= 0:
            bad.append("runs or rate: " + line)
        if (f is not None) != (s in faults):
            bad.append("faults_per_op where it does not belong, or missing: " + line)
        if f is not None:
            fpo[key] = float(f)
    elif (m := short.match(line)):
        capped.add((m.group(1), m.group(2), int(m.group(3))))
    elif (m := human.match(line)):
        ops[(m.group(1), m.group(2), int(m.group(3)))] = int(m.group(4))
if sorted(suites) != sorted(want):
    bad.append("BENCH-SUITE lines for %s, want %s" % (suites, sorted(want)))
for s, vs in want.items():
    for v in vs:
        for t in (1, 2):
            if (s, v, t) not in seen:
                bad.append("no BENCH line for %s %s at %d threads" % (s, v, t))
            # Each run lasts until every worker has done 20 operations, unless it says it
            # was stopped short at its cap (a host too loaded to do 20 umadvise transactions
            # a second); operations it did.
            elif ops.get((s, v, t), 0) < (1 if (s, v, t) in capped else 20 * t * runs):
                bad.append("%s %s at %d threads: %d operations in %d runs, want >= %d" % (
                    s, v, t, ops.get((s, v, t), 0), runs, 20 * t * runs))
# A first touch of anonymous memory is a fault; a transaction whose buffers came back with
# MADV_DONTNEED faults them in again, several pages each. A shared file mapping faults too,
# but a recent Linux maps a whole large folio of the page cache at once (ext4, tmpfs): fewer.
for (s, v, t), f in fpo.items():
    floor = {"file-shared": 0.01, "anon": 0.9, "dontneed": 3.0}.get(v, 0)
    if f < floor:
        bad.append("%s %s at %d threads: faults_per_op=%s, want >= %s" % (s, v, t, f, floor))
if not any(l.startswith("BENCH-DONE suites=5 secs=") for l in out):
    bad.append("no BENCH-DONE suites=5 line")
for b in bad:
    print("FAIL  " + b)
print("ubench output: %d BENCH lines, %d problems" % (len(seen), len(bad)))
sys.exit(1 if bad else 0)
EOF

# Bad arguments: a clear message on stderr, status 2, nothing run.
for args in "--runs 0" "--runs x" "--secs 0" "--secs 1e3" "--secs 0.1.2" "--threads 2,1" \
    "--threads 1,,2" "--threads 0" "--suites nosuch" "--suites" "--bogus 1" "plain" "--dir="; do
  # shellcheck disable=SC2086
  "$scratch/ubench" $args --dir "$scratch/none" > "$scratch/bad.out" 2> "$scratch/bad.err"
  status=$?
  if [ "$status" != 2 ] || ! grep -q "^ubench: " "$scratch/bad.err" || [ -s "$scratch/bad.out" ]; then
    fail "ubench $args: status $status, stderr '$(head -n 1 "$scratch/bad.err")'"
  fi
done
"$scratch/ubench" --help > "$scratch/help" 2>&1 || fail "ubench --help: status $?"
for opt in --suites --secs --runs --threads --dir; do
  grep -q -- "$opt" "$scratch/help" || fail "ubench --help does not name $opt"
done

echo "test_ubench: $failed failed"
[ "$failed" = 0 ]
