// Kernel code reaching an adopted mm's lower half: get_user/put_user and copies that return
// -EFAULT instead of panicking when nothing is mapped there (Linux's uaccess and __ex_table).
#pragma once
#include "errno.h"
#include "types.h"
#include "vm.h"

// One entry per instruction allowed to fault: the page-fault handler resumes at fixup.
struct exception_table_entry {
  u64 insn, fixup;
};

// The table linker.ld gathers from every __ex_table section, searched on a fault.
extern const struct exception_table_entry __ex_table_start[], __ex_table_end[];

struct trapframe;
bool fixup_exception(struct trapframe *tf);

#define EX_ENTRY(insn, fixup) \
  ".pushsection __ex_table, \"a\"\n .balign 8\n .quad " #insn ", " #fixup "\n .popsection\n"

// With SMAP on, the kernel reaches user pages only between stac and clac (SDM vol. 3A, 4.6);
// on a CPU without SMAP both instructions are invalid, so they are skipped.
extern bool smap_enabled;

#ifdef CONFIG_DEBUG
void lazy_tlb_check_user_access(void);   // arch/x86_64/tlb.c
#endif

static inline void
user_access_begin(void)
{
#ifdef CONFIG_DEBUG
  lazy_tlb_check_user_access();   // none in a lazy TLB section: its CPU may hold stale entries
#endif
  if(smap_enabled)
    __asm__ volatile("stac" ::: "memory");
}

static inline void
user_access_end(void)
{
  if(smap_enabled)
    __asm__ volatile("clac" ::: "memory");
}

static inline bool
access_ok(const void *p, size_t n)
{
  return (u64)p < USER_END && n <= USER_END - (u64)p;
}

// The error starts as -EFAULT and the instruction after the access clears it; a fault
// resumes past that instruction, so no separate fixup code is needed.
// ptr must point to a non-const object of 1, 2, 4 or 8 bytes.
#define get_user(x, ptr)                                                    \
  ({                                                                        \
    int __err = -EFAULT;                                                    \
    __typeof__(*(ptr)) __val = 0;                                           \
    if(access_ok((ptr), sizeof(*(ptr)))) {                                  \
      user_access_begin();                                                  \
      __asm__ volatile("1: mov %2, %1\n"                                    \
                       "   xor %0, %0\n"                                    \
                       "2:\n" EX_ENTRY(1b, 2b)                              \
                       : "+r"(__err), "+r"(__val)                           \
                       : "m"(*(ptr)));                                      \
      user_access_end();                                                    \
    }                                                                       \
    (x) = __val;                                                            \
    __err;                                                                  \
  })

#define put_user(x, ptr)                                                    \
  ({                                                                        \
    int __err = -EFAULT;                                                    \
    __typeof__(*(ptr)) __val = (x);                                         \
    if(access_ok((ptr), sizeof(*(ptr)))) {                                  \
      user_access_begin();                                                  \
      __asm__ volatile("1: mov %2, %1\n"                                    \
                       "   xor %0, %0\n"                                    \
                       "2:\n" EX_ENTRY(1b, 2b)                              \
                       : "+r"(__err), "=m"(*(ptr))                          \
                       : "r"(__val));                                       \
      user_access_end();                                                    \
    }                                                                       \
    __err;                                                                  \
  })

// Both return the number of bytes NOT copied (Linux's convention): 0 on success.
size_t copy_from_user(void *dst, const void *src, size_t n);
size_t copy_to_user(void *dst, const void *src, size_t n);
size_t clear_user(void *dst, size_t n);
// A NUL-terminated string of at most n bytes (with the NUL): its length, or -EFAULT, or
// -ENAMETOOLONG when no NUL comes within n.
long strncpy_from_user(char *dst, const char *src, size_t n);
