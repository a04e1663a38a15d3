// fpu: the initial x87/SSE state is Linux's, a thread inherits the rounding mode at creation,
// and registers keep their values across preemption: one thread per CPU plus one, each
// holding its own values in xmm0-xmm15 (all of ymm0-ymm15 where the kernel enabled AVX) and
// the x87 stack while it spins for a while.
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int have_avx;   // CPUID.1:ECX AVX and OSXSAVE, and XCR0 with SSE and AVX state

static void
detect_avx(void)
{
  unsigned a, b, c, d;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
  if(!(c & (1u << 28)) || !(c & (1u << 27)))
    return;
  __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
  have_avx = (a & 6) == 6;
}

// All 256 bits of ymm0-15 hold v (vbroadcastsd), a busy loop runs, and they are read back.
static long
ymm_check(unsigned long v)
{
  unsigned long out[16][4];
  __asm__ volatile(
    "vbroadcastsd (%1), %%ymm0\n vbroadcastsd (%1), %%ymm1\n vbroadcastsd (%1), %%ymm2\n"
    "vbroadcastsd (%1), %%ymm3\n vbroadcastsd (%1), %%ymm4\n vbroadcastsd (%1), %%ymm5\n"
    "vbroadcastsd (%1), %%ymm6\n vbroadcastsd (%1), %%ymm7\n vbroadcastsd (%1), %%ymm8\n"
    "vbroadcastsd (%1), %%ymm9\n vbroadcastsd (%1), %%ymm10\n vbroadcastsd (%1), %%ymm11\n"
    "vbroadcastsd (%1), %%ymm12\n vbroadcastsd (%1), %%ymm13\n vbroadcastsd (%1), %%ymm14\n"
    "vbroadcastsd (%1), %%ymm15\n"
    "mov $2000000, %%ecx\n1: dec %%ecx\n jnz 1b\n"
    "vmovdqu %%ymm0, 0(%0)\n vmovdqu %%ymm1, 32(%0)\n vmovdqu %%ymm2, 64(%0)\n"
    "vmovdqu %%ymm3, 96(%0)\n vmovdqu %%ymm4, 128(%0)\n vmovdqu %%ymm5, 160(%0)\n"
    "vmovdqu %%ymm6, 192(%0)\n vmovdqu %%ymm7, 224(%0)\n vmovdqu %%ymm8, 256(%0)\n"
    "vmovdqu %%ymm9, 288(%0)\n vmovdqu %%ymm10, 320(%0)\n vmovdqu %%ymm11, 352(%0)\n"
    "vmovdqu %%ymm12, 384(%0)\n vmovdqu %%ymm13, 416(%0)\n vmovdqu %%ymm14, 448(%0)\n"
    "vmovdqu %%ymm15, 480(%0)\n vzeroupper\n"
    :: "r"(out), "r"(&v)
    : "rcx", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
      "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  long bad = 0;
  for(int i = 0; i < 16; i++)
    for(int j = 0; j < 4; j++)
      bad += out[i][j] != v;
  return bad;
}

static int
spin_check(long id, double secs)
{
  double end = now() + secs;
  long bad = 0, rounds = 0;
  while(now() < end) {
    unsigned long v = id * 0x0101010101010101UL + rounds, out[16];
    __asm__ volatile(
      "movq %1, %%xmm0\n movq %1, %%xmm1\n movq %1, %%xmm2\n movq %1, %%xmm3\n"
      "movq %1, %%xmm4\n movq %1, %%xmm5\n movq %1, %%xmm6\n movq %1, %%xmm7\n"
      "movq %1, %%xmm8\n movq %1, %%xmm9\n movq %1, %%xmm10\n movq %1, %%xmm11\n"
      "movq %1, %%xmm12\n movq %1, %%xmm13\n movq %1, %%xmm14\n movq %1, %%xmm15\n"
      "mov $2000000, %%ecx\n1: dec %%ecx\n jnz 1b\n"
      "movq %%xmm0, 0(%0)\n movq %%xmm1, 8(%0)\n movq %%xmm2, 16(%0)\n movq %%xmm3, 24(%0)\n"
      "movq %%xmm4, 32(%0)\n movq %%xmm5, 40(%0)\n movq %%xmm6, 48(%0)\n movq %%xmm7, 56(%0)\n"
      "movq %%xmm8, 64(%0)\n movq %%xmm9, 72(%0)\n movq %%xmm10, 80(%0)\n movq %%xmm11, 88(%0)\n"
      "movq %%xmm12, 96(%0)\n movq %%xmm13, 104(%0)\n movq %%xmm14, 112(%0)\n movq %%xmm15, 120(%0)\n"
      :: "r"(out), "r"(v)
      : "rcx", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    for(int i = 0; i < 16; i++)
      bad += out[i] != v;
    volatile long double x = (long double)id + rounds;   // the x87 stack
    for(int i = 0; i < 100; i++)
      x = x * 1.0L;
    bad += x != (long double)id + rounds;
    if(have_avx)
      bad += ymm_check(v ^ 0x5555);
    rounds++;
  }
  if(bad)
    printf("fpu: thread %ld saw %ld wrong registers in %ld rounds\n", id, bad, rounds);
  return bad != 0 || rounds == 0;
}

static void *
worker(void *arg)
{
  long id = (long)arg;
  int wrong = fegetround() != FE_UPWARD;   // inherited from the creator
  fesetround(FE_TONEAREST);
  return (void *)(long)(spin_check(id + 1, 1.0) | wrong << 1);
}

int
main(void)
{
  unsigned mxcsr;
  unsigned short fcw;
  __asm__ volatile("stmxcsr %0; fnstcw %1" : "=m"(mxcsr), "=m"(fcw));
  detect_avx();
  int bad = mxcsr != 0x1f80 || fcw != 0x37f;
  if(bad)
    printf("fpu: initial mxcsr %#x fcw %#x, want 0x1f80 0x37f\n", mxcsr, fcw);
  long n = sysconf(_SC_NPROCESSORS_ONLN) + 1;
  if(n < 2 || n > 64)
    n = 4;
  pthread_t t[64];
  fesetround(FE_UPWARD);
  for(long i = 0; i < n; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  fesetround(FE_TONEAREST);
  for(long i = 0; i < n; i++) {
    void *r;
    pthread_join(t[i], &r);
    if(r)
      printf("fpu: thread %ld: %s\n", i, (long)r & 2 ? "rounding mode not inherited" : "registers lost");
    bad |= r != 0;
  }
  printf("fpu: %ld threads, %s, ymm %s\n", n, bad ? "FAILED" : "state kept",
         have_avx ? "checked" : "not enabled");
  return bad;
}
