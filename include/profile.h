// The sampling profiler (kernel/profile.c): profile=<hz> samples where every CPU is, by NMI,
// during each benchmark point's timed runs (kernel/bench/point_profile.c prints them per point).
#pragma once
#include "stacktable.h"
#include "types.h"

struct trapframe;

// The rate the profiler was set up for; 0 until profile_setup succeeds.
extern u32 profile_hz;
// Samples kept per CPU between two profile_collect calls (distinct stacks).
#define PROFILE_CPU_STACKS 512

void profile_init(void);          // boot: with profile= set, sets up and measures the cost
int profile_setup(u32 hz);        // once (later calls with any hz return 0): 0 or -errno
void profile_start(void);         // every CPU is sampled from now on
void profile_stop(void);          // no more samples; callable from any thread
// Thread context, after profile_stop: moves every CPU's samples into into (NULL: drops them).
void profile_collect(struct prof_table *into);
// From the NMI handler (arch/x86_64/nmi.c): true if the NMI was the profiler's.
bool profile_nmi(struct trapframe *tf);

struct prof_table *profile_table_alloc(u32 size);   // NULL when out of memory
void profile_table_free(struct prof_table *t);
const char *profile_sym(u64 addr, void *arg);       // prof_name_fn over the kernel's symbols
// The human summary of t: samples, then the top n functions by self and by total samples.
void profile_print_top(const struct prof_table *t, const char *what, int n);

// A self-test hook (planted-profile-irqoff): drop samples taken with interrupts disabled, as a
// profiler driven by an ordinary interrupt would never take them.
extern bool profile_planted_skip_irqoff;
