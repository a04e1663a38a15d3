#!/bin/bash
# The user-mode test programs (tests/user/ and user/hello.c) run natively on the host, where Linux is the oracle
# for every result and errno they expect: built static as make builds them for the kernel, run
# with the environment init= gives (HOME=/ TERM=linux PATH=/bin:/usr/bin), as an unprivileged
# user when run as root, under a 4 GiB address-space limit, in a scratch directory. Each must
# end with the status the kernel's user-* self-test expects (tests/kernel/user_test.c).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'umount "$scratch/ram" 2> /dev/null; rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
passed=0
failed=0

for src in "$root"/tests/user/*.c "$root"/user/hello.c; do
  name=$(basename "$src" .c)
  if ! gcc -O2 -static -pthread -s -Wall -o "$scratch/$name" "$src" -lm 2> "$scratch/$name.err"; then
    echo "FAIL  build $name: $(head -n 1 "$scratch/$name.err")"
    failed=$((failed + 1))
  fi
done

gcc -O2 -fPIE -static-pie -pthread -s -o "$scratch/hello-pie" "$root/user/hello.c" || failed=$((failed + 1))
# interp's neighbours: hello dynamically linked, as the Makefile builds it, and exit0 (no C
# library, the Makefile's flags).
gcc -O2 -pthread -s -o "$scratch/hello-dyn" "$root/user/hello.c" || failed=$((failed + 1))
gcc -O2 -static -nostdlib -fno-pie -no-pie -fno-stack-protector -s -o "$scratch/exit0" \
  "$root/user/exit0.c" || failed=$((failed + 1))
# sysfuzz is a directory of files (tests/user/sysfuzz/), one program.
if ! gcc -O2 -static -pthread -s -Wall -o "$scratch/sysfuzz" "$root"/tests/user/sysfuzz/*.c -lm \
     2> "$scratch/sysfuzz.err"; then
  echo "FAIL  build sysfuzz: $(head -n 1 "$scratch/sysfuzz.err")"
  failed=$((failed + 1))
fi

as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi

# expect STATUS PROGRAM ARGS...
expect() {
  local want=$1
  shift
  # The group's stderr also takes bash's own "Segmentation fault" report of the child.
  # --default-signal: a make test run in the background of a non-interactive shell has SIGINT
  # and SIGQUIT ignored (and SIGHUP, under nohup), and an ignored signal stays ignored across
  # execve (signal(7)): jobctl's orphaned, stopped group must die of its SIGHUP.
  { (cd "$scratch" && ulimit -v 4194304 && env -i --default-signal=HUP,INT,QUIT HOME=/ TERM=linux \
       PATH=/bin:/usr/bin "${as_user[@]}" "./$1" "${@:2}") > "$scratch/out" 2>&1; } 2> /dev/null
  local got=$?
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
    echo "PASS  $* (status $got)"
  else
    failed=$((failed + 1))
    echo "FAIL  $* (status $got, want $want): $(tail -n 1 "$scratch/out")"
  fi
}

expect 0 hello one "two words"
expect 0 hello-pie pie
expect 0 hello-dyn dyn
expect 0 interp
expect 0 threads
expect 0 mem
expect 0 fmap
expect 135 fmap sigbus
expect 135 fmap truncate
expect 0 mkwrite
expect 0 fpu
expect 0 spin 0.5
expect 0 hostile
expect 0 races
expect 0 vmrace
expect 0 sighand
# sysfuzz makes its scratch directory, and checks that nothing escaped it, in one the
# unprivileged user may write (the scratch directory is root's, 755).
mkdir -m 777 "$scratch/fuzz"
expect 0 sysfuzz --secs 5 --dir "$scratch/fuzz"
# A worker killed between shmget or semget and its note of the id leaves the object behind:
# the unprivileged user removes its own.
expect 0 sysfuzz --ipc-clean
# xattr asks a ramfs (other file systems keep attributes, or answer otherwise): Linux's own,
# mounted for it, which needs root, as make test runs.
mkdir -m 755 "$scratch/ram"
if mount -t ramfs none "$scratch/ram" 2> /dev/null && chmod 777 "$scratch/ram"; then
  expect 0 xattr "$scratch/ram"
else
  failed=$((failed + 1))
  echo "FAIL  xattr: cannot mount a ramfs for it (mount -t ramfs needs root)"
fi
mkdir -m 777 "$scratch/lockdir"
expect 0 locks "$scratch/lockdir"
expect 0 pshared "$scratch/lockdir"
expect 0 vsyscall
expect 0 epoll "$scratch/lockdir"
expect 0 sysvipc
expect 0 unix
expect 0 clock
expect 0 itimer
expect 0 conline
expect 0 files
expect 0 names
expect 0 pipe
expect 141 pipe sigpipe
expect 0 poll
expect 0 fdtable
expect 0 pipeproc
expect 0 procpid
expect 3 exitgroup
expect 0 proc
expect 0 proc storm 10000
expect 0 jobctl
expect 139 fault null
expect 139 fault kernel
expect 139 fault nx
expect 139 fault ro
expect 132 fault ud2
expect 136 fault div0
expect 134 fault abort
expect 143 fault term
expect 139 fault sysret
expect 0 signals
expect 134 signals abort
expect 138 signals resethand
expect 137 signals sigkill
expect 139 signals badframe
expect 139 signals badstack
echo "test_user_native: $passed passed, $failed failed"
[ "$failed" = 0 ]
