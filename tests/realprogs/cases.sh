#!/bin/sh
# The real programs' cases (make realprogs, tools/realprogs.sh): Debian's own programs,
# unmodified and dynamically linked, each run on files this script makes in DIR, under this
# kernel and on the host, whose output is the oracle. Each case prints
#   REALPROG-BEGIN <name>, its output with "| " before each line, REALPROG-END <name> status=<n>
# and tools/realprogs.sh compares the two runs case by case.
# Usage: cases.sh DIR [CASE...]   (DIR is emptied first; no CASE: every case)
set -u
dir=$1
shift
export LC_ALL=C TZ=UTC0 HOME=/ PATH=/usr/bin:/bin
B=/usr/bin

# The files every case reads: text, numbers, a tree with fixed times and modes.
setup() {
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return 1
  printf 'pear 3\napple 10\nfig 2\napple 1\nkiwi 7\n' > words
  $B/seq 1 200000 > big
  mkdir -p tree/sub tree/empty
  printf 'one\n' > tree/a
  printf 'two two\n' > tree/sub/b
  $B/seq 1 3000 > tree/sub/c
  ln -s a tree/link
  chmod 640 tree/a
  chmod 750 tree/sub
  $B/touch -h -d '2021-03-04 05:06:07' tree/a tree/sub/b tree/sub/c tree/link tree/sub \
    tree/empty tree
}

case_ls() { $B/ls -l --time-style=+%F.%T tree tree/sub; }
case_ls_recursive() { $B/ls -AR tree; }
case_sort() { $B/sort -k2n words && $B/sort -u -k1,1 words && $B/sort -r big | $B/head -n 3; }
case_cp() {
  $B/cp -a tree copy && $B/ls -lR --time-style=+%F.%T copy && $B/cmp tree/sub/c copy/sub/c
}
case_du() { $B/du -ab --apparent-size tree | $B/sort -k2; }
case_stat() { $B/stat -c '%n %s %F %a %U %G %y %h' tree tree/a tree/link tree/sub/c; }
case_sums() { $B/md5sum big tree/a && $B/sha256sum words && $B/wc -lwc big words; }
case_xz() {
  # Blocks of 256 KiB, so that the four threads have five blocks to share.
  $B/xz -T4 --block-size=262144 -c big > big.xz && $B/xz -T4 -dc big.xz | $B/md5sum &&
    $B/xz -l big.xz | $B/tail -n 1
}
case_zstd() {
  $B/zstd -q -T4 -c big > big.zst && $B/zstd -q -dc big.zst | $B/md5sum && $B/wc -c < big.zst
}
case_sqlite() {
  $B/sqlite3 db <<'SQL'
create table t(k integer primary key, v text);
insert into t(v) values ('pear'), ('apple'), ('fig');
insert into t(v) select v || k from t;
select k, v from t order by v;
select count(*), max(k) from t;
SQL
}

case_fsmark() {
  # fs_mark's own rates vary; what must not: its exit status, its one result line, and the
  # 2 x 300 empty files it keeps (-k).
  $B/fs_mark -d fm -n 300 -s 0 -S 0 -t 2 -k > fm.out 2>&1
  echo "fs_mark status $?"
  grep -cE '^ +[0-9]+ +600 +0 ' fm.out
  find fm -type f | wc -l
}
case_python() {
  $B/python3 - <<'PY'
import hashlib, json, os, subprocess, threading

data = {"fruit": sorted(l.split()[0] for l in open("words")), "n": 3}
text = json.dumps(data, sort_keys=True)
print(text)
print(json.loads(text)["fruit"][-1])
print(hashlib.sha256(open("big", "rb").read()).hexdigest())
sums = [0] * 4
def work(i):
    sums[i] = sum(range(i * 100000, (i + 1) * 100000))
threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(sums))
r, w = os.pipe()
os.write(w, b"through a pipe\n")
os.close(w)
print(os.read(r, 100).decode(), end="")
out = subprocess.run(["/usr/bin/sort", "-r", "words"], capture_output=True, text=True)
print(out.returncode, out.stdout.splitlines()[0])
PY
}
case_dbench() {
  # dbench's rates vary; what must not: its exit status, its closing line's clients and
  # processes, and no failed operation.
  $B/dbench -t 3 -D . 4 > db.out 2>&1
  echo "dbench status $?"
  sed -nE 's/^Throughput [0-9.]+ MB\/sec +([0-9]+ clients +[0-9]+ procs).*/Throughput \1/p' db.out
  grep -ciE 'error|fail' db.out
  [ $? = 1 ] || cat db.out   # (the failures, to see them in the diff)
}
case_busybox() {
  # busybox's df, free, ps, top and uptime read statfs, sysinfo and /proc; their numbers are
  # the machine's. What must match: df's sizes of a ramfs (none), free's rows, ps's header and
  # this shell, top's first three rows, uptime's load average.
  busybox df -k . | awk 'NR == 2 {print $2, $3, $4, $5}'
  busybox free | awk '{print $1}'
  busybox ps -o pid,args | awk -v me=$$ 'NR == 1 {print} $1 == me {f = 1}
    END {print "this shell listed:", f ? "yes" : "no"}'
  busybox top -bn1 | awk 'NR <= 3 {print $1}'
  busybox uptime | grep -c 'load average'
}
case_procps() {
  # procps's ps and pgrep find a process by /proc/<pid>/stat, status and cmdline (Debian's
  # busybox has no pgrep); ls -l reads another process's exe and fd links; lscpu reads
  # /proc/cpuinfo, whose CPU differs from the host's, so only its shape.
  $B/sleep 60 3< words &
  pid=$!
  $B/ps -o pid=,comm= -p "$pid" | awk -v p="$pid" '$1 == p {print "ps:", $2}'
  $B/pgrep -x sleep | grep -qx "$pid" && echo "pgrep: found"
  $B/readlink /proc/$pid/exe
  $B/ls -l /proc/$pid/fd | awk '$9 == 3 {n = split($11, p, "/"); print $1, $9, $10, p[n]}'
  kill "$pid"
  wait "$pid" 2> /dev/null
  $B/lscpu | awk -F: '/^(Architecture|CPU op-mode|Byte Order)/ {print $1}'
}
case_bash() {
  # Process substitution: bash passes /dev/fd/63, the program opens it (fs/fd_link.c).
  $B/bash -c 'cat <(echo one; echo two) | wc -l
    diff <(seq 3) <(seq 3) && echo same
    sort -r <(printf "b\na\nc\n")
    echo here | { read -r x < /dev/stdin; echo "read $x"; }'
}
case_go() { "${GO_PROG:-/usr/local/bin/goprog}"; }
case_musl() { "${MUSL_PROG:-/usr/local/bin/musl-stat}"; }

setup || { echo "REALPROG-SETUP failed"; exit 1; }
cases=${*:-ls ls_recursive sort cp du stat sums xz zstd sqlite fsmark python musl dbench
  busybox procps go bash}
for c in $cases; do
  # Into a file first: under this kernel stdout is the console, a terminal, where ls would
  # print columns; on the host it is a file.
  (cd "$dir" && "case_$c") > "$dir.out" 2>&1
  st=$?
  # Each line of output behind "| ": under this kernel the console gives every line a
  # timestamp, kernel lines (exec:, syscall:) come in between, and they must stay apart.
  echo "REALPROG-BEGIN $c"
  sed 's/^/| /' "$dir.out"
  echo "REALPROG-END $c status=$st"
done
rm -rf "$dir" "$dir.out"   # a file left behind would be a leak to the kernel's leak check
echo "REALPROG-DONE"
