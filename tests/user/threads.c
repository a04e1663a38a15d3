// threads: one pthread per CPU (sysconf), plus one: a mutex-protected counter, a condvar
// hand-off, a barrier, thread-local storage, affinity (each pins itself to a CPU and must be
// running there), then join. Exits 0 when every count is exact.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static long counter;
static int started;
static __thread long mine;
static long ncpu;
static int misplaced;

static void *
worker(void *arg)
{
  long id = (long)arg;
  mine = id;
  pthread_mutex_lock(&lock);
  started++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  pthread_barrier_wait(&barrier);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(id % ncpu, &set);
  if(sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != id % ncpu)
    __atomic_fetch_add(&misplaced, 1, __ATOMIC_RELAXED);
  for(int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
  }
  return (void *)(mine == id ? 0L : 1L);
}

static void *
nothing(void *arg)
{
  return (void *)7;
}

int
main(void)
{
  ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  long n = ncpu + 1;
  if(n < 2 || n > 64)
    n = 4;
  pthread_t t[64];
  pthread_barrier_init(&barrier, NULL, n);
  mine = -1;
  for(long i = 0; i < n; i++)
    if(pthread_create(&t[i], NULL, worker, (void *)i)) {
      printf("threads: pthread_create %ld failed\n", i);
      return 1;
    }
  pthread_mutex_lock(&lock);
  while(started < n)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
  int bad = 0;
  for(long i = 0; i < n; i++) {
    void *r;
    pthread_join(t[i], &r);
    bad += r != 0;
  }
  // More threads, one after another, than the kernel has thread slots: each joined one's
  // slot must come back.
  long serial = 0;
  for(int i = 0; i < 1200; i++) {
    pthread_t s;
    void *r;
    if(pthread_create(&s, NULL, nothing, NULL) || pthread_join(s, &r) || r != (void *)7)
      break;
    serial++;
  }
  bad += serial != 1200;
  printf("threads: %ld created and joined one after another\n", serial);
  printf("threads: %ld threads on %ld CPUs, counter %ld of %ld, tls %s, %d not on their CPU\n",
         n, ncpu, counter, n * ROUNDS, bad || mine != -1 ? "wrong" : "right", misplaced);
  return counter == n * ROUNDS && !bad && mine == -1 && !misplaced ? 0 : 1;
}
