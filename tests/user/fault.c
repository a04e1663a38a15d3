// fault: dies the way argv[1] says (null, kernel, nx, ud2, div0, ro, abort, term, sysret), which
// the kernel must turn into a console line and the matching status, nothing more. Reaching the end is a
// failure: exit 99.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// A syscall instruction in the last two bytes below 0x7ffffffff000 (Linux's TASK_SIZE_MAX):
// its return address is the first byte past user space, which SYSRET must not be given (on
// Intel, a #GP in ring 0 on the user's stack: CVE-2012-0217). The kernel must return with
// IRET, and the fetch there faults in ring 3: SIGSEGV.
static void
syscall_at_the_top(void)
{
  char *page = (char *)0x7fffffffe000UL;
  if(mmap(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != page &&
     mprotect(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))   // the stack's top page here
    return;
  page[4094] = 0x0f;   // syscall
  page[4095] = 0x05;
  __asm__ volatile("mov $39, %%eax\n"   // getpid
                   "jmp *%0" ::"r"(page + 4094) : "rax", "rcx", "r11", "memory");
}

static char data_page[64] = { (char)0xc3 };   // a ret, in a non-executable page

int
main(int argc, char **argv)
{
  const char *how = argc > 1 ? argv[1] : "null";
  volatile int zero = 0;
  if(!strcmp(how, "null"))
    *(volatile int *)0 = 1;
  else if(!strcmp(how, "kernel"))
    printf("%d\n", *(volatile int *)0xffffffff80100000UL);
  else if(!strcmp(how, "nx"))
    ((void (*)(void))data_page)();
  else if(!strcmp(how, "ud2"))
    __asm__ volatile("ud2");
  else if(!strcmp(how, "div0"))   // in asm: gcc turns 1 / x into a compare
    __asm__ volatile("xorl %%edx, %%edx; movl $1, %%eax; divl %0" ::"r"(zero) : "eax", "edx");
  else if(!strcmp(how, "ro"))
    *(volatile char *)main = 0;
  else if(!strcmp(how, "abort"))   // raise(SIGABRT): tgkill
    abort();
  else if(!strcmp(how, "term"))
    kill(getpid(), SIGTERM);
  else if(!strcmp(how, "sysret"))
    syscall_at_the_top();
  printf("fault: %s did not fault\n", how);
  return 99;
}
