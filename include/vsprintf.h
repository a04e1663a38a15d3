// Bounded formatted output (vsnprintf, snprintf, scnprintf) for printk and friends.
// Integer, character, string and pointer conversions only: the kernel has no floating point.
#pragma once
#include <stdarg.h>
#include "compiler.h"
#include "types.h"

// The host test links kernel/lib/vsprintf.c next to libc, whose functions have
// the same names, and compares the two. Under __KERNEL_HOST_TEST every user of
// this header (the kernel file and the test) therefore sees the kernel
// versions as kvsnprintf, ksnprintf, ... while libc keeps its own symbols.
// A test reaches libc's snprintf only through code placed before this include.
#ifdef __KERNEL_HOST_TEST
#define vsnprintf kvsnprintf
#define vscnprintf kvscnprintf
#define snprintf ksnprintf
#define scnprintf kscnprintf
#endif

// Formats into buf, never writing more than size bytes, and NUL-terminates
// whenever size > 0. Returns the length the whole output would have had
// (C11 7.21.6.12), so a return >= size means it was truncated.
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

// As above but return the bytes actually stored, not counting the NUL
// (Linux's scnprintf): safe to add to an offset into buf.
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
