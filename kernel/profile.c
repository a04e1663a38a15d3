// The sampling profiler: a periodic NMI (the HPET through the I/O APIC, arch/x86_64/hpet.c) on
// one CPU, fanned out by NMI IPIs to every busy CPU; each records its stack in its own table.
#include "cmdline.h"
#include "cpumask.h"
#include "errno.h"
#include "ksyms.h"
#include "mm.h"
#include "percpu.h"
#include "printk.h"
#include "process.h"
#include "profile.h"
#include "sched.h"
#include "slab.h"
#include "smp.h"
#include "tick.h"
#include "time.h"
#include "vsprintf.h"
#include <asm/cpu.h>
#include <asm/nmi_timer.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/stacktrace.h>
#include <asm/traps.h>

// Why NMIs, and why this way, on QEMU 7.2's TCG:
// - Linux samples with the PMU's overflow NMI; TCG emulates no performance counters.
// - The local APIC timer drives the tick and is an ordinary interrupt: held off by cli, so
//   every spin_lock_irqsave section would be invisible. Its LVT has no delivery-mode field
//   (SDM vol. 3A, 11.5.1: only LINT0, LINT1, the PMU and CMCI entries can say NMI).
// - The HPET's timer 0 through an I/O APIC entry with delivery mode NMI (82093AA data sheet,
//   3.2.4) gets through cli (SDM vol. 3A, 6.7.1). Broadcast to every CPU it would wake each
//   halted vCPU 997 times a second, which the tickless idle exists to avoid (doc/qemu.md): so
//   it goes to one CPU, the sampler, which sends NMI IPIs only to the busy CPUs and counts an
//   "idle" sample itself for each idle one.
#define SAMPLER_CPU 0

u32 profile_hz;
bool profile_planted_skip_irqoff;
static bool sampling;   // between profile_start and profile_stop
static u64 started_ns;  // ktime_ns of the last profile_start
static u64 stopped_ns;  // ktime_ns of the last profile_stop

// A CPU's samples since the last collect. The table has one writer, this CPU's NMI handler;
// profile_collect reads it once busy is clear and sampling off (see record()).
struct prof_cpu {
  struct prof_table t;
  u64 pending;     // periods the sampler asked this CPU to sample, not yet taken
  int asked;       // an NMI IPI is on its way for them (see fan_out)
  int busy;        // in record(): profile_collect waits
  u64 cost_ns;     // time in record()
  // The idle clock (include/tick.h) over the sampling intervals, written by profile_start and
  // profile_stop, read by profile_collect (no two of which run at once).
  u64 idle_at;     // the CPU's idle_time_ns at the last profile_start
  u64 idle_ns;     // halted, in the intervals since the last collect
  u64 window_ns;   // the intervals' length
};
static DEFINE_PER_CPU(struct prof_cpu, prof_cpu);

// What the CPU was doing: a user program's own code is one frame, user (init='s program is
// profiled whole: kernel/bench/program.c).
static int
sample_kind(struct trapframe *tf)
{
  if(this_cpu_info()->idle)
    return PROF_IDLE;
  if(user_mode(tf))
    return PROF_USER;
  return PROF_KERNEL;
}

// The stack, each frame as its function's start address: a table of functions, not of
// instructions, stays small. A return address is looked up one byte back, inside the call:
// a call to a function that never returns may be the last instruction of its caller. An
// interrupted rip (the first, and the one after each trap_return: asm/stacktrace.h) is where
// the code stood, possibly a function's first byte, and is looked up as it is.
static void
take_stack(struct trapframe *tf, struct prof_stack *s)
{
  u64 raw[PROF_DEPTH], off;
  bool more;

  s->kind = sample_kind(tf);
  s->depth = s->cut = 0;
  if(s->kind != PROF_KERNEL)
    return;
  s->depth = stack_walk_tf(tf, raw, PROF_DEPTH, &more);
  s->cut = more;
  for(int i = 0; i < s->depth; i++) {
    u64 a = raw[i] - (i > 0 && raw[i - 1] != (u64)trap_return);
    s->pc[i] = ksym_lookup(a, &off) ? a - off : raw[i];
  }
}

// busy is set before sampling is read, and profile_collect clears sampling before it reads
// busy, each with a full barrier between (pairs with profile_collect's): either this CPU sees
// sampling off and records nothing, or profile_collect sees busy and waits for it.
static void
record(struct prof_cpu *pc, struct trapframe *tf, u32 n, u32 idle, u32 idle_cpus)
{
  struct prof_stack s;
  u64 t0 = ktime_ns();

