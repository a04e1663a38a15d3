// Compiler attributes and small helpers shared by kernel and host-test builds.
// Linux spellings, so code reads the same as in Linux.
#pragma once

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __noreturn __attribute__((noreturn))
#define __unused __attribute__((unused))
#define __section(s) __attribute__((section(s)))
#define __used __attribute__((used))
#define __printf(a, b) __attribute__((format(printf, a, b)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define container_of(ptr, type, member) \
  ((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

// READ_ONCE/WRITE_ONCE: one untorn access the compiler may not merge,
// repeat or elide (Linux's names; ordering is stated separately at each use).
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier() __asm__ __volatile__("" ::: "memory")

// Ordering, with Linux's names (Documentation/memory-barriers.txt). C11 atomics underneath, so
// the same lines compile for the kernel and for host tests; on x86-64 (TSO) an acquire load
// and a release store are plain moves that the compiler may not reorder, and smp_mb is a
// locked instruction or mfence (Intel SDM vol. 3A, 9.2.2). Each use names what it pairs with.
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
// A store, then a full barrier: later loads see no earlier state (Linux's set_current_state).
#define smp_store_mb(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
