#!/bin/bash
# Host test of the layout rules. Generic code (kernel/, mm/, fs/, drivers/, include/) reaches
# the hardware only through the arch interfaces in arch/x86_64/include/asm/, as <asm/...>; each
# subsystem owns its system calls and ABI constants are defined once (the rooms); and the
# release image (build/kernel.elf) holds no test code and no test program (the end of this file).
# Checked in code with comments blanked and string literals emptied: no inline assembly but
# the compiler barrier in include/compiler.h, no assembly file, no local APIC (lapic_, APIC_,
# ICR_, x2apic, APIC ids), no CR3 or other control register, no MSR, port or invlpg wrapper;
# and no arch header included with quotes. Each violation is printed as file:line. Planted
# files prove first that every kind is caught.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

# The one inline asm generic code keeps: an empty statement that only stops the compiler
# from moving memory accesses across it (no instruction reaches the CPU).
BARRIER='#define barrier() __asm__ __volatile__("" ::: "memory")'

# Headers only arch/x86_64/include/asm/ has: quoting one (or an asm/ or arch/ path) in
# generic code gets round the <asm/...> rule.
asm_only=""
for h in arch/x86_64/include/asm/*.h; do
  b=$(basename "$h")
  [ -e "include/$b" ] || asm_only="$asm_only $b"
done

# scan FILE...: prints file:line: what: the line, for every violation. One awk for all the
# files: each line is stripped of comments (a /* */ may span lines) and of what is inside
# string and character literals, then matched against the rules.
scan() {
  local f
  for f in "$@"; do
    case "$f" in
      *.S | *.s) echo "$f:1: an assembly file (assembly belongs in arch/x86_64/)" ;;
    esac
  done
  awk -v barrier="$BARRIER" -v asm_only="$asm_only " '
  BEGIN {
    w = "(^|[^A-Za-z0-9_])"; e = "([^A-Za-z0-9_]|$)"
    why[1] = "inline assembly"
    re[1] = w "(asm|__asm|__asm__)" e "|__builtin_ia32_"
    why[2] = "the local APIC"
    re[2] = w "(lapic_|ioapic_|APIC_|ICR_|pic_disable" e ")|x2apic|apic_id"
    why[3] = "CR3 or another control register"
    re[3] = "[cC][rR]3|" w "(read|write)_cr[0-9]" e "|%cr[0-9]"
    why[4] = "an MSR, port or TLB instruction"
    re[4] = w "(rdmsr|wrmsr|invlpg|cpuid|hlt|(in|out)[bwl])[ \t]*\\("
    nrules = 4
  }
  FNR == 1 { incomment = 0 }
  FILENAME ~ /\.[sS]$/ { next }
  {
    raw = $0
    if(raw ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
      t = raw; sub(/^[^"]*"/, "", t); sub(/".*/, "", t)
      b = t; sub(/.*\//, "", b)
      if(t ~ /(^|\/)asm\// || t ~ /arch\// || index(asm_only, " " b " "))
        printf "%s:%d: an arch header in quotes (include it as <asm/%s>): %s\n", FILENAME, FNR, b, raw
    }
    out = ""; n = length(raw); i = 1
    while(i <= n) {
      c = substr(raw, i, 1); c2 = substr(raw, i, 2)
      if(incomment) {
        if(c2 == "*/") { incomment = 0; out = out "  "; i += 2 } else { out = out " "; i++ }
        continue
      }
      if(c2 == "/*") { incomment = 1; out = out "  "; i += 2; continue }
      if(c2 == "//") break
      if(c == "\"" || c == "\047") {
        q = c; out = out q; i++
        while(i <= n) {
          c = substr(raw, i, 1)
          if(c == "\\") { out = out "  "; i += 2; continue }
          if(c == q) break
          out = out " "; i++
        }
        if(i <= n) { out = out q; i++ }
        continue
      }
      out = out c; i++
    }
    if(out ~ /^[ \t]*#[ \t]*include/)
      next
    if(FILENAME ~ /(^|\/)include\/compiler\.h$/ && raw == barrier)
      next
    for(r = 1; r <= nrules; r++)
      if(out ~ re[r])
        printf "%s:%d: %s: %s\n", FILENAME, FNR, why[r], raw
  }' "$@"
}

# Proof that each kind is caught: one planted line per kind, under a comment that names
# forbidden things without being flagged; and the barrier, comments and strings let through.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_layout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include"
planted=(
  '  __asm__ volatile("sti; hlt" ::: "memory");'
  '  asm("pause");'
  '  lapic_eoi();'
  '  send(ICR_FIXED | VEC_CALL);'
  '  u32 id = c->apic_id;'
  '  mm->cr3 = page_to_phys(p);'
  '  write_cr4(read_cr4());'
  '  u64 v = rdmsr(0x1b);'
  '  outb(0x61, 0);'
  '#include "asm/apic.h"'
  '#include "traps.h"'
)
missed=0
for i in "${!planted[@]}"; do
  printf '%s\n%s\n%s\n' "/* a comment: lapic_eoi() and" "   CR3 are not code here */" \
    "${planted[$i]}" > "$tmp/planted$i.c"
  out=$(scan "$tmp/planted$i.c")
  if [ "$(wc -l <<< "$out")" != 1 ] || ! grep -q "planted$i\\.c:3: " <<< "$out"; then
    echo "test_layout: a planted '${planted[$i]}' is not flagged alone, on its line: $out"
    missed=$((missed + 1))
  fi
done
printf '%s\n%s\n' "$BARRIER" '  char *s = "asm( in a string, lapic_ and CR3 too"; // asm("hlt")' \
  > "$tmp/include/compiler.h"
if [ -n "$(scan "$tmp/include/compiler.h")" ]; then
  echo "test_layout: the check flags the barrier, a comment or a string"
  missed=$((missed + 1))
fi
echo 'nop' > "$tmp/planted.S"
if [ -z "$(scan "$tmp/planted.S")" ]; then
  echo "test_layout: the check lets an assembly file through"
  missed=$((missed + 1))
fi

# Rooms: each subsystem owns its system calls, as in Linux. Every sys_* function the table of
# kernel/syscall.c names is defined under fs/ or mm/ (the memory calls under mm/, System V IPC's
# under ipc/, the socket calls under net/), except the calls listed in OTHER_ROOMS, which belong to the process, signal, time and machine code of
# kernel/, arch/x86_64/ and drivers/. A call new to that list is a decision, made here.
MM_CALLS=" brk mmap munmap mprotect madvise mremap msync mincore fadvise64 get_mempolicy set_mempolicy "
IPC_CALLS=" shmget shmat shmdt shmctl semget semop semtimedop semctl "
NET_CALLS=" socket socketpair bind listen accept accept4 connect getsockname getpeername shutdown
  sendto recvfrom sendmsg recvmsg setsockopt getsockopt "
NET_CALLS=" $(echo $NET_CALLS) "
OTHER_ROOMS=" exit exit_group clone clone3 fork vfork wait4 waitid set_tid_address kill tkill tgkill
  rt_sigaction rt_sigprocmask rt_sigpending rt_sigsuspend rt_sigtimedwait rt_sigreturn sigaltstack pause
  restart_syscall setpgid getpgid getpgrp setsid getsid clock_gettime clock_settime clock_getres
  gettimeofday time nanosleep clock_nanosleep alarm getitimer setitimer futex set_robust_list getrlimit setrlimit prlimit64
  sched_yield sched_getaffinity sched_setaffinity getcpu getpid getppid gettid getuid umask prctl
  uname sysinfo getrusage getrandom arch_prctl enosys "
OTHER_ROOMS=" $(echo $OTHER_ROOMS) "
# rooms_check TABLE DIR...: prints a line per call in the wrong room (or defined nowhere).
rooms_check() {
  local table=$1 fn def
  shift
  for fn in $(grep -oE '(SYS\([0-9]+, [a-z0-9_]+|ALIAS\([0-9]+, [a-z0-9_]+, [a-z0-9_]+)' "$table" |
              awk -F', ' '{print $NF}' | sort -u); do
    def=$(grep -lE "^([a-z0-9_]+ )*sys_$fn\(" $(find "$@" -name '*.c' | sort) | head -n 1)
    if [ -z "$def" ]; then
      echo "rooms: sys_$fn is in the table but defined nowhere"
    elif [[ "$MM_CALLS" == *" $fn "* ]]; then
      [[ "$def" == */mm/* || "$def" == mm/* ]] || echo "rooms: sys_$fn (memory) is in $def, not mm/"
    elif [[ "$IPC_CALLS" == *" $fn "* ]]; then
      [[ "$def" == */ipc/* || "$def" == ipc/* ]] || echo "rooms: sys_$fn (System V IPC) is in $def, not ipc/"
    elif [[ "$NET_CALLS" == *" $fn "* ]]; then
      [[ "$def" == */net/* || "$def" == net/* ]] || echo "rooms: sys_$fn (sockets) is in $def, not net/"
    elif [[ "$OTHER_ROOMS" != *" $fn "* ]]; then
      [[ "$def" == */fs/* || "$def" == fs/* ]] || echo "rooms: sys_$fn (file system) is in $def, not fs/"
    fi
  done
}
# ABI constants: Linux's values live once, in include/uapi/. A macro defined there is defined
# nowhere else, and no macro is defined in two files (the benchmark suites' own knobs, each its
# own value, excepted).
LOCAL_KNOBS=" MNT YIELD_EVERY MAX_WORKERS NR_FILES "
defines_check() {
  local f
  for f in "$@"; do
    grep -oE '^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*' "$f" | awk '{print $NF}' | sort -u |
      sed "s#\$# $f#"
  done | awk -v knobs="$LOCAL_KNOBS" '
    { n[$1]++; where[$1] = where[$1] " " $2; if($2 ~ /include\/uapi\//) uapi[$1] = 1 }
    END {
      for(m in n)
        if(n[m] > 1 && !index(knobs, " " m " "))
          printf "defines: %s is defined in%s%s\n", m, where[m], uapi[m] ? " (it belongs to include/uapi/ alone)" : ""
    }' | sort
}
# Each check catches its planted fault: a file-system call moved to kernel/, a memory call to
# fs/, and AT_FDCWD defined again in a .c file.
mkdir -p "$tmp/rooms/kernel" "$tmp/rooms/fs" "$tmp/rooms/mm" "$tmp/rooms/include/uapi"
printf 'SYS(0, read, "u"), SYS(9, mmap, ""), SYS(39, getpid, ""),\n' > "$tmp/rooms/table.c"
printf 'long\nsys_read(void)\n{\n}\nlong\nsys_getpid(void)\n{\n}\n' > "$tmp/rooms/kernel/a.c"
printf 'long\nsys_mmap(void)\n{\n}\n' > "$tmp/rooms/fs/b.c"
out=$(rooms_check "$tmp/rooms/table.c" "$tmp/rooms")
if ! grep -q 'sys_read (file system)' <<< "$out" || ! grep -q 'sys_mmap (memory)' <<< "$out" ||
   [ "$(wc -l <<< "$out")" != 2 ]; then
  echo "test_layout: the rooms check misses a planted misplaced call: $out"
  missed=$((missed + 1))
fi
printf '#define AT_FDCWD -100\n' > "$tmp/rooms/include/uapi/fcntl.h"
printf '#include "x.h"\n#define AT_FDCWD -100\n#define MNT "/a"\n' > "$tmp/rooms/fs/b.c"
printf '#define MNT "/b"\n' > "$tmp/rooms/kernel/a.c"
out=$(defines_check "$tmp/rooms/include/uapi/fcntl.h" "$tmp/rooms/fs/b.c" "$tmp/rooms/kernel/a.c")
if ! grep -q '^defines: AT_FDCWD .*belongs to include/uapi/' <<< "$out" || [ "$(wc -l <<< "$out")" != 1 ]; then
  echo "test_layout: the defines check misses a planted second AT_FDCWD: $out"
  missed=$((missed + 1))
fi

# The tree itself. Too few files means the paths are wrong, not that the tree is clean.
mapfile -t files < <(find kernel mm fs ipc net drivers include -type f -name '*.[chsS]' | sort)
if [ "${#files[@]}" -lt 50 ]; then
  echo "test_layout: only ${#files[@]} files found under kernel/ mm/ fs/ drivers/ include/"
  missed=$((missed + 1))
fi
out=$(scan "${files[@]}"
  rooms_check kernel/syscall.c kernel fs mm ipc net arch drivers
  defines_check $(find kernel mm fs ipc net drivers arch include -name '*.[ch]' | sort))
violations=0
if [ -n "$out" ]; then
  echo "$out"
  violations=$(wc -l <<< "$out")
fi

# The release image holds no test code: the self-tests (tests/kernel/) are the debug image's
# alone and the test programs are files of the test archive, not bytes of any image (the
# Makefile's KSRC_TESTS and TEST_PROGS). Its symbols (nm, locals too) must include none of the
# names only tests/kernel/ objects define (the debug image's: no test object is built for the
# release one), no user_bin_* of the programs once embedded and no __selftest_* registration,
# its registry (.selftests, __selftests_start to _end) must be empty, and the file under 4 MiB
# (it was 19 MB with the programs in it). Both images must exist: make builds them (make
# host-tests and make test do first); a missing one fails here, never passes.
MAX_RELEASE=$((4 * 1024 * 1024))
for f in build/kernel.elf build/debug/kernel.elf; do
  [ -f "$f" ] || { echo "test_layout: no $f (make, make host-tests or make test builds it)"; exit 1; }
done
mapfile -t test_objs < <(find build/debug/obj/tests/kernel -name '*.o' | sort)
# Names only test objects define: every defined symbol of theirs (locals too, but GCC's
# name.N copies of static locals) that no other object of the debug image defines.
nm --defined-only "${test_objs[@]}" 2>/dev/null | awk 'NF == 3 && $3 !~ /\./ { print $3 }' |
  sort -u > "$tmp/test.syms"
find build/debug/obj -name '*.o' ! -path 'build/debug/obj/tests/*' -print0 |
  xargs -0 nm --defined-only | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/kernel.syms"
comm -23 "$tmp/test.syms" "$tmp/kernel.syms" > "$tmp/test-only.syms"
# Too few means the objects were not found, not that the image is clean.
if [ "${#test_objs[@]}" -lt 20 ] || [ "$(wc -l < "$tmp/test-only.syms")" -lt 200 ]; then
  echo "test_layout: only ${#test_objs[@]} objects in build/debug/obj/tests/kernel/ and" \
    "$(wc -l < "$tmp/test-only.syms") names only they define"
  missed=$((missed + 1))
fi

# image_has_tests NM SIZE: a line for each sign of test code in an image whose nm listing is
# the file NM and whose size is SIZE bytes; nothing for a clean one.
image_has_tests() {
  local n
  n=$(awk '{ print $3 }' "$1" | sort -u | comm -12 - "$tmp/test-only.syms" | wc -l)
  [ "$n" = 0 ] || echo "$n symbols of tests/kernel/ objects, such as" \
    "$(awk '{ print $3 }' "$1" | sort -u | comm -12 - "$tmp/test-only.syms" | head -n 3 | paste -sd' ')"
  n=$(grep -cE ' (user_bin_|__selftest_)' "$1")
  [ "$n" = 0 ] || echo "$n user_bin_* or __selftest_* symbols: $(grep -m 1 -E ' (user_bin_|__selftest_)' "$1")"
  local start end
  start=$(awk '$3 == "__selftests_start" { print $1 }' "$1")
  end=$(awk '$3 == "__selftests_end" { print $1 }' "$1")
  [ -n "$start" ] && [ "$start" = "$end" ] ||
    echo "the self-test registry is not empty (__selftests_start ${start:-missing}, _end ${end:-missing})"
  [ "$2" -lt "$MAX_RELEASE" ] || echo "$2 bytes, not under $MAX_RELEASE"
}

nm build/kernel.elf > "$tmp/release.nm"
nm build/debug/kernel.elf > "$tmp/debug.nm"
release_size=$(stat -c %s build/kernel.elf)
# Proof that each sign is caught: the debug image (which links the tests), and the release
# listing with one embedded program's symbol, with a registered test or at 19 MB.
planted_images=(
  "debug|$tmp/debug.nm|$release_size"
  "user_bin|$tmp/release-bin.nm|$release_size"
  "registry|$tmp/release-reg.nm|$release_size"
  "size|$tmp/release.nm|19334104"
)
{ cat "$tmp/release.nm"; echo 'ffffffff80160000 R user_bin_hello'; } > "$tmp/release-bin.nm"
awk '$3 == "__selftests_end" { $1 = "ffffffffffff0018" } { print }' "$tmp/release.nm" > "$tmp/release-reg.nm"
for p in "${planted_images[@]}"; do
  IFS='|' read -r what listing size <<< "$p"
  if [ -z "$(image_has_tests "$listing" "$size")" ]; then
    echo "test_layout: a release image with test code ($what) is not flagged"
    missed=$((missed + 1))
  fi
done
out=$(image_has_tests "$tmp/release.nm" "$release_size")
if [ -n "$out" ]; then
  sed 's/^/build\/kernel.elf: /' <<< "$out"
  violations=$((violations + $(wc -l <<< "$out")))
fi
echo "test_layout: build/kernel.elf is $release_size bytes;" \
  "$(wc -l < "$tmp/test-only.syms") names only tests/kernel/ defines looked for"

echo "test_layout: ${#files[@]} files checked, $violations violations, $missed self-check failures"
[ "$violations" = 0 ] && [ "$missed" = 0 ]