  WRITE_ONCE(pc->busy, 1);
  smp_mb();
  if(READ_ONCE(sampling) && !(profile_planted_skip_irqoff && !(tf->rflags & 0x200))) {
    take_stack(tf, &s);
    if(n)
      prof_table_add(&pc->t, &s, n);
    if(idle) {
      s.kind = PROF_IDLE;
      s.depth = s.cut = 0;
      prof_table_add_hits(&pc->t, &s, idle, idle_cpus);
    }
  }
  pc->cost_ns += ktime_ns() - t0;
  smp_store_release(&pc->busy, 0);
}

// The sampler's share of an HPET NMI that stands for n periods: every other busy CPU is asked
// for n samples; an idle one costs nothing and counts n idle samples here (returns how many
// CPUs were idle). A vCPU the host is
// not running takes its NMI late, with the weight of every period it stood where it is. An NMI
// IPI goes only to a CPU whose asked flag this sets from 0 to 1, and only that CPU's handler
// clears it, so each IPI's NMI finds the flag set when it is handled: the flag is either still
// its own, or, if a handler still running cleared it after the set, then the NMI was latched
// behind that handler and its requests were taken there; claiming it is then right too.
static u32
fan_out(u32 n)
{
  int me = smp_processor_id(), cpu;
  u32 idle = 0;

  if(!READ_ONCE(sampling))
    return 0;
  for_each_online_cpu(cpu) {
    if(cpu == me)
      continue;
    if(READ_ONCE(per_cpu_ptr(&cpu_info, cpu)->idle)) {
      idle++;
      continue;
    }
    struct prof_cpu *o = per_cpu_ptr(&prof_cpu, cpu);
    __atomic_add_fetch(&o->pending, n, __ATOMIC_RELAXED);
    // Pairs with profile_nmi's exchange: the pending periods are there when it sees the flag.
    if(!__atomic_exchange_n(&o->asked, 1, __ATOMIC_RELEASE))
      arch_send_nmi_from_nmi(cpu);
  }
  return idle;
}

// The sampler's NMI stands for as many periods of the timer as have passed, more than one when
// its vCPU was not running. One that finds no new period may still be the timer's, a second
// NMI of one period (arch_nmi_timer_fired), delivered late if the host deschedules the vCPU:
// Linux's arch/x86/kernel/nmi.c swallows such an NMI only when it hits the same rip back to
// back, which TCG does not promise. So on the sampler, every NMI is the profiler's while it
// samples and for a second after; a host NMI then reaches the other CPUs only.
#define LEFTOVER_NS 1000000000UL

bool
profile_nmi(struct trapframe *tf)
{
  struct prof_cpu *pc;
  u32 ticks = 0, n = 0, idle = 0;
  bool sampler;
  int asked;

  if(!READ_ONCE(profile_hz))
    return false;
  pc = this_cpu_ptr(&prof_cpu);
  sampler = smp_processor_id() == SAMPLER_CPU;
  if(sampler && (ticks = arch_nmi_timer_fired()))
    idle = fan_out(ticks);
  asked = __atomic_exchange_n(&pc->asked, 0, __ATOMIC_ACQUIRE);
  if(asked)
    n = __atomic_exchange_n(&pc->pending, 0, __ATOMIC_RELAXED);
  if(!ticks && !asked)
    return sampler && (READ_ONCE(sampling) || ktime_ns() - READ_ONCE(stopped_ns) < LEFTOVER_NS);
  if(ticks + n || idle)
    record(pc, tf, ticks + n, idle * ticks, idle);
  return true;
}

// Why the idle share is also read off the clock: the sampler counts a CPU idle by looking at
// its flag when the sampler's own vCPU runs, and on a host with fewer cores than vCPUs that
// vCPU is likelier to get a core just when another vCPU halts and frees one: the samples may
// catch CPUs halted more often than they are (doc/profiling.md compares the
// two). The clock has no such bias: every CPU's halted time, from each CPU's own stamps.
void
profile_start(void)
{
  u64 now;
  int cpu;

  if(!profile_hz)
    return;
  now = ktime_ns();
  for_each_online_cpu(cpu)
    per_cpu_ptr(&prof_cpu, cpu)->idle_at = idle_time_ns(cpu, now);
  started_ns = now;
  smp_store_release(&sampling, true);
  arch_nmi_timer_start();
}

