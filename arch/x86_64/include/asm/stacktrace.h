// Panic-time dumps: the trap frame's registers and a symbolized frame-pointer backtrace.
// Safe to call with a corrupt stack: every frame is checked before it is read.
#pragma once
#include "types.h"

struct trapframe;
void show_regs(struct trapframe *tf);
void show_backtrace(u64 rbp, u64 rip, u64 rsp);
