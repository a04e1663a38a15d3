#!/bin/bash
# The shell session tools/ttydrive.py types into this kernel's serial console (make test), typed
# into the host's busybox sh under a pseudo-terminal: Linux is the oracle for what it expects.
# Without Debian's busybox-static on the host (tools/deps.sh) it says SKIP and passes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
busybox=${BUSYBOX:-/bin/busybox}
if [ ! -x "$busybox" ]; then
  echo "SKIP: no $busybox (Debian's busybox-static)"
  exit 0
fi
python3 "$root/tools/ttydrive.py" pty --session shell "$busybox"
