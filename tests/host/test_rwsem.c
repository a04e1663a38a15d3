// Host test of kernel/locking/rwsem.c: threads read, write and trylock one rwsem at once, and
// whatever a writer changes no reader may see change under it.
#include <pthread.h>
#include <unistd.h>

#include "check.h"
#include "rwsem.h"
#include "sched.h"

#define NTHREADS 8
#define ROUNDS 20000

static DECLARE_RWSEM(sem);
static DECLARE_RWSEM(steal_sem);
static int steal_done;   // the queued writer has had steal_sem
static long value;                   // changed only by a writer, in two steps
static long half;                    // value / 2 between a writer's two steps
static int writers_in, readers_in;   // holders now
static int broken, read_fast, read_slow;

// A reader: no writer holds it with us, and what the writer left does not change while we read.
static void
reader_check(void)
{
  __atomic_fetch_add(&readers_in, 1, __ATOMIC_SEQ_CST);
  long v = __atomic_load_n(&value, __ATOMIC_RELAXED);
  sched_yield();
  if(__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST) != 0 ||
     __atomic_load_n(&value, __ATOMIC_RELAXED) != v ||
     __atomic_load_n(&half, __ATOMIC_RELAXED) * 2 != v)
    __atomic_fetch_add(&broken, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&readers_in, 1, __ATOMIC_SEQ_CST);
}

// A writer: alone, and its two steps never seen apart.
static void
writer_step(void)
{
  if(__atomic_add_fetch(&writers_in, 1, __ATOMIC_SEQ_CST) != 1 ||
     __atomic_load_n(&readers_in, __ATOMIC_SEQ_CST) != 0)
    __atomic_fetch_add(&broken, 1, __ATOMIC_RELAXED);
  long v = __atomic_load_n(&value, __ATOMIC_RELAXED) + 2;
  __atomic_store_n(&value, v, __ATOMIC_RELAXED);
  if(v % 64 == 0)
    sched_yield();
  __atomic_store_n(&half, v / 2, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&writers_in, 1, __ATOMIC_SEQ_CST);
}

static void *
worker(void *arg)
{
  long id = (long)arg;
  for(int i = 0; i < ROUNDS; i++) {
    switch((id + i) % 5) {
    case 0:
      down_write(&sem);
      writer_step();
      up_write(&sem);
      break;
    case 1:   // a write, then at once a read (a waiting writer may come between)
      down_write(&sem);
      writer_step();
      up_write(&sem);
      down_read(&sem);
      reader_check();
      up_read(&sem);
      break;
    case 2:
      if(down_read_trylock(&sem)) {
        __atomic_fetch_add(&read_fast, 1, __ATOMIC_RELAXED);
        reader_check();
        up_read(&sem);
        break;
      }
      __atomic_fetch_add(&read_slow, 1, __ATOMIC_RELAXED);
      /* fall through */
    default:
      down_read(&sem);
      reader_check();
      up_read(&sem);
    }
  }
  return NULL;
}

static void *
queued_writer(void *arg)
{
  (void)arg;
  down_write(&steal_sem);
  __atomic_store_n(&steal_done, 1, __ATOMIC_SEQ_CST);
  up_write(&steal_sem);
  return NULL;
}

// A writer that keeps releasing and taking the lock while another writer is queued takes it
// ahead of the queued one (a steal: the releaser only wakes the head), and the queued one
// still has it in the end. Returns the steals seen; *rounds is how many releases it waited.
static int
steal_rounds(int *rounds)
{
  pthread_t t;
  int steals = 0;
  steal_done = 0;
  down_write(&steal_sem);
  pthread_create(&t, NULL, queued_writer, NULL);
  while(list_empty_careful(&steal_sem.waiters))
    sched_yield();
  for(*rounds = 0; *rounds < 100000 && !__atomic_load_n(&steal_done, __ATOMIC_SEQ_CST);
      ++*rounds) {
    up_write(&steal_sem);
    down_write(&steal_sem);
    spin_lock(&steal_sem.wait_lock);
    steals += !list_empty(&steal_sem.waiters) &&   // it is still queued
              !__atomic_load_n(&steal_done, __ATOMIC_SEQ_CST);
    spin_unlock(&steal_sem.wait_lock);
    usleep(20);
  }
  up_write(&steal_sem);
  pthread_join(t, NULL);
  return steals;
}

// A writer queued for RWSEM_HANDOFF_NS while the lock is held is promised it: the holder's
// release and immediate retake must queue behind it. Returns whether it had the lock first.
static bool
handoff_first(void)
{
  pthread_t t;
  steal_done = 0;
  down_write(&steal_sem);
  pthread_create(&t, NULL, queued_writer, NULL);
  for(int ms = 0; ms < 1000 && !(__atomic_load_n(&steal_sem.count, __ATOMIC_SEQ_CST) &
                                 RWSEM_HANDOFF); ms++)
    usleep(1000);
  bool promised = __atomic_load_n(&steal_sem.count, __ATOMIC_SEQ_CST) & RWSEM_HANDOFF;
  up_write(&steal_sem);
  down_write(&steal_sem);
  bool first = __atomic_load_n(&steal_done, __ATOMIC_SEQ_CST);
  up_write(&steal_sem);
  pthread_join(t, NULL);
  return promised && first;
}

int
main(void)
{
  pthread_t t[NTHREADS];

  alarm(60);   // a lost wake-up, or a count left wrong, hangs a waiter: fail, by SIGALRM
  // Alone: each fast path leaves the count as it found it.
  down_read(&sem);
  CHECK(sem.count == RWSEM_READER);
  CHECK(down_read_trylock(&sem) && sem.count == 2 * RWSEM_READER);
  up_read(&sem);
  up_read(&sem);
  down_write(&sem);
  CHECK(sem.count == RWSEM_WRITER && !down_read_trylock(&sem));
  up_write(&sem);
  CHECK(sem.count == 0 && sem.wait_ns == 0);

  for(long i = 0; i < NTHREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for(int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  // Each thread's rounds go through the five kinds in turn: two of each five write, by 2.
  CHECK(value == 2L * 2 * NTHREADS * ROUNDS / 5);
  CHECK(broken == 0);
  CHECK(sem.count == 0 && list_empty(&sem.waiters));
  // It did enough to mean something: some took the slow path and slept, some trylocks won.
  CHECK(sem.wait_ns > 0 && read_slow > 0 && read_fast > 0);
  printf("test_rwsem: %d of %d trylocks failed; waiters queued %ld ms in all\n", read_slow,
         read_slow + read_fast, (long)(sem.wait_ns / 1000000));

  int rounds, steals = steal_rounds(&rounds);
  CHECK(steals > 0);                             // a writer took it past the queued one
  CHECK(steal_done && rounds < 100000);          // and the queued one was not starved
  CHECK(handoff_first());                        // one queued too long is promised the lock
  CHECK(steal_sem.count == 0 && list_empty(&steal_sem.waiters));
  printf("test_rwsem: a queued writer had the lock after %d releases, %d of them stolen, "
         "%ld us queued in both tests\n", rounds, steals, (long)(steal_sem.wait_ns / 1000));
  return check_summary("test_rwsem");
}