void
profile_stop(void)
{
  u64 now;
  int cpu;

  if(!profile_hz)
    return;
  arch_nmi_timer_stop();
  now = ktime_ns();
  WRITE_ONCE(stopped_ns, now);
  if(READ_ONCE(sampling)) {
    for_each_online_cpu(cpu) {
      struct prof_cpu *pc = per_cpu_ptr(&prof_cpu, cpu);
      pc->idle_ns += idle_time_ns(cpu, now) - pc->idle_at;
      pc->window_ns += now - started_ns;
    }
  }
  WRITE_ONCE(sampling, false);
}

// An NMI handler that started before the stop finishes within microseconds of its vCPU
// running again; a second is far beyond that, and then the tables are read anyway.
void
profile_collect(struct prof_table *into)
{
  u64 until = ktime_ns() + 1000000000UL;
  int cpu;

  if(!profile_hz)
    return;
  WRITE_ONCE(sampling, false);
  smp_mb();   // pairs with record()'s
  for_each_online_cpu(cpu) {
    struct prof_cpu *pc = per_cpu_ptr(&prof_cpu, cpu);
    while(smp_load_acquire(&pc->busy) && ktime_ns() < until)
      cpu_relax();
    if(into) {
      prof_table_merge(into, &pc->t);
      into->cost_ns += pc->cost_ns;
      into->idle_ns += pc->idle_ns;
      into->cpu_ns += pc->window_ns;
    }
    prof_table_reset(&pc->t);
    pc->cost_ns = pc->idle_ns = pc->window_ns = 0;
  }
}

struct prof_table *
profile_table_alloc(u32 size)
{
  struct prof_table *t = kzalloc(sizeof(*t), GFP_KERNEL);
  struct prof_stack *slots = kmalloc((size_t)size * sizeof(*slots), GFP_KERNEL);

  if(!t || !slots) {
    kfree(t);
    kfree(slots);
    return NULL;
  }
  prof_table_init(t, slots, size);
  return t;
}

void
profile_table_free(struct prof_table *t)
{
  if(t) {
    kfree(t->slot);
    kfree(t);
  }
}

const char *
profile_sym(u64 addr, void *arg)
{
  u64 off;
  const char *name;

  if(addr < PROF_NKINDS)
    return prof_kind_name[addr];
  name = ksym_lookup(addr, &off);
  return name ? name : "?";
}

// Per mille of a part of a whole, as "12.3%".
static void
fmt_share(char *buf, size_t size, u64 part, u64 whole)
{
  u64 pm = whole ? (part * 1000 + whole / 2) / whole : 0;
  scnprintf(buf, size, "%lu.%lu%%", pm / 10, pm % 10);
}

void
profile_print_top(const struct prof_table *t, const char *what, int n)
{
  struct prof_func f[64];
  char self[16], total[16];
  u32 nf, i;
  u64 idle = 0;

  for(i = 0; i < t->size; i++)
    if(t->slot[i].count && t->slot[i].kind == PROF_IDLE)
      idle += t->slot[i].count;
  fmt_share(self, sizeof(self), idle, t->samples);
  if(t->cpu_ns) {
    fmt_share(total, sizeof(total), t->idle_ns, t->cpu_ns);
    pr_info("profile: %s: %lu samples, %s idle by the clock (%s by samples), %u stacks, %lu "
            "dropped (table full), %lu ns of NMI handler a sample\n", what, t->samples, total,
            self, t->used, t->dropped, t->samples ? t->cost_ns / t->samples : 0);
  } else {
    pr_info("profile: %s: %lu samples, %s idle, %u stacks, %lu dropped (table full), %lu ns of "
            "NMI handler a sample\n", what, t->samples, self, t->used, t->dropped,
            t->samples ? t->cost_ns / t->samples : 0);
  }
  for(int by_total = 0; by_total < 2; by_total++) {
    nf = prof_funcs(t, f, ARRAY_SIZE(f), by_total);
    pr_info("profile: %s: top by %s:   self   total  function\n", what,
            by_total ? "total" : "self ");
    for(i = 0; i < nf && i < (u32)n; i++) {
      fmt_share(self, sizeof(self), f[i].self, t->samples);
      fmt_share(total, sizeof(total), f[i].total, t->samples);
      pr_info("profile: %s:   %7s %7s  %s\n", what, self, total, profile_sym(f[i].addr, NULL));
    }
  }
}

