// What the fuzz harnesses share: FUZZ_CHECK stops the run on a broken invariant, which
// libFuzzer reports as a crash and keeps the input of (tests/fuzz/run.sh).
#pragma once
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                    \
  do {                                                                      \
    if(!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,  \
              #cond);                                                       \
      abort();                                                              \
    }                                                                       \
  } while(0)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
