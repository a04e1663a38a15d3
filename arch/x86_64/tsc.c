// The TSC as the kernel's clock: calibrated against PIT channel 2, then read without locks.
// QEMU's qemu64 CPU has a constant-rate TSC tied to the host clock, as is the PIT.
#include "printk.h"
#include "time.h"
#include <asm/x86.h>

#define PIT_HZ        1193182   // the 8254's input clock (Intel 8254 data sheet)
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PORT_B        0x61      // bit 0: channel 2 gate, bit 1: speaker, bit 5: channel 2 output
#define CAL_MS        10
#define CAL_ROUNDS    5

u64 tsc_khz;
u64 tsc_boot;
static u64 ns_mult;   // ns = cycles * ns_mult >> 32

// One round: count TSC ticks while channel 2 counts down CAL_MS milliseconds in
// mode 0 (interrupt on terminal count), whose output rises at zero.
static u64
pit_round(void)
{
  u16 count = PIT_HZ * CAL_MS / 1000;
  outb(PORT_B, inb(PORT_B) & ~0x03);          // gate low, speaker off
  outb(PIT_CMD, 0xb0);                        // channel 2, lo/hi byte, mode 0, binary
  outb(PIT_CH2, count & 0xff);
  outb(PIT_CH2, count >> 8);
  outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01); // gate high: counting starts
  u64 t0 = rdtsc();
  for(u64 spins = 0; !(inb(PORT_B) & 0x20); spins++)
    if(spins > 100000000)
      return 0;                               // no PIT: caller falls back
  return rdtsc() - t0;
}

void
tsc_init(void)
{
  u64 r[CAL_ROUNDS];
  // A vCPU can be descheduled mid-round on a busy host: the median of five rounds
  // ignores a round stretched by that.
  for(int i = 0; i < CAL_ROUNDS; i++)
    r[i] = pit_round();
  for(int i = 1; i < CAL_ROUNDS; i++)
    for(int j = i; j > 0 && r[j - 1] > r[j]; j--) {
      u64 t = r[j];
      r[j] = r[j - 1];
      r[j - 1] = t;
    }
  u64 khz = r[CAL_ROUNDS / 2] / CAL_MS;
  if(khz == 0) {
    khz = 1000000;
    pr_err("tsc: PIT did not count; assuming 1 GHz\n");
  }
  ns_mult = ((u64)1000000 << 32) / khz;
  smp_store_release(&tsc_khz, khz);
  pr_info("tsc: %lu.%03lu MHz, calibrated against the PIT (median of %d rounds of %d ms)\n",
          khz / 1000, khz % 1000, CAL_ROUNDS, CAL_MS);
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
