// Wall-clock seconds: how long the radix tree's race runs (test_radix.c) and the rates of its
// benchmark (bench_radix.c).
#pragma once
#include <stddef.h>
#include <sys/time.h>

static inline double
now(void)
{
  struct timeval tv;

  gettimeofday(&tv, NULL);
  return tv.tv_sec + tv.tv_usec / 1e6;
}
