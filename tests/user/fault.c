// fault: dies the way argv[1] says (null, kernel, nx, ud2, div0, ro, abort, term), which the
// kernel must turn into a console line and the matching status, nothing more. Reaching the end is a
// failure: exit 99.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  printf("fault: %s did not fault\n", how);
  return 99;
}
