#!/bin/bash
# Host test of tools/flamegraph.py and the report's profile and lock parts (tools/hotspots.py): a
# synthetic log's flame graphs, differential graphs, Markdown links and lock table, and the CLI.
root=$(cd "$(dirname "$0")/../.." && pwd)
report=$root/tools/report.py
flame=$root/tools/flamegraph.py
frames=$root/tests/host/lib/svgframes.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_flamegraph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

# hash-global: 60 + 30 + 10 of 100 samples; radix-rcu/64: 150 + 20 + 10 printed of 200 (20 not
# printed). At 16 threads both, the headline pair; locks has a lock table and no profile.
cat > "$tmp/p.log" <<'EOF'
[    0.100000] BOOT cpus=8 possible=8 mem_mib=1023 tsc_khz=2994512 boot_us=41187
[    0.110000] kernel: command line 'bench=pagecache,locks profile=97 lockstat=yes'
[    0.200000] BENCH-SUITE suite=pagecache sweep=over threads=1,16 variants=hash-global,radix-rcu/64 op=one page-cache operation seed=2002 radix tree thread
[    0.300000] BENCH suite=pagecache variant=hash-global threads=16 runs=5 ops_per_sec=1000000.000 stddev=1000.000 ci95=2000.000
[    0.310000] PROFILE suite=pagecache variant=hash-global threads=16 samples=100 stack=bench_worker;find_get_page;spin_lock;queued_spin_lock_slowpath count=60
[    0.320000] PROFILE suite=pagecache variant=hash-global threads=16 samples=100 stack=bench_worker;find_get_page;hash_lookup count=30
[    0.330000] PROFILE suite=pagecache variant=hash-global threads=16 samples=100 stack=idle count=10
[    0.340000] LOCKSTAT suite=pagecache variant=hash-global threads=16 lock=&mapping->tree_lock acquisitions=500 contended=1 wait_ns=900 max_wait_ns=900 hold_ns=60000
[    0.350000] LOCKSTAT suite=pagecache variant=hash-global threads=16 lock=page_hash_lock acquisitions=100000 contended=40000 wait_ns=900000000 max_wait_ns=200000 hold_ns=50000000
[    0.400000] BENCH suite=pagecache variant=radix-rcu fanout=64 threads=16 runs=5 ops_per_sec=3000000.000 stddev=1000.000 ci95=2000.000
[    0.410000] PROFILE suite=pagecache variant=radix-rcu fanout=64 threads=16 samples=200 stack=bench_worker;find_get_page;radix_tree_lookup count=150
[    0.420000] PROFILE suite=pagecache variant=radix-rcu fanout=64 threads=16 samples=200 stack=bench_worker;find_get_page;rcu_read_lock count=20
[    0.430000] PROFILE suite=pagecache variant=radix-rcu fanout=64 threads=16 samples=200 stack=idle count=10
[    0.500000] BENCH-CMP suite=pagecache a=radix-rcu b=hash-global fanout_a=64 threads=16 ratio=3.000 ci95=0.100 verdict=faster
[    0.510000] BENCH-SEED suite=pagecache a=radix-rcu b=hash-global fanout_a=64 threads=16 seed_ratio=2.000 seed_verdict=faster ratio=3.000 ci95=0.100 verdict=faster direction=agrees magnitude=below
[    0.600000] BENCH-SUITE suite=locks sweep=over threads=1 variants=ticket op=lock + increment + unlock seed=spinlock baseline
[    0.610000] BENCH suite=locks variant=ticket threads=1 runs=5 ops_per_sec=1000000.000 stddev=1000.000 ci95=2000.000
[    0.620000] LOCKSTAT suite=locks variant=ticket threads=1 lock=bench_lock acquisitions=7 contended=0 wait_ns=0 max_wait_ns=0 hold_ns=700
[    0.800000] BENCH-DONE suites=2 secs=0.700
[    0.900000] END result=pass
EOF

section() {
  awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$2/report.md"
}

# field SVG FRAME COLUMN: the column (1 name, 2 x, 3 width, 4 red, 5 green, 6 blue) of the
# first frame named FRAME; empty (and the check using it fails) when there is none.
field() {
  "$frames" "$1" 2> /dev/null | awk -F'\t' -v f="$2" -v c="$3" '$1 == f { print $c; exit }'
}

