// tsc-hpet: the TSC's calibrated rate (arch/x86_64/tsc.c) against the HPET's main counter over
// a longer interval than calibration's, a reference calibration never used.
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "time.h"
#include <asm/hpet.h>
#include <asm/x86.h>

#define INTERVAL_MS 300
#define TOLERANCE_PPM 20000   // 2%: a calibration gone wrong was off by 170% and 300%
#define TRIES 5

struct pair {
  u64 tsc, hpet, width;
};

// The narrowest of 8 brackets, as calibration reads the PIT.
static struct pair
read_pair(void)
{
  struct pair best = { .width = ~0ULL };
  for(int i = 0; i < 8; i++) {
    u64 t0 = rdtsc(), h = hpet_clock_read(), t1 = rdtsc();
    if(t1 - t0 < best.width)
      best = (struct pair){ t0 + (t1 - t0) / 2, h, t1 - t0 };
  }
  return best;
}

static bool
tsc_hpet_test(void)
{
  u32 fs = hpet_clock_begin();
  if(!fs)
    return selftest_skip("no-hpet");
  u64 khz = 0, hpet_ns = 0, width = 0;
  int tries = 0;
  // An interval the vCPU was descheduled in a bracket of is measured again.
  do {
    struct pair a = read_pair();
    msleep(INTERVAL_MS);
    struct pair b = read_pair();
    hpet_ns = (b.hpet - a.hpet) * fs / 1000000;
    width = tsc_to_ns(a.width + b.width);
    khz = hpet_ns ? (b.tsc - a.tsc) * 1000000 / hpet_ns : 0;
  } while(++tries < TRIES && width > hpet_ns / 1000);
  hpet_clock_end();
  u64 err = khz > tsc_khz ? khz - tsc_khz : tsc_khz - khz;
  u64 ppm = tsc_khz ? err * 1000000 / tsc_khz : ~0UL;
  selftest_extra("tsc_khz=%lu hpet_khz=%lu err_ppm=%lu hpet_ms=%lu tries=%d", tsc_khz, khz,
                 ppm, hpet_ns / 1000000, tries);
  // Enough work: the HPET counted a good part of the interval (a counter that stood still,
  // or a TSC rate several times off, shows here too).
  return hpet_ns >= INTERVAL_MS / 2 * 1000000UL && ppm <= TOLERANCE_PPM;
}
SELFTEST("tsc-hpet", tsc_hpet_test);
