#!/bin/bash
# Boots the release or the debug kernel through GRUB in QEMU, keeps the serial log under
# build/logs/, and exits 0 only when the kernel printed END result=pass and exited.
# With --linux, boots that Linux bzImage instead, with the same QEMU options but for how the
# kernel is loaded (make compare-linux); exit 0 when its /init said the program exited with 0.
set -u
smp=8 mem=1G cpu=qemu64 cmdline="" accel="" timeout=900 gdb="" gdbwait=yes log="" image=""
initrds=()
linux="" linux_initrd="" append="" plugin=""
while [ $# -gt 0 ]; do
  case $1 in
    --smp) smp=$2; shift ;;
    --mem) mem=$2; shift ;;
    --cpu) cpu=$2; shift ;;                       # QEMU's CPU model: qemu64 (default), max, ...
    --cmdline) cmdline=$2; shift ;;
    --accel) accel=$2; shift ;;
    --timeout) timeout=$2; shift ;;
    --log) log=$2; shift ;;
    --gdb) gdb=$2; shift ;;
    --gdb-nowait) gdb=$2; gdbwait=no; shift ;;   # stub, but the kernel runs until gdb attaches
    --image) image=$2; shift ;;                   # release or debug; default: the rule below
    --initrd) initrds+=("$2"); shift ;;           # an archive unpacked after the built-in one
                                                  # (again: more, in order)
    --linux) linux=$2; shift ;;                   # a Linux bzImage, loaded with -kernel
    --linux-initrd) linux_initrd=$2; shift ;;     # its initramfs (-initrd)
    --append) append=$2; shift ;;                 # its command line (-append)
    --plugin) plugin=$2; shift ;;                 # a TCG plugin and its arguments (QEMU's -plugin)
    *) echo "qemu.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
case $smp in ''|*[!0-9]*) echo "qemu.sh: SMP must be a number from 1 to 255" >&2; exit 2 ;; esac
if [ "$smp" -lt 1 ] || [ "$smp" -gt 255 ]; then
  echo "qemu.sh: SMP=$smp: QEMU's xAPIC machine takes 1 to 255 vCPUs" >&2; exit 2
fi

# The kernel image, the Makefile's rule (make passes --image): debug when the command line runs
# self-tests, that is its last selftest= word has a value other than none; else release.
if [ -z "$image" ]; then
  image=release
  read -r -d '' -a words <<< "$cmdline"   # every line: the kernel splits at newlines too
  for w in "${words[@]}"; do
    case $w in
      selftest=|selftest=none) image=release ;;
      selftest=*) image=debug ;;
    esac
  done
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
case $image in
  release) elf=$build/kernel.elf ;;
  debug) elf=$build/debug/kernel.elf ;;
  *) echo "qemu.sh: --image $image: release or debug" >&2; exit 2 ;;
esac
[ -n "$linux" ] || [ -f "$elf" ] || { echo "qemu.sh: no $elf: run make first" >&2; exit 2; }
# The initramfs archives: the built-in one (make builds it), with the debug image the test
# archive (make's TEST_PROGS as /test/bin/<name>, what the user-* self-tests run), then
# --initrd's. The release image never gets the test archive: it has no self-test to use it.
archives=()
[ -f "$build/initramfs.cpio.gz" ] && archives+=("$build/initramfs.cpio.gz")
if [ -z "$linux" ] && [ "$image" = debug ]; then
  if [ -f "$build/tests.cpio.gz" ]; then
    archives+=("$build/tests.cpio.gz")
  else
    echo "qemu.sh: no $build/tests.cpio.gz (make builds it): the user-* self-tests will fail" >&2
  fi
fi
for initrd in "${initrds[@]}"; do
  [ -f "$initrd" ] || { echo "qemu.sh: INITRD=$initrd: no such file" >&2; exit 2; }
  archives+=("$(cd "$(dirname "$initrd")" && pwd)/$(basename "$initrd")")
done
# Each image, command line and set of archive contents gets its own GRUB image, so runs with
# different ones never collide and a changed archive is never booted stale.
key=$({ printf '%s\n' "$cmdline"; for a in "${archives[@]}"; do md5sum < "$a"; done; } |
      md5sum | cut -c1-12)
iso=$build/iso/$image-$key.iso
if [ -z "$linux" ] && { [ ! -f "$iso" ] || [ "$elf" -nt "$iso" ] ||
   [ "$top/tools/mkiso.sh" -nt "$iso" ] || [ "$top/boot/grub.cfg.in" -nt "$iso" ]; }; then
  (cd "$top" && tools/mkiso.sh "$elf" "$cmdline" "$iso" "${archives[@]}") || exit 2
