// init='s program measured whole: with profile= and lockstat=yes, the sampler and the lock
// statistics run from just before the program starts to its exit, and its PROFILE and
// LOCKSTAT lines follow (suite=init), as a benchmark point's do after its BENCH line, and
// the TLB-shootdown IPIs it caused.
#include "bench.h"
#include "cmdline.h"
#include "point_lockstat.h"
#include "printk.h"
#include "profile.h"
#include "smp.h"
#include "vm.h"
#include "vsprintf.h"

// The column the whole run is summed in: the benchmarks are over when init= runs
// (kernel/main.c), so their slot 0 is free.
#define SLOT 0

// Shootdown IPIs at the program's start, set beside the ones Linux's /proc/interrupts counts
// around it (user/linux/init.c).
static u64 ipis0, ipi_wait0;
static u64 faults0, mmap_sem0;   // page faults, and those that took mmap_sem

void
bench_program_begin(void)
{
  bench_profile_point_begin(1);
  ipis0 = READ_ONCE(tlb_shootdown_ipis);
  ipi_wait0 = READ_ONCE(tlb_shootdown_wait_ns);
  faults0 = READ_ONCE(nr_page_faults);
  mmap_sem0 = READ_ONCE(nr_mmap_sem_faults);
  WRITE_ONCE(pt_pages_shared.peak, READ_ONCE(pt_pages_shared.now));   // the peaks from here
  WRITE_ONCE(pt_pages_percore.peak, READ_ONCE(pt_pages_percore.now));
  bench_lockstat_begin(SLOT, 1);
  bench_profile_start();
  bench_lockstat_start();
}

// The program's name is its variant: its last path component, as the PROFILE and LOCKSTAT
// grammar wants a word there. threads= is the CPU count: every CPU was sampled.
void
bench_program_end(const char *program)
{
  const char *base = program;
  char name[48], point[64];
  size_t n;

  bench_profile_stop();
  bench_lockstat_stop();
  bench_lockstat_end();
  bench_profile_run_end(SLOT);
  for(const char *p = program; *p; p++)
    if(*p == '/' && p[1])
      base = p + 1;
  for(n = 0; base[n] && n + 1 < sizeof(name); n++)
    name[n] = base[n] == ' ' || base[n] == '=' ? '_' : base[n];
  name[n] = '\0';
  scnprintf(point, sizeof(point), "variant=%s", name);
  bench_profile_point(SLOT, "init", point, num_online_cpus());
  bench_lockstat_print(SLOT, "init", point, num_online_cpus());
  bench_profile_point_end();
  if(kcmdline.profile_hz || kcmdline.lockstat)
    pr_info("init: %s: %lu TLB-shootdown IPIs sent while it ran; their senders waited %lu ms;"
            " %lu page faults, %lu of them under a VMA's lock; page-table pages at most %lu"
            " shared, %lu per-core\n",
            program, READ_ONCE(tlb_shootdown_ipis) - ipis0,
            (READ_ONCE(tlb_shootdown_wait_ns) - ipi_wait0) / 1000000,
            READ_ONCE(nr_page_faults) - faults0,
            READ_ONCE(nr_page_faults) - faults0 - (READ_ONCE(nr_mmap_sem_faults) - mmap_sem0),
            READ_ONCE(pt_pages_shared.peak), READ_ONCE(pt_pages_percore.peak));
}
