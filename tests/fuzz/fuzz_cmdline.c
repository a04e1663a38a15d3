// libFuzzer harness for the command-line parser (kernel/lib/cmdline.c): the input is a command
// line; every value kept must be in its range, and written back out it must parse the same.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "fuzz.h"

static int nbad;

// The parser promises a NUL-terminated word cut to CMDLINE_WORD_MAX bytes and a reason.
static void
bad(const char *word, const char *why)
{
  FUZZ_CHECK(strnlen(word, CMDLINE_WORD_MAX + 1) <= CMDLINE_WORD_MAX);
  FUZZ_CHECK(why != NULL && why[0] != '\0');
  nbad++;
}

// A suite's or test's name: NUL-terminated inside its slot, [a-z0-9-]+.
static void
check_name(const char *s, size_t cap)
{
  size_t n = strnlen(s, cap);

  FUZZ_CHECK(n > 0 && n < cap);
  for(size_t i = 0; i < n; i++)
    FUZZ_CHECK((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-');
}

// The ranges of include/cmdline.h and doc/console.md's command-line table.
static void
check_ranges(const struct cmdline *c)
{
  FUZZ_CHECK(c->nbench >= 0 && c->nbench <= BENCH_NAMES_MAX);
  for(int i = 0; i < c->nbench; i++)
    check_name(c->bench_names[i], BENCH_NAME_MAX);
  FUZZ_CHECK(c->bench_all || c->nbench > 0 || !c->bench_quick);  // bench=none is not quick
  FUZZ_CHECK(c->bench_runs <= 1000);
  FUZZ_CHECK(c->bench_secs_us == 0 || (c->bench_secs_us >= 1000 && c->bench_secs_us <= 600000000));
  FUZZ_CHECK(c->selftest >= SELFTEST_NONE && c->selftest <= SELFTEST_NAMES);
  FUZZ_CHECK(c->nselftest >= 0 && c->nselftest <= SELFTEST_MAX);
  FUZZ_CHECK((c->selftest == SELFTEST_NAMES) == (c->nselftest > 0));
  for(int i = 0; i < c->nselftest; i++)
    check_name(c->selftest_names[i], SELFTEST_NAME_MAX);
  FUZZ_CHECK(c->nr_cpus <= 255);
  FUZZ_CHECK(c->panic == PANIC_EXIT || c->panic == PANIC_HALT);
  FUZZ_CHECK(c->failslab <= 1000 && c->failpage <= 1000);
  FUZZ_CHECK(strnlen(c->init, INIT_PATH_MAX) < INIT_PATH_MAX);
  FUZZ_CHECK(c->ninit_args >= 0 && c->ninit_args <= INIT_ARGS_MAX);
  for(int i = 0; i < c->ninit_args; i++) {   // words: non-empty, no space, NUL inside
    size_t n = strnlen(c->init_args[i], CMDLINE_WORD_MAX + 1);
    FUZZ_CHECK(n > 0 && n <= CMDLINE_WORD_MAX);
    for(size_t j = 0; j < n; j++)
      FUZZ_CHECK(c->init_args[i][j] != ' ' && c->init_args[i][j] != '\t');
  }
}

struct line {
  char s[20000];  // 64 test and 16 suite names of 31 bytes, init= and 32 words after --
  size_t n;
};

static void __attribute__((format(printf, 2, 3)))
put(struct line *l, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  l->n += vsnprintf(l->s + l->n, sizeof(l->s) - l->n, fmt, ap);
  va_end(ap);
  FUZZ_CHECK(l->n < sizeof(l->s));
}

// Writes c back as a command line, every key with its value (bench.runs, bench.secs and
// nr_cpus only when set: their 0 is the kernel's default, which no word gives).
static void
unparse(const struct cmdline *c, struct line *l)
{
  static const char *const modes[] = { "none", "all", "list" };

  l->n = 0;
  l->s[0] = '\0';
  if(!c->bench_all && c->nbench == 0) {
    put(l, "bench=none");
  } else {
    put(l, "bench=%s", c->bench_all ? "all" : "");
    for(int i = 0; i < c->nbench; i++)
      put(l, "%s%s", i > 0 || c->bench_all ? "," : "", c->bench_names[i]);
    if(c->bench_quick)
      put(l, ",quick");
  }
  if(c->bench_runs)
    put(l, " bench.runs=%u", c->bench_runs);
  if(c->bench_secs_us)
    put(l, " bench.secs=%u.%06u", c->bench_secs_us / 1000000, c->bench_secs_us % 1000000);
  put(l, " bench.aa=%s selftest=", c->bench_aa ? "yes" : "no");
  if(c->selftest == SELFTEST_NAMES)
    for(int i = 0; i < c->nselftest; i++)
      put(l, "%s%s", i ? "," : "", c->selftest_names[i]);
  else
    put(l, "%s", modes[c->selftest]);
  if(c->nr_cpus)
    put(l, " nr_cpus=%u", c->nr_cpus);
  put(l, " poweroff=%s panic=%s failslab=%u failpage=%u debug_slab=%s",
      c->poweroff ? "yes" : "no", c->panic == PANIC_HALT ? "halt" : "exit", c->failslab,
      c->failpage, c->debug_slab ? "yes" : "no");
  if(c->init[0])
    put(l, " init=%s", c->init);
  if(c->ninit_args)   // last: everything after -- is the program's
    put(l, " --");
  for(int i = 0; i < c->ninit_args; i++)
    put(l, " %s", c->init_args[i]);
}

// Field by field: a slot may hold bytes of an earlier, longer name after its NUL.
static bool
same(const struct cmdline *a, const struct cmdline *b)
{
  if(a->bench_all != b->bench_all || a->bench_quick != b->bench_quick ||
     a->nbench != b->nbench || a->bench_runs != b->bench_runs ||
     a->bench_secs_us != b->bench_secs_us || a->bench_aa != b->bench_aa ||
     a->selftest != b->selftest || a->nselftest != b->nselftest || a->nr_cpus != b->nr_cpus ||
     a->poweroff != b->poweroff || a->panic != b->panic || a->failslab != b->failslab ||
     a->failpage != b->failpage || a->debug_slab != b->debug_slab)
    return false;
  for(int i = 0; i < a->nbench; i++)
    if(strcmp(a->bench_names[i], b->bench_names[i]) != 0)
      return false;
  for(int i = 0; i < a->nselftest; i++)
    if(strcmp(a->selftest_names[i], b->selftest_names[i]) != 0)
      return false;
  if(strcmp(a->init, b->init) != 0 || a->ninit_args != b->ninit_args)
    return false;
  for(int i = 0; i < a->ninit_args; i++)
    if(strcmp(a->init_args[i], b->init_args[i]) != 0)
      return false;
  return true;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  static struct cmdline c, again;
  static struct line line;
  char *copy = malloc(size + 1);   // exactly the line and its NUL: ASan sees any overread
  int n;

  memcpy(copy, data, size);
  copy[size] = '\0';
  cmdline_defaults(&c);
  nbad = 0;
  n = cmdline_parse(&c, copy, bad);
  free(copy);
  FUZZ_CHECK(n == nbad);
  check_ranges(&c);

  unparse(&c, &line);
  cmdline_defaults(&again);
  nbad = 0;
  FUZZ_CHECK(cmdline_parse(&again, line.s, bad) == 0);
  if(!same(&c, &again)) {
    fprintf(stderr, "round trip differs: '%s'\n", line.s);
    FUZZ_CHECK(same(&c, &again));
  }
  return 0;
}
