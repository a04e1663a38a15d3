// Host test of the frame-pointer walk (arch/x86_64/unwind.c) on stacks built by hand: through
// an interrupt's trap frame into a framed function, a frameless one and one stopped in its
// prologue or at its ret, an NMI on a stack of its own over an interrupt, a trap from ring 3.
#include <string.h>
#include "check.h"
#include "ksyms.h"
#include <asm/paging.h>
#include <asm/stacktrace.h>
#include <asm/traps.h>

// Eight fake functions of 0x100 bytes each, f0 at text[0]; those with a frame begin
// push %rbp; mov %rsp,%rbp, and f3 (a leaf in assembly) has none. Each ends in a ret.
static u8 text[0x800];
const char trap_return[8];   // alltraps' return address from trap() (vectors.S)

enum { OUTER, MID, VICTIM, LEAF, HANDLER, TRAP, HANDLER2, NFUNC };

static u64
at(int f, int off)
{
  return (u64)&text[f * 0x100 + off];
}

const char *
ksym_lookup(u64 addr, u64 *offset)
{
  static const char *const names[] = { "outer", "mid", "victim", "leaf", "handler", "trap",
                                       "handler2" };
  if(addr < (u64)text || addr >= at(NFUNC, 0))
    return NULL;
  *offset = (addr - (u64)text) % 0x100;
  return names[(addr - (u64)text) / 0x100];
}

// Two stacks: the thread's and, above it, an IST stack (the NMI's).
static struct {
  u64 thread[256];
  u64 ist[256];
} mem;

bool
kernel_addr_mapped(u64 va)
{
  return (va >= (u64)text && va < (u64)text + sizeof(text)) ||
         (va >= (u64)&mem && va < (u64)&mem + sizeof(mem));
}

// A frame at *slot: the saved rbp and the return address.
static u64
frame(u64 *slot, u64 *saved_rbp, u64 ret)
{
  slot[0] = (u64)saved_rbp;
  slot[1] = ret;
  return (u64)slot;
}

// The bottom of an interrupted thread: outer called mid (frame at thread[200]), which returns
// to outer+0x10, and mid's frame at thread[190] (mid called the victim, returning to
// mid+0x10). Returns mid's frame.
static u64 *
thread_base(void)
{
  memset(&mem, 0, sizeof(mem));
  frame(&mem.thread[200], NULL, 0);   // outer's: the chain ends
  frame(&mem.thread[190], &mem.thread[200], at(OUTER, 0x10));
  return &mem.thread[190];
}

// An interrupt taken at (rip, rsp, rbp) on stack s below index top: the CPU's and alltraps'
// trap frame, then trap()'s frame just under it, then the handler's under that. Returns the
// handler's rbp.
static u64
interrupt(u64 *s, int top, u64 rip, u64 rsp, u64 rbp, int cs, int handler)
{
  struct trapframe *tf = (struct trapframe *)&s[top - 22];
  memset(tf, 0, sizeof(*tf));
  tf->rip = rip;
  tf->rsp = rsp;
  tf->rbp = rbp;
  tf->cs = cs;
  u64 *trap_frame = (u64 *)tf - 2;
  frame(trap_frame, (u64 *)rbp, (u64)trap_return);
  return frame(trap_frame - 4, trap_frame, at(TRAP, 0x10));
}

static bool
same(const u64 *pcs, int n, const u64 *want, int nwant)
{
  if(n != nwant) {
    fprintf(stderr, "walk: %d frames, want %d\n", n, nwant);
    return false;
  }
  return memcmp(pcs, want, n * sizeof(u64)) == 0;
}

