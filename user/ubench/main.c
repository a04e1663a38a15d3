// ubench: the user-space benchmark of `make compare-linux`; options, suite selection and the
// BENCH-DONE line. The same static binary runs on this kernel and on Linux (doc/ubench.md).
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ubench.h"

static const struct ub_suite *const suites[] = {
  &ub_usyscall, &ub_ucreate, &ub_upread, &ub_ufault, &ub_umadvise, &ub_ustat, &ub_ufork,
  &ub_uexec,
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

static const char usage[] =
  "usage: ubench [--suites LIST] [--secs S] [--runs N] [--threads LIST] [--dir PATH]\n"
  "  --suites LIST   comma list of usyscall,ucreate,upread,ufault,umadvise,ustat,ufork,\n"
  "                  uexec, or all (default all)\n"
  "  --secs S        seconds per timed run, a decimal from 0.001 to 600 (default 0.1);\n"
  "                  each point has one more, untimed run of a quarter of that first\n"
  "  --runs N        timed runs per point, 1 to 1000 (default 5)\n"
  "  --threads LIST  comma list of thread counts, 1 to 1024, not decreasing, a repeat\n"
  "                  counted once (default: each suite's sweep: 1 2 4 .. CPUs, and\n"
  "                  2 x CPUs for umadvise); a last word 2x adds 2 x CPUs for umadvise\n"
  "  --dir PATH      working directory on the file system to measure, made if missing\n"
  "                  (default /tmp/ubench); each suite works in PATH/<suite>, which must\n"
  "                  not exist, and removes it\n"
  "Prints BENCH-SUITE, BENCH and BENCH-SKIP lines per suite, then BENCH-DONE. Exit status:\n"
  "0, 1 if a run failed its check or a suite could not run, 2 for bad arguments.\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
bad_arg(const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "ubench: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s", usage);
  exit(2);
}

// A decimal of seconds, "0.25", into nanoseconds: digits, at most one point, at most nine
// decimals.
static int
parse_secs(const char *s, u64 *ns)
{
  u64 whole = 0, frac = 0, scale = 100000000;
  const char *p = s;

  if(!*p || *p == '.')
    return -1;
  for(; *p >= '0' && *p <= '9'; p++) {
    whole = whole * 10 + (*p - '0');
    if(whole > 600)
      return -1;
  }
  if(*p == '.') {
    if(!p[1])
      return -1;
    for(p++; *p >= '0' && *p <= '9'; p++) {
      if(!scale)
        return -1;
      frac += (*p - '0') * scale;
      scale /= 10;
    }
  }
  if(*p)
    return -1;
  *ns = whole * 1000000000ULL + frac;
  return *ns >= 1000000 && *ns <= 600000000000ULL ? 0 : -1;
}

// A decimal integer in [lo, hi], nothing else.
static int
parse_int(const char *s, long lo, long hi, long *v)
{
  char *end;

  if(*s < '0' || *s > '9')
    return -1;
  errno = 0;
  *v = strtol(s, &end, 10);
  return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

static void
parse_threads(const char *arg, struct ub_opts *o)
{
  char buf[256], *tok, *save;
  long v;

  if(strlen(arg) >= sizeof(buf))
    bad_arg("--threads: list too long: %s", arg);
  strcpy(buf, arg);
  o->nthreads = 0;
  for(tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if(o->twice_cpus)
      bad_arg("--threads: 2x must come last: %s", arg);
    if(strcmp(tok, "2x") == 0 && o->nthreads) {
      o->twice_cpus = true;
      continue;
    }
    if(parse_int(tok, 1, UB_MAX_THREADS, &v) < 0)
      bad_arg("--threads: not a thread count from 1 to 1024: %s", tok);
    if(o->nthreads == UB_MAX_SWEEP)
      bad_arg("--threads: more than 32 counts: %s", arg);
    if(o->nthreads && v < o->threads[o->nthreads - 1])
      bad_arg("--threads: counts must not decrease: %s", arg);
    if(!o->nthreads || v > o->threads[o->nthreads - 1])   // "1,1" at one CPU is one point
      o->threads[o->nthreads++] = v;
  }
  if(!o->nthreads || arg[strlen(arg) - 1] == ',' || arg[0] == ',' || strstr(arg, ",,"))
    bad_arg("--threads: not a comma list of thread counts: %s", arg);
}

static void
parse_suites(const char *arg, bool *want)
{
  char buf[256], *tok, *save;
  unsigned i;

  if(strlen(arg) >= sizeof(buf) || !*arg || arg[strlen(arg) - 1] == ',' || arg[0] == ',' ||
     strstr(arg, ",,"))
    bad_arg("--suites: not a comma list of suites: %s", arg);
  strcpy(buf, arg);
  memset(want, 0, NSUITES * sizeof(*want));
  for(tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if(strcmp(tok, "all") == 0) {
      for(i = 0; i < NSUITES; i++)
        want[i] = true;
      continue;
    }
    for(i = 0; i < NSUITES && strcmp(tok, suites[i]->name) != 0; i++)
      ;
    if(i == NSUITES)
      bad_arg("--suites: no suite called %s", tok);
    want[i] = true;
  }
}

// mkdir -p: true if it made the last component (so that the end may remove it).
static bool
make_dir(const char *path)
{
  char buf[512];
  size_t n = strlen(path);

  if(n == 0 || n >= sizeof(buf))
    bad_arg("--dir: bad path: %s", path);
  strcpy(buf, path);
  for(char *p = buf + 1; *p; p++) {
    if(*p != '/')
      continue;
    *p = 0;
    if(mkdir(buf, 0755) < 0 && errno != EEXIST) {
      fprintf(stderr, "ubench: --dir: cannot make %s: %s\n", buf, strerror(errno));
      exit(1);
    }
    *p = '/';
  }
  if(mkdir(path, 0755) == 0)
    return true;
  struct stat st;
  if(errno != EEXIST || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "ubench: --dir: cannot make %s: %s\n", path, strerror(errno));
    exit(1);
  }
  return false;
}

