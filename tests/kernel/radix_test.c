// In-kernel radix-tree test: readers on every CPU look up and gang-look-up under RCU alone
// while writers on every CPU insert and delete under the tree's lock.
#include "cpumask.h"
#include "gfp.h"
#include "printk.h"
#include "radix-tree.h"
#include "rcupdate.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "torture.h"

#define SPAN 4096                  // indices each writer owns
#define RUN_NS 600000000UL

static struct radix_tree_root tree;
static DEFINE_SPINLOCK(tree_lock);
// The threads of one shift start together and run until the gate closes: past RUN_NS's share
// until readers and writers both got some work done (a loaded host may not run a reader at
// all in 0.2 s), at most TORTURE_CAP times it.
static struct torture_gate gate;
static int writers;
static long bad_reads, bad_writes, reads, writes;
static long progress;   // bit 0: a writer, bit 1: a reader got through a batch (this shift)

// An item encodes its own index, so a reader can tell a right answer from a stale one.
static void *item_for(unsigned long index) { return (void *)((index << 4) | 0x8); }

static u64
rnd(u64 *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

// Indices are spread out (times a large stride) so the tree is several levels tall.
static unsigned long index_of(int writer, unsigned long k) { return (k * writers + writer) * 977UL; }

static int
writer_thread(void *arg)
{
  int w = (int)(long)arg;
  static bool present[NR_CPUS][SPAN];
  u64 seed = 0x1234567 + w;
  long n = 0;
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    unsigned long k = rnd(&seed) % SPAN;
    unsigned long idx = index_of(w, k);
    if(radix_tree_preload(GFP_KERNEL) < 0) {
      cond_resched();
      continue;
    }
    spin_lock(&tree_lock);
    if(present[w][k]) {
      if(radix_tree_delete(&tree, idx) != item_for(idx))
        __atomic_fetch_add(&bad_writes, 1, __ATOMIC_RELAXED);
      present[w][k] = false;
    } else {
      if(radix_tree_insert(&tree, idx, item_for(idx)) != 0)
        __atomic_fetch_add(&bad_writes, 1, __ATOMIC_RELAXED);
      present[w][k] = true;
    }
    spin_unlock(&tree_lock);
    radix_tree_preload_end();
    if(++n % 64 == 0) {
      __atomic_fetch_or(&progress, 1, __ATOMIC_RELAXED);
      cond_resched();
    }
  }
  // Leave the tree empty, checking every item on the way out.
  for(unsigned long k = 0; k < SPAN; k++) {
    if(!present[w][k])
      continue;
    spin_lock(&tree_lock);
    if(radix_tree_delete(&tree, index_of(w, k)) != item_for(index_of(w, k)))
      __atomic_fetch_add(&bad_writes, 1, __ATOMIC_RELAXED);
    spin_unlock(&tree_lock);
    present[w][k] = false;
  }
  __atomic_fetch_add(&writes, n, __ATOMIC_RELAXED);
  return 0;
}

static int
reader_thread(void *arg)
{
  u64 seed = 0x9876543 + (long)arg;
  void *batch[16];
  long n = 0;
  torture_gate_wait(&gate);
  while(torture_running(&gate)) {
    unsigned long idx = index_of(rnd(&seed) % writers, rnd(&seed) % SPAN);
    rcu_read_lock();
    void *p = radix_tree_lookup(&tree, idx);
    if(p && p != item_for(idx))
      __atomic_fetch_add(&bad_reads, 1, __ATOMIC_RELAXED);
    unsigned got = radix_tree_gang_lookup(&tree, batch, idx, 16);
    for(unsigned i = 0; i < got; i++) {
      unsigned long at = (unsigned long)batch[i] >> 4;
      // Results come in index order from idx on, each the item of its own index.
      if(batch[i] != item_for(at) || at < idx || (i > 0 && at <= (unsigned long)batch[i - 1] >> 4))
        __atomic_fetch_add(&bad_reads, 1, __ATOMIC_RELAXED);
    }
    rcu_read_unlock();
    if(++n % 32 == 0) {
      __atomic_fetch_or(&progress, 2, __ATOMIC_RELAXED);
      cond_resched();
    }
  }
  __atomic_fetch_add(&reads, n, __ATOMIC_RELAXED);
  return 0;
}

static bool
both_progressed(void)
{
  return READ_ONCE(progress) == 3;
}

static bool
radix_test(void)
{
  static const unsigned shifts[] = { 4, 6, 7 };
  struct thread *t[2 * NR_CPUS];
  bool ok = true, created = true;
  int cpu;
  writers = num_online_cpus();
  bad_reads = bad_writes = reads = writes = 0;
  for(unsigned s = 0; s < ARRAY_SIZE(shifts); s++) {
    INIT_RADIX_TREE(&tree, shifts[s]);
    torture_gate_init(&gate, RUN_NS / ARRAY_SIZE(shifts));
    progress = 0;
    int n = 0, w = 0, started = 0;
    for_each_online_cpu(cpu) {
      t[n++] = kthread_create(writer_thread, (void *)(long)w++, cpu, "radix-w/%d", cpu);
      t[n++] = kthread_create(reader_thread, (void *)(long)cpu, cpu, "radix-r/%d", cpu);
    }
    for(int i = 0; i < n; i++)
      started += t[i] != NULL;   // kthread_create fails under failslab=
    if(started == n) {
      torture_gate_open(&gate, n);
      torture_gate_run(&gate, both_progressed);
    } else {
      torture_gate_abort(&gate);
      created = false;
    }
    for(int i = 0; i < n; i++)
      ok &= !t[i] || kthread_join(t[i]) == 0;
    ok &= radix_tree_height(&tree) == 0 && radix_tree_nr_nodes(&tree) == 0;
  }
  rcu_barrier();   // the deleted nodes' RCU frees have all run
  selftest_extra("shifts=4,6,7 writes=%ld reads=%ld bad_reads=%ld bad_writes=%ld", writes, reads,
                 bad_reads, bad_writes);
  ok &= bad_reads == 0 && bad_writes == 0;
  if(!created)   // the threads are independent: what ran was checked
    return ok && selftest_skip("enomem");
  return ok && writes > 0 && reads > 0;
}
SELFTEST("radix", radix_test);
