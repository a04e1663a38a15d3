// Self-test of the AP bring-up handshake (arch/x86_64/smp.c): every CPU that came online is in
// cpu_online_mask and no other; with smp.late_ap=N, CPU N answered past the BSP's deadline.
#include "cmdline.h"
#include "cpumask.h"
#include "printk.h"
#include "selftest.h"
#include "smp.h"
#include <asm/cpu.h>
#include <asm/smp_boot.h>

// An AP that came online after the BSP stopped waiting would run its idle loop outside
// cpu_online_mask, or be in it while the log says it never answered. smp.late_ap= makes one
// AP call in and then come online only past the deadline (make test's 2-vCPU selftest=all
// boot sets it): the BSP must wait for it and count it.
static bool
smp_bringup_test(void)
{
  bool ok = true;
  int aps = 0;
  for(int id = 1; id < nr_cpus_started; id++) {
    bool online = smp_load_acquire(&per_cpu_ptr(&cpu_info, id)->online);
    bool in_mask = id < nr_cpu_ids && cpumask_test_cpu(id, &cpu_online_mask);
    if(online != in_mask) {
      pr_err("smp-bringup: CPU %d is %sonline but %sin cpu_online_mask\n", id,
             online ? "" : "not ", in_mask ? "" : "not ");
      ok = false;
    }
    aps += online;
  }
  u32 late = kcmdline.smp_late_ap;
  if(late == 0 || late >= (u32)nr_cpus_started) {
    selftest_extra("aps=%d late_ap=none", aps);
    return ok;
  }
  u64 online_ns = READ_ONCE(late_ap_online_ns);
  bool counted = late < (u32)nr_cpu_ids && cpumask_test_cpu(late, &cpu_online_mask);
  if(!counted || online_ns <= ap_callin_deadline_ns) {
    pr_err("smp-bringup: CPU %u (smp.late_ap) %s, online %ld us after the deadline\n", late,
           counted ? "is online" : "is not in cpu_online_mask",
           (long)(online_ns - ap_callin_deadline_ns) / 1000);
    ok = false;
  }
  selftest_extra("aps=%d late_ap=%u late_by_us=%ld", aps, late,
                 (long)(online_ns - ap_callin_deadline_ns) / 1000);
  return ok;
}
SELFTEST("smp-bringup", smp_bringup_test);