// Once a boot: the tables of the CPUs online now (all of them, by the time it runs), then the
// NMI source. A table that could not be allocated (fault injection) is tried again at the next
// call; the ones already allocated are kept.
int
profile_setup(u32 hz)
{
  static int done;   // 1: set up; -ENODEV: no NMI source, for good
  int cpu;

  if(done)
    return done > 0 ? 0 : done;
  for_each_online_cpu(cpu) {
    struct prof_cpu *pc = per_cpu_ptr(&prof_cpu, cpu);
    if(pc->t.slot)
      continue;
    struct prof_stack *slots = kmalloc(PROFILE_CPU_STACKS * sizeof(*slots), GFP_KERNEL);
    if(!slots) {
      pr_err("profile: no memory for CPU %d's samples: profiling off\n", cpu);
      return -ENOMEM;
    }
    prof_table_init(&pc->t, slots, PROFILE_CPU_STACKS);
    // Kept for the boot (every later profile samples into it): the leak check counts it as
    // free. A kmalloc this large is whole pages (mm/slab.c).
    account_permanent_pages(1UL << get_order(PROFILE_CPU_STACKS * sizeof(*slots)));
  }
  if(!arch_nmi_timer_init(hz, SAMPLER_CPU))
    return done = -ENODEV;
  done = 1;
  smp_store_release(&profile_hz, hz);
  return 0;
}

// The cost of sampling, measured once at boot on this CPU (the sampler, CPU 0) with the others
// idle: a fixed loop timed with sampling off and on in turn, off on on off ... (a drift of the
// host falls on both alike), many short rounds, compared by their medians: on a loaded host
// one vCPU of several is descheduled at random, for milliseconds, and a few such rounds would
// decide a comparison of sums. The loop's length is found the same way, by the fastest of
// three timings, so that one descheduling cannot make a short loop look long.
#define COST_ROUNDS 40
#define COST_LOOP_NS 20000000UL   // each round

static u64 __attribute__((noinline))
cost_spin(u64 iters)
{
  u64 x = 88172645463325252ULL;

  for(u64 i = 0; i < iters; i++) {
    x ^= x << 13;   // xorshift: a chain the compiler cannot fold
    x ^= x >> 7;
    x ^= x << 17;
    barrier();
  }
  return x;
}

static u64
fastest_of_3(u64 iters)
{
  u64 best = ~0UL;

  for(int i = 0; i < 3; i++) {
    u64 t0 = ktime_ns();
    cost_spin(iters);
    best = MIN(best, ktime_ns() - t0);
  }
  return best;
}

static u64
median(u64 *v, int n)
{
  for(int i = 1; i < n; i++)
    for(int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      u64 x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return (v[(n - 1) / 2] + v[n / 2]) / 2;
}

static void
measure_cost(void)
{
  struct prof_table *t = profile_table_alloc(PROFILE_CPU_STACKS);
  u64 iters = 1024, t0, ns, handler, on_ns[COST_ROUNDS / 2], off_ns[COST_ROUNDS / 2], on, off;
  int non = 0, noff = 0;
  char share[16], hshare[16];

  if(!t) {
    pr_err("profile: no memory to measure the cost of sampling\n");
    return;
  }
  do   // the loop's length
    iters *= 2;
  while(fastest_of_3(iters) < COST_LOOP_NS / 2);
  for(int r = 0; r < COST_ROUNDS; r++) {
    bool sample = (r % 4 == 1 || r % 4 == 2);
    if(sample)
      profile_start();
    t0 = ktime_ns();
    cost_spin(iters);
    ns = ktime_ns() - t0;
    if(sample)
      profile_stop();
    profile_collect(sample ? t : NULL);
    if(sample)
      on_ns[non++] = ns;
    else
      off_ns[noff++] = ns;
  }
  on = median(on_ns, non);
  off = median(off_ns, noff);
  handler = t->samples ? t->cost_ns / t->samples : 0;
  fmt_share(share, sizeof(share), on > off ? on - off : off - on, off);
  fmt_share(hshare, sizeof(hshare), handler * profile_hz, 1000000000UL);
  pr_info("profile: cost at %u Hz: a busy loop took %s %s with sampling on (median of %d rounds "
          "each way: %lu us against %lu us off, CPU 0); %lu samples, %lu ns of NMI handler "
          "each: %s of a busy CPU\n", profile_hz, share, on >= off ? "longer" : "less",
          COST_ROUNDS / 2, on / 1000, off / 1000, t->samples, handler, hshare);
  profile_table_free(t);
}

void
profile_init(void)
{
  if(!kcmdline.profile_hz || profile_setup(kcmdline.profile_hz) < 0)
    return;
  measure_cost();
}
