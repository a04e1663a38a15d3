// What the torture and stress tests share: how long they run (torture.secs=), a start gate,
// work floors, a per-thread random number generator, short busy-waits, and Linux's Total/Max/Min.
#pragma once
#include "compiler.h"
#include "time.h"
#include "types.h"
#include "wait.h"
#include <asm/x86.h>

// How long a torture or stress test runs: torture.secs= when the command line gives it, else
// the test's own default (what make test can afford). A test of several phases splits it.
u64 torture_ns(u64 default_ms);

// The clock starts once every thread is running, not when the first one is created: at 64
// vCPUs on a loaded 2-core host, creating and first scheduling 64 threads can take longer than
// the whole run, and threads that each watched a deadline set before creation did nothing
// (rcutorture: reads=0 writes=0). Each thread calls torture_gate_wait first and sleeps there;
// the test calls torture_gate_open with the number it created, which waits for them all and
// starts the clock, then torture_gate_run. Threads run while torture_running.
//
// A run lasts its duration, and goes on past it until enough() says the work floors are met,
// but not past TORTURE_CAP times the duration: at 64 vCPUs on 2 host cores a thread that must
// run for the others to go on (the grace-period thread, a lock's next owner) may wait a
// host time slice for each step, and on a loaded host some runs need the extra time. A run
// that still falls short by then fails on its floors. The same rule as the benchmark
// harness's runs, which go on until every worker has done 20 operations, up to a cap.
// A test whose every step waits for the host (locktorture's fair locks) may set a larger cap
// between torture_gate_init and torture_gate_open.
#define TORTURE_CAP 3
struct torture_gate {
  int cap;                       // the run's cap, in durations: TORTURE_CAP unless the test says
  int arrived;                   // atomic
  bool stop;                     // set by torture_gate_run
  u64 start_ns, cap_ns;          // 0 until open; release/acquire with the threads' reads
  u64 ns;
  struct wait_queue_head wq;
};
void torture_gate_init(struct torture_gate *g, u64 ns);
void torture_gate_wait(struct torture_gate *g);
void torture_gate_open(struct torture_gate *g, int nthreads);
// Sleeps out the run, then stops the threads; returns how long it ran.
u64 torture_gate_run(struct torture_gate *g, bool (*enough)(void));
// Instead of open and run, when not every thread could be created (kthread_create fails under
// failslab=, as Linux's can): the threads already waiting at the gate are let through to a run
// that is over, so they exit at once and the test joins them. The test then ends with
// torture_skip_kthread.
void torture_gate_abort(struct torture_gate *g);
// After an abort: a named skip (enomem) under fault injection, else a failure that says so.
bool torture_skip_kthread(const char *test, int started, int wanted);
// The whole life of a test with one thread per online CPU (fn's argument: its CPU, the
// thread named "<name>/<cpu>"): created, let through the gate together, run until enough says
// so or the cap, and joined. With setup_ok false nothing is created. False when setup_ok was
// false or a thread could not be created (the gate then aborted).
bool torture_run_per_cpu(struct torture_gate *g, bool setup_ok, int (*fn)(void *),
                         const char *name, bool (*enough)(void));

// The threads also stop by themselves at the cap: the test's own thread shares CPU 0 with
// them and, non-preemptive, may not get to set stop in time.
static inline bool
torture_running(struct torture_gate *g)
{
  return !READ_ONCE(g->stop) && ktime_ns() < READ_ONCE(g->cap_ns);
}

// A work floor: per_sec of work for every second of ns (at least 1), for a test whose
// verdict means nothing below it. The caller scales per_sec by the CPUs that do the work.
u64 torture_floor(u64 per_sec, u64 ns);
// A hang guard or give-up limit for a step that every CPU takes part in, grown with the CPU
// count as the IPI and hard-lockup limits are (kernel/ipi.c, kernel/watchdog.c): ms up to 8
// CPUs, ms x n/8 past that. Each of such a step's wake-ups, interrupts and IPIs goes through
// QEMU's global lock, which past the host's cores waits behind every other busy vCPU, so the
// step's time grows faster than the CPU count: a tlb-shootdown round took 60-85 ms at 8 vCPUs
// and 3-13 s at 64 on 2 host cores, and a madvise-dontneed round up to 30 s.
u64 torture_guard_ms(u64 ms);
// A work floor for such steps: per_sec of them a second (torture_floor) up to 8 CPUs, falling
// as (8/n)^2 past that (the step's time, above, grows about so), and at least 1.
u64 torture_floor_all_cpus(u64 per_sec, u64 ns);
// done >= floor; otherwise prints why the verdict means nothing and adds too_little=<what>
// to the SELFTEST line.
bool torture_enough(const char *test, const char *what, u64 done, u64 floor);

// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators,
// scrambled", 2016): one word of state per thread, so threads never share a cache line for it.
struct torture_rand {
  u64 state;
};

static inline void
torture_seed(struct torture_rand *r, u64 seed)
{
  r->state = (seed + 1) * 0x9e3779b97f4a7c15UL;   // never zero: xorshift would stay at zero
}

static inline u32
torture_random(struct torture_rand *r)
{
  u64 x = r->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->state = x;
  return (x * 0x2545f4914f6cdd1dUL) >> 32;
}

// True once in n calls, on average.
static inline bool
torture_one_in(struct torture_rand *r, u32 n)
{
  return torture_random(r) % n == 0;
}

// A delay shorter than udelay's microsecond: n pause instructions.
static inline void
torture_spin(u32 n)
{
  while(n-- > 0)
    cpu_relax();
}

// Linux's "Total: … Max/Min: …" over one counter per thread.
struct torture_sum {
  u64 total, min, max;
};
#define TORTURE_SUM_INIT { 0, ~0UL, 0 }

static inline void
torture_sum_add(struct torture_sum *s, u64 count)
{
  s->total += count;
  s->min = MIN(s->min, count);
  s->max = MAX(s->max, count);
}
