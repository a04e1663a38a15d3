# The planted tests' plan and checkers, sourced by tests/run.sh: which planted-* tests share one
# boot (each caught by a named field on its own lines), and how each boot's log proves it.
#
# A planted test may share a boot when it cannot disturb the next one: it fails by returning
# (its SELFTEST line says result=fail, with the field that caught it), puts back the flag that
# planted its bug, and leaves no CPU wedged. Those that panic (a fault, DEBUG_SPINLOCK, slab
# debugging, the hard- and soft-lockup and hung-task checks, cond_resched in atomic context,
# the TLB shootdown's IPI wait) end the boot: each keeps a boot of its own. So does
# planted-cow-shared: fork's shared pages let the child scribble over the parent, which then
# dies at a different point from run to run (status 139, 56, ...) and may leave its files in
# the ramfs (an inode and a dentry each, seen by LEAK-CHECK), state a later test could trip
# on. A planted test this file does not name runs alone, so a new one is safe until someone
# decides it can share.
#
# PLANTED_SHARED: one test a line, in the boot's order, "name<TAB>evidence": evidence is an
# extended regex that must match a line of that test's own part of the log (from "selftest:
# running NAME" to its SELFTEST line), besides the SELFTEST line's result=fail. planted-leak's
# evidence is the run's LEAK-CHECK instead (planted_batch_check says how it is told apart).
PLANTED_SHARED=$(cat <<'EOF'
planted-rename-unlocked	SELFTEST name=planted-rename-unlocked result=fail .* missing=[1-9]
planted-madvise-leak	madvise: dontneed-rlock's teardown leaked [1-9][0-9]* pages
planted-brlock-skip	SELFTEST name=planted-brlock-skip result=fail .* torn=[1-9]
planted-brlock-starve	SELFTEST name=planted-brlock-starve result=fail .* overtook_twice=[1-9]
planted-free-now-rcu-walk	SELFTEST name=planted-free-now-rcu-walk result=fail .* unsafe_stale=[1-9]
planted-lock-order	LOCKDEP kind=circular classes=order_b,order_a$
planted-irq-lock	LOCKDEP kind=irq-inconsistent classes=irq_lock$
planted-sleep-in-rcu	LOCKDEP kind=sleep-in-rcu classes=rcu_read_lock$
planted-lockstat-count	lockstat-count: spin: acquisitions [0-9]+ \(want [0-9]+\)
planted-lazyfree-dirty	SELFTEST name=planted-lazyfree-dirty result=fail .* corrupt=[1-9]
planted-rcu	SELFTEST name=planted-rcu result=fail .* (too_old|poisoned)=[1-9]
planted-torture-idle	SELFTEST name=planted-torture-idle result=fail .* too_little=
planted-profile-irqoff	SELFTEST name=planted-profile-irqoff result=fail .* irqoff=[0-4]\.[0-9]%/
planted-pipe-torn	pipe: FAILED [0-9]+-byte records
planted-user-no-preempt	SELFTEST name=planted-user-no-preempt result=fail .* slept-while-spinning=0
planted-sched-wake-tail	SELFTEST name=planted-sched-wake-tail result=fail .* share=[0-9]%
planted-user-leak	SELFTEST name=planted-user-leak result=fail .* leaked-pages=[1-9]
planted-signal-fpu	signals: FAILED (xmm registers|MXCSR and FCW) kept across the handler
planted-lock	SELFTEST name=planted-lock result=fail .* fails=[1-9]
planted-locktorture-idle	SELFTEST name=planted-locktorture-idle result=fail .* too_little=
planted-pagecache-recheck	SELFTEST name=planted-pagecache-recheck result=fail .* wrong=[1-9]
planted-timer-nosync	SELFTEST name=planted-timer-nosync result=fail .* ran_after=[1-9]
planted-vma-lock-no-write	SELFTEST name=planted-vma-lock-no-write result=fail .* own_vma_during=1
planted-percore-skip-cpu	SELFTEST name=planted-percore-skip-cpu result=fail .* stale=[1-9]
planted-lazy-noflush	SELFTEST name=planted-lazy-noflush result=fail .* stale=[1-9]
planted-munmap-fault	SELFTEST name=planted-munmap-fault result=fail .* fault_err=0 
planted-munmap-whole	SELFTEST name=planted-munmap-whole result=fail .* hole_kept=0 
planted-ptlock-shared	SELFTEST name=planted-ptlock-shared result=fail .* other_table_during=0
planted-madvise-vma-span	SELFTEST name=planted-madvise-vma-span result=fail .* span_during=1
planted-leak	SELFTEST name=planted-leak result=pass .* object=1 page=1$
EOF
)

# The shared tests' names, in order.
planted_shared_names() { cut -f1 <<< "$PLANTED_SHARED"; }

# selftest_part LOG NAME: NAME's own lines of a self-test boot's LOG, from its "selftest:
# running" line to its SELFTEST line, the timestamps taken off.
selftest_part() {
  tr -d '\r' < "$1" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
    sed -n "/^selftest: running $2\$/,/^SELFTEST name=$2 /p"
}

