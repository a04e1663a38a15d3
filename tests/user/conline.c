// conline: console lines as a program writes them. A 1000-byte line in ten write(2)s while a
// child writes lines of its own meanwhile, and a line a child starts and its parent ends
// after the child has exited. The user-console self-test finds each whole on the console;
// the program itself only checks that every write succeeded. Exits 0 when all did.
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LONG 1000

static int fails;

static void
put(const char *s, size_t n)
{
  if(write(1, s, n) != (ssize_t)n)
    fails++;
}

int
main(void)
{
  // "conline-long:" then digits 0-9 over and over, 1000 bytes in all before the newline.
  char line[LONG + 1];
  memcpy(line, "conline-long:", 13);
  for(int i = 13; i < LONG; i++)
    line[i] = '0' + i % 10;
  line[LONG] = '\n';
  pid_t child = fork();
  if(child == 0) {
    for(int i = 0; i < 20; i++) {
      printf("conline-child %d\n", i);
      fflush(stdout);
      sched_yield();
    }
    _exit(0);
  }
  for(int i = 0; i < 10; i++) {
    put(line + i * 100, i == 9 ? 101 : 100);
    sched_yield();
  }
  int status;
  if(child < 0 || waitpid(child, &status, 0) != child || status != 0)
    fails++;
  // A child starts a line and exits; its parent ends it: one line, as on a terminal.
  child = fork();
  if(child == 0) {
    put("conline-join: started by the child,", 35);
    _exit(0);
  }
  if(child < 0 || waitpid(child, &status, 0) != child || status != 0)
    fails++;
  put(" ended by the parent\n", 21);
  printf("conline: %s\n", fails ? "some writes failed" : "all writes done");
  return fails != 0;
}
