// The TSC as the kernel's clock: its rate from CPUID where reported, else calibrated against
// PIT channel 2; then read without locks. QEMU's TSC is tied to the host clock, as is the PIT.
#include "printk.h"
#include "time.h"
#include <asm/x86.h>

#define PIT_HZ        1193182   // the 8254's input clock (Intel 8254 data sheet)
#define PIT_CH2       0x42
#define PIT_CMD       0x43
#define PORT_B        0x61      // bit 0: channel 2 gate, bit 1: speaker
#define PORT_B_OUT2   0x20      // bit 5: channel 2's OUT
#define CAL_COUNTS    11932     // PIT counts between a trial's two readings: 10 ms
#define CAL_GOOD      5         // trials wanted ...
#define CAL_TRIALS    15        // ... out of at most this many
#define CAL_TRIES     8         // readings taken at each end of a trial; the tightest is kept

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

// One trial: TSC ticks per PIT count between two readings ~10 ms apart, in kHz (0: no PIT);
// *ok false if the trial must be thrown away. Channel 2 counts down from 0xffff in mode 0 and
// wraps every 55 ms, so a vCPU descheduled for that long (a 2-core host running 8 busy vCPUs
// deschedules one for 10-20 ms at a time) sees the count past its target modulo 65536, and
// the trial reads 2.7 or 4 times the true rate (5630 and 8392 MHz for 2096 were seen). In
// mode 0 the channel's OUT goes high at the terminal count and stays high (8254 data sheet,
// "Mode 0"; port 0x61 bit 5 reads it, as Linux's pit_calibrate_tsc does): a trial that ends
// with OUT high may have wrapped, and is rejected. So is one whose end readings' brackets
// are 0.5% of it (the vCPU was descheduled inside one: the error is up to half their sum).
// A deschedule between polls is harmless otherwise: both clocks ran on.
static u64
pit_trial(u64 *width, bool *ok)
{
  *width = 0;
  *ok = false;
  outb(PORT_B, inb(PORT_B) & ~0x03);          // gate low, speaker off
  outb(PIT_CMD, 0xb0);                        // channel 2, lo/hi byte, mode 0, binary
  outb(PIT_CH2, 0xff);
  outb(PIT_CH2, 0xff);
  outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01); // gate high: counting starts
  struct reading a = pit_reading(), b;
  u64 spins = 0;
  do {
    if(++spins > 10000000)
      return 0;                               // no PIT: caller falls back
    b = pit_reading();
  } while((u16)(a.count - b.count) < CAL_COUNTS);
  bool wrapped = inb(PORT_B) & PORT_B_OUT2;
  u16 counts = a.count - b.count;
  u64 total = b.tsc - a.tsc;
  *width = a.width + b.width;
  *ok = !wrapped && *width <= total / 200;
  return total * PIT_HZ / counts / 1000;
}

static void
sort(u64 *v, int n)
{
  for(int i = 1; i < n; i++)
    for(int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      u64 t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

// Up to CAL_TRIALS trials until CAL_GOOD pass; the median of those that passed, and their
// spread (max - min) in parts per million of it. If none passed, the lowest of them all: a
// wrap only ever reads high. 0 when the PIT does not count.
static u64
pit_calibrate(int *good, int *tried, u64 *spread_ppm, u64 *widest)
{
  u64 r[CAL_TRIALS], all[CAL_TRIALS], width;
  bool ok;
  *good = *tried = 0;
  *widest = 0;
  while(*good < CAL_GOOD && *tried < CAL_TRIALS) {
    u64 khz = pit_trial(&width, &ok);
    if(!khz)
      return 0;
    all[(*tried)++] = khz;
    if(ok) {
      r[(*good)++] = khz;
      *widest = MAX(*widest, width);
    }
  }
  u64 *v = *good ? r : all;
  int n = *good ? *good : *tried;
  sort(v, n);
  u64 pick = *good ? v[n / 2] : v[0];
  *spread_ppm = (v[n - 1] - v[0]) * 1000000 / pick;
  return pick;
}

// What the CPU or hypervisor says the TSC's rate is, in kHz, or 0. Leaf 0x40000010 is the
// hypervisor timing leaf (VMware's, which KVM and QEMU offer with vmware-cpuid-freq): EAX the
// TSC in kHz. Leaf 0x15 (SDM vol. 2A, CPUID): TSC = crystal (ECX Hz) * EBX / EAX; when ECX
// is 0 the crystal follows from leaf 0x16's base frequency, as Linux's native_calibrate_tsc
// does.
static u64
cpuid_tsc_khz(const char **source)
{
  u32 a, b, c, d, max;
  cpuid(1, 0, &a, &b, &c, &d);
  if(c >> 31) {   // a hypervisor is present
    cpuid(0x40000000, 0, &max, &b, &c, &d);
    if(max >= 0x40000010 && max < 0x40010000) {
      cpuid(0x40000010, 0, &a, &b, &c, &d);
      if(a) {
        *source = "CPUID 0x40000010 (hypervisor)";
        return a;
      }
    }
  }
  cpuid(0, 0, &max, &b, &c, &d);
  if(max < 0x15)
    return 0;
  u32 den, num, crystal;
  cpuid(0x15, 0, &den, &num, &crystal, &d);
  if(!den || !num)
    return 0;
  if(!crystal && max >= 0x16) {
    cpuid(0x16, 0, &a, &b, &c, &d);
    crystal = (u32)((u64)(a & 0xffff) * 1000000 * den / num);
  }
  if(!crystal)
    return 0;
  *source = "CPUID 0x15 (crystal ratio)";
  return (u64)crystal * num / den / 1000;
}

// A rate the CPU reports is used as Linux uses it, unless the PIT disagrees by more than 10%
// (a wrong table in an emulator's CPUID should not put every clock off).
void
tsc_init(void)
{
  int good = 0, tried = 0;
  u64 spread = 0, widest = 0;
  u64 pit = pit_calibrate(&good, &tried, &spread, &widest);
  const char *source = NULL;
  u64 reported = cpuid_tsc_khz(&source);
  u64 khz = pit;
  if(reported && (!pit || (reported > pit * 9 / 10 && reported < pit * 11 / 10)))
    khz = reported;
  if(khz == 0) {
    khz = 1000000;
    pr_err("tsc: PIT did not count; assuming 1 GHz\n");
  }
  ns_mult = ((u64)1000000 << 32) / khz;
  smp_store_release(&tsc_khz, khz);
  if(reported && khz == reported)
    pr_info("tsc: %lu.%03lu MHz from %s; the PIT says %lu.%03lu MHz\n", khz / 1000,
            khz % 1000, source, pit / 1000, pit % 1000);
  else if(pit)
    pr_info("tsc: %lu.%03lu MHz, calibrated against the PIT (median of %d of %d trials of 10 ms,"
            " spread %lu ppm; readings within %lu ns)%s%s\n", khz / 1000, khz % 1000, good,
            tried, spread, widest * 1000000 / khz, reported ? "; disagrees with " : "",
            reported ? source : "");
  if(pit && good < CAL_GOOD)
    pr_warn("tsc: only %d of %d PIT trials were undisturbed (the host is very busy)%s\n", good,
            tried, good ? "" : ": the lowest of the disturbed ones is used");
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
