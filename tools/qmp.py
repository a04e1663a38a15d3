#!/usr/bin/env python3
# Sends one command to a running QEMU through its QMP socket: qemu.sh uses it at TIMEOUT to
# inject an NMI, which makes the kernel dump every CPU and thread before the run is killed.
"""Usage: qmp.py [--after SECS] SOCKET COMMAND   (e.g. qmp.py --after 600 /tmp/q.sock inject-nmi)

With --after, it first sleeps SECS seconds: qemu.sh starts it beside QEMU as the TIMEOUT."""

import json
import socket
import sys
import time


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--after":
        time.sleep(float(args[1]))
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    path, command = args
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        f = s.makefile("rw")
        json.loads(f.readline())   # QEMU's greeting
        for cmd in ("qmp_capabilities", command):
            f.write(json.dumps({"execute": cmd}) + "\n")
            f.flush()
            while True:   # skip asynchronous events until the command's answer
                reply = json.loads(f.readline())
                if "return" in reply or "error" in reply:
                    break
            if "error" in reply:
                sys.exit(f"qmp: {cmd}: {reply['error'].get('desc', reply)}")


if __name__ == "__main__":
    main()
