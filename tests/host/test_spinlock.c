// Host test for kernel/locking/{ticket,qspinlock,tas,rwlock}.c: threads play CPUs (each has
// its own, tests/host/lib/cpu.c) and count under each lock; a lost update shows as a wrong total.
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "percpu.h"
#include "tick.h"
#include <asm/processor.h>
#define EXPECT(cond) CHECK(cond)
#include "../common/locks.h"

#define NTHREADS 8
#define ROUNDS 20000

DECLARE_PER_CPU(int, qnode_count);

static long counter;
static int torn_reads, kept_nodes;
static enum kind counting;

static void *
count(void *arg)
{
  int level = (int)(long)arg % 5;
  // Threads start at different node levels, as if some were interrupt handlers; the
  // last level is past MAX_NODES and takes the unqueued fallback.
  this_cpu(qnode_count) = level;
  for(int i = 0; i < ROUNDS; i++) {
    lock(counting);
    counter++;
    unlock(counting);
    if(counting == RWLOCK) {
      read_lock(&rw);
      long before = __atomic_load_n(&counter, __ATOMIC_RELAXED);
      cpu_relax();
      if(__atomic_load_n(&counter, __ATOMIC_RELAXED) != before)
        __atomic_fetch_add(&torn_reads, 1, __ATOMIC_RELAXED);
      read_unlock(&rw);
    }
  }
  if(this_cpu(qnode_count) != level)   // a node not given back
    __atomic_fetch_add(&kept_nodes, 1, __ATOMIC_RELAXED);
  return NULL;
}

static void
check_counting(enum kind k)
{
  pthread_t t[NTHREADS];
  counting = k;
  counter = 0;
  torn_reads = 0;
  for(long i = 0; i < NTHREADS; i++)
    pthread_create(&t[i], NULL, count, (void *)(i + 1));
  for(int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  CHECK(counter == (long)NTHREADS * ROUNDS);
  CHECK(torn_reads == 0);
  CHECK(kept_nodes == 0);
}

static int writer_waiting, writer_done;

static void *
writer(void *arg __unused)
{
  __atomic_store_n(&writer_waiting, 1, __ATOMIC_RELEASE);
  write_lock(&rw);
  write_unlock(&rw);
  __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

// A writer waiting behind a reader keeps new readers out, except in an interrupt.
static void
check_writer_preference(void)
{
  pthread_t t;
  read_lock(&rw);
  pthread_create(&t, NULL, writer, NULL);
  while(!__atomic_load_n(&writer_waiting, __ATOMIC_ACQUIRE))
    cpu_relax();
  bool blocked = false;
  for(long i = 0; i < 100000000 && !blocked; i++) {
    if(read_trylock(&rw))
      read_unlock(&rw);
    else
      blocked = true;
  }
  CHECK(blocked);
  irq_enter();
  CHECK(read_trylock(&rw));   // an interrupt's reader gets in past the waiting writer
  read_unlock(&rw);
  irq_exit();
  CHECK(!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE));
  read_unlock(&rw);
  pthread_join(t, NULL);
  CHECK(writer_done);
  CHECK(read_trylock(&rw));   // the bit went with the writer
  read_unlock(&rw);
}

int
main(void)
{
  for(int k = 0; k < NKINDS; k++)
    check_trylock(k);
  check_is_locked();
  check_rwlock_sharing();
  check_writer_preference();
  for(int k = 0; k < NKINDS; k++)
    check_counting(k);
  return check_summary("test_spinlock");
}
