#!/bin/bash
# gdb session test: the kernel-aware commands (tools/gdb/kernel.py) on a live 8-vCPU kernel,
# a breakpoint, step, finish and continue under `make qemu-gdb`'s setup, a failed self-test
# that must stop in gdb, and kmm, kpage and kradix (tools/gdb/) on a self-test's address space
# and page cache, kprofile on a self-test's samples, klockstat on a self-test's lock
# statistics. Usage: session.sh [live|step|fail|mm|profile|lockstat] (all by default).
set -u
cd "$(dirname "$0")/../.."
out=build/test-logs/gdb-session
mkdir -p "$out"
fail=0

check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi
}

# section NAME [FILE]: the gdb output between `echo @@NAME` and the next marker (in the live
# part's output unless FILE names another).
section() {
  awk -v s="@@$1" '/^@@/ { on = ($0 == s); next } on' "${2:-$out/live-gdb.out}"
}

# pick_port: a port nobody listens on, from above the user's make qemu-gdb and smoke.sh
# ports up, so two test runs of one user at once do not clash.
pick_port() {
  port=$(( $(id -u) % 5000 + 25000 + 201 ))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    port=$((port + 1))
  done
}

# Every boot here runs a self-test, so it boots the debug image (tools/qemu.sh's rule, given
# explicitly) and gdb reads that image's symbols.
kimage=debug
# snapshot: gdb reads the kernel's symbols from a copy taken before the boot, so a rebuild
# of build/debug/kernel.elf during the test cannot give it symbols of another kernel.
snapshot() {
  cp build/debug/kernel.elf "$out/kernel.elf"
}

# wait_stub: until QEMU's gdb stub accepts connections.
wait_stub() {
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.2
  done
}

# stop_qemu PID: ends a qemu.sh run that is still going (through its timeout process,
# which passes the signal on to QEMU).
stop_qemu() {
  local t
  for t in $(pgrep -P "$1" -x timeout); do
    kill "$t"
  done
  wait "$1"
}

# boot_gdb NAME SMP CMDLINE: a boot of the debug image that waits for gdb at reset (qemu.sh
# --gdb), its serial in $out/NAME-serial.log; sets $qemu and returns once the stub listens.
boot_gdb() {
  pick_port
  snapshot
  tools/qemu.sh --smp "$2" --cmdline "$3" --gdb "$port" --timeout 120 --image $kimage \
    --log "$out/$1-serial.log" > "$out/$1-qemu.out" 2>&1 < /dev/null &
  qemu=$!
  wait_stub
}

# run_gdb NAME SECS COMMANDS...: gdb in batch mode on the snapshot's symbols, attached to the
# stub, its output in $out/NAME-gdb.out.
run_gdb() {
  local name=$1 secs=$2
  shift 2
  timeout "$secs" gdb -batch -nx "$out/kernel.elf" -x tools/gdbinit \
    -ex "target remote 127.0.0.1:$port" "$@" > "$out/$name-gdb.out" 2>&1
}

# end_qemu: gdb's kill ends QEMU; a gdb that failed to attach leaves it to us. Returns
# qemu.sh's status.
end_qemu() {
  sleep 1
  kill -0 "$qemu" 2>/dev/null && stop_qemu "$qemu"
  wait "$qemu"
}

