// The smallest user program: greets on stdout and exits 0. Built with gcc -static into the
// built-in initramfs as /bin/hello, it is what `init=/bin/hello` runs.
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
  printf("hello from %s, pid %d\n", argc > 0 ? argv[0] : "?", (int)getpid());
  return 0;
}
