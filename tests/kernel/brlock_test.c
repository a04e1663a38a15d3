// brlock-writer: readers on every CPU re-enter their CPU's read side as fast as they can while a
// writer takes the whole lock now and then; the writer must get through (include/brlock.h).
#include "brlock.h"
#include "cpumask.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "time.h"
#include "torture.h"

// The default duration, an eighth of a second per CPU and at least a second (torture.secs=
// sets it), and the work floors (torture.h): WRITES writes in that time, in proportion for
// another duration, and reads a second for each reader. A write waits for the reader inside on
// every CPU to leave; at 64 vCPUs on 2 host cores the host must run each of those vCPUs, and
// writes come 1 to 3 a second: so the duration grows with the CPUs, as locktorture's does.
// Writes are meant to be rare: the writer sleeps WRITER_SLEEP_MS between.
#define DURATION_MS 1000
#define DURATION_MS_PER_CPU 125
#define WRITES 10
#define READS_PER_READER_SEC 100
#define WRITER_SLEEP_MS 1
#define PLANTED_MS 1000

struct bt_thread {
  struct thread *thread;
  u64 count;
  u64 fails;   // found someone inside who should not be
  // A reader's overtakes: inside while a writer waits. The bound allows one per write (the
  // reader that had looked before the writer came); twice counts the second ones.
  u64 epoch;   // the write it last overtook: the writer's count then
  u64 twice;
  int id;
} __aligned(64);

DEFINE_BRLOCK(bt_lock);   // not static: the macro makes its per-CPU part static itself
static struct bt_thread readers[NR_CPUS], writer_t;
static int nreaders;
static struct torture_gate gate;
static u64 writes_floor, reads_floor;
// What the checks look at, set by whoever is inside.
static bool write_held;
static int read_held;   // atomic

static int
reader(void *arg)
{
  struct bt_thread *t = arg;
  struct torture_rand r;
  torture_seed(&r, ktime_ns() ^ t->id);
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    br_read_lock(&bt_lock);
    __atomic_add_fetch(&read_held, 1, __ATOMIC_RELAXED);
    if(READ_ONCE(write_held))
      t->fails++;
    // A writer waits. Its count is read after `writers`, and the writer adds to it after it
    // takes `writers` down and before it puts it up again (both program order, and x86 keeps
    // stores in order and loads in order): so the count names the write we overtake.
    if(READ_ONCE(bt_lock.writers) > 0) {
      u64 epoch = READ_ONCE(writer_t.count);
      t->twice += epoch == t->epoch;
      t->epoch = epoch;
    }
    torture_spin(torture_random(&r) % 64);
    __atomic_sub_fetch(&read_held, 1, __ATOMIC_RELAXED);
    br_read_unlock(&bt_lock);
    WRITE_ONCE(t->count, t->count + 1);
    cond_resched();   // and straight back: the reader that overtakes a waiting writer
  }
  return 0;
}

static int
writer(void *arg)
{
  struct bt_thread *t = arg;
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    br_write_lock(&bt_lock);
    if(READ_ONCE(write_held) || __atomic_load_n(&read_held, __ATOMIC_RELAXED))
      t->fails++;
    WRITE_ONCE(write_held, true);
    torture_spin(64);
    WRITE_ONCE(write_held, false);
    br_write_unlock(&bt_lock);
    WRITE_ONCE(t->count, t->count + 1);
    msleep(WRITER_SLEEP_MS);
  }
  return 0;
}

static u64
reads_so_far(void)
{
  u64 n = 0;
  for(int i = 0; i < nreaders; i++)
    n += READ_ONCE(readers[i].count);
  return n;
}

static bool
enough(void)
{
  return READ_ONCE(writer_t.count) >= writes_floor && reads_so_far() >= reads_floor;
}

static u64
default_ns(void)
{
  return MAX(DURATION_MS, DURATION_MS_PER_CPU * num_online_cpus()) * 1000000UL;
}

// The writer on CPU 0, a reader on every other CPU (on CPU 0 too when it is the only one).
static bool
brlock_writer_run(const char *name, u64 ns)
{
  int n = 0, cpu;
  nreaders = 0;
  write_held = false;
  read_held = 0;
  torture_gate_init(&gate, ns);
  for_each_online_cpu(cpu) {
    if(cpu == 0 && num_online_cpus() > 1)
      continue;
    struct bt_thread *t = &readers[nreaders++];
    t->id = cpu;
    t->count = t->fails = t->twice = 0;
    t->epoch = ~0UL;
    t->thread = kthread_create(reader, t, cpu, "bt/read/%d", cpu);
    n += t->thread != NULL;
  }
  writer_t.count = writer_t.fails = 0;
  writer_t.thread = kthread_create(writer, &writer_t, 0, "bt/write");
  n += writer_t.thread != NULL;
  writes_floor = MAX(1, WRITES * ns / default_ns());
  reads_floor = torture_floor(READS_PER_READER_SEC * nreaders, ns);
  torture_gate_open(&gate, n);
  u64 run_ns = torture_gate_run(&gate, enough);
  for(int i = 0; i < nreaders; i++)
    if(readers[i].thread)
      kthread_join(readers[i].thread);
  if(writer_t.thread)
    kthread_join(writer_t.thread);

  struct torture_sum rs = TORTURE_SUM_INIT;
  u64 fails = writer_t.fails, twice = 0;
  for(int i = 0; i < nreaders; i++) {
    torture_sum_add(&rs, readers[i].count);
    fails += readers[i].fails;
    twice += readers[i].twice;
  }
  selftest_extra("secs=%lu.%03lu readers=%d writes=%lu reads=%lu rmin=%lu rmax=%lu fails=%lu "
                 "overtook_twice=%lu", run_ns / 1000000000, run_ns / 1000000 % 1000, nreaders,
                 writer_t.count, rs.total, rs.min, rs.max, fails, twice);
  bool ok = n == nreaders + 1 && fails == 0 && twice == 0;
  if(n != nreaders + 1)
    pr_err("%s: could not start every thread\n", name);
  if(fails)
    pr_err("%s: %lu times a reader and the writer were inside together\n", name, fails);
  if(twice)
    pr_err("%s: %lu times a reader overtook a waiting writer it had overtaken already\n", name,
           twice);
  ok &= torture_enough(name, "writes", writer_t.count, writes_floor);
  ok &= torture_enough(name, "reads", rs.total, reads_floor);
  return ok;
}

static bool
brlock_writer_test(void)
{
  return brlock_writer_run("brlock-writer", torture_ns(default_ns() / 1000000));
}
SELFTEST("brlock-writer", brlock_writer_test);

// The brlock as it was: readers ignore a waiting writer and overtake it again and again, which
// the overtake count catches on two CPUs already; at 64 the writer, which must find every
// CPU's lock free once, also falls below its floor. Needs two CPUs: on one, a waiting
// writer spins on the only CPU, and no reader runs to overtake it.
static bool
planted_brlock_starve(void)
{
  if(num_online_cpus() < 2) {
    pr_err("planted-brlock-starve: needs two CPUs\n");
    return false;
  }
  WRITE_ONCE(br_read_ignore_writers, true);
  bool ok = brlock_writer_run("planted-brlock-starve", PLANTED_MS * 1000000UL);
  WRITE_ONCE(br_read_ignore_writers, false);
  return ok;
}
SELFTEST("planted-brlock-starve", planted_brlock_starve);
