#!/bin/bash
# Host test: tools/cover_report.py counts a function as reached exactly when a block inside it
# ran, and names the table's system calls never entered (make fuzz-syscalls COVER=1).
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Two system calls and a helper, as a kernel would have them; the table names both calls.
cat > "$tmp/k.c" <<'C'
long sys_read(void) { return 1; }
long sys_write(void) { return 2; }
int helper(int x) { return x * 3; }
int main(void) { return 0; }
C
printf 'SYS(0, read, "u"), SYS(1, write, "u"),\nALIAS(75, fdatasync, read, "u"),\n' > "$tmp/syscall.c"
gcc -g -O0 -fno-inline -o "$tmp/k.elf" "$tmp/k.c" || exit 2
addr() { nm "$tmp/k.elf" | awk -v f="$1" '$3 == f { print $1 }'; }
# A block at sys_read's first byte and one 4 bytes into helper: two of four functions reached.
printf '%s\n' "$(addr sys_read)" > "$tmp/blocks"
printf '%x\n' $((0x$(addr helper) + 4)) >> "$tmp/blocks"
out=$(tools/cover_report.py "$tmp/k.elf" "$tmp/blocks" --table "$tmp/syscall.c")
rc=0
grep -qE '^COVER dir=other functions=2/[0-9]+ blocks=2$' <<< "$out" || { echo "FAIL  cover/functions: $out"; rc=1; }
grep -qx 'COVER syscalls=1/2 never=sys_write' <<< "$out" || { echo "FAIL  cover/syscalls: $out"; rc=1; }
# --base: what a baseline already reached is not counted again.
out=$(tools/cover_report.py "$tmp/k.elf" "$tmp/blocks" --base "$tmp/blocks" --table "$tmp/syscall.c")
grep -qE '^COVER dir=other functions=0/' <<< "$out" || { echo "FAIL  cover/base: $out"; rc=1; }
[ $rc = 0 ] && echo "PASS  cover/report"
exit $rc
