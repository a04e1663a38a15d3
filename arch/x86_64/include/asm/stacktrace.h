// Panic-time dumps: the trap frame's registers and a symbolized frame-pointer backtrace.
// Safe to call with a corrupt stack: every frame is checked before it is read.
#pragma once
#include "types.h"

struct trapframe;
void show_regs(struct trapframe *tf);
void show_backtrace(u64 rbp, u64 rip, u64 rsp);
// The frame-pointer walk behind it, without printing (the profiler's NMI handler uses it):
// at most max addresses, innermost first; *more (may be NULL) says the chain went on. It goes
// on through trap frames: after the entry code's return address, the interrupted rip, then
// the interrupted code's frames (arch/x86_64/unwind.c).
int stack_walk(u64 rbp, u64 rip, u64 rsp, u64 *pcs, int max, bool *more);
int stack_walk_tf(struct trapframe *tf, u64 *pcs, int max, bool *more);   // from where tf stopped
// The return address of alltraps' call to trap() (vectors.S): the walk's mark of a trap frame.
extern const char trap_return[];
// Prints addresses stack_walk saved earlier as a backtrace (lockdep's reports).
void stack_trace_print(const u64 *pcs, int n);
