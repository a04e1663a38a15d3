# The shell tests' checker, as check.h is the C tests': `check DESCRIPTION COMMAND...` records a
# pass or a failure and goes on; `check_summary` prints "NAME: N passed, N failed" and fails if any did.
passed=0 failed=0
check_name=$(basename "$0" .sh)

check() {
  local desc=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "$check_name: check failed: $desc" >&2
  fi
}

check_summary() {
  echo "$check_name: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
