// Random bytes for AT_RANDOM and getrandom(2): RDRAND where the CPU has it, else a xorshift
// generator seeded from the TSC (kernel/random.c). Not for cryptography.
#pragma once
#include "types.h"

void get_random_bytes(void *buf, size_t n);
