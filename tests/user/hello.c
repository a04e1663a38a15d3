// hello: the smallest glibc program (printf, argv, environ, getpid) run in ring 3; exits 0
// when what the kernel gave it at entry is right, 1 otherwise.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
  const char *home = getenv("HOME");
  printf("hello from user mode: argc %d argv[0] %s pid %d HOME %s\n", argc, argv[0],
         (int)getpid(), home ? home : "(unset)");
  for(int i = 1; i < argc; i++)
    printf("argv[%d] = %s\n", i, argv[i]);
  return getpid() > 0 && argc >= 1 && home && strcmp(home, "/") == 0 ? 0 : 1;
}
