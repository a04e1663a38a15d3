// The sampling profiler (kernel/profile.c) against a known hot spot: one thread spends fixed
// shares of its time in a spinning function and in one with interrupts disabled.
#include "printk.h"
#include "profile.h"
#include "sched.h"
#include "errno.h"
#include "selftest.h"
#include "slab.h"
#include "smp.h"
#include "time.h"
#include "vsprintf.h"
#include <asm/irqflags.h>

#define HZ_TEST 997
#define WINDOW_NS 2000000000UL
// One cycle of the thread: spin, then interrupts off, then the rest; the shares it expects.
// Each cycle is stretched by a pseudo-random 0-50% (all three phases alike, so the shares
// stay): a fixed cycle of 1 ms plus the loops' overshoot came to about the sampler's period
// (1/997 s) under TCG, and the samples locked onto one phase for whole windows (2026-12-06:
// spin 0.5% and irq-off 99.1% against the clock's 60/30, in 3 windows of 3, on a quiet host).
#define SPIN_US 600
#define IRQOFF_US 300
#define REST_US 100
// Tolerance of each share, in percentage points, against the thread's own clock of the same
// three functions (see hot_thread), not against the cycle's nominal 60/30/10: the host
// stretches whichever phase it deschedules the vCPU in, so the clock shares themselves ranged
// over 46-75% and 18-36% in the runs below. Measured (9 debug boots, 3 each at 1, 2 and 8
// vCPUs, the host at load 10-15 with other boots): |profile - clock| at most 6.8 points, 2.5
// on average. At load 20 and more (beside other 8-vCPU boots) the profile drifts further, the
// spinning function high and the others low: 9.3 points (spin 55.8% against 46.5%, 8 vCPUs)
// and 10.7 (77.0% against 66.3%, irq-off 17.5% against 24.6%, 2 vCPUs) in four such boots. When
// the sampler's own vCPU waits for a host core too, the periods it missed go to wherever the
// thread is when it runs again (doc/notebook/2026-12-02-profile-hotspot.md). A clean-clone make test on an otherwise
// idle host then read irq-off 50.4% against 30.0% at 2 vCPUs (spin 47.1% against 59.8%): 20
// points; another at 8 vCPUs irq-off 10.8% against 30.0% (spin 83.3% against 59.8%). The
// tolerance is 25; what catches a profiler blind to irq-off regions (planted-profile-irqoff,
// reading 0.0-0.3%) is not the tolerance but a floor: the profile must see at least a quarter
// of the irq-off share the clock saw (half failed that run), and the clock's must be at least
// MIN_IRQOFF_PCT (it read 18.5% at the least), so the floor is never near 0.
#define TOL_PCT 25
#define MIN_IRQOFF_PCT 17
#define MIN_SAMPLES 600

static volatile u64 hot_sink;

// Work between two looks at the clock, so that the samples land here and not in ktime_ns.
static u64
churn(u64 x)
{
  for(int i = 0; i < 1024; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    barrier();
  }
  return x;
}

static void __attribute__((noinline))
hot_spin(u64 until)
{
  u64 x = 1;
  do
    x = churn(x);
  while(ktime_ns() < until);
  hot_sink = x;
}

// The same loop with interrupts disabled: only an NMI can sample it.
static void __attribute__((noinline))
hot_irqoff(u64 until)
{
  u64 flags = local_irq_save(), x = 2;
  do
    x = churn(x);
  while(ktime_ns() < until);
  local_irq_restore(flags);
  hot_sink = x;
}

static void __attribute__((noinline))
hot_rest(u64 until)
{
  u64 x = 3;
  do
    x = churn(x);
  while(ktime_ns() < until);
  hot_sink = x;
}

// The thread's own clock of each function's time, the standard the profile is held to: a
// vCPU the host deschedules inside one of them stretches that one's time, in the clock and
// in the samples alike (a late sample stands where the vCPU stood).
static u64 clock_spin, clock_irqoff, clock_rest;

static int
hot_thread(void *arg)
{
  u64 end = ktime_ns() + WINDOW_NS, a, b, c, d, rng = 88172645463325252ULL;

  clock_spin = clock_irqoff = clock_rest = 0;
  while((a = ktime_ns()) < end) {
    rng ^= rng << 13;   // xorshift64 (Marsaglia, 2003)
    rng ^= rng >> 7;
    rng ^= rng << 17;
    u64 ns_per_us = 1000 + rng % 500;   // the cycle's stretch, 0-50%
    hot_spin(a + SPIN_US * ns_per_us);
    b = ktime_ns();
    hot_irqoff(b + IRQOFF_US * ns_per_us);
    c = ktime_ns();
    hot_rest(c + REST_US * ns_per_us);
    d = ktime_ns();
    clock_spin += b - a;
    clock_irqoff += c - b;
    clock_rest += d - c;
    cond_resched();
  }
  return 0;
}

static u64
share_pct10(u64 part, u64 whole)
{
  return whole ? part * 1000 / whole : 0;
}

static bool
within(u64 got_pm, u64 want_pm)
{
  return got_pm + TOL_PCT * 10 >= want_pm && got_pm <= want_pm + TOL_PCT * 10;
}

