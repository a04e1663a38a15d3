#!/bin/bash
# Host test of make realprogs's checker (tools/realprogs.sh --compare): a kernel run that gives
# the host's output passes, through the console's timestamps and the kernel's own lines; each
# planted fault (a changed line, another status, a case missing, a leak, no END, a call Linux
# has answered ENOSYS) fails.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_realprogs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/host/lib/check.sh"

# The host's run of two cases, as cases.sh prints it.
cat > "$tmp/host.out" << 'EOF'
REALPROG-BEGIN alpha
| one
| two
REALPROG-END alpha status=0
REALPROG-BEGIN beta
| three
REALPROG-END beta status=1
REALPROG-DONE
EOF

# kernel FILE [SED]: this kernel's console log of the same run (timestamps, CRs, a kernel line
# inside a case: a number no kernel has, ENOSYS on Linux too; LEAK-CHECK and END), changed by
# the sed script SED if given.
kernel() {
  {
    printf '[    1.000000] kernel: booted by GRUB 2.06\r\n'
    sed 's/^/[    2.500000] /; s/$/\r/' "$tmp/host.out" |
      sed '3a [    2.600000] syscall: ls[18] called system call 999 (unknown), not implemented: ENOSYS\r'
    printf '[    3.000000] LEAK-CHECK result=pass pages=0 objects=0\r\n'
    printf '[    3.100000] END result=pass\r\n'
  } | sed "${2:-}" > "$1"
}

# compare NAME: runs the checker on $tmp/NAME.log, its output in $tmp/NAME.out; its status.
compare() {
  "$root/tools/realprogs.sh" --compare "$tmp/host.out" "$tmp/$1.log" > "$tmp/$1.out" 2>&1
}

kernel "$tmp/same.log"
compare same
check "the same output passes" test $? = 0
check "both cases pass" grep -qxF "2 passed, 0 failed" "$tmp/same.out"

planted() { # planted NAME SED WANT: the log changed by SED must fail with WANT in the output
  kernel "$tmp/$1.log" "$2"
  compare "$1"
  check "planted $1: fails" test $? != 0
  check "planted $1: says '$3'" grep -qF -- "$3" "$tmp/$1.out"
}
planted line 's/| two/| tw0/' "FAIL  realprog alpha"
planted status 's/beta status=1/beta status=0/' "FAIL  realprog beta"
planted missing '/REALPROG-BEGIN beta/,/REALPROG-END beta/d' "FAIL  realprog beta"
planted leak 's/LEAK-CHECK result=pass/LEAK-CHECK result=fail/' "no LEAK-CHECK result=pass"
planted noend '/END result=pass/d' "no END result=pass"
planted enosys 's/999 (unknown)/41 (socket)/' "ENOSYS for socket (ls)"
check "planted line: the diff shows both lines" \
  bash -c "grep -qxF '  - | two' '$tmp/line.out' && grep -qxF '  + | tw0' '$tmp/line.out'"
# A host run with no case at all is no pass.
: > "$tmp/empty.out"
"$root/tools/realprogs.sh" --compare "$tmp/empty.out" "$tmp/same.log" > "$tmp/none.out" 2>&1
check "no case on the host: fails" test $? != 0
check_summary
