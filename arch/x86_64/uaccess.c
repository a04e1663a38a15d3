// The copies between kernel memory and an mm's lower half, and the search of __ex_table
// that turns a fault at a listed instruction into a jump to its fixup.
#include <asm/traps.h>
#include <asm/uaccess.h>


// rep movsb is restartable: at a fault %rcx still counts the bytes left (SDM vol. 2B, REP),
// which is what the copies return.
static size_t
copy_bytes(void *dst, const void *src, size_t n)
{
  user_access_begin();
  __asm__ volatile("1: rep movsb\n"
                   "2:\n" EX_ENTRY(1b, 2b)
                   : "+D"(dst), "+S"(src), "+c"(n)
                   :
                   : "memory");
  user_access_end();
  return n;
}

static size_t
zero_bytes(void *dst, size_t n)
{
  user_access_begin();
  __asm__ volatile("1: rep stosb\n"
                   "2:\n" EX_ENTRY(1b, 2b)
                   : "+D"(dst), "+c"(n)
                   : "a"(0)
                   : "memory");
  user_access_end();
  return n;
}

size_t
clear_user(void *dst, size_t n)
{
  return access_ok(dst, n) ? zero_bytes(dst, n) : n;
}

long
strncpy_from_user(char *dst, const char *src, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    char c;
    if(get_user(c, (char *)src + i))
      return -EFAULT;
    dst[i] = c;
    if(!c)
      return i;
  }
  return -ENAMETOOLONG;
}

size_t
copy_from_user(void *dst, const void *src, size_t n)
{
  return access_ok(src, n) ? copy_bytes(dst, src, n) : n;
}

size_t
copy_to_user(void *dst, const void *src, size_t n)
{
  return access_ok(dst, n) ? copy_bytes(dst, src, n) : n;
}

// A handful of entries: a linear search (Linux sorts its table and bisects).
bool
fixup_exception(struct trapframe *tf)
{
  for(const struct exception_table_entry *e = __ex_table_start; e < __ex_table_end; e++) {
    if(e->insn == tf->rip) {
      tf->rip = e->fixup;
      return true;
    }
  }
  return false;
}
