#!/bin/sh
# Installs the tools the build, the runs and the tests need, with apt when root; otherwise
# prints the exact apt-get line. Quiet and quick when everything is already there.
pkgs=""
need() { # need PACKAGE TEST-COMMAND...
  pkg=$1; shift
  "$@" >/dev/null 2>&1 || pkgs="$pkgs $pkg"
}
need qemu-system-x86 command -v qemu-system-x86_64
need grub-common     command -v grub-mkrescue
need grub-pc-bin     test -d /usr/lib/grub/i386-pc
need xorriso         command -v xorriso
need mtools          command -v mformat
need gdb             command -v gdb
need gnuplot-nox     command -v gnuplot
need liburcu-dev     test -f /usr/include/x86_64-linux-gnu/urcu.h
need python3         command -v python3
# The initramfs: cpio makes the archive (tools/mkinitramfs.sh) and checks the kernel's
# parser (host tests); the user programs (user/, tests/user/) are linked static against
# glibc (libc6-dev).
need cpio            command -v cpio
need libc6-dev       test -f /usr/lib/x86_64-linux-gnu/libc.a
# make realprogs runs Debian's own programs (tools/realprogs.sh): coreutils, xz, zstd, sqlite3,
# fs_mark, python3, dbench, procps's ps and pgrep, util-linux's lscpu, a musl-gcc program, a
# Go program; strace finds the files their host run used.
need xz-utils        command -v xz
need procps          test -x /usr/bin/pgrep
need util-linux      test -x /usr/bin/lscpu
need zstd            command -v zstd
need sqlite3         command -v sqlite3
need fsmark          command -v fs_mark
need dbench          command -v dbench
need python3-minimal test -x /usr/bin/python3
need musl-tools      command -v musl-gcc
need strace          command -v strace
need golang-go       command -v go
# make seeds-real runs seed 001 as sysbench with Debian's jemalloc preloaded (tests/seeds/).
need sysbench        command -v sysbench
need libjemalloc2    test -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2
# make compare-linux fetches Debian's Linux with apt-get download and unpacks its bzImage
# with dpkg-deb (tools/fetch_linux.sh).
need apt             command -v apt-get
need dpkg            command -v dpkg-deb
# The host fuzzers (make fuzz, make test): clang 14 and its libFuzzer runtime, which
# clang only recommends and apt here installs without recommends.
need clang-14        command -v clang-14
need libclang-rt-14-dev \
  sh -c 'test -f "$(clang-14 --print-runtime-dir)/libclang_rt.fuzzer-x86_64.a"'
# Wanted, not needed: Debian's busybox-static, the shell and common tools of the built-in
# initramfs (tools/mkinitramfs.sh) and the shell tests' host oracle. Installed as root like
# the rest; without it the build goes on without a shell and those tests say SKIP. Not over
# an existing /bin/busybox (Debian's dynamic busybox conflicts with it).
if [ ! -e /bin/busybox ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing busybox-static"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends busybox-static; } \
      >/dev/null 2>&1 ||
      echo "deps: apt-get install busybox-static failed: the initramfs will have no shell" >&2
  else
    echo "deps: no /bin/busybox: the initramfs will have no shell; install it with:" >&2
    echo "  sudo apt-get install busybox-static" >&2
  fi
fi
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "deps: installing$pkgs"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  apt-get install -y -qq --no-install-recommends $pkgs >/dev/null || {
    echo "deps: apt-get install failed for:$pkgs" >&2; exit 1; }
else
  echo "deps: missing tools; install them with:" >&2
  echo "  sudo apt-get install$pkgs" >&2
  exit 1
fi
