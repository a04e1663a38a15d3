// exitgroup: exit_group ends every thread wherever it is: one spinning in user mode on each
// CPU, one asleep in a futex wait with no timeout, one in nanosleep. main returns 3 while they
// are all busy; the status must be 3, and the kernel must not wait for any of them.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int running;

static void *
spin(void *arg)
{
  __atomic_fetch_add(&running, 1, __ATOMIC_SEQ_CST);
  for(;;)
    ;
  return NULL;
}

static void *
wait_forever(void *arg)
{
  pthread_mutex_lock(&m);
  __atomic_fetch_add(&running, 1, __ATOMIC_SEQ_CST);
  for(;;)
    pthread_cond_wait(&never, &m);
  return NULL;
}

static void *
sleep_long(void *arg)
{
  __atomic_fetch_add(&running, 1, __ATOMIC_SEQ_CST);
  struct timespec ts = { 3600, 0 };
  nanosleep(&ts, NULL);
  return NULL;
}

int
main(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if(n < 1 || n > 64)
    n = 2;
  pthread_t t;
  for(long i = 0; i < n; i++)
    pthread_create(&t, NULL, spin, NULL);
  pthread_create(&t, NULL, wait_forever, NULL);
  pthread_create(&t, NULL, sleep_long, NULL);
  while(running < n + 2)
    sched_yield();
  struct timespec ts = { 0, 20 * 1000 * 1000 };
  nanosleep(&ts, NULL);   // let the sleepers really sleep
  return 3;
}