int
main(int argc, char **argv)
{
  struct ub_opts o = { .run_ns = 100000000, .runs = 5, .dir = "/tmp/ubench" };
  bool want[NSUITES];
  int failed = 0, ran = 0;
  struct timespec t0, t1;
  long v;

  // Line by line, also into a pipe: a run cut short keeps what it printed.
  setvbuf(stdout, NULL, _IOLBF, 0);
  for(unsigned i = 0; i < NSUITES; i++)
    want[i] = true;
  for(int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = NULL, *eq = strchr(a, '=');
    char key[32];

    if(strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
    if(strncmp(a, "--", 2) != 0)
      bad_arg("not an option: %s", a);
    if(eq) {
      if((size_t)(eq - a) >= sizeof(key))
        bad_arg("unknown option: %s", a);
      memcpy(key, a, eq - a);
      key[eq - a] = 0;
      val = eq + 1;
    } else {
      if(strlen(a) >= sizeof(key))
        bad_arg("unknown option: %s", a);
      strcpy(key, a);
      if(i + 1 < argc)
        val = argv[++i];
    }
    if(strcmp(key, "--suites") && strcmp(key, "--secs") && strcmp(key, "--runs") &&
       strcmp(key, "--threads") && strcmp(key, "--dir"))
      bad_arg("unknown option: %s", key);
    if(!val)
      bad_arg("%s needs a value", key);
    if(strcmp(key, "--suites") == 0)
      parse_suites(val, want);
    else if(strcmp(key, "--secs") == 0) {
      if(parse_secs(val, &o.run_ns) < 0)
        bad_arg("--secs: not a decimal from 0.001 to 600: %s", val);
    } else if(strcmp(key, "--runs") == 0) {
      if(parse_int(val, 1, 1000, &v) < 0)
        bad_arg("--runs: not a number from 1 to 1000: %s", val);
      o.runs = v;
    } else if(strcmp(key, "--threads") == 0)
      parse_threads(val, &o);
    else if(!*val)
      bad_arg("--dir: empty path");
    else
      o.dir = val;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool made = make_dir(o.dir);
  printf("ubench: %d CPUs, %u runs of %lu.%03lu s a point, in %s\n", ub_cpus(), o.runs,
         (unsigned long)(o.run_ns / 1000000000), (unsigned long)(o.run_ns / 1000000 % 1000),
         o.dir);
  for(unsigned i = 0; i < NSUITES; i++) {
    if(!want[i])
      continue;
    failed += ub_run_suite(suites[i], &o);
    ran++;
  }
  if(made)
    rmdir(o.dir);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  u64 ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  printf("BENCH-DONE suites=%d secs=%lu.%03lu\n", ran, (unsigned long)(ms / 1000),
         (unsigned long)(ms % 1000));
  if(failed)
    printf("ubench: %d check%s FAILED\n", failed, failed == 1 ? "" : "s");
  return failed ? 1 : 0;
}
