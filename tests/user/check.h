// check.h: the checks of a tests/user program. check() counts each and names a failure on
// stdout; FAILS() wants a call to fail with one errno. PROG, defined before, names the program.
#pragma once
#include <errno.h>
#include <stdio.h>

static int fails, checks;

// Flushed at once, so that a child forked later does not print the line again from its copy
// of stdout's buffer.
static void
check(int ok, const char *what)
{
  checks++;
  if(!ok) {
    printf("%s: FAILED %s (errno %d)\n", PROG, what, errno);
    fflush(stdout);
    fails++;
  }
}

// A call that must fail with err (-1 and errno err, as the libc wrappers return).
#define FAILS(call, err) do { errno = 0; long r_ = (long)(call); \
    check(r_ == -1 && errno == (err), #call " fails with " #err); } while(0)
