// panic on the host: the message on stderr, then abort(), so the sanitizers' and the shell's
// reports show where it came from.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "panic.h"

void
panic(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "PANIC: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}
