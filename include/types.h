// Fixed-width integer types and basic definitions.
// Built from the compiler's freestanding headers, so host tests include it unchanged.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef __KERNEL_HOST_TEST
typedef long ssize_t;
#endif
