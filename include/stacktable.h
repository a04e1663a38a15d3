// Profile tables: sampled stacks and their counts, merged and ranked; no kernel state, so the
// profiler (kernel/profile.c) and the host test share them (kernel/lib/stacktable.c).
#pragma once
#include "types.h"

#define PROF_DEPTH 16   // frames kept of a stack, the innermost (a deeper one is cut at the root)

// What a CPU was doing when sampled. A kernel stack is its frames; the others are one word.
enum prof_kind {
  PROF_KERNEL,
  PROF_IDLE,     // halted in the idle loop with nothing to run
  PROF_USER,     // in user mode: its stack is not the kernel's to walk
  PROF_NKINDS,
};

extern const char *const prof_kind_name[PROF_NKINDS];

// A distinct stack: function start addresses, innermost first.
struct prof_stack {
  u32 count;     // samples (0: a free slot)
  // NMIs that took them: a late NMI stands for every period its CPU missed (kernel/profile.c)
  u32 hits;
  u8 kind;       // enum prof_kind
  u8 depth;      // frames in pc
  u8 cut;        // the stack went deeper than PROF_DEPTH: its outermost frames are missing
  u64 pc[PROF_DEPTH];
};

// An open-addressing hash table of stacks. One writer at a time, no locks and no allocation:
// the profiler's NMI handler adds to its CPU's own table.
struct prof_table {
  u32 size;            // slots, a power of two
  u32 used;
  u64 samples;         // every count added, the dropped ones too
  u64 dropped;         // samples that found the table full (their stacks were new to it)
  u64 cost_ns;         // the NMI handlers' time on these samples (kept by kernel/profile.c)
  // By the clock, over the intervals the samples were taken in (kept by kernel/profile.c; 0:
  // not known): every CPU's time, and of it the time halted in the idle loop.
  u64 cpu_ns, idle_ns;
  struct prof_stack *slot;
};

void prof_table_init(struct prof_table *t, struct prof_stack *slots, u32 size);
void prof_table_reset(struct prof_table *t);
// Adds n samples of stack s, taken by one NMI (its count and hits are ignored); false if the
// table is full.
bool prof_table_add(struct prof_table *t, const struct prof_stack *s, u32 n);
// The same, taken by hits NMIs (the sampler's idle samples: one for each idle CPU).
bool prof_table_add_hits(struct prof_table *t, const struct prof_stack *s, u32 n, u32 hits);
void prof_table_merge(struct prof_table *dst, const struct prof_table *src);

// Slot indexes of the used slots, largest count first; returns how many (at most t->used).
u32 prof_sorted(const struct prof_table *t, u32 *idx);

// A function's samples: self, where it was the innermost frame; total, where it was on the
// stack at all (once per sample, however often it recurs). Idle and user samples count as the
// pseudo-functions addr 0 + kind (no kernel function starts there).
struct prof_func {
  u64 addr;
  u64 self, total;
};

// Every function of t into f (at most max; returns how many), sorted by self (by_total false)
// or total, largest first.
u32 prof_funcs(const struct prof_table *t, struct prof_func *f, u32 max, bool by_total);

// name(addr, arg): a function's name from its start address, or for addr < PROF_NKINDS the
// pseudo-function of that kind.
typedef const char *(*prof_name_fn)(u64 addr, void *arg);

// The folded stack of s, root first, frames separated by ';', into buf (at most size - 1
// bytes and a NUL); a stack cut at PROF_DEPTH, or too long for size, keeps its innermost
// frames behind a first frame "...". Returns the length.
int prof_fold(char *buf, size_t size, const struct prof_stack *s, prof_name_fn name, void *arg);

// Where t's samples went, by category: cats[k] (k < ncats) is a NULL-terminated list of
// function names. A kernel stack counts in count[k] for the first category that names one of
// its frames (a name matches a frame with or without a GCC suffix such as ".isra.0"), so the
// order settles nesting: a wait inside an operation is listed before the operation. A kernel
// stack no list names counts in count[ncats + PROF_SPLIT_OTHER], as do user samples; an idle
// one in count[ncats + PROF_SPLIT_IDLE]. Dropped samples (a full table) count nowhere.
// Returns the samples counted: the sum of count[0 .. ncats + 1]. hits (NULL: not wanted) gets
// the NMIs behind them the same way.
enum { PROF_SPLIT_IDLE, PROF_SPLIT_OTHER };
u64 prof_split(const struct prof_table *t, prof_name_fn name, void *arg,
               const char *const *const *cats, u32 ncats, u64 *count, u64 *hits);
