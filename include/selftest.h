// The self-test registry: SELFTEST(name, fn) puts a test in a linker section, selftest= picks them.
// planted-* tests carry a deliberate bug to prove a checker; `all` never runs them.
#pragma once
#include "compiler.h"
#include "types.h"

struct selftest {
  const char *name;    // [a-z0-9-]+
  bool (*fn)(void);    // true: pass
  bool no_inject;      // runs with the boot's fault injection paused
};

#define SELFTEST(name_, fn_)                                                  \
  static const struct selftest __selftest_##fn_ __used __section(".selftests") \
    __aligned(8) = { name_, fn_, false }

// A test held to exact counts of pages, faults or operations, which an injected allocation
// failure (failslab=, failpage=) would throw off: the runner pauses the boot's injection for
// it and puts the rates back after it.
#define SELFTEST_NOINJECT(name_, fn_)                                         \
  static const struct selftest __selftest_##fn_ __used __section(".selftests") \
    __aligned(8) = { name_, fn_, true }

// Appends " key=value ..." to the running test's SELFTEST line.
void selftest_extra(const char *fmt, ...) __printf(1, 2);
// The running test could not do its work for a reason outside what it tests: `return
// selftest_skip("enomem");` after undoing what it did. Its line reads `result=pass
// skipped=<reason>` ([a-z0-9-]+). "enomem" is a skip only while fault injection is on
// (failslab=, failpage=); without it an allocation failure is a failure of the test.
bool selftest_skip(const char *reason);
// For a test that needs a thread on a CPU other than its own (the test thread never
// migrates): the first online CPU that is not this one, or -1 when this is the only one.
int selftest_other_cpu(void);
// Runs what selftest= asks for; returns the number of failures.
int selftest_run(void);
