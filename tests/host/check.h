// A minimal checker for host unit tests: CHECK records a failure and goes on.
// Each test binary ends with the plain "N passed, N failed" line and exits non-zero on failure.
#pragma once
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if(cond) {                                                             \
      check_passed++;                                                      \
    } else {                                                               \
      check_failed++;                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,     \
              #cond);                                                      \
    }                                                                      \
  } while(0)

static inline int
check_summary(const char *name)
{
  printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
  return check_failed ? 1 : 0;
}