// The profile of one window with the thread on the last CPU (not the sampler, CPU 0, when there
// are two or more: the NMI IPI path; with one CPU, the HPET's NMI itself).
static bool
hotspot_run(const char *name, bool last)
{
  struct prof_func f[64];
  struct prof_table *t;
  struct thread *th;
  u64 spin = 0, irqoff = 0, rest = 0, all, top[2] = { 0, 0 };
  u64 cspin, cirqoff, call;
  char shares[160];
  u32 n, k = 0;
  int err;
  bool ok;

  if((err = profile_setup(HZ_TEST)) == -ENOMEM)
    return selftest_skip("enomem");
  if(err < 0) {
    selftest_extra("setup=%d", err);
    return false;
  }
  if(!(t = profile_table_alloc(PROFILE_CPU_STACKS * 4)))
    return selftest_skip("enomem");
  profile_collect(NULL);
  profile_start();
  th = kthread_create(hot_thread, NULL, num_online_cpus() - 1, "hotspot");
  if(th)
    kthread_join(th);
  profile_stop();
  if(!th) {   // kthread_create fails under failslab=
    profile_table_free(t);
    return selftest_skip("enomem");
  }
  profile_collect(t);
  profile_print_top(t, name, 5);
  n = prof_funcs(t, f, ARRAY_SIZE(f), false);
  for(u32 i = 0; i < n; i++) {
    if(f[i].addr == (u64)hot_spin)
      spin = f[i].total;
    if(f[i].addr == (u64)hot_irqoff)
      irqoff = f[i].total;
    if(f[i].addr == (u64)hot_rest)
      rest = f[i].total;
    // The top two kernel functions by self, the loops' own clock read left out: its share is
    // what a ktime_ns costs the emulator (at 1 vCPU it once took 38% of the samples and
    // outranked hot_irqoff, every share within its tolerance), not how the profiler sees.
    if(f[i].addr >= PROF_NKINDS && f[i].addr != (u64)ktime_ns && k < 2)
      top[k++] = f[i].addr;
  }
  // Shares of the three functions' time, by samples and by the thread's clock.
  all = spin + irqoff + rest;
  call = clock_spin + clock_irqoff + clock_rest;
  spin = share_pct10(spin, all);
  irqoff = share_pct10(irqoff, all);
  cspin = share_pct10(clock_spin, call);
  cirqoff = share_pct10(clock_irqoff, call);

  // The clock's irq-off share must be well above the tolerance, or a profiler blind to it
  // (planted-profile-irqoff) could pass.
  // The two hot functions are the profile's top two; their order is left to the shares'
  // tolerance (the run above had irq-off first, 50.4% against spin's 47.1%).
  bool tops = (top[0] == (u64)hot_spin && top[1] == (u64)hot_irqoff) ||
              (top[0] == (u64)hot_irqoff && top[1] == (u64)hot_spin);
  ok = th && all >= MIN_SAMPLES && cirqoff >= MIN_IRQOFF_PCT * 10 && tops &&
       within(spin, cspin) && within(irqoff, cirqoff) &&
       irqoff * 4 >= cirqoff;   // the floor: irq-off regions seen at a quarter of the clock's
  scnprintf(shares, sizeof(shares), "spin=%lu.%lu%%/%lu.%lu%% irqoff=%lu.%lu%%/%lu.%lu%% "
            "(profile/clock) tol=%d top=%s,%s", spin / 10, spin % 10, cspin / 10, cspin % 10,
            irqoff / 10, irqoff % 10, cirqoff / 10, cirqoff % 10, TOL_PCT,
            top[0] ? profile_sym(top[0], NULL) : "-", top[1] ? profile_sym(top[1], NULL) : "-");
  if(ok || last)
    selftest_extra("samples=%lu thread=%lu %s", t->samples, all, shares);
  else
    pr_info("%s: a window off: %s; once more\n", name, shares);
  profile_table_free(t);
  return ok;
}

// Up to three windows, the first within tolerance passing. Under TCG a window now and then
// lands far off when the host deschedules the sampler's vCPU (the comment on TOL_PCT): in
// 2026-12-05's boots 3 of 9 windows at 8 vCPUs, spin 33.1% or 88.8% against 59.9%, or
// hot_rest second. A profiler blind to irq-off regions (planted-profile-irqoff) misses in
// every window, so it still fails all three.
#define HOTSPOT_TRIES 3

static bool
hotspot_windows(const char *name)
{
  for(int i = 1; i <= HOTSPOT_TRIES; i++) {
    if(hotspot_run(name, i == HOTSPOT_TRIES)) {
      selftest_extra("windows=%d", i);
      return true;
    }
  }
  return false;
}

static bool
profile_hotspot(void)
{
  return hotspot_windows("profile-hotspot");
}
SELFTEST("profile-hotspot", profile_hotspot);

// Planted: samples taken with interrupts disabled are dropped, which is all that a profiler
// driven by an ordinary interrupt could ever see; the irq-off function's share must miss.
static bool
planted_profile_irqoff(void)
{
  profile_planted_skip_irqoff = true;
  bool ok = hotspot_windows("planted-profile-irqoff");
  profile_planted_skip_irqoff = false;
  return ok;
}
SELFTEST("planted-profile-irqoff", planted_profile_irqoff);
