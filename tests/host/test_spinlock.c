// Host test for kernel/locking/{ticket,qspinlock,tas,rwlock}.c: threads play CPUs (shim in
// tests/host/spinlock/shim) and count under each lock; a lost update shows as a wrong total.
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "percpu.h"
#include "rwlock.h"
#include "spinlock.h"

#define NTHREADS 8
#define ROUNDS 20000

__thread int host_cpu;
__thread bool host_in_interrupt;
DECLARE_PER_CPU(int, qnode_count);

enum kind { TICKET, QUEUED, TAS, RWLOCK, NKINDS };

static struct ticket_lock ticket = TICKET_LOCK_INIT;
static struct qspinlock queued = QSPINLOCK_INIT;
static struct tas_lock tas = TAS_LOCK_INIT;
static rwlock_t rw = RWLOCK_INIT;

static void
lock(enum kind k)
{
  switch(k) {
  case TICKET: ticket_lock(&ticket); break;
  case QUEUED: queued_spin_lock(&queued); break;
  case TAS: tas_lock(&tas); break;
  default: write_lock(&rw); break;
  }
}

static void
unlock(enum kind k)
{
  switch(k) {
  case TICKET: ticket_unlock(&ticket); break;
  case QUEUED: queued_spin_unlock(&queued); break;
  case TAS: tas_unlock(&tas); break;
  default: write_unlock(&rw); break;
  }
}

static bool
trylock(enum kind k)
{
  switch(k) {
  case TICKET: return ticket_trylock(&ticket);
  case QUEUED: return queued_spin_trylock(&queued);
  case TAS: return tas_trylock(&tas);
  default: return write_trylock(&rw);
  }
}

static void
check_trylock(enum kind k)
{
  CHECK(trylock(k));
  CHECK(!trylock(k));
  unlock(k);
  lock(k);
  CHECK(!trylock(k));
  unlock(k);
  CHECK(trylock(k));
  unlock(k);
}

static void
check_is_locked(void)
{
  CHECK(!ticket_is_locked(&ticket));
  ticket_lock(&ticket);
  CHECK(ticket_is_locked(&ticket));
  ticket_unlock(&ticket);
  CHECK(!queued_spin_is_locked(&queued));
  queued_spin_lock(&queued);
  CHECK(queued_spin_is_locked(&queued));
  queued_spin_unlock(&queued);
  CHECK(!tas_is_locked(&tas));
  tas_lock(&tas);
  CHECK(tas_is_locked(&tas));
  tas_unlock(&tas);
}

static void
check_rwlock_sharing(void)
{
  CHECK(read_trylock(&rw));
  CHECK(read_trylock(&rw));
  CHECK(!write_trylock(&rw));
  read_unlock(&rw);
  read_unlock(&rw);
  write_lock(&rw);
  CHECK(!read_trylock(&rw));
  write_unlock(&rw);
}

static long counter;
static int torn_reads, kept_nodes;
static enum kind counting;

static void *
count(void *arg)
{
  host_cpu = (int)(long)arg;
  // Threads start at different node levels, as if some were interrupt handlers; the
  // last level is past MAX_NODES and takes the unqueued fallback.
  this_cpu(qnode_count) = host_cpu % 5;
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
  if(this_cpu(qnode_count) != host_cpu % 5)   // a node not given back
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
  host_cpu = 1;
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
  host_in_interrupt = true;
  CHECK(read_trylock(&rw));   // an interrupt's reader gets in past the waiting writer
  read_unlock(&rw);
  host_in_interrupt = false;
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