# planted_batch_failing LOG: the shared tests not shown caught in the batch boot's LOG, one a
# line with why ("name: reason"); nothing when every one was caught. A test's own part of the
# log must hold its SELFTEST line with result=fail and a line matching its evidence.
# planted-leak returns a pass (it leaks and says so); what catches it is the run's LEAK-CHECK,
# and it is the only shared test that leaks a slab object (planted-user-leak and
# planted-madvise-leak are caught by their own page counts, and the latter gives its page
# back): LEAK-CHECK must say result=fail with exactly objects=1. One awk pass over the log, so
# that planted_batch_prove can run it once per test.
planted_batch_failing() {
  awk -F'\t' '
    NR == FNR { order[++n] = $1; evidence[$1] = $2; next }
    {
      line = $0
      sub(/\r$/, "", line)
      sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
      if(line ~ /^selftest: running /) {
        cur = substr(line, 19)
        if(!(cur in evidence))
          cur = ""
      }
      if(cur != "") {
        if(line ~ evidence[cur])
          seen[cur] = 1
        if(index(line, "SELFTEST name=" cur " ") == 1) {
          selftest[cur] = line
          cur = ""
        }
      }
      if(line ~ /^LEAK-CHECK /)
        leak = line
    }
    END {
      for(i = 1; i <= n; i++) {
        t = order[i]
        if(!(t in selftest))
          why = "no SELFTEST line of its own"
        else if(t == "planted-leak" && leak !~ /^LEAK-CHECK result=fail pages=[1-9][0-9]* objects=1$/)
          why = "not LEAK-CHECK result=fail with objects=1 (" leak ")"
        else if(t != "planted-leak" && index(selftest[t], "SELFTEST name=" t " result=fail ") != 1)
          why = "not result=fail (" selftest[t] ")"
        else if(!(t in seen))
          why = "no line of its own matches \"" evidence[t] "\""
        else
          continue
        print t ": " why
      }
    }' <(printf '%s\n' "$PLANTED_SHARED") "$1"
}

# planted_without LOG NAME MODE: LOG without NAME's own lines: MODE gone, as if the test had
# not run; MODE bare, all but a SELFTEST line with the same verdict and no fields, as if it had
# failed (or, planted-leak, passed) for some other reason than its planted bug.
planted_without() {
  awk -v t="$2" -v mode="$3" '
    {
      s = $0
      sub(/\r$/, "", s)
      sub(/^\[ *[0-9]+\.[0-9]+\] /, "", s)
    }
    s == "selftest: running " t { inside = 1; if(mode == "bare") print; next }
    inside && index(s, "SELFTEST name=" t " ") == 1 {
      inside = 0
      if(mode == "bare")
        print "SELFTEST name=" t " result=" (t == "planted-leak" ? "pass" : "fail") " ms=0"
      next
    }
    !inside' "$1"
}

# planted_batch_prove LOG: proves that each shared test's check looks at that test alone. The
# checker runs again on copies of LOG, two per test: without its lines (gone), and with only a
# bare SELFTEST line of the same verdict (bare: its evidence gone, as when another bug failed
# it). In each copy exactly that test must be found not caught, and every other one still
# caught. Prints what went wrong; 0 when nothing.
planted_batch_prove() {
  local log=$1 t mode copy got bad=0
  copy=$(mktemp "${TMPDIR:-/tmp}/planted-prove.XXXXXX")
  for t in $(planted_shared_names); do
    for mode in gone bare; do
      planted_without "$log" "$t" $mode > "$copy"
      got=$(planted_batch_failing "$copy" | cut -d: -f1 | paste -sd, -)
      if [ "$got" != "$t" ]; then
        echo "$t's lines $mode: the checker finds not caught '${got:-nothing}' (want '$t')"
        bad=1
      fi
    done
  done
  rm -f "$copy"
  return $bad
}

# planted_alone_check NAME RC LOG: a planted test booted alone must be caught: a PANIC with a
# symbolized backtrace, its SELFTEST line with result=fail, or LEAK-CHECK result=fail; the run
# fails (RC not 0, END result=fail) and the debug image ran it (some are caught by its checks
# alone: DEBUG_SPINLOCK, slab debugging). Lockdep's planted bugs must also print their LOCKDEP
# line, of the right kind. Prints why not; 0 when caught.
planted_alone_check() {
  local t=$1 rc=$2 log=$3 kind=
  has_() { grep -qE "$1" "$log"; }
  if ! has_ '^(\[ *[0-9.]+\] )?PANIC cpu=[0-9]+ ' && ! has_ "SELFTEST name=$t result=fail" &&
     ! has_ 'LEAK-CHECK result=fail '; then
    echo "no PANIC, SELFTEST result=fail or LEAK-CHECK result=fail"
    return 1
  fi
  if [ "$rc" = 0 ] || ! has_ 'END result=fail'; then
    echo "the run did not fail (exit $rc)"
    return 1
  fi
  if ! has_ '^(\[ *[0-9.]+\] )?kernel: booted by .*, image debug$'; then
    echo "not the debug image"
    return 1
  fi
  if has_ 'PANIC cpu=' && ! has_ '#[0-9]+ +0x[0-9a-f]+ [a-z_][a-z0-9_]*\+0x[0-9a-f]+'; then
    echo "a PANIC without a symbolized backtrace"
    return 1
  fi
  case $t in
  planted-lock-order) kind='circular classes=order_b,order_a' ;;
  planted-irq-lock) kind='irq-inconsistent classes=irq_lock' ;;
  planted-sleep-in-rcu) kind='sleep-in-rcu classes=rcu_read_lock' ;;
  planted-sleep-in-atomic) kind='sleep-in-atomic classes=atomic_lock' ;;
  esac
  if [ -n "$kind" ] && ! has_ "^(\[ *[0-9.]+\] )?LOCKDEP kind=$kind\$"; then
    echo "no 'LOCKDEP kind=$kind' line"
    return 1
  fi
  return 0
}
