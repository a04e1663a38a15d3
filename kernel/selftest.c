// Runs the self-tests selftest= names, one SELFTEST line each, then the summary line.
// Tests register themselves with SELFTEST(); this file only finds, runs and reports them.
// Only the debug image links the tests (tests/kernel/); the release image has this runner
// and an empty registry, and says so.
#include "cmdline.h"
#include "cpumask.h"
#include "fault_inject.h"
#include "printk.h"
#include "selftest.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "vsprintf.h"
#include <stdarg.h>

extern const struct selftest __selftests_start[], __selftests_end[];

static char extra[400];   // the torture tests print their work: keep it under printk's 512
static int extra_len;
static const char *skipped;   // the running test's selftest_skip reason, or NULL
static bool skip_bad;         // ... given where it does not excuse the test

void
selftest_extra(const char *fmt, ...)
{
  va_list ap;
  if(extra_len < (int)sizeof(extra) - 1)
    extra[extra_len++] = ' ';
  va_start(ap, fmt);
  extra_len += vscnprintf(extra + extra_len, sizeof(extra) - extra_len, fmt, ap);
  va_end(ap);
}

bool
selftest_skip(const char *reason)
{
  skipped = reason;
  skip_bad = strcmp(reason, "enomem") == 0 && !fault_inject_active();
  if(skip_bad)
    pr_err("selftest: an allocation failed with no fault injection on: not a skip\n");
  return !skip_bad;
}

int
selftest_other_cpu(void)
{
  int me = smp_processor_id(), other = cpumask_next(-1, &cpu_online_mask);
  if(other == me)
    other = cpumask_next(me, &cpu_online_mask);
  return other < NR_CPUS ? other : -1;
}

static bool
planted(const struct selftest *t)
{
  return strncmp(t->name, "planted-", 8) == 0;
}

static const struct selftest *
find(const char *name)
{
  for(const struct selftest *t = __selftests_start; t < __selftests_end; t++)
    if(strcmp(t->name, name) == 0)
      return t;
  return NULL;
}

// Called once per failed test, right after its SELFTEST line: `break selftest_failed`
// under make qemu-gdb stops every vCPU there. noipa keeps it a real, uncloned function
// with this name even though it does nothing.
static void __attribute__((noipa))
selftest_failed(const struct selftest *t)
{
}

static bool
run_one(const struct selftest *t)
{
  extra_len = 0;
  extra[0] = 0;
  skipped = NULL;
  pr_info("selftest: running %s\n", t->name);
  struct fault_rates rates;
  fault_inject_save(&rates);
  if(t->no_inject)
    fault_inject_pause(&rates);
  u64 t0 = ktime_ns();
  bool ok = t->fn();
  u64 ms = (ktime_ns() - t0) / 1000000;
  // A test that changed the rates and did not put them back would change every test after
  // it: a failure, and the boot's rates are back for the next one.
  bool rates_kept = true;
  for(int k = 0; k < NR_FAULT_KINDS; k++)
    rates_kept &= fault_inject_get(k) == (t->no_inject ? 0 : rates.permille[k]);
  if(!rates_kept) {
    pr_err("selftest: %s left fault injection rates changed\n", t->name);
    ok = false;
  }
  fault_inject_restore(&rates);
  if(skipped)
    selftest_extra("skipped=%s", skipped);
  ok = ok && !(skipped && skip_bad);
  printk("SELFTEST name=%s result=%s ms=%lu%s\n", t->name, ok ? "pass" : "fail", ms, extra);
  if(!ok)
    selftest_failed(t);
  return ok;
}

// The release image: the registry is empty, whatever selftest= asked for is not there. Said
// once, naming the image that has them; not a failure, the boot goes on (as for a name the
// registry lacks).
static void
no_selftests(void)
{
  pr_err("selftest: this image has no self-tests (the release image): they are linked into "
         "the debug image only, build/debug/kernel.elf, which make boots for any selftest= "
         "but none, or for DEBUG=1\n");
  for(int i = 0; i < kcmdline.nselftest; i++)
    pr_err("selftest: '%s' not run: not in this image\n", kcmdline.selftest_names[i]);
}

int
selftest_run(void)
{
  int passed = 0, failed = 0;
  // As integers: GCC may fold an == of two distinct arrays' addresses to false.
  bool empty = (unsigned long)__selftests_end == (unsigned long)__selftests_start;
  if(kcmdline.selftest != SELFTEST_NONE && empty) {
    no_selftests();
    if(kcmdline.selftest != SELFTEST_LIST)
      printk("selftest: %d passed, %d failed\n", passed, failed);
    return 0;
  }
  switch(kcmdline.selftest) {
  case SELFTEST_NONE:
    return 0;
  case SELFTEST_LIST:
    for(const struct selftest *t = __selftests_start; t < __selftests_end; t++)
      printk("selftest: %s%s\n", t->name, planted(t) ? " (planted: must fail)" : "");
    return 0;
  case SELFTEST_ALL:
    for(const struct selftest *t = __selftests_start; t < __selftests_end; t++) {
      if(planted(t))
        continue;
      run_one(t) ? passed++ : failed++;
    }
    break;
  case SELFTEST_NAMES:
    // In the order given, planted tests too: one that fails by returning puts its bug away
    // first, so several share a boot (make test's; tests/planted.sh says which may).
    for(int i = 0; i < kcmdline.nselftest; i++) {
      const struct selftest *t = find(kcmdline.selftest_names[i]);
      if(!t) {
        pr_err("selftest: no test named '%s' (selftest=list shows them); ignored\n",
               kcmdline.selftest_names[i]);
        continue;
      }
      run_one(t) ? passed++ : failed++;
    }
    break;
  }
  printk("selftest: %d passed, %d failed\n", passed, failed);
  return failed;
}
