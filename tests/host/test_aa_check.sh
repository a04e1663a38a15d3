#!/bin/bash
# Host test of tools/aa_check.py: A/A logs of known runs (BENCH-RUNS lines) give the round and
# order effects and the false verdicts they must; a planted order effect is caught.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_aa_check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

# boots DIR N SLOW SEED: N boots of three suites of four points each, a against its copy,
# eight runs of equal length; every run's rate 1000 times a lognormal noise of 3%, and the run
# that goes second in its round SLOW times slower (1.0: none). Slots: a first, its copy
# second, so odd rounds run a first.
boots() {
  python3 - "$@" <<'EOF'
import math, random, sys
d, n, slow, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
for b in range(n):
    with open("%s/boot-%d.log" % (d, b + 1), "w") as f:
        f.write("[    0.000000] kernel: booted by GRUB 2.06, command line 'bench.aa=yes bench.rates=yes'\n")
        for s in ("sa", "sb", "sc"):
            for t in (1, 2, 4, 8):
                for slot, v in ((0, "x"), (1, "x~aa")):
                    rates = []
                    for r in range(8):
                        second = (slot == 1) == (r % 2 == 0)
                        rates.append(round(1000 * math.exp(rng.gauss(0, 0.03)) / (slow if second else 1)))
                    f.write("[%5d.000000] BENCH-RUNS suite=%s variant=%s threads=%d slot=%d of=2 rates=%s us=%s\n"
                            % (b, s, v, t, slot, ",".join(map(str, rates)), ",".join(["100000"] * 8)))
        f.write("[   90.000000] END result=pass\n")
EOF
}

mkdir "$tmp/aa" "$tmp/planted"
boots "$tmp/aa" 20 1.0 1
python3 "$root/tools/aa_check.py" "$tmp"/aa/boot-*.log > "$tmp/aa.out" 2>&1
check "runs without error" [ $? -eq 0 ]
check "every comparison read: 20 boots x 3 suites x 4 points" \
  grep -qE "^  weighted +comparisons 240, " "$tmp/aa.out"
# Normal noise, no effect: at most a few per cent of the 60 families hold a false verdict.
false_fams=$(sed -nE 's/^  weighted +comparisons .* families 60, false ([0-9]+) .*/\1/p' "$tmp/aa.out")
check "A/A without an effect: families with a false verdict at most 5 of 60 ($false_fams)" \
  [ "${false_fams:-99}" -le 5 ]
check "no order effect reported" grep -qE "^  all rounds [+-]0\.0[0-2]" "$tmp/aa.out"

# Planted: the second run of each round 10% slower. The order effect is log2(1.1) = 0.138, and
# with 8 runs, 4 of each order, a and its copy still tie on average, so the unpaired methods
# see noise; but the effect is measured.
boots "$tmp/planted" 20 1.1 2
python3 "$root/tools/aa_check.py" "$tmp"/planted/boot-*.log > "$tmp/planted.out" 2>&1
check "planted order effect measured (log2 1.1 = 0.138)" \
  grep -qE "^  all rounds \+0\.1[34]" "$tmp/planted.out"

# A point's runs over two lines (first=, as a column of more than 16 runs prints them) read
# as one: the same report as the same runs on one line.
mkdir "$tmp/split"
for f in "$tmp"/aa/boot-*.log; do
  sed -E 's/^(.* of=2) rates=([0-9]+(,[0-9]+){4}),([0-9,]+) us=([0-9]+(,[0-9]+){4}),([0-9,]+)$/\1 first=1 rates=\2 us=\5\n\1 first=6 rates=\4 us=\7/' \
    "$f" > "$tmp/split/$(basename "$f")"
done
python3 "$root/tools/aa_check.py" "$tmp"/split/boot-*.log > "$tmp/split.out" 2>&1
check "split lines written" grep -q " first=6 rates=" "$tmp/split/boot-1.log"
check "split lines read as one" cmp -s "$tmp/aa.out" "$tmp/split.out"

# Planted: the copy 10% slower in every run (a fixed difference): every family false.
sed -i -E '/variant=x~aa /{s/rates=([0-9,]+)/rates=X\1/}' "$tmp/aa"/boot-*.log
python3 - "$tmp/aa" <<'EOF'
import glob, re, sys
for p in glob.glob(sys.argv[1] + "/boot-*.log"):
    s = open(p).read()
    s = re.sub(r"rates=X([\d,]+)", lambda m: "rates=" + ",".join(str(round(int(x) / 1.1)) for x in m.group(1).split(",")), s)
    open(p, "w").write(s)
EOF
python3 "$root/tools/aa_check.py" "$tmp"/aa/boot-*.log > "$tmp/diff.out" 2>&1
check "planted difference: all 60 families false" \
  grep -qE "^  weighted +comparisons .* families 60, false 60 " "$tmp/diff.out"
check "planted difference: all 60 families false on the symmetric interval too" \
  grep -qE "^  weighted-lin +comparisons .* families 60, false 60 " "$tmp/diff.out"
check "the symmetric interval without an effect: at most 5 of 60 families false" \
  [ "$(sed -nE 's/^  weighted-lin +comparisons .* families 60, false ([0-9]+) .*/\1/p' "$tmp/aa.out")" -le 5 ]
# The sign flips: 8 rounds all one way is p = 2/256, under the 0.05/4 of a suite of four
# comparisons, so the planted difference is caught in every family; without it few are.
check "planted difference: the sign flips catch all 60 families" \
  grep -qE "^  sign-flip +comparisons .* families 60, false 60 " "$tmp/diff.out"
check "the sign flips without an effect: at most 5 of 60 families false" \
  [ "$(sed -nE 's/^  sign-flip +comparisons .* families 60, false ([0-9]+) .*/\1/p' "$tmp/aa.out")" -le 5 ]
check_summary
