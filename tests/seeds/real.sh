#!/bin/sh
# The seeds' own programs in one boot (make seeds-real, tools/seeds_real.py): dbench (seed
# 000), fs_mark (003) or sysbench with jemalloc (001), unmodified, on this kernel or on Linux.
# Usage: real.sh DIR SEED SECS REPS THREADS [ALLOCS]
#   DIR      a directory on the ramfs (emptied first); SEED 000, 001 or 003
#   SECS     seconds a dbench or sysbench run lasts (fs_mark: 4,000 x SECS files a thread);
#   REPS     runs per point, in turns over THREADS
#   THREADS  comma list of client or thread counts; ALLOCS (001) comma list of dontneed,free
# Prints, for each run, a line the harness reads:
#   SEEDRUN seed=<s> program=<p> threads=<n> rep=<i> [alloc=<a>] rate=<r> unit=<u>
# a "SEEDRUN-FAIL seed=<s> ... why=<word>" line and the program's output when a run fails,
# and "SEEDRUN-DONE seed=<s> runs=<n> failed=<n>" last; exit 0 only when no run failed.
set -u
dir=$1 seed=$2 secs=$3 reps=$4 threads=$5 allocs=${6:-dontneed}
export LC_ALL=C HOME=/ PATH=/usr/bin:/bin
# fs_mark writes its fs_log.txt into the directory it runs in: DIR's parent.
cd "$(dirname "$dir")" || exit 1
JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
runs=0 failed=0

# jemalloc's decay (doc/seeds-real.md): freed pages are given back about a millisecond after
# they were freed, in both settings; muzzy_decay_ms chooses how. 0: at once with
# MADV_DONTNEED. -1: with MADV_FREE, and the lazily freed ("muzzy") pages are reused as they
# are, the kernel reclaiming them only under memory pressure (jemalloc's pac.c, decay).
malloc_conf() {
  case $1 in
    dontneed) echo "dirty_decay_ms:1,muzzy_decay_ms:0" ;;
    free) echo "dirty_decay_ms:1,muzzy_decay_ms:-1" ;;
  esac
}

# The rate a run's output ends with, or nothing: dbench's "Throughput <MB/s> MB/sec",
# fs_mark's result row (its 4th column, Files/sec), sysbench's events over its total time.
rate_of() {
  case $1 in
    dbench) awk '$1 == "Throughput" && $3 == "MB/sec" { r = $2 } END { if (r != "") print r }' ;;
    fs_mark) awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $3 == "0" { r = $4 } END { if (r != "") print r }' ;;
    sysbench) awk '/total time:/ { t = $3 + 0 } /total number of events:/ { e = $5 }
                   END { if (t > 0 && e > 0) printf "%.1f\n", e / t }' ;;
  esac
}

# run PROGRAM THREADS REP [ALLOC]: one run on an emptied directory, its SEEDRUN line.
run() {
  prog=$1 n=$2 rep=$3 alloc=${4:-}
  rm -rf "$dir" && mkdir -p "$dir" || { echo "SEEDRUN-FAIL seed=$seed why=mkdir"; exit 1; }
  case $prog in
    dbench) unit=MB/s
      /usr/bin/dbench -c /usr/share/dbench/client.txt -D "$dir" -t "$secs" "$n" > "$dir.out" 2>&1 ;;
    fs_mark) unit=files/s
      # 0-byte files, no syncs (-S 0), as the 2010 thread ran it; each thread its own
      # directory (-d ... -t), files created, then all unlinked (fs_mark's default).
      /usr/bin/fs_mark -d "$dir" -n "$FSMARK_FILES" -s 0 -S 0 -t "$n" -L 1 > "$dir.out" 2>&1 ;;
    sysbench) unit=tps
      LD_PRELOAD=$JEMALLOC MALLOC_CONF=$(malloc_conf "$alloc") /usr/bin/sysbench \
        --threads="$n" --time="$secs" /seeds/txn.lua run > "$dir.out" 2>&1 ;;
  esac
  status=$?
  rate=$(rate_of "$prog" < "$dir.out")
  runs=$((runs + 1))
  a=${alloc:+ alloc=$alloc}
  # A rate of 0 is a run that measured nothing (dbench -t 1: its warm-up took the whole second).
  why=""
  if [ $status -ne 0 ]; then
    why=status-$status
  elif [ -z "$rate" ]; then
    why=no-rate
  elif awk -v r="$rate" 'BEGIN { exit !(r + 0 <= 0) }'; then
    why=zero-rate
  fi
  if [ -n "$why" ]; then
    failed=$((failed + 1))
    echo "SEEDRUN-FAIL seed=$seed program=$prog threads=$n rep=$rep$a why=$why"
    tail -n 20 "$dir.out" | sed 's/^/| /'
  else
    echo "SEEDRUN seed=$seed program=$prog threads=$n rep=$rep$a rate=$rate unit=$unit"
  fi
  rm -f "$dir.out"
}

# Runs in turns (every count once, then again), so that a drift within the boot falls on
# every count alike; for 001 the two allocators alternate at each count, which goes first
# swapped every turn.
# fs_mark's files a thread: 4,000 a second of SECS (20,000 at 5 s), a run of a second or two.
FSMARK_FILES=$((4000 * secs))
counts=$(echo "$threads" | tr , ' ')
rep=1
while [ $rep -le "$reps" ]; do
  for n in $counts; do
    case $seed in
      000) run dbench "$n" $rep ;;
      003) run fs_mark "$n" $rep ;;
      001) order=$(echo "$allocs" | tr , ' ')
        [ $((rep % 2)) -eq 0 ] && order=$(echo "$order" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
        for a in $order; do run sysbench "$n" $rep "$a"; done ;;
      *) echo "SEEDRUN-FAIL seed=$seed why=unknown-seed"; exit 2 ;;
    esac
  done
  rep=$((rep + 1))
done
# Nothing left behind: this kernel's leak check counts what the boot did not free.
rm -rf "$dir" fs_log.txt
echo "SEEDRUN-DONE seed=$seed runs=$runs failed=$failed"
[ $failed -eq 0 ]