not() {
  ! "$@"
}

has_frame() {
  [ -n "$(field "$1" "$2" 1)" ]
}

# near X Y: X and Y agree to 0.05 (the SVG's widths have two decimals).
near() {
  awk -v x="$1" -v y="$2" 'BEGIN { d = x - y; exit !(x != "" && y != "" && d < 0.05 && d > -0.05) }'
}

# red SVG FRAME / blue SVG FRAME: the frame is tinted red (blue) and not white.
red() {
  local r g b
  r=$(field "$1" "$2" 4) g=$(field "$1" "$2" 5) b=$(field "$1" "$2" 6)
  [ -n "$r" ] && [ "$r" -eq 255 ] && [ "$g" -eq "$b" ] && [ "$g" -lt 255 ]
}

blue() {
  local r g b
  r=$(field "$1" "$2" 4) g=$(field "$1" "$2" 5) b=$(field "$1" "$2" 6)
  [ -n "$r" ] && [ "$b" -eq 255 ] && [ "$r" -eq "$g" ] && [ "$r" -lt 255 ]
}

"$report" "$tmp/p.log" "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"
check "exit 0 on a profiled log" [ $? -eq 0 ]
check "no warning" [ ! -s "$tmp/stderr" ]
hg=$tmp/out/flame/pagecache-hash-global-t16.svg
rr=$tmp/out/flame/pagecache-radix-rcu-f64-t16.svg
ab=$tmp/out/flame/pagecache-diff-radix-rcu-f64-t16-vs-hash-global-t16.svg
ba=$tmp/out/flame/pagecache-diff-hash-global-t16-vs-radix-rcu-f64-t16.svg
for f in "$hg" "$rr" "$ab" "$ba"; do
  check "$(basename "$f") is XML with frames" "$frames" "$f" > /dev/null
  check "$(basename "$f") has no script" [ "$(grep -ci '<script' "$f")" -eq 0 ]
  check "$(basename "$f") printed" grep -qxF "$f" "$tmp/stdout"
done
check "the folded stacks kept" grep -qx 'bench_worker;find_get_page;hash_lookup 30' \
  "$tmp/out/flame/pagecache-hash-global-t16.folded"
check "one SVG a profiled point, two differential" [ "$(ls "$tmp/out/flame" | grep -c '\.svg$')" -eq 4 ]
for f in all bench_worker find_get_page spin_lock queued_spin_lock_slowpath hash_lookup idle; do
  check "hash-global's frame $f" has_frame "$hg" $f
done
check "no frame of another point" not has_frame "$hg" radix_tree_lookup

# Widths: the drawing is 1180 px wide, a frame's width its share of the point's samples.
check "all samples: the full width" near "$(field "$hg" all 3)" 1180
check "60 of 100 samples" near "$(field "$hg" queued_spin_lock_slowpath 3)" 708
check "a caller as wide as its callees" near "$(field "$hg" spin_lock 3)" 708
check "30 of 100 samples" near "$(field "$hg" hash_lookup 3)" 354
check "10 of 100 samples" near "$(field "$hg" idle 3)" 118
check "180 of 200 samples printed" near "$(field "$rr" all 3)" 1062
check "150 of 200 samples" near "$(field "$rr" radix_tree_lookup 3)" 885
check "siblings in name order" awk -v a="$(field "$hg" hash_lookup 2)" -v b="$(field "$hg" spin_lock 2)" 'BEGIN { exit !(a < b) }'
check "a callee starts where its caller does" near "$(field "$hg" queued_spin_lock_slowpath 2)" "$(field "$hg" spin_lock 2)"
check "a name's colour is the same in every graph" [ "$(field "$hg" bench_worker 4),$(field "$hg" bench_worker 5)" = "$(field "$rr" bench_worker 4),$(field "$rr" bench_worker 5)" ]
check "a tooltip with the counts" grep -qF '<title>hash_lookup: 30 samples, 30.00% (own 30.00%)</title>' "$hg"
check "a wide frame labelled" grep -qF '>queued_spin_lock_slowpath</text>' "$hg"

