// spin: argv[2] threads (default one per CPU plus one), each spinning in ring 3 for argv[1]
// seconds (default 2) without a system call: the tick must preempt them, and the kernel must
// not call it a lockup.
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs = 2;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
spinner(void *arg)
{
  // The clock is read rarely, so most of the time passes with no kernel entry at all.
  double end = now() + secs;
  while(now() < end)
    for(volatile long i = 0; i < 50000000; i++)
      ;
  return NULL;
}

int
main(int argc, char **argv)
{
  if(argc > 1)
    secs = atof(argv[1]);
  long n = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN) + 1;
  if(n < 1 || n > 64)
    n = 4;
  pthread_t t[64];
  for(long i = 1; i < n; i++)
    pthread_create(&t[i], NULL, spinner, NULL);
  spinner(NULL);
  for(long i = 1; i < n; i++)
    pthread_join(t[i], NULL);
  return 0;
}
