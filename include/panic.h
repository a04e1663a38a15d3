// panic: a kernel bug. Prints the CPU, registers and a symbolized backtrace, the PANIC line of
// doc/console.md, then ends the run with failure (or halts every CPU for gdb with panic=halt).
#pragma once
#include "compiler.h"
#include "types.h"

struct trapframe;

void panic(const char *fmt, ...) __noreturn __printf(1, 2);
void panic_trap(struct trapframe *tf, const char *fmt, ...) __noreturn __printf(2, 3);
bool panic_in_progress(void);

#define BUG_ON(cond)                                                        \
  do {                                                                      \
    if(unlikely(cond))                                                      \
      panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__);             \
  } while(0)
