#!/bin/bash
# Host test: doc/syscalls.md has one row per entry of kernel/syscall.c's table, (nr, name) both
# ways, and each row's "implemented in" file defines the function that entry calls.
set -u
cd "$(dirname "$0")/../.." || exit 2

# check DOC: prints each difference and the row count; exit 1 on any difference.
check() {
  python3 - "$1" <<'EOF'
import re, sys
src = open("kernel/syscall.c").read()
table = src[src.index("table[NR_SYSCALLS] = {"):]
table = table[:table.index("\n};")]
code = {(int(n), name): "sys_" + name for n, name in re.findall(r"SYS\((\d+),\s*(\w+),", table)}
code.update({(int(n), name): fn for n, fn, name in
             re.findall(r"\[(\d+)\]\s*=\s*\{[^}]*?\)(\w+),\s*\"(\w+)\"", table)})
code.update({(int(n), name): "sys_" + fn for n, name, fn in
             re.findall(r"ALIAS\((\d+),\s*(\w+),\s*(\w+),", table)})
# Every entry must be one of the three forms read above: nothing else may be left in the table.
rest = re.sub(r"//[^\n]*", "", table[table.index("{") + 1:])
rest = re.sub(r"(SYS|ALIAS)\([^)]*\)|\[\d+\]\s*=\s*\{[^}]*\}", "", rest)
left = re.search(r"\w[^,]*", rest)
unread = [f"kernel/syscall.c: an entry this test cannot read: {left.group(0)[:60]}"] if left else []
doc = {}
for line in open(sys.argv[1]):
    m = re.match(r"\|\s*(\d+)\s*\|\s*(\w+)\s*\|\s*`([^`]+)`", line)
    if m:
        doc[(int(m.group(1)), m.group(2))] = m.group(3)
page = sys.argv[1]
bad = unread + [f"in kernel/syscall.c, not in {page}: {n} {c}" for n, c in sorted(code.keys() - doc.keys())]
bad += [f"in {page}, not in kernel/syscall.c: {n} {c}" for n, c in sorted(doc.keys() - code.keys())]
for key in sorted(code.keys() & doc.keys()):
    fn, path = code[key], doc[key]
    try:
        text = open(path).read()
    except OSError:
        text = ""
    if not re.search(r"\blong\s+" + fn + r"\s*\([^;{]*\)\s*\{", text):
        bad.append(f"{key[1]}: {path} does not define {fn}")
if bad:
    print("\n".join(bad))
print(f"{len(code)} table entries, {len(doc)} rows")
sys.exit(1 if bad or len(code) < 100 else 0)   # fewer than 100: the table was not found
EOF
}

out=$(check doc/syscalls.md); rc=$?
echo "$out"
# Planted: the same page without one row, and with one row pointing at the wrong file, must fail.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^\| 0 \| read \|/ { next } { print }' doc/syscalls.md > "$tmp/less.md"
sed 's/^| 59 | execve | `[^`]*`/| 59 | execve | `kernel\/panic.c`/' doc/syscalls.md > "$tmp/wrong.md"
planted=0
check "$tmp/less.md" 2>/dev/null | grep -q 'not in .*less.md: 0 read' && planted=$((planted + 1))
check "$tmp/wrong.md" 2>/dev/null | grep -q 'execve: kernel/panic.c does not define sys_execve' &&
  planted=$((planted + 1))
[ $planted -eq 2 ] || { echo "test_syscall_doc: a planted difference went unnoticed"; rc=1; }
[ $rc -eq 0 ] && echo "test_syscall_doc: 1 passed, 0 failed" || echo "test_syscall_doc: 0 passed, 1 failed"
exit $rc
