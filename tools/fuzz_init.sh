#!/bin/sh
# The init of make fuzz-syscalls's boot (tools/fuzz_syscalls.sh), packed as /fuzz.sh by
# tools/fetch_trinity.sh and run by the guest's /bin/sh: sysfuzz, then trinity, each its share.
# Usage: /fuzz.sh SYSFUZZ_SECS TRINITY_SECS SEED CHILDREN [sysfuzz options...]
# Exit status: sysfuzz's if it failed, else trinity's (0 once it ran for its time).
sysfuzz_secs=$1 trinity_secs=$2 seed=$3 children=$4
shift 4
# Every name before the fuzzers ran: what they leave behind (root may create anywhere) is
# named and removed at the end, so that the leak check counts the kernel's objects only.
find / 2>/dev/null | sort > /tmp/.fuzz-names
/test/bin/sysfuzz --secs "$sysfuzz_secs" --seed "$seed" "$@"
status=$?
echo "fuzz-init: sysfuzz exited with status $status"

# trinity in its scratch directory (its test files), removed afterwards so that the leak
# check counts the kernel's objects, not the files trinity made. Options (trinity --help):
#   -q -l off          no per-call lines on the console and no log files (they grow without end)
#   --dangerous        as root (every process is root here: no setuid to drop to)
#   --clowntown        skips the 10-second "ctrl-c now" countdown before it starts
#   --stats            at the end, each call's attempts, successes and errnos
#   --disable-fds=...  fd providers built on what this kernel lacks: sockets (trinity spends
#                      minutes trying every domain), perf, epoll, eventfd, memfd, timerfd,
#                      drm (/dev/dri), pseudo (/dev/ files): pipes and test files remain
#   -a 64              x86-64 calls only: no int 0x80 entry here
#   -C, -s             children, and the seed: the run's reproducible part
# /trinity.sh adds one -c per system call of this kernel (tools/fetch_trinity.sh).
mkdir -p /tmp/trinity && cd /tmp/trinity || exit 1
echo "fuzz-init: trinity seed=$seed children=$children for ${trinity_secs}s"
/trinity.sh -q -l off --dangerous --clowntown --stats \
  --disable-fds=sockets,perf,epoll,eventfd,memfd,timerfd,drm,pseudo \
  -a 64 -C "$children" -s "$seed" &
pid=$!
# Its share of the time, then SIGINT: trinity's own handler stops the children and prints
# its summary ("Ran N syscalls"). A SIGKILL after 60 s more if it has not ended.
t=0
while [ "$t" -lt "$trinity_secs" ] && kill -0 "$pid" 2>/dev/null; do
  sleep 1
  t=$((t + 1))
done
kill -INT "$pid" 2>/dev/null
t=0
while [ "$t" -lt 60 ] && kill -0 "$pid" 2>/dev/null; do
  sleep 1
  t=$((t + 1))
done
kill -KILL "$pid" 2>/dev/null && echo "fuzz-init: trinity did not end within 60 s of SIGINT"
wait "$pid"
tstatus=$?
echo "fuzz-init: trinity exited with status $tstatus"
cd / && rm -rf /tmp/trinity
# System V objects outlive their makers (trinity's, a killed worker's): removed, and named.
/test/bin/sysfuzz --ipc-clean
find / 2>/dev/null | sort > /tmp/.fuzz-after
# Names new since the start (/proc/<pid> of processes still running are their own).
grep -vxF -f /tmp/.fuzz-names /tmp/.fuzz-after | grep -v '^/proc/[0-9]' | grep -vx '/tmp/.fuzz-after' |
  while read -r name; do
    echo "fuzz-init: left behind: $name"
    rm -rf "$name"
  done
rm -f /tmp/.fuzz-names /tmp/.fuzz-after
# A process still here now (other than this shell and its find) holds what it has, which the
# leak check would then count: named, with its state.
for d in /proc/[0-9]*; do
  [ "${d#/proc/}" = "$$" ] && continue
  if read -r line 2> /dev/null < "$d/stat"; then
    echo "fuzz-init: still running: $line" | cut -c1-120
  else
    echo "fuzz-init: left behind: $d, of no process:" $(ls -a "$d" 2>&1)
  fi
done
[ "$status" -ne 0 ] && exit "$status"
exit "$tstatus"
