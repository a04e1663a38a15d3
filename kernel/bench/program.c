// init='s program measured whole: with profile= and lockstat=yes, the sampler and the lock
// statistics run from just before the program starts to its exit, and its PROFILE and
// LOCKSTAT lines follow (suite=init), as a benchmark point's do after its BENCH line.
#include "bench.h"
#include "lockstat.h"
#include "profile.h"
#include "smp.h"
#include "vsprintf.h"

// The column the whole run is summed in: the benchmarks are over when init= runs
// (kernel/main.c), so their slot 0 is free.
#define SLOT 0

void
bench_program_begin(void)
{
  bench_profile_point_begin(1);
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
  char point[64];

  bench_profile_stop();
  bench_lockstat_stop();
  bench_lockstat_end();
  bench_profile_run_end(SLOT);
  for(const char *p = program; *p; p++)
    if(*p == '/' && p[1])
      base = p + 1;
  scnprintf(point, sizeof(point), "variant=%s", base);
  for(char *p = point; *p; p++)
    if(*p == ' ' || (*p == '=' && p != point + 7))
      *p = '_';
  bench_profile_point(SLOT, "init", point, num_online_cpus());
  bench_lockstat_print(SLOT, "init", point, num_online_cpus());
  bench_profile_point_end();
}
