// user-console: a program's console lines (drivers/tty/console.c) as the console shows them:
// a 1000-byte line written in ten pieces while a child prints lines of its own arrives as one
// line, and a line a child starts before it exits is ended by its parent's next write.
#include "printk.h"
#include "process.h"
#include "selftest.h"
#include "string.h"
#include "testprog.h"

extern char log_buf[LOG_BUF_SIZE];
extern u64 log_next;

#define LONG 1000

static char
log_at(u64 i)
{
  return log_buf[i % LOG_BUF_SIZE];
}

// Whether the log from `at` holds s followed by a newline, exactly.
static bool
log_has(u64 at, u64 end, const char *s, u64 n)
{
  if(end - at < n + 1)
    return false;
  for(u64 i = 0; i < n; i++)
    if(log_at(at + i) != s[i])
      return false;
  return log_at(at + n) == '\n';
}

// Lines of [from, end) that start (after the timestamp) with prefix: how many, and whether
// one is the whole line want[0..n).
static int
count_lines(u64 from, u64 end, const char *prefix, const char *want, u64 n, bool *found)
{
  int count = 0;
  u64 plen = strlen(prefix);
  for(u64 i = from; i < end; i++) {
    if(log_at(i) != ']' || log_at(i + 1) != ' ' || end - i < plen + 2)
      continue;
    bool match = true;
    for(u64 k = 0; k < plen && match; k++)
      match = log_at(i + 2 + k) == prefix[k];
    if(!match)
      continue;
    count++;
    if(want && log_has(i + 2, end, want, n))
      *found = true;
  }
  return count;
}

static bool
user_console(void)
{
  static char want[LONG];
  memcpy(want, "conline-long:", 13);
  for(int i = 13; i < LONG; i++)
    want[i] = '0' + i % 10;
  static const char join[] = "conline-join: started by the child, ended by the parent";
  struct testprog prog;
  if(!testprog_load(&prog, "conline", NULL))
    return false;
  const char *const argv[] = { TEST_BIN_DIR "conline", NULL };
  const char *const envp[] = { "HOME=/", NULL };
  u64 from = READ_ONCE(log_next);
  int err;
  struct process *p = process_spawn(prog.path, argv, envp, &err);
  if(!p) {
    selftest_extra("spawn=%d", err);
    return false;
  }
  int status = process_wait(p);
  u64 end = READ_ONCE(log_next);
  bool long_whole = false, join_whole = false;
  int longs = count_lines(from, end, "conline-long:", want, LONG, &long_whole);
  int joins = count_lines(from, end, "conline-join:", join, sizeof(join) - 1, &join_whole);
  int children = count_lines(from, end, "conline-child ", NULL, 0, NULL);
  selftest_extra("status=%d long-lines=%d long-whole=%d join-whole=%d child-lines=%d", status,
                 longs, long_whole, join_whole, children);
  return status == 0 && longs == 1 && long_whole && joins == 1 && join_whole && children == 20;
}
SELFTEST_NOINJECT("user-console", user_console);
