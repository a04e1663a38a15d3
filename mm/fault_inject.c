// Fault injection: fail a set fraction of page and slab allocations, chosen by a per-CPU
// pseudo-random generator, and count the failures (failslab= and failpage= set the rates).
#include "cmdline.h"
#include "fault_inject.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include <asm/cpu.h>
#include <asm/irqflags.h>

static unsigned rate[NR_FAULT_KINDS];   // per-mille

// Indexed by CPU id (not in .percpu, whose AP copies are taken from the boot CPU's live
// area): each CPU draws its own sequence, and a cache line of its own.
struct fault_cpu {
  u64 state;                     // xorshift64* state; 0 until first used
  u64 injected[NR_FAULT_KINDS];
} __aligned(64);

static struct fault_cpu cpus[NR_CPUS];

// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators,
// scrambled", 2016): three shifts and a multiply, good enough to pick failures.
static u64
next_random(struct fault_cpu *fc)
{
  if(fc->state == 0)   // a different fixed seed per CPU: a run can be repeated
    fc->state = 0x9e3779b97f4a7c15ULL * (u64)(smp_processor_id() + 1);
  u64 x = fc->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  fc->state = x;
  return x * 0x2545f4914f6cdd1dULL;
}

static bool
should_fail(enum fault_kind kind)
{
  unsigned permille = READ_ONCE(rate[kind]);
  if(permille == 0)
    return false;
  u64 irq = local_irq_save();   // an interrupt handler on this CPU draws from the same state
  struct fault_cpu *fc = &cpus[smp_processor_id()];
  bool fail = (next_random(fc) >> 32) % 1000 < permille;
  if(fail) {
    fc->injected[kind]++;
    current->faults_injected++;   // in an interrupt handler: the thread it interrupted
  }
  local_irq_restore(irq);
  return fail;
}

bool
should_fail_page(void)
{
  return should_fail(FAULT_PAGE);
}

bool
should_fail_slab(void)
{
  return should_fail(FAULT_SLAB);
}

void
fault_inject_set(enum fault_kind kind, unsigned permille)
{
  WRITE_ONCE(rate[kind], permille > 1000 ? 1000 : permille);
}

unsigned
fault_inject_get(enum fault_kind kind)
{
  return READ_ONCE(rate[kind]);
}

u64
fault_inject_count(enum fault_kind kind)
{
  u64 n = 0;
  for(int cpu = 0; cpu < NR_CPUS; cpu++)
    n += READ_ONCE(cpus[cpu].injected[kind]);
  return n;
}

void
fault_inject_init(void)
{
  fault_inject_set(FAULT_SLAB, kcmdline.failslab);
  fault_inject_set(FAULT_PAGE, kcmdline.failpage);
  if(kcmdline.failslab || kcmdline.failpage)
    pr_info("fault_inject: failing %u/1000 slab and %u/1000 page allocations\n",
            kcmdline.failslab, kcmdline.failpage);
}

void
fault_inject_save(struct fault_rates *saved)
{
  for(int k = 0; k < NR_FAULT_KINDS; k++)
    saved->permille[k] = fault_inject_get(k);
}

void
fault_inject_restore(const struct fault_rates *saved)
{
  for(int k = 0; k < NR_FAULT_KINDS; k++)
    fault_inject_set(k, saved->permille[k]);
}

void
fault_inject_pause(struct fault_rates *saved)
{
  fault_inject_save(saved);
  for(int k = 0; k < NR_FAULT_KINDS; k++)
    fault_inject_set(k, 0);
}

bool
fault_inject_active(void)
{
  return fault_inject_get(FAULT_SLAB) || fault_inject_get(FAULT_PAGE);
}

// doc/console.md: printed before END in any boot with failslab= or failpage=, so that a
// reader sees the failure paths really ran. The leak check that follows needs allocations
// that succeed.
void
fault_inject_end(void)
{
  if(kcmdline.failslab || kcmdline.failpage)
    printk("FAULT-INJECT slab_failed=%lu page_failed=%lu\n", fault_inject_count(FAULT_SLAB),
           fault_inject_count(FAULT_PAGE));
  for(int k = 0; k < NR_FAULT_KINDS; k++)
    fault_inject_set(k, 0);
}
