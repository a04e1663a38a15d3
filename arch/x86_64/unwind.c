// The frame-pointer walk behind backtraces, lockdep's traces and the profiler: up the rbp chain
// and on through the trap frames the entry code (vectors.S) leaves between an interrupt,
// exception or NMI and the code it stopped. Pure over memory: the host test runs it on stacks
// of its own (tests/host/test_unwind.c).
#include "ksyms.h"
#include <asm/paging.h>
#include <asm/stacktrace.h>
#include <asm/traps.h>

// Trap frames a walk goes through at most: an NMI over an exception over an interrupt is three.
#define MAX_TRAPS 4

#define OP_PUSH_RBP 0x55
#define OP_RET 0xc3

static bool
mapped(u64 addr, u64 len)
{
  return kernel_addr_mapped(addr) && kernel_addr_mapped(addr + len - 1);
}

// GCC's shrink-wrapping sets up a function's frame only on the paths that need one, so a
// function that does not begin with `push %rbp` may still have pushed it further on; then the
// top of the stack holds the saved rbp, not a return address, and is no text address.
static bool
is_text(u64 addr)
{
  u64 off;
  return ksym_lookup(addr, &off) != NULL;
}

// Where the return address of a function stopped at rip lies when the rbp chain does not have
// it yet: its offset above the stack pointer, or -1 when the function's frame is set up (rbp
// is its own, and the chain goes on from it). With frame pointers every function that has a
// frame begins `push %rbp; mov %rsp,%rbp` (55 48 89 e5). Stopped at the push, or at a function
// without one (assembly, or shrink-wrapped), the return address is on top; between the push
// and the mov, under the saved rbp; at the `ret`, the frame is already gone (leave or pop %rbp
// ran) and it is on top again.
static int
ret_slot(u64 rip)
{
  u64 off;
  const u8 *start;

  if(!ksym_lookup(rip, &off) || !mapped(rip - off, off + 1))
    return -1;
  start = (const u8 *)(rip - off);
  if(start[off] == OP_RET || start[0] != OP_PUSH_RBP || off == 0)
    return 0;
  if(off == 1)
    return 8;
  return -1;
}

// Adds the stopped code's rip, and its caller if its frame does not hold that yet.
static int
add_stopped(u64 rip, u64 rsp, u64 *pcs, int n, int max)
{
  int slot;

  if(n < max)
    pcs[n++] = rip;
  if(!rsp || (slot = ret_slot(rip)) < 0 || !mapped(rsp + slot, 8) || n == max)
    return n;
  if(is_text(*(u64 *)(rsp + slot)))
    pcs[n++] = *(u64 *)(rsp + slot);
  return n;
}

// Walks from (rbp, rip): up to max addresses, the innermost first (rip, then return
// addresses); rsp is the stopped code's stack pointer (0 if unknown). Every frame is checked to
// be mapped before it is read: a corrupt chain ends the walk instead of faulting again. Reads
// nothing but the stack and the symbol table, so an NMI handler may call it. *more (if not
// NULL) says whether the chain went on past max.
//
// A frame whose return address is trap_return is trap()'s, called by alltraps with the struct
// trapframe at its stack pointer: just above that return address. The walk takes the
// interrupted rip from it as a frame of its own (and its caller, if it was stopped before its
// frame was set up), then goes on from the saved rbp. That rbp may lie on another stack (an
// NMI, #DF, #MC or #DB runs on its IST stack), so there the rule that a caller's frame lies
// higher is not checked; MAX_TRAPS bounds a chain that loops through trap frames. A trap
// frame from ring 3 ends the walk: the user's stack is not the kernel's to read here.
int
stack_walk(u64 rbp, u64 rip, u64 rsp, u64 *pcs, int max, bool *more)
{
  int n = 0, traps = 0;

  if(more)
    *more = false;
  if(rip)
    n = add_stopped(rip, rsp, pcs, n, max);
  while(rbp) {
    if((rbp & 7) || !mapped(rbp, 16))
      break;
    u64 *frame = (u64 *)rbp;
    if(!frame[1])
      break;
    if(n == max) {
      if(more)
        *more = true;
      break;
    }
    pcs[n++] = frame[1];
    if(frame[1] == (u64)trap_return) {
      struct trapframe *tf = (struct trapframe *)(frame + 2);
      if(traps++ == MAX_TRAPS || !mapped((u64)tf, sizeof(*tf)) || (tf->cs & 3) || !tf->rip)
        break;
      if(n == max) {
        if(more)
          *more = true;
        break;
      }
      n = add_stopped(tf->rip, tf->rsp, pcs, n, max);
      rbp = tf->rbp;
      continue;
    }
    if(frame[0] <= rbp)   // stacks grow down: a caller's frame is higher
      break;
    rbp = frame[0];
  }
  return n;
}

int
stack_walk_tf(struct trapframe *tf, u64 *pcs, int max, bool *more)
{
  return stack_walk(tf->rbp, tf->rip, tf->rsp, pcs, max, more);
}
