#!/bin/bash
# Host test: every file path (dir/file.ext under one of the tree's rooms) that README.md and
# doc/*.md name exists in the tree; doc/notebook/ is history and may name files since moved.
set -u
cd "$(dirname "$0")/../.." || exit 2

# check FILE...: prints each path named that does not exist, and how many were checked;
# exit 1 on a missing path or when too few paths were found for the check to mean anything.
check() {
  python3 - "$@" <<'EOF'
import os, re, sys
# Linux's own paths that the pages cite for comparison (this tree has arch/x86_64, not arch/x86).
LINUX = ("arch/x86/", "include/linux/", "include/uapi/linux/", "include/uapi/asm-generic/")
path = re.compile(r"(?<![\w/.-])((?:boot|arch|kernel|mm|fs|drivers|include|user|tests|tools|doc)"
                  r"/[\w.+/-]*\w\.[A-Za-z0-9]+)(?![\w/<*-])")
seen, missing = set(), []
for name in sys.argv[1:]:
    for n, line in enumerate(open(name, encoding="utf-8"), 1):
        for p in path.findall(line):
            if p.startswith(LINUX) or p in seen:
                continue
            seen.add(p)
            if not os.path.exists(p):
                missing.append(f"{name}:{n}: {p} does not exist")
if missing:
    print("\n".join(missing))
print(f"{len(seen)} paths checked, {len(missing)} missing")
sys.exit(1 if missing or len(seen) < 50 else 0)
EOF
}

pages=(README.md doc/*.md)
check "${pages[@]}"; rc=$?
# Planted: the same pages plus one naming a file that is not there must fail, naming it.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp doc/layout.md "$tmp/planted.md"
echo 'The scheduler lives in `kernel/no_such_file.c`.' >> "$tmp/planted.md"
if ! check "${pages[@]}" "$tmp/planted.md" 2>/dev/null | grep -q 'planted.md:.*kernel/no_such_file.c does not exist'; then
  echo "test_docs: the planted missing path went unnoticed"; rc=1
fi
[ $rc -eq 0 ] && echo "test_docs: 1 passed, 0 failed" || echo "test_docs: 0 passed, 1 failed"
exit $rc
