#!/bin/bash
# gdb session test: the kernel-aware commands (tools/gdb/kernel.py) on a live 8-vCPU kernel,
# a breakpoint, step, finish and continue under `make qemu-gdb`'s setup, and a failed
# self-test that must stop in gdb. Usage: session.sh [live|step|fail] (all by default).
set -u
cd "$(dirname "$0")/../.."
out=build/test-logs/gdb-session
mkdir -p "$out"
fail=0

check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi
}

# section NAME: the gdb output between `echo @@NAME` and the next marker.
section() {
  awk -v s="@@$1" '/^@@/ { on = ($0 == s); next } on' "$out/live-gdb.out"
}

# pick_port: a port nobody listens on, from above the user's make qemu-gdb and smoke.sh
# ports up, so two test runs of one user at once do not clash.
pick_port() {
  port=$(( $(id -u) % 5000 + 25000 + 201 ))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    port=$((port + 1))
  done
}

# snapshot: gdb reads the kernel's symbols from a copy taken before the boot, so a rebuild
# of build/kernel.elf during the test cannot give it symbols of another kernel.
snapshot() {
  cp build/kernel.elf "$out/kernel.elf"
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

# live: boot with the kthread self-test and poweroff=no, attach once the run is over and
# every CPU is idle, and ask the commands about it.
live() {
  : > "$out/live-qemu.out"   # no END line from an earlier run
  pick_port
  snapshot
  tools/qemu.sh --smp 8 --cmdline "bench=none poweroff=no panic=halt selftest=kthread" \
    --gdb-nowait "$port" --timeout 120 --log "$out/live-serial.log" \
    > "$out/live-qemu.out" 2>&1 < /dev/null &
  local qemu=$! ended=1
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
  timeout 60 gdb -batch -nx -x tools/gdbinit -ex "file $out/kernel.elf" \
    -ex "target remote 127.0.0.1:$port" \
    "${cmds[@]}" -ex "echo @@end\\n" -ex "kill" > "$out/live-gdb.out" 2>&1
  # gdb's kill ends QEMU; a gdb that failed to attach leaves it to us.
  sleep 1
  kill -0 "$qemu" 2>/dev/null && stop_qemu "$qemu"
  wait "$qemu"

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
  pick_port
  snapshot
  tools/qemu.sh --smp 8 --cmdline "bench=none panic=halt selftest=sleep" --gdb "$port" \
    --timeout 120 --log "$out/step-serial.log" > "$out/step-qemu.out" 2>&1 < /dev/null &
  local qemu=$!
  wait_stub
  timeout 60 gdb -batch -nx -x tools/gdbinit -ex "file $out/kernel.elf" \
    -ex "target remote 127.0.0.1:$port" \
    -ex "set scheduler-locking step" -ex "thbreak kmain" -ex "continue" \
    -ex "break sleep_test" -ex "continue" -ex "delete" -ex "step" -ex "finish" \
    -ex "continue" > "$out/step-gdb.out" 2>&1
  sleep 1
  kill -0 "$qemu" 2>/dev/null && stop_qemu "$qemu"
  wait "$qemu"
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
  pick_port
  snapshot
  tools/qemu.sh --smp 8 --cmdline "bench=none panic=halt selftest=sleep" --gdb "$port" \
    --timeout 120 --log "$out/fail-serial.log" > "$out/fail-qemu.out" 2>&1 < /dev/null &
  local qemu=$!
  wait_stub
  timeout 60 gdb -batch -nx -x tools/gdbinit -ex "file $out/kernel.elf" \
    -ex "target remote 127.0.0.1:$port" \
    -ex "thbreak kmain" -ex "continue" -ex "break sleep_test" -ex "break selftest_failed" \
    -ex "continue" -ex "return 0" -ex "continue" -ex "bt 2" -ex "detach" \
    > "$out/fail-gdb.out" 2>&1
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

case ${1:-all} in
  live) live ;;
  step) step ;;
  fail) failed ;;
  all) live; step; failed ;;
  *) echo "usage: $0 [live|step|fail]" >&2; exit 2 ;;
esac
[ $fail = 0 ] || echo "  gdb output: $out/*-gdb.out"
exit $fail