# live: boot with the kthread self-test and poweroff=no, attach once the run is over and
# every CPU is idle, and ask the commands about it.
live() {
  : > "$out/live-qemu.out"   # no END line from an earlier run
  pick_port
  snapshot
  tools/qemu.sh --smp 8 --cmdline "bench=none poweroff=no panic=halt selftest=kthread" \
    --gdb-nowait "$port" --timeout 120 --image $kimage --log "$out/live-serial.log" \
    > "$out/live-qemu.out" 2>&1 < /dev/null &
  qemu=$!
  local ended=1
  for _ in $(seq 180); do
    grep -q "END result=" "$out/live-qemu.out" && { ended=0; break; }
    kill -0 "$qemu" 2>/dev/null || break
    sleep 0.5
  done
  check "the kthread self-test run ended with END result=pass" \
    grep -q "END result=pass" "$out/live-qemu.out"
  if [ $ended != 0 ]; then
    stop_qemu "$qemu"
    return
  fi
  wait_stub
  local cmds=() c
  for c in "info threads" kcpus kthreads "kbt rcu_gp" kdmesg 'p $kcpu(3)->id' \
           'p $kper_cpu("cpu_info", 2).id' "kbt nosuch" 'p $kcpu(8)' 'p $kper_cpu("gp_seq", 0)'; do
    cmds+=(-ex "echo @@$c\\n" -ex "$c")
  done
  run_gdb live 60 "${cmds[@]}" -ex "echo @@end\\n" -ex "kill"
  end_qemu

  check "the debug image booted" \
    grep -qE "^(\[ *[0-9.]+\] )?kernel: booted by .*, image debug$" "$out/live-serial.log"
  local n
  n=$(section "info threads" | grep -cE '^[* ] +[0-9]+ +Thread')
  check "info threads shows 8 vCPUs (saw $n)" test "$n" -eq 8
  n=$(section kcpus | grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ [a-z]')
  check "kcpus prints 8 CPU rows, each with its gdb thread (saw $n)" test "$n" -eq 8
  check "kcpus prints the grace-period numbers" \
    grep -qE '^rcu: gp_seq=[0-9]+ gp_completed=[0-9]+' <(section kcpus)
  n=$(section kthreads | grep -cE '^[0-9]+ +(init|idle/[0-7]|rcu_gp) ')
  check "kthreads lists init, idle/0-7 and rcu_gp (saw $n of 10)" test "$n" -eq 10
  check "kthreads shows rcu_gp sleeping on rcu_gp_wq" \
    grep -qE '^[0-9]+ +rcu_gp +[0-9]+ +sleeping +no +[0-9]+ +rcu_gp_wq$' <(section kthreads)
  check "kbt rcu_gp walks from schedule to rcu_gp_thread" \
    grep -Pzq '#0 +0x[0-9a-f]+ schedule\+0x[0-9a-f]+ kernel/sched.c:[0-9]+\n#1 +0x[0-9a-f]+ rcu_gp_thread\+' \
    <(section "kbt rcu_gp")
  check "kdmesg holds the BOOT cpus=8 line" grep -qE '^\[ *[0-9.]+\] BOOT cpus=8 ' <(section kdmesg)
  check "kdmesg ends with END result=pass" \
    grep -qE '^\[ *[0-9.]+\] END result=pass$' <(section kdmesg | tail -n 1)
  check 'p $kcpu(3)->id prints 3' grep -qx '\$[0-9]* = 3' <(section 'p $kcpu(3)->id')
  check 'p $kper_cpu("cpu_info", 2).id prints 2' grep -qx '\$[0-9]* = 2' \
    <(section 'p $kper_cpu("cpu_info", 2).id')
  check "kbt names an unknown thread" grep -qx "kbt: no thread 'nosuch' (kthreads lists them)" \
    <(section "kbt nosuch")
  check '$kcpu(8) says CPU 8 is not online' grep -q '^\$kcpu: CPU 8 is not online' \
    <(section 'p $kcpu(8)')
  check '$kper_cpu rejects a variable that is not per-CPU' \
    grep -q "'gp_seq' is not a per-CPU variable" <(section 'p $kper_cpu("gp_seq", 0)')
  check "no Python exception in the whole session" \
    test "$(grep -cE 'Python Exception|Traceback|Error occurred in Python' "$out/live-gdb.out")" = 0
}

# step: QEMU halted at reset; stop in sleep_test, step and finish on that vCPU alone,
# continue, and the run must still pass.
step() {
  boot_gdb step 8 "bench=none panic=halt selftest=sleep"
  run_gdb step 60 -ex "set scheduler-locking step" -ex "thbreak kmain" -ex "continue" \
    -ex "break sleep_test" -ex "continue" -ex "delete" -ex "step" -ex "finish" -ex "continue"
  end_qemu
  local rc=$?

  check "stopped at the breakpoint in sleep_test" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 2, sleep_test \(\) at tests/kernel/sched_test.c' \
    "$out/step-gdb.out"
  check "step went on from sleep_test's first line" \
    grep -Pzq 'Breakpoint 2, [^\n]*\n[0-9]+\t[^\n]*\n(\S+ \([^\n]*\) at [^\n]*\n)?[0-9]+\t' \
    "$out/step-gdb.out"
  check "finish returned to the caller" grep -q '^Value returned is ' "$out/step-gdb.out"
  check "the run finished after continue (qemu.sh exit $rc)" test "$rc" -eq 0
  check "SELFTEST name=sleep result=pass, END result=pass" \
    grep -Pzq 'SELFTEST name=sleep result=pass[^\n]*\n(.*\n)*[^\n]*END result=pass' \
    "$out/step-serial.log"
}

# fail: sleep_test is made to fail from gdb (`return 0`); gdb must stop in selftest_failed,
# and after detach, panic=halt must keep the failed run up instead of leaving QEMU.
failed() {
  : > "$out/fail-qemu.out"
  boot_gdb fail 8 "bench=none panic=halt selftest=sleep"
  run_gdb fail 60 -ex "thbreak kmain" -ex "continue" -ex "break sleep_test" \
    -ex "break selftest_failed" -ex "continue" -ex "return 0" -ex "continue" -ex "bt 2" \
    -ex "detach"
  for _ in $(seq 40); do
    grep -q "panic=halt: the run failed" "$out/fail-qemu.out" && break
    sleep 0.5
  done
  sleep 2
  local up=1
  kill -0 "$qemu" 2>/dev/null && up=0
  stop_qemu "$qemu"

  check "gdb stopped in selftest_failed" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 3, selftest_failed ' "$out/fail-gdb.out"
  check "selftest_failed was called from run_one" grep -qE '^#1 .* in run_one ' "$out/fail-gdb.out"
  check "the kernel printed SELFTEST name=sleep result=fail and END result=fail" \
    grep -Pzq 'SELFTEST name=sleep result=fail[^\n]*\n(.*\n)*[^\n]*END result=fail\n' \
    "$out/fail-serial.log"
  check "panic=halt kept the failed run up (QEMU had not exited)" test $up = 0
}

# mm: stop in two self-tests and look at their data with kmm, kpage and kradix. madvise-free
# (tests/kernel/vm_test.c) calls try_to_free_pages with 128 pages mapped, all handed to reclaim
# by MADV_FREE and two of them written again; pagecache-basic (tests/kernel/pagecache_test.c)
# calls check_gang with its odd indices in the page cache, here on 16-way and 128-way trees.
mm() {
  boot_gdb mm 8 "bench=none panic=halt selftest=madvise-free,pagecache-basic"
  # $gs_base is the struct cpu of the vCPU at the breakpoint (see kvcpus in tools/gdb/kernel.py);
  # MADV_FREE puts pages at the inactive list's tail (lru_add_lazyfree).
  local mine='((struct cpu *)$gs_base)->curr->mm'
  local tail="(unsigned long)'mm/vmscan.c'::lru.inactive.prev - (unsigned long)&((struct page *)0)->lru"
  local image='p/x ((unsigned long)&threads - 0xffffffff80000000) >> 12'   # KERNEL_VMA
  local cmds=() c
  for c in kmm "kmm $mine" "kmm 0" "kpage $tail" 'p/x (unsigned long)&anon_owner' "kpage $mine" \
           'p sizeof(struct mm)' "kpage &threads" "$image" "kpage 0xdeadbeef"; do
    cmds+=(-ex "echo @@$c\\n" -ex "$c")
  done
  cmds+=(-ex "echo @@radix16\\n" -ex "delete 2" -ex "continue")
  for c in "kradix m->page_tree" 'kpage $kradix_last' "p m" "kradix m"; do
    cmds+=(-ex "echo @@16 $c\\n" -ex "$c")
  done
  cmds+=(-ex "echo @@radix128\\n" -ex "condition 3 m->variant == PC_RADIX_RCU && m->fanout == 128"
         -ex "continue" -ex "echo @@128 kradix\\n" -ex "kradix &m->page_tree")
  run_gdb mm 60 -ex "thbreak kmain" -ex "continue" -ex "break try_to_free_pages" \
    -ex "break check_gang if m->variant == PC_RADIX_LOCK && m->fanout == 16" \
    -ex "echo @@madvise\\n" -ex "continue" "${cmds[@]}" -ex "echo @@end\\n" -ex "kill"
  end_qemu
  local f=$out/mm-gdb.out

  check "stopped in try_to_free_pages, called by madvise-free" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 2, try_to_free_pages ' <(section madvise "$f")
  # kmm: the mm the test thread adopted, one VMA of 128 pages, every one resident and lazily
  # freed, pages 0 and 10 dirty again; the same with the mm given as an expression.
  local mm start end
  mm=$(section kmm "$f" |
       sed -nE 's/^mm (0x[0-9a-f]+) pgd 0x[0-9a-f]+ users 2 rss 128 vmas 1 flushes [0-9]+ cpus [0-9]+$/\1/p')
  check "kmm shows the running thread's mm: users 2 rss 128 vmas 1 (mm ${mm:-none})" test -n "$mm"
  check "kmm: one rw VMA of 128 pages, resident 128 dirty 2 lazyfree 128" \
    grep -qE '^  0x[0-9a-f]+-0x[0-9a-f]+ rw +128 pages  resident 128 dirty 2 lazyfree 128$' \
    <(section kmm "$f")
  check "kmm: total resident 128 lazyfree 128" \
    grep -qx '  total resident 128 lazyfree 128' <(section kmm "$f")
  check "kmm MM shows the same" cmp -s <(section kmm "$f") <(section "kmm $mine" "$f")
  check "kmm 0 is refused" grep -qx 'kmm: 0 is NULL' <(section "kmm 0" "$f")
  read -r start end < <(section kmm "$f" | sed -nE 's/^  (0x[0-9a-f]+)-(0x[0-9a-f]+) rw .*/\1 \2/p')

  # kpage on the last page MADV_FREE handed over: lazily freed, of that mm, at an address
  # inside its VMA, with page->mapping at anon_owner.
  local owner addr
  owner=$(section 'p/x (unsigned long)&anon_owner' "$f" | sed -nE 's/^\$[0-9]+ = (0x[0-9a-f]+)$/\1/p')
  addr=$(section "kpage $tail" "$f" |
         sed -nE "s/^  lazily freed \(MADV_FREE\): mm ${mm:-none} address (0x[0-9a-f]+)$/\1/p")
  check "kpage: the LRU's last page is lazily freed memory of mm ${mm:-none}" test -n "$addr"
  check "kpage: its address ${addr:-none} is inside the VMA ${start:-?}-${end:-?}" \
    test $((${addr:-0})) -ge $((${start:-1})) -a $((${addr:-0})) -lt $((${end:-0}))
  check "kpage: flags PG_lru PG_lazyfree, mapping &anon_owner (${owner:-none})" \
    grep -Pzq "\n  flags 0x[0-9a-f]+ PG_lru PG_lazyfree\n  refcount [0-9]+ mapping ${owner:-none} index ${addr:-none} private ${mm:-none}\n" \
    <(section "kpage $tail" "$f")
  # kpage on the mm itself: a kmalloc object, on a page of the power-of-two cache that fits it.
  local size cache=8 pfn
  size=$(section 'p sizeof(struct mm)' "$f" | sed -nE 's/^\$[0-9]+ = ([0-9]+)$/\1/p')
  while [ "$cache" -lt "${size:-99999}" ]; do cache=$((cache * 2)); done
  check "kpage MM: a page of slab cache kmalloc-$cache (sizeof(struct mm) is ${size:-?})" \
    grep -qE "^  slab of cache 'kmalloc-$cache': [0-9]+ of [0-9]+ objects free$" \
    <(section "kpage $mine" "$f")
  pfn=$(section "$image" "$f" | sed -nE 's/^\$[0-9]+ = (0x[0-9a-f]+)$/\1/p')
  check "kpage &threads: pfn ${pfn:-?} of the kernel image, reserved" \
    grep -Pzq "^pfn ${pfn:-none} phys ${pfn:-none}000 page 0x[0-9a-f]+\n  flags 0x[0-9a-f]+ PG_reserved\n.*\n  reserved: never given to the page allocator\n" \
    <(section "kpage &threads" "$f")
  check "kpage refuses a number that is neither a pfn nor a kernel address" \
    grep -q '^kpage: 0xdeadbeef is neither a pfn (below 0x[0-9a-f]*) nor a kernel address' \
    <(section "kpage 0xdeadbeef" "$f")

  # kradix: per height, the nodes the odd indices need (the distinct values of
  # index >> shift * height), the first and last index; the last item is a page cache page.
  check "stopped in check_gang on radix-lock, fanout 16" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 3, check_gang ' <(section radix16 "$f")
  check "stopped in check_gang on radix-rcu, fanout 128" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 3, check_gang ' <(section radix128 "$f")
  local expect m
  expect=$(python3 - <<'PY'
# odd_indices of tests/kernel/pagecache_test.c
idx = [0, 1, 3, 17, 255, 256, 4095, 65537, 2**32 - 1, 2**32, 2**32 + 1, 2**64 - 2, 2**64 - 1]
for shift, height in ((4, 16), (7, 10)):
    nodes = [len({i >> (shift * h) for i in idx}) for h in range(height, 0, -1)]
    print("radix tree: fanout %d, height %d, %d nodes, %d entries"
          % (1 << shift, height, sum(nodes), len(idx)))
    for h, n in zip(range(height, 0, -1), nodes):
        print("  height %d: %d nodes" % (h, n))
    print("  first index 0x0 item")
    print("  last index 0xffffffffffffffff item")
PY
)
  check "kradix, 16-way tree: height 16, 13 entries, the nodes of every height" \
    cmp -s <(sed -n '1,19p' <<< "$expect") \
    <(section "16 kradix m->page_tree" "$f" | sed -E 's/ item 0x[0-9a-f]+$/ item/')
  check "kradix, 128-way tree: height 10, 13 entries, the nodes of every height" \
    cmp -s <(sed -n '20,$p' <<< "$expect") \
    <(section "128 kradix" "$f" | sed -E 's/ item 0x[0-9a-f]+$/ item/')
  m=$(section "16 p m" "$f" | sed -nE 's/^\$[0-9]+ = \(struct address_space \*\) (0x[0-9a-f]+)$/\1/p')
  # A ramfs-like file's page: no flags (not locked, and off the LRU, mm/filemap.c).
  check "kpage \$kradix_last: the page cache page of address_space ${m:-?} at index ~0, no flags" \
    grep -Pzq "\n  flags 0x0 \\(none\\)\n.*\n  page cache: address_space ${m:-none} index 0xffffffffffffffff\n" \
    <(section '16 kpage $kradix_last' "$f")
  check "kradix refuses what is not a radix_tree_root" \
    grep -q '^kradix: m is a struct address_space, not a struct radix_tree_root' \
    <(section "16 kradix m" "$f")
  check "no Python exception in the mm session" \
    test "$(grep -cE 'Python Exception|Traceback|Error occurred in Python' "$f")" = 0
}

# profile: stop in profile-hotspot (tests/kernel/profile_test.c) when its window is over, before
# it collects the samples, and read them with kprofile: the hot spots must top the self ranking
# after the idle CPUs' pseudo-function, the spinning one first.
profile() {
  boot_gdb profile 2 "bench=none panic=halt selftest=profile-hotspot"
  local cmds=() c
  local null="kprofile 'kernel/bench/point_profile.c'::points[0]"
  for c in kprofile "kprofile 3" "$null" "kprofile nosuch" "kprofile 1 2 3"; do
    cmds+=(-ex "echo @@$c\\n" -ex "$c")
  done
  run_gdb profile 90 -ex "thbreak kmain" -ex "continue" -ex "break profile_stop" -ex "continue" \
    "${cmds[@]}" -ex "echo @@end\\n" -ex "kill"
  end_qemu
  local f=$out/profile-gdb.out top n

  check "stopped in profile_stop" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 2(\.[0-9]+)?, profile_stop ' "$f"
  n=$(section kprofile "$f" | sed -nE "s/^2 CPUs' uncollected samples at 997 Hz: ([0-9]+) samples, .*/\1/p")
  check "kprofile reads both CPUs' samples at 997 Hz (${n:-none})" test "${n:-0}" -ge 1000
  top=$(section kprofile "$f" | awk '/^top by self/ { on = 1; next } /^top by total/ { on = 0 }
        on && $3 != "idle" { print $3 }' | head -n 2 | paste -sd,)
  check "kprofile: hot_spin, then hot_irqoff, top the self ranking (saw ${top:-none})" \
    test "$top" = "hot_spin,hot_irqoff"
  check "kprofile folds stacks root first, as the PROFILE lines" \
    grep -qE '^ +[0-9]+  thread_start;thread_entry;hot_thread;hot_spin$' <(section kprofile "$f")
  n=$(section "kprofile 3" "$f" | grep -cE '^ +[0-9.]+% +[0-9.]+%  ')
  check "kprofile 3 prints 3 functions a ranking (saw $n of 6)" test "$n" -eq 6
  check "kprofile refuses a NULL table (a point's, with no benchmark run)" \
    grep -qx "kprofile: 'kernel/bench/point_profile.c'::points\[0\] is NULL" <(section "$null" "$f")
  check "kprofile names a bad expression" grep -q '^kprofile: No symbol "nosuch"' \
    <(section "kprofile nosuch" "$f")
  check "kprofile names a table expression that is not one" \
    grep -q '^kprofile: A syntax error' <(section "kprofile 1 2 3" "$f")
  check "no Python exception in the profile session" \
    test "$(grep -cE 'Python Exception|Traceback|Error occurred in Python' "$f")" = 0
}

# lockstat: stop in lockstat-count (tests/kernel/lockstat_test.c) where it folds its counts
# away, after checking them, and read them with klockstat: its own classes' exact counts, and
# the contended ones' wait and hold times in order.
lockstat() {
  boot_gdb lockstat 2 "bench=none panic=halt selftest=lockstat-count"
  run_gdb lockstat 60 -ex "thbreak kmain" -ex "continue" -ex "break lock_stat_fold" \
    -ex "echo @@fold\\n" -ex "continue" -ex "echo @@klockstat\\n" -ex "klockstat" \
    -ex "echo @@klockstat x\\n" -ex "klockstat x" -ex "echo @@end\\n" -ex "kill"
  end_qemu
  local f=$out/lockstat-gdb.out s
  s=$(section klockstat "$f")
  check "stopped in lock_stat_fold, called by lockstat-count" \
    grep -qE '^(Thread [0-9]+ hit )?Breakpoint 2, lock_stat_fold ' <(section fold "$f")
  check "klockstat: statistics off, the test's classes among those taken" \
    grep -qE '^lock statistics off: [0-9]+ classes registered, [0-9]+ taken, 0 acquisitions uncounted$' <<< "$s"
  check "klockstat: ls_count_lock 1010 acquisitions, none contended, no wait, some hold" \
    grep -qE '^  ls_count_lock +1010 +0 +0 +0 +[1-9][0-9]*$' <<< "$s"
  check "klockstat: ls_rwsem 100 acquisitions, none contended" \
    grep -qE '^  ls_rwsem +100 +0 +0 +0 +[1-9][0-9]*$' <<< "$s"
  # Contended: 0 < max wait <= wait (one contention: equal), hold at least 5 ms.
  local name want row
  for name in ls_contend_lock:2 ls_mutex:102; do
    want=${name#*:} name=${name%:*}
    row=$(sed -nE "s/^  $name +$want +1 +([0-9]+) +([0-9]+) +([0-9]+)\$/\1 \2 \3/p" <<< "$s")
    check "klockstat: $name $want acquisitions, 1 contended, 0 < max wait <= wait, hold >= 5 ms ($row)" \
      awk -v r="$row" 'BEGIN { split(r, a, " "); exit !(r != "" && a[2] > 0 && a[2] <= a[1] && a[3] >= 5000000) }'
  done
  check "klockstat x is refused" grep -qx 'usage: klockstat (no arguments)' <(section "klockstat x" "$f")
  check "no Python exception in the lockstat session" \
    test "$(grep -cE 'Python Exception|Traceback|Error occurred in Python' "$f")" = 0
}

case ${1:-all} in
  live) live ;;
  step) step ;;
  fail) failed ;;
  mm) mm ;;
  profile) profile ;;
  lockstat) lockstat ;;
  all) live; step; failed; mm; profile; lockstat ;;
  *) echo "usage: $0 [live|step|fail|mm|profile|lockstat]" >&2; exit 2 ;;
esac
[ $fail = 0 ] || echo "  gdb output: $out/*-gdb.out"
exit $fail
