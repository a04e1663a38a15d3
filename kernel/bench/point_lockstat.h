// Lock statistics of the benchmark points (lockstat=yes; kernel/bench/point_lockstat.c): the hooks
// the runner calls around each run and after each point's BENCH line.
#pragma once
#include "types.h"

#ifdef CONFIG_LOCK_STAT
void bench_lockstat_begin(int slot, u32 round);   // before run `round` of column `slot` (0: warm-up)
void bench_lockstat_start(void);                   // the interval starts (start_together)
void bench_lockstat_stop(void);                    // it ends (finish_together)
void bench_lockstat_end(void);                     // the run is over: its counts go to its column
void bench_lockstat_print(int slot, const char *suite, const char *point, int threads);
#else
// LOCKSTAT=0: the command line refuses lockstat=yes (kernel/lib/cmdline.c), so nothing to do.
static inline void bench_lockstat_begin(int slot, u32 round) {}
static inline void bench_lockstat_start(void) {}
static inline void bench_lockstat_stop(void) {}
static inline void bench_lockstat_end(void) {}
static inline void bench_lockstat_print(int slot, const char *suite, const char *point, int threads) {}
#endif