# The differential: radix-rcu/64's shape; red where its share is larger than hash-global's.
check "a's shape" near "$(field "$ab" radix_tree_lookup 3)" 885
check "only in a: red" red "$ab" radix_tree_lookup
check "a smaller share in a (5% against 10%): blue" blue "$ab" idle
check "the check of red can fail" not red "$ab" idle
check "the check of blue can fail" not blue "$ab" radix_tree_lookup
check "the strongest change saturated" [ "$(field "$ab" radix_tree_lookup 5)" -eq 0 ]
check "frames only b has listed" grep -qF '60.00%  bench_worker;find_get_page;spin_lock</text>' "$ab"
check "not their callees too" [ "$(grep -c 'spin_lock;queued' "$ab")" -eq 0 ]
check "the other way round: b's shape" near "$(field "$ba" queued_spin_lock_slowpath 3)" 708
check "the other way round: red" red "$ba" spin_lock
check "the other way round: only in b's shape, red" red "$ba" hash_lookup
check "a's printed stacks a smaller share (90% against 100%): blue" blue "$ab" all

md=$tmp/out/report.md
check "each point linked" [ "$(section pagecache "$tmp/out" | grep -c '^| [a-z/0-9-]* | 16 | [0-9]* | \[svg\](flame/pagecache-')" -eq 2 ]
check "a point's row" grep -qxF '| hash-global | 16 | 100 | [svg](flame/pagecache-hash-global-t16.svg) | queued_spin_lock_slowpath 60.0% |' <(section pagecache "$tmp/out")
check "the differential embedded" grep -qxF '![pagecache: radix-rcu/64 against hash-global at 16 threads](flame/pagecache-diff-radix-rcu-f64-t16-vs-hash-global-t16.svg)' "$md"
check "the reverse linked" grep -qF '[svg](flame/pagecache-diff-hash-global-t16-vs-radix-rcu-f64-t16.svg)' "$md"
links=$(grep -o '(flame/[^)]*\.svg)' "$md" | tr -d '()')
check "four SVGs linked" [ "$(echo "$links" | wc -l)" -eq 4 ]
for l in $links; do
  check "$l exists" [ -s "$tmp/out/$l" ]
done
check "the lock table, by wait" [ "$(section pagecache "$tmp/out" | grep '^| hash-global | 16 | `' | cut -d'|' -f4 | tr -d ' \n')" = '`page_hash_lock``&mapping->tree_lock`' ]
check "a lock's row" grep -qxF '| hash-global | 16 | `page_hash_lock` | 100000 | 40000 (40.0%) | 900 ms | 200 µs | 50 ms |' "$md"
check "locks without a profile" grep -qxF '| ticket | 1 | `bench_lock` | 7 | 0 (0.0%) | 0 ns | 0 ns | 700 ns |' <(section locks "$tmp/out")
check "no profile part without PROFILE lines" [ "$(section locks "$tmp/out" | grep -c 'Profiles')" -eq 0 ]

# The pair: without a headline the first BENCH-CMP's; at the headline's thread count only if
# both points were profiled there, else at the largest count where both were.
sed -E -e '/BENCH-SEED/d' -e 's/^(.*)BENCH-CMP suite=pagecache .*$/\1BENCH-CMP suite=pagecache a=hash-global b=radix-rcu fanout_b=64 threads=16 ratio=0.333 ci95=0.100 verdict=slower\n&/' \
  "$tmp/p.log" > "$tmp/cmp.log"
"$report" "$tmp/cmp.log" "$tmp/cmp" > /dev/null 2>&1
check "no headline: the first comparison's pair" grep -qxF '![pagecache: hash-global against radix-rcu/64 at 16 threads](flame/pagecache-diff-hash-global-t16-vs-radix-rcu-f64-t16.svg)' "$tmp/cmp/report.md"
sed -E 's/(BENCH-(CMP|SEED) .*) threads=16 /\1 threads=1 /' "$tmp/p.log" > "$tmp/t1.log"
check "the headline moved to 1 thread" grep -q 'BENCH-SEED .* threads=1 ' "$tmp/t1.log"
"$report" "$tmp/t1.log" "$tmp/t1" > /dev/null 2>&1
check "a headline's count without profiles: the largest with" grep -qF '](flame/pagecache-diff-radix-rcu-f64-t16-vs-hash-global-t16.svg)' "$tmp/t1/report.md"

