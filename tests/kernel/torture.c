// The torture and stress tests' common clock: torture.secs=, the start gate that begins a run
// once every thread is running, and the work floors that make a run fail when it did too little.
#include "cmdline.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "selftest.h"
#include "torture.h"

u64
torture_ns(u64 default_ms)
{
  return kcmdline.torture_us ? kcmdline.torture_us * 1000 : default_ms * 1000000;
}

void
torture_gate_init(struct torture_gate *g, u64 ns)
{
  g->arrived = 0;
  g->stop = false;
  g->start_ns = g->cap_ns = 0;
  g->ns = ns;
  g->cap = TORTURE_CAP;
  init_waitqueue_head(&g->wq);
}

// Asleep, not spinning: a vCPU that waits here halts, and leaves the host's cores to the
// vCPUs still creating and starting threads.
void
torture_gate_wait(struct torture_gate *g)
{
  __atomic_add_fetch(&g->arrived, 1, __ATOMIC_RELEASE);
  wait_event(g->wq, smp_load_acquire(&g->cap_ns) != 0);
}

void
torture_gate_open(struct torture_gate *g, int nthreads)
{
  while(__atomic_load_n(&g->arrived, __ATOMIC_ACQUIRE) < nthreads)
    msleep(1);
  g->start_ns = ktime_ns();
  smp_store_release(&g->cap_ns, g->start_ns + g->cap * g->ns);   // pairs with gate_wait
  wake_up_all(&g->wq);
}

u64
torture_gate_run(struct torture_gate *g, bool (*enough)(void))
{
  u64 end = g->start_ns + g->ns;
  while(ktime_ns() < end)
    msleep(MIN(10, (end - ktime_ns()) / 1000000 + 1));
  while(ktime_ns() < g->cap_ns && !enough())
    msleep(10);
  WRITE_ONCE(g->stop, true);
  return MIN(ktime_ns(), g->cap_ns) - g->start_ns;
}

void
torture_gate_abort(struct torture_gate *g)
{
  WRITE_ONCE(g->stop, true);
  g->start_ns = ktime_ns();
  smp_store_release(&g->cap_ns, g->start_ns);   // pairs with gate_wait: torture_running is false
  wake_up_all(&g->wq);
}

bool
torture_skip_kthread(const char *test, int started, int wanted)
{
  pr_info("%s: only %d of %d threads could be created; the started ones were let go\n", test,
          started, wanted);
  return selftest_skip("enomem");
}

bool
torture_run_per_cpu(struct torture_gate *g, bool setup_ok, int (*fn)(void *), const char *name,
                    bool (*enough)(void))
{
  struct thread *threads[NR_CPUS];
  int cpu, created = 0;
  for_each_online_cpu(cpu) {
    threads[cpu] = setup_ok ? kthread_create(fn, (void *)(long)cpu, cpu, "%s/%d", name, cpu) : NULL;
    created += threads[cpu] != NULL;
  }
  bool ok = created == num_online_cpus();
  if(ok) {
    torture_gate_open(g, created);
    torture_gate_run(g, enough);
  } else {
    torture_gate_abort(g);
  }
  for_each_online_cpu(cpu)
    if(threads[cpu])
      kthread_join(threads[cpu]);
  return ok;
}

u64
torture_floor(u64 per_sec, u64 ns)
{
  u64 floor = per_sec * (ns / 1000000) / 1000;
  return floor ? floor : 1;
}

u64
torture_guard_ms(u64 ms)
{
  u64 n = num_online_cpus();
  return n > 8 ? ms * n / 8 : ms;
}

u64
torture_floor_all_cpus(u64 per_sec, u64 ns)
{
  u64 n = num_online_cpus(), floor = torture_floor(per_sec, ns);
  return n > 8 ? MAX(floor * 64 / (n * n), 1UL) : floor;
}

bool
torture_enough(const char *test, const char *what, u64 done, u64 floor)
{
  if(done >= floor)
    return true;
  pr_err("%s: too little work for its verdict to mean anything: %s=%lu, below the floor of %lu "
         "for %d CPUs and this duration\n", test, what, done, floor, num_online_cpus());
  selftest_extra("too_little=%s", what);
  return false;
}
