#!/bin/bash
# Runs the host fuzzers make built (build/fuzz/fuzz_<parser>), one process each: --runs, a
# fixed seeded number of inputs (make test); --secs S, S seconds each (make fuzz); --replay,
# each seed and regression input of tests/fuzz/corpus/<parser>/ once, no new input (make check).
#
# Where inputs go. The seeds in tests/fuzz/corpus/<parser>/ are read, never written, except:
# - make test (--runs) starts from them and writes what it finds to a temporary directory, so
#   two runs of the same tree try exactly the same inputs;
# - make fuzz (--secs) keeps the inputs that reach new code in build/fuzz/corpus/<parser>/,
#   outside the tree and kept from run to run (as syzkaller keeps its corpus apart from the
#   source): thousands of machine-made files would bury the few seeds, which are picked by hand;
# - a crash (or a broken invariant, or an input that takes over 10 s) is kept in
#   build/fuzz/crashes/<parser>/ and, by make fuzz, copied into tests/fuzz/corpus/<parser>/ as
#   a regression input: from then on every make test runs it first, and fails until it is fixed.
set -u
cd "$(dirname "$0")/../.."

SEED=1      # libFuzzer's -seed for --runs: the same inputs every time
# Inputs per parser for --runs: about 20 s each on the 2-core development machine (an idle
# core; the input count, not the time, is what is fixed).
runs_for() {
  case $1 in
    cmdline) echo 700000 ;;
    acpi) echo 2000000 ;;
    multiboot) echo 2000000 ;;
    inflate) echo 100000 ;;
    cpio) echo 250000 ;;
    *) echo 100000 ;;
  esac
}

usage() { echo "usage: $0 --runs | --secs S | --replay  build/fuzz/fuzz_NAME..." >&2; exit 2; }
mode=${1:-}
case $mode in
  --runs|--replay) shift ;;
  --secs) secs=${2:-}; shift 2 || usage
          [[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "$0: SECS must be whole seconds" >&2; exit 2; } ;;
  *) usage ;;
esac
[ $# -gt 0 ] || usage

passed=0
failed=0
mkdir -p build/fuzz/logs
for bin in "$@"; do
  p=$(basename "$bin")
  p=${p#fuzz_}
  seeds=tests/fuzz/corpus/$p
  log=build/fuzz/logs/$p.log
  crashes=build/fuzz/crashes/$p
  mkdir -p "$crashes"
  before=$(ls "$crashes")
  opts=(-timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/")
  # A parser's words and signatures (tests/fuzz/<parser>.dict), where it has them.
  [ -f "tests/fuzz/$p.dict" ] && opts+=(-dict="tests/fuzz/$p.dict")
  if [ "$mode" = --runs ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$p.XXXXXX")
    # Deterministic: no re-reading of the corpus directory on a timer (-reload), and no
    # mutations from compared values (-use_cmp): the parsers compare heap pointers with NULL,
    # and their addresses differ from run to run; the dictionaries give back the words.
    "$bin" "${opts[@]}" -runs="$(runs_for "$p")" -seed=$SEED -reload=0 -use_cmp=0 \
      "$work" "$seeds" > "$log" 2>&1
    rc=$?
    rm -rf "$work"
  elif [ "$mode" = --replay ]; then
    # -runs=0: libFuzzer runs every input of the directory once while loading it, then stops.
    "$bin" "${opts[@]}" -runs=0 "$seeds" > "$log" 2>&1
    rc=$?
  else
    mkdir -p "build/fuzz/corpus/$p"
    "$bin" "${opts[@]}" -max_total_time="$secs" "build/fuzz/corpus/$p" "$seeds" > "$log" 2>&1
    rc=$?
  fi
  inputs=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+)/\1/p' "$log")
  took=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log")
  cov=$(grep -oE ' cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1 |
        sed -E 's/ cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)/\1 edges, \2 features, corpus \3/')
  new=$(comm -13 <(echo "$before") <(ls "$crashes"))
  if [ $rc = 0 ] && [ -z "$new" ]; then
    passed=$((passed + 1))
    echo "PASS  fuzz/$p (${inputs:-?} inputs in ${took:-?} s, $cov)"
    continue
  fi
  failed=$((failed + 1))
  echo "FAIL  fuzz/$p (exit $rc after ${inputs:-?} inputs; log $log)"
  for c in $new; do
    if [ "$mode" = --secs ]; then
      cp "$crashes/$c" "$seeds/$c"
      echo "      regression input added: $seeds/$c (replay: $bin $seeds/$c)"
    else
      echo "      input kept: $crashes/$c (replay: $bin $crashes/$c)"
    fi
  done
  # The report: the sanitizer's or the harness's first lines and the stack.
  grep -m 1 -A 14 -E 'ERROR: (AddressSanitizer|libFuzzer)|runtime error|invariant broken' "$log" |
    sed 's/^/      | /'
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
