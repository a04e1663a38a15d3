// stack-walk-trap: a backtrace taken in an interrupt or exception handler goes on through the
// trap frame into the code that was interrupted, with or without a frame, and its callers.
#include "ksyms.h"
#include "selftest.h"
#include <asm/stacktrace.h>
#include <asm/traps.h>

#define DEPTH 32
#define STR(x) #x
#define XSTR(x) STR(x)

static u64 walked[DEPTH];
static int nwalked;

static void
walk_handler(struct trapframe *tf)
{
  nwalked = stack_walk((u64)__builtin_frame_address(0), 0, 0, walked, DEPTH, NULL);
}

// Functions with a frame, stopped by an interrupt (`int n` goes through an interrupt gate as
// a device's interrupt does) and by an exception (int3: #BP).
static void __attribute__((noinline))
walk_victim_irq(void)
{
  __asm__ volatile("int $" XSTR(VEC_TEST) ::: "memory");
}

static void __attribute__((noinline))
walk_victim_bp(void)
{
  __asm__ volatile("int3" ::: "memory");
}

// One without a frame, as assembly often is: stopped at its ret, its return address on top.
void walk_victim_leaf(void);
__asm__(".text\n"
        ".globl walk_victim_leaf\n"
        ".type walk_victim_leaf, @function\n"
        "walk_victim_leaf:\n"
        "  int $" XSTR(VEC_TEST) "\n"
        "  ret\n"
        ".size walk_victim_leaf, . - walk_victim_leaf\n");

// The barrier keeps the call from becoming a jump (a tail call leaves no frame of the caller).
static void __attribute__((noinline))
walk_caller(void (*fn)(void))
{
  fn();
  barrier();
}

// The function an entry of the walk stands in: a return address one byte back (inside the
// call), the interrupted rip (after trap_return) as it is.
static u64
func_of(int i)
{
  u64 a = walked[i] - (i > 0 && walked[i - 1] != (u64)trap_return), off;
  return ksym_lookup(a, &off) ? a - off : 0;
}

// Raises the trap in fn under walk_caller, and checks the three entries after trap_return:
// fn, walk_caller, walk_case.
static bool __attribute__((noinline))
walk_case(const char *what, void (*fn)(void))
{
  u64 want[3] = { (u64)fn, (u64)walk_caller, (u64)walk_case }, off;
  int k;

  nwalked = 0;
  walk_caller(fn);
  barrier();
  for(k = 0; k < nwalked && walked[k] != (u64)trap_return; k++)
    ;
  bool ok = k + 3 < nwalked;
  for(int i = 0; i < 3 && ok; i++)
    ok = func_of(k + 1 + i) == want[i];
  const char *first = k + 1 < nwalked ? ksym_lookup(func_of(k + 1), &off) : NULL;
  selftest_extra("%s=%s", what, !ok ? "fail" : first ? first : "?");
  return ok;
}

static bool
stack_walk_trap(void)
{
  bool ok;

  set_irq_handler(VEC_TEST, walk_handler);
  set_irq_handler(3, walk_handler);
  ok = walk_case("irq", walk_victim_irq);
  ok &= walk_case("exception", walk_victim_bp);
  ok &= walk_case("frameless", walk_victim_leaf);
  set_irq_handler(VEC_TEST, NULL);
  set_irq_handler(3, NULL);
  return ok;
}
SELFTEST("stack-walk-trap", stack_walk_trap);
