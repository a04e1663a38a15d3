#!/bin/bash
# Host test of make compare-linux's tools: tools/compare_linux.py on canned logs of known
# values (means, ratios, Student-t ci95, verdicts, failed boots, one round), tools/newc.py's
# archive read back by cpio, and tools/fetch_linux.sh against stand-ins for apt.
root=$(cd "$(dirname "$0")/../.." && pwd)
compare=$root/tools/compare_linux.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_compare_linux.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

has() { grep -qxF "$1" "$2"; }

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

# linux_log FILE LINE...: a boot of Linux: a kernel line with its timestamp, user/linux/init.c's
# lines and the program's, without.
linux_log() {
  local f=$1
  shift
  {
    echo "[    0.912345] Run /init as init process"
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

# Three rounds. ucreate private, 1 thread: this 100, 110, 120 against Linux 200 three times,
# ratios 0.50, 0.55, 0.60: mean 0.55, sd 0.05, ci95 t(0.975, 2) 0.05 / sqrt(3) = 4.303 x
# 0.028868 = 0.124, slower. ucreate private, 2 threads: this 1000 three times, Linux 800,
# 1000, 1250: ratios 1.25, 1.00, 0.80, mean 1.0167, sd 0.2255, ci95 0.560: same. upread
# shared, 2 threads: 3.0 every round, no spread: faster with ci95 0.000. ustat only on this
# kernel: no ratio.
mk3() {
  local d=$1 i lin=(800 1000 1250) this1=(100 110 120)
  mkdir -p "$d"
  for i in 1 2 3; do
    this_log "$d/r$i-this.log" "BENCH-SUITE suite=ucreate sweep=up threads=1,2 variants=private,shared op=create + unlink of an empty file seed=2010 ramfs" \
      "$(bench ucreate private 1 ${this1[$((i - 1))]}.000)" "$(bench ucreate private 2 1000.000)" \
      "$(bench upread shared 2 300.000)" "$(bench ustat deep 1 50.000)"
    linux_log "$d/r$i-linux.log" "$(bench ucreate private 1 200.000)" \
      "$(bench ucreate private 2 ${lin[$((i - 1))]}.000)" "$(bench upread shared 2 100.000)"
    linux_log "$d/r$i-nomit.log" "$(bench ucreate private 1 250.000)" \
      "$(bench ucreate private 2 1100.000)" "$(bench upread shared 2 150.000)"
  done
  echo '{"fetch": "COMPARE-LINUX package=linux-image-6.1.0-57-amd64 version=6.1.192-3 sha256=abc", "opts": {"smp": "2", "cpu": "max", "mem": "1G", "accel": "", "secs": "0.25", "runs": "3", "threads": "1,2"}}' > "$d/compare.json"
}
mk3 "$tmp/three"
"$compare" --logs "$tmp/three" --report "$tmp/rep" > "$tmp/out" 2> "$tmp/err"
check "exit 0 when every boot ran the program to its end" [ $? -eq 0 ]
check "the COMPARE-LINUX line kept" has "COMPARE-LINUX package=linux-image-6.1.0-57-amd64 version=6.1.192-3 sha256=abc" "$tmp/out"
check "slower: mean ratio and Student-t ci95 over rounds" has \
  "COMPARE suite=ucreate variant=private threads=1 this=110.0 linux=200.0 linux_nomit=250.0 ratio=0.550 ci95=0.124 verdict=slower" "$tmp/out"
check "same: the interval holds 1" has \
  "COMPARE suite=ucreate variant=private threads=2 this=1000.0 linux=1016.7 linux_nomit=1100.0 ratio=1.017 ci95=0.560 verdict=same" "$tmp/out"
check "faster, no spread" has \
  "COMPARE suite=upread variant=shared threads=2 this=300.0 linux=100.0 linux_nomit=150.0 ratio=3.000 ci95=0.000 verdict=faster" "$tmp/out"
check "a point Linux lacks: n/a" has \
  "COMPARE suite=ustat variant=deep threads=1 this=50.0 linux=n/a linux_nomit=n/a ratio=n/a ci95=n/a verdict=n/a" "$tmp/out"
check "only the program's u* lines" [ "$(grep -c 'suite=locks' "$tmp/out")" -eq 0 ]
check "one COMPARE line per point" [ "$(grep -c '^COMPARE ' "$tmp/out")" -eq 4 ]
check "the table's row" grep -qxF '| 1 | 110 ± 24.8 | 200 | 250 | 0.550 ± 0.124 | slower |' "$tmp/out"
check "a heading per suite and variant" [ "$(grep '^### ' "$tmp/out" | tr '\n' ' ')" = "### ucreate private ### upread shared ### ustat deep " ]
check "the suite's operation from BENCH-SUITE" grep -qF 'One operation: create + unlink of an empty file; seed: 2010 ramfs.' "$tmp/out"
md=$tmp/rep/compare-linux.md
check "compare-linux.md written" [ -s "$md" ]
check "the report's table" grep -qxF '| 1 | 110 ± 24.8 | 200 | 250 | 0.550 ± 0.124 | slower |' "$md"
check "the report's COMPARE lines" grep -qF 'COMPARE suite=upread variant=shared threads=2' "$md"
check "the report names each boot" [ "$(grep -c '^| round [123], .* | pass' "$md")" -eq 9 ]
check "Linux's command line in the report" grep -qF '`console=ttyS0,115200 quiet panic=-1 no5lvl -- --secs 0.25 --runs 3 --threads 1,2 --dir /tmp/ubench`' "$md"
check "QEMU's options in the report" grep -qF '`-machine pc -cpu max -smp 2 -m 1G' "$md"
if command -v gnuplot > /dev/null; then
  check "compare-linux.png is a PNG" [ "$(head -c 8 "$tmp/rep/compare-linux.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
fi
check "no traceback" [ "$(grep -c Traceback "$tmp/err")" -eq 0 ]

# Agreement of two runs: the first has no predecessor; the same logs again agree; a run whose
# faster row turned slower, and whose slower row turned same, disagrees on both; --agree on
# two outputs says the same; other options: no check.
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
check "agreement: exit status still the boots'" [ "$(tail -n 1 "$tmp/ag3" | grep -c Traceback)" -eq 0 ]
"$compare" --agree "$tmp/ag1" "$tmp/ag3" > "$tmp/ag4" 2>&1
check "--agree: exit 1 when two rows disagree" [ $? -eq 1 ]
check "--agree: the same count" has "COMPARE-AGREE decided=2 disagree=2 opposite=1" "$tmp/ag4"
"$compare" --agree "$tmp/ag1" "$tmp/agree/compare-linux.verdicts" > /dev/null 2>&1
check "--agree: a file against the .verdicts" [ $? -eq 1 ]
"$compare" --agree "$tmp/ag1" "$tmp/ag2" > "$tmp/ag5" 2>&1
check "--agree: exit 0 when they agree" [ $? -eq 0 ]
"$compare" --agree "$tmp/ag1" "$tmp/f-none" > /dev/null 2>&1
check "--agree: exit 2 on a missing file" [ $? -eq 2 ]
sed -i 's/"smp": "2"/"smp": "4"/' "$tmp/flip/compare.json"
"$compare" --logs "$tmp/flip" --report "$tmp/agree" > "$tmp/ag6" 2>&1
check "agreement: other options, no check" grep -q "^compare-linux: the previous run had other options (smp=2 " "$tmp/ag6"

# One round: no interval, no verdict.
mkdir -p "$tmp/one"
cp "$tmp/three"/r1-* "$tmp/one/"
"$compare" --logs "$tmp/one" --report "$tmp/rep1" > "$tmp/out1" 2>&1
check "exit 0 with one round" [ $? -eq 0 ]
check "one round: ci95 and verdict n/a" has \
  "COMPARE suite=ucreate variant=private threads=1 this=100.0 linux=200.0 linux_nomit=250.0 ratio=0.500 ci95=n/a verdict=n/a" "$tmp/out1"
check "one round: the ratio's cell" grep -qxF '| 1 | 100 | 200 | 250 | 0.500 (n/a) | n/a |' "$tmp/out1"

# No mitigations=off boot: the chart without its points. No Linux at all: no chart.
rm "$tmp/one"/r1-nomit.log
"$compare" --logs "$tmp/one" --report "$tmp/rep2" > "$tmp/out2" 2>&1
check "no mitigations=off boot: exit 0" [ $? -eq 0 ]
check "no mitigations=off boot: its column n/a" grep -qF 'linux=200.0 linux_nomit=n/a ratio=0.500' "$tmp/out2"
if command -v gnuplot > /dev/null; then
  check "no mitigations=off boot: still a chart" [ -s "$tmp/rep2/compare-linux.png" ]
fi
rm "$tmp/one"/r1-linux.log
"$compare" --logs "$tmp/one" --report "$tmp/rep2" > "$tmp/out3" 2>&1
check "this kernel alone: exit 0" [ $? -eq 0 ]
check "this kernel alone: no chart, not an old one" [ ! -e "$tmp/rep2/compare-linux.png" ]
check "this kernel alone: no chart named" [ "$(grep -c 'png' "$tmp/rep2/compare-linux.md")" -eq 0 ]

# A failed boot: Linux's program killed in round 2, this kernel's cut short in round 3.
mk3 "$tmp/bad"
sed -i 's/exited with status 0/killed by signal 9/' "$tmp/bad/r2-linux.log"
sed -i '/BENCH-DONE suites=2/,$d' "$tmp/bad/r3-this.log"
"$compare" --logs "$tmp/bad" --report "$tmp/repbad" > "$tmp/outbad" 2>&1
check "exit 1 when a boot failed" [ $? -eq 1 ]
check "the killed program named" grep -qF 'round 2, Linux: no exit status of the program' "$tmp/outbad"
check "the boot cut short named" grep -qF 'round 3, this kernel: no exit status of the program' "$tmp/outbad"
check "the report says which failed" grep -q '^| round 2, Linux | FAILED' "$tmp/repbad/compare-linux.md"
check "still a table of what was measured" grep -q '^COMPARE suite=ucreate variant=private threads=1 ' "$tmp/outbad"
"$compare" --logs "$tmp/nothing" > /dev/null 2>&1
check "exit 2 on a directory without logs" [ $? -eq 2 ]
"$compare" --smp 0 > /dev/null 2>&1
check "exit 2 on --smp 0" [ $? -eq 2 ]

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