fi

load=(-cdrom "$iso" -boot d)
if [ -n "$linux" ]; then
  # QEMU's own Linux loader: -kernel/-initrd/-append instead of the GRUB image; every other
  # option below is the same for both kernels.
  for f in "$linux" "$linux_initrd"; do
    [ -f "$f" ] || { echo "qemu.sh: --linux/--linux-initrd: no such file '$f'" >&2; exit 2; }
  done
  image=linux cmdline=$append
  load=(-kernel "$linux" -initrd "$linux_initrd" -append "$append")
fi

# KVM only where the CPU really offers it (doc/qemu.md: a /dev/kvm may be paravirtual).
if [ -z "$accel" ]; then
  if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    accel=kvm
  else
    accel=tcg
  fi
fi
[ "$accel" = tcg ] && accel="tcg,thread=multi"

mkdir -p "$build/logs"
[ -n "$log" ] || log=$build/logs/run-$(date +%Y%m%d-%H%M%S)-$$-smp$smp.log
raw=$log.raw
args=(-machine pc -cpu "$cpu" -smp "$smp" -m "$mem" -accel "$accel"
      "${load[@]}" -display none -no-reboot
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [ -t 0 ] && [ -t 1 ]; then
  args+=(-serial mon:stdio)
else
  args+=(-serial stdio -monitor none)
fi
[ -n "$plugin" ] && args+=(-plugin "$plugin")
if [ -n "$gdb" ] && [ $gdbwait = no ]; then
  args+=(-gdb "tcp:127.0.0.1:$gdb")
  echo "qemu: running, gdb stub on 127.0.0.1:$gdb; attaching stops every vCPU"
elif [ -n "$gdb" ]; then
  args+=(-S -gdb "tcp:127.0.0.1:$gdb")
  echo "qemu: halted at reset, gdb stub on 127.0.0.1:$gdb; run 'make gdb' in another terminal"
fi

# At TIMEOUT, an NMI through QEMU's QMP socket makes a hung kernel print every CPU and thread
# and panic (arch/x86_64/nmi.c); a kernel past answering is killed GRACE seconds later.
grace=15
qmp=$(mktemp -u "${TMPDIR:-/tmp}/qemu-qmp.XXXXXX")
args+=(-qmp "unix:$qmp,server=on,wait=off")
"$top/tools/qmp.py" --after "$timeout" "$qmp" inject-nmi &
reaper=$!

echo "qemu: $smp vCPUs, $mem, accel $accel, command line '$cmdline', image $image, log $log"
timeout --foreground -k 5 $((timeout + grace)) qemu-system-x86_64 "${args[@]}" | tee "$raw"
rc=${PIPESTATUS[0]}
kill $reaper 2>/dev/null || rc=124   # the reaper is gone only if it sent the NMI
wait $reaper 2>/dev/null
rm -f "$qmp"
tr -d '\r' < "$raw" > "$log" && rm -f "$raw"
# make report's default; an absolute target, since --log may put the log anywhere
ln -sf "$(cd "$(dirname "$log")" && pwd)/$(basename "$log")" "$build/logs/last.log"

# Linux powers off (QEMU exits 0) once its /init (user/linux/init.c) has said how the program
# ended; the program must have exited with 0.
if [ -n "$linux" ]; then
  case $rc in
    0) grep -q '^init: .* exited with status 0$' "$log" && exit 0
       echo "qemu: Linux powered off, but /init did not report the program's exit with status 0" >&2
       exit 1 ;;
    124|137) echo "qemu: TIMEOUT: Linux was still running after ${timeout}s" >&2; exit 1 ;;
    *) echo "qemu: QEMU failed with status $rc" >&2; exit 1 ;;
  esac
fi
case $rc in
  33)
    if grep -q '^\(\[ *[0-9]*\.[0-9]*\] \)\?END result=pass$' "$log"; then
      exit 0
    fi
    echo "qemu: the kernel exited without END result=pass" >&2; exit 1 ;;
  35) echo "qemu: the kernel reported failure (END result=fail)" >&2; exit 1 ;;
  124|137) echo "qemu: TIMEOUT: no exit after ${timeout}s; the log ends with the kernel's dump" >&2
           exit 1 ;;
  0) echo "qemu: QEMU stopped without the kernel's exit (triple fault under -no-reboot?)" >&2
     exit 1 ;;
  *) echo "qemu: QEMU failed with status $rc" >&2; exit 1 ;;
esac
