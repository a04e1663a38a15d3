// The TSC as the kernel's clock: calibrated against PIT channel 2, then read without locks.
// QEMU's qemu64 CPU has a constant-rate TSC tied to the host clock, as is the PIT.
#include "printk.h"
#include "time.h"
#include <asm/x86.h>

#define PIT_HZ        1193182   // the 8254's input clock (Intel 8254 data sheet)
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PORT_B        0x61      // bit 0: channel 2 gate, bit 1: speaker
#define CAL_COUNTS    23864     // PIT counts between a round's two readings: 20 ms
#define CAL_ROUNDS    3
#define CAL_TRIES     8         // readings taken at each end of a round; the tightest is kept

u64 tsc_khz;
u64 tsc_boot;
static u64 ns_mult;   // ns = cycles * ns_mult >> 32

// Channel 2's count now, latched so the two bytes belong together (8254 data sheet: the
// Counter Latch Command, 0x80 for channel 2).
static u16
pit_count(void)
{
  outb(PIT_CMD, 0x80);
  u8 lo = inb(PIT_CH2);
  return lo | inb(PIT_CH2) << 8;
}

// One reading: the PIT's count, and the TSC just before and just after reading it. Of
// CAL_TRIES readings the one whose bracket is narrowest: on a busy host a vCPU can be
// descheduled between any two instructions, and a reading it was descheduled in has a wide
// bracket, so the narrowest is one it was not.
struct reading {
  u64 tsc;      // the bracket's middle
  u64 width;    // its width in TSC ticks
  u16 count;
};

static struct reading
pit_reading(void)
{
  struct reading best = { .width = ~0ULL };
  for(int i = 0; i < CAL_TRIES; i++) {
    u64 t0 = rdtsc();
    u16 c = pit_count();
    u64 t1 = rdtsc();
    if(t1 - t0 < best.width)
      best = (struct reading){ t0 + (t1 - t0) / 2, t1 - t0, c };
  }
  return best;
}

// One round: TSC ticks per PIT count between two readings ~20 ms apart, in kHz. Channel 2
// counts down from 0xffff in mode 0 (55 ms to zero). A deschedule between the readings
// stretches both clocks alike; only one inside a reading's bracket could bias the round,
// and the narrowest of CAL_TRIES brackets is a microsecond or so against 20 ms. (The old
// calibration spun until the count ran out and read the TSC then: a vCPU descheduled at
// either end stretched or shrank the round, 7-50% on a loaded 2-core host.)
static u64
pit_round(u64 *width)
{
  *width = 0;
  outb(PORT_B, inb(PORT_B) & ~0x03);          // gate low, speaker off
  outb(PIT_CMD, 0xb0);                        // channel 2, lo/hi byte, mode 0, binary
  outb(PIT_CH2, 0xff);
  outb(PIT_CH2, 0xff);
  outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01); // gate high: counting starts
  struct reading a = pit_reading(), b;
  u64 spins = 0;
  do {
    if(++spins > 100000000)
      return 0;                               // no PIT: caller falls back
    b = pit_reading();
  } while((u16)(a.count - b.count) < CAL_COUNTS);
  u16 counts = a.count - b.count;
  *width = a.width + b.width;
  return (b.tsc - a.tsc) * PIT_HZ / counts / 1000;
}

void
tsc_init(void)
{
  u64 r[CAL_ROUNDS], width, widest = 0;
  // Three rounds and their median: a round that went wrong all the same is outvoted.
  for(int i = 0; i < CAL_ROUNDS; i++) {
    r[i] = pit_round(&width);
    widest = MAX(widest, width);
  }
  for(int i = 1; i < CAL_ROUNDS; i++)
    for(int j = i; j > 0 && r[j - 1] > r[j]; j--) {
      u64 t = r[j];
      r[j] = r[j - 1];
      r[j - 1] = t;
    }
  u64 khz = r[CAL_ROUNDS / 2];
  if(khz == 0) {
    khz = 1000000;
    pr_err("tsc: PIT did not count; assuming 1 GHz\n");
  }
  ns_mult = ((u64)1000000 << 32) / khz;
  smp_store_release(&tsc_khz, khz);
  pr_info("tsc: %lu.%03lu MHz, calibrated against the PIT (median of %d rounds of 20 ms;"
          " readings within %lu ns)\n", khz / 1000, khz % 1000, CAL_ROUNDS,
          widest * 1000000 / khz);
}

u64
tsc_to_ns(u64 cycles)
{
  return (u64)(((unsigned __int128)cycles * ns_mult) >> 32);
}

u64
ns_to_tsc(u64 ns)
{
  return (u64)((unsigned __int128)ns * tsc_khz / 1000000);
}

u64
ktime_ns(void)
{
  if(!smp_load_acquire(&tsc_khz))
    return 0;
  return tsc_to_ns(rdtsc() - tsc_boot);
}

void
udelay(u64 us)
{
  u64 end = rdtsc() + ns_to_tsc(us * 1000);
  while(rdtsc() < end)
    cpu_relax();
}

void
mdelay(u64 ms)
{
  udelay(ms * 1000);
}