int
main(void)
{
  u64 pcs[16], *mid;
  bool more;
  int n;

  for(int f = 0; f < NFUNC; f++) {
    u8 *p = &text[f * 0x100];
    if(f != LEAF)
      memcpy(p, "\x55\x48\x89\xe5", 4);   // push %rbp; mov %rsp,%rbp
    else
      p[0] = 0x90;
    memset(p + 4, 0x90, 0xfb);
    p[0xff] = 0xc3;
  }

  // An interrupt in the victim, its frame set up: the victim is a frame of its own.
  mid = thread_base();
  u64 *victim = &mem.thread[180];
  frame(victim, mid, at(MID, 0x10));
  u64 rbp = interrupt(mem.thread, 170, at(VICTIM, 0x20), (u64)(victim - 2), (u64)victim, 8,
                      HANDLER);
  n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 16, &more);
  u64 w1[] = { at(HANDLER, 0x30), at(TRAP, 0x10), (u64)trap_return, at(VICTIM, 0x20),
               at(MID, 0x10), at(OUTER, 0x10) };
  CHECK(same(pcs, n, w1, 6) && !more);
  // Cut at max: more says so; also right at the trap frame.
  n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 4, &more);
  CHECK(n == 4 && more && pcs[3] == at(VICTIM, 0x20));
  n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 3, &more);
  CHECK(n == 3 && more && pcs[2] == (u64)trap_return);

  // An interrupt in a frameless leaf: its return address is on top of its stack, rbp is mid's.
  mid = thread_base();
  mem.thread[185] = at(MID, 0x10);
  rbp = interrupt(mem.thread, 170, at(LEAF, 0x20), (u64)&mem.thread[185], (u64)mid, 8, HANDLER);
  n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 16, NULL);
  u64 w2[] = { at(HANDLER, 0x30), at(TRAP, 0x10), (u64)trap_return, at(LEAF, 0x20),
               at(MID, 0x10), at(OUTER, 0x10) };
  CHECK(same(pcs, n, w2, 6));

  // Stopped at the victim's first byte (the push), at its mov (under the saved rbp) and at its
  // ret (the frame gone): the caller comes from the stack each time, once.
  int offs[] = { 0, 1, 0xff }, slots[] = { 0, 1, 0 };
  for(int i = 0; i < 3; i++) {
    mid = thread_base();
    mem.thread[184] = (u64)mid;   // the saved rbp, when under it
    mem.thread[184 + slots[i]] = at(MID, 0x10);
    rbp = interrupt(mem.thread, 170, at(VICTIM, offs[i]), (u64)&mem.thread[184], (u64)mid, 8,
                    HANDLER);
    n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 16, NULL);
    u64 w3[] = { at(HANDLER, 0x30), at(TRAP, 0x10), (u64)trap_return, at(VICTIM, offs[i]),
                 at(MID, 0x10), at(OUTER, 0x10) };
    CHECK(same(pcs, n, w3, 6));
    // The same place as the walk's start (the profiler's NMI frame: stack_walk_tf).
    struct trapframe tf = { .rip = at(VICTIM, offs[i]), .rsp = (u64)&mem.thread[184],
                            .rbp = (u64)mid };
    n = stack_walk_tf(&tf, pcs, 16, NULL);
    CHECK(same(pcs, n, w3 + 3, 3));
  }

  // An NMI on its IST stack (above the thread's) over an interrupt handler over the victim:
  // two trap frames, the first of them back down to a lower stack.
  mid = thread_base();
  frame(victim, mid, at(MID, 0x10));
  u64 h1 = interrupt(mem.thread, 170, at(VICTIM, 0x20), (u64)(victim - 2), (u64)victim, 8,
                     HANDLER);
  u64 h2 = interrupt(mem.ist, 200, at(HANDLER, 0x40), h1 - 16, h1, 8, HANDLER2);
  n = stack_walk(h2, at(HANDLER2, 0x50), 0, pcs, 16, NULL);
  u64 w4[] = { at(HANDLER2, 0x50), at(TRAP, 0x10), (u64)trap_return, at(HANDLER, 0x40),
               at(TRAP, 0x10), (u64)trap_return, at(VICTIM, 0x20), at(MID, 0x10),
               at(OUTER, 0x10) };
  CHECK(same(pcs, n, w4, 9));

  // A trap from ring 3 ends the walk at the entry code: the user's stack is not read.
  mid = thread_base();
  rbp = interrupt(mem.thread, 170, at(VICTIM, 0x20), (u64)(victim - 2), (u64)victim, 0x23,
                  HANDLER);
  n = stack_walk(rbp, at(HANDLER, 0x30), 0, pcs, 16, NULL);
  CHECK(n == 3 && pcs[2] == (u64)trap_return);

  // A trap frame whose saved rbp leads back to itself stops after MAX_TRAPS crossings.
  memset(&mem, 0, sizeof(mem));
  rbp = interrupt(mem.thread, 170, at(HANDLER, 0x20), 0, 0, 8, HANDLER);
  ((struct trapframe *)&mem.thread[148])->rbp = rbp;
  n = stack_walk(rbp, 0, 0, pcs, 16, &more);
  CHECK(n > 0 && n < 16 && !more);

  // A corrupt chain ends the walk: an unmapped or misaligned rbp.
  CHECK(stack_walk(8, at(HANDLER, 0x30), 0, pcs, 16, NULL) == 1);
  CHECK(stack_walk((u64)&mem.thread[10] + 4, at(HANDLER, 0x30), 0, pcs, 16, NULL) == 1);
  return check_summary("test_unwind");
}