# Deterministic: a second run writes the same files.
"$report" "$tmp/p.log" "$tmp/again" > /dev/null 2>&1
check "the same SVGs again" diff -r "$tmp/out/flame" "$tmp/again/flame"

# A stack left out of the log is a frame left out of the graph: the checks above would fail.
grep -v 'stack=bench_worker;find_get_page;hash_lookup' "$tmp/p.log" > "$tmp/miss.log"
"$report" "$tmp/miss.log" "$tmp/miss" > /dev/null 2>&1
check "a missing frame is missed" not has_frame "$tmp/miss/flame/pagecache-hash-global-t16.svg" hash_lookup
check "the widths change with it" not near "$(field "$tmp/miss/flame/pagecache-hash-global-t16.svg" all 3)" 1180

# Malformed lines are skipped with a warning; the rest of the point is drawn.
sed -E -e '0,/count=30/s//count=3x/' -e '0,/hold_ns=700/s//hold_ns=/' "$tmp/p.log" > "$tmp/bad.log"
"$report" "$tmp/bad.log" "$tmp/bad" > /dev/null 2> "$tmp/bad.err"
check "a bad count warned of" grep -q 'skipped PROFILE line: count=3x is not a positive count' "$tmp/bad.err"
check "a bad time warned of" grep -q 'skipped LOCKSTAT line: missing hold_ns' "$tmp/bad.err"
check "the point drawn without it" has_frame "$tmp/bad/flame/pagecache-hash-global-t16.svg" spin_lock

# Without PROFILE and LOCKSTAT lines the report is what it was: no flame directory, no part.
grep -vE ' (PROFILE|LOCKSTAT) ' "$tmp/p.log" > "$tmp/plain.log"
"$report" "$tmp/plain.log" "$tmp/plain" > /dev/null 2>&1
check "no flame directory without profiles" [ ! -e "$tmp/plain/flame" ]
# The parts, each an introduction, a blank line, a table or picture and a blank line, cut out.
check "the rest of the report unchanged" diff -B <(sed 's/p\.log/X/' "$md" | awk '
  /^(Profiles|Differential|Top locks) / { skip = 2 }
  /^(Frames only|The other way round)/ { skip = 1 }
  skip { if ($0 == "") skip--; next }
  { print }') <(sed 's/plain\.log/X/' "$tmp/plain/report.md")

# Several logs: a point's samples pooled, each lock summed over the boots that listed it.
"$report" "$tmp/p.log" "$tmp/p.log" "$tmp/two" > /dev/null 2>&1
check "exit 0 on two logs" [ $? -eq 0 ]
check "pooled samples" grep -qxF '| hash-global | 16 | 200 | 2 | [svg](flame/pagecache-hash-global-t16.svg) | queued_spin_lock_slowpath 60.0% |' "$tmp/two/report.md"
check "pooled: the same shape" near "$(field "$tmp/two/flame/pagecache-hash-global-t16.svg" hash_lookup 3)" 354
check "summed locks" grep -qxF '| hash-global | 16 | `page_hash_lock` | 200000 | 80000 (40.0%) | 1.8 s | 200 µs | 100 ms | 2 |' "$tmp/two/report.md"

# The command line tool, on folded stacks.
printf 'main;work;spin 3\nmain;work 1\n' > "$tmp/a.folded"
printf 'main;work 4\nmain;other 4\n' > "$tmp/b.folded"
"$flame" --title 'a' "$tmp/a.folded" > "$tmp/a.svg"
check "the tool: exit 0" [ $? -eq 0 ]
check "the tool: three of four samples" near "$(field "$tmp/a.svg" spin 3)" 885
"$flame" --diff "$tmp/a.folded" "$tmp/b.folded" > "$tmp/d.svg"
check "the tool's differential: red" red "$tmp/d.svg" spin
check "the tool's differential: only in b" grep -qF '50.00%  main;other</text>' "$tmp/d.svg"
printf 'main;;work 1\n' > "$tmp/bad.folded"
"$flame" "$tmp/bad.folded" > /dev/null 2> "$tmp/flame.err"
check "the tool: a bad line fails" [ $? -ne 0 ]
check "the tool: names the line" grep -qF 'bad.folded:1:' "$tmp/flame.err"

check_summary
