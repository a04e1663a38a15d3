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
  return check_summary("test_rwsem");
}
