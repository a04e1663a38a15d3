#!/bin/bash
# gdb smoke test: boot under `make qemu-gdb`'s setup, attach as `make gdb` does, stop at the
# 64-bit entry, check bt and one thread per vCPU, detach, and the run must still finish.
set -u
cd "$(dirname "$0")/../.."
smp=${1:-8}
out=build/test-logs/gdb-smoke
mkdir -p "$out"
port=$(( $(id -u) % 5000 + 25000 + 200 ))   # not the user's own make qemu-gdb port

# No self-test on the command line: the release image (tools/qemu.sh's rule, given explicitly),
# and gdb reads its symbols, as `make gdb` does after `make qemu-gdb`.
tools/qemu.sh --smp "$smp" --cmdline "bench=none panic=halt" --gdb "$port" --timeout 120 \
  --image release --log "$out/serial.log" > "$out/qemu.out" 2>&1 < /dev/null &
qemu=$!
for _ in $(seq 50); do   # wait for the stub to listen
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.2
done

timeout 60 gdb -batch -nx build/kernel.elf -x tools/gdbinit \
  -ex "target remote 127.0.0.1:$port" -ex "set scheduler-locking step" \
  -ex "thbreak kmain" -ex "continue" \
  -ex "bt" -ex "info threads" -ex "detach" > "$out/gdb.out" 2>&1
wait "$qemu"
rc=$?

fail=0
check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "  ok   $1"; else echo "  FAIL $1"; fail=1; fi
}
check "gdb stopped in kmain" grep -q "^#0 .*kmain" "$out/gdb.out"
threads=$(grep -cE '^[* ] +[0-9]+ +Thread' "$out/gdb.out")
check "info threads shows $smp threads (saw $threads)" test "$threads" -eq "$smp"
check "the run finished after detach (qemu exit $rc)" test "$rc" -eq 0
check "END result=pass" grep -q "END result=pass" "$out/serial.log"
check "the release image booted" \
  grep -qE "^(\[ *[0-9.]+\] )?kernel: booted by .*, image release$" "$out/serial.log"
[ $fail = 0 ] || { echo "  gdb output: $out/gdb.out"; sed 's/^/    /' "$out/gdb.out" | tail -20; }
exit $fail
