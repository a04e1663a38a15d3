#!/bin/bash
# tests/user/termios.c natively under a pseudo-terminal (Linux's n_tty is the oracle): its checks
# that need no typing, then the session tools/ttydrive.py types (the same one `make test` types
# into this kernel's serial console). Ends "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
gcc -O2 -static -pthread -s -Wall -o "$scratch/termios" "$root/tests/user/termios.c" || exit 1
python3 "$root/tools/ttydrive.py" pty "$scratch/termios"
