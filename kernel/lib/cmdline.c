// Kernel command line parsing: one table row and one small parse function per key.
// The keys and values are the boot command line of doc/console.md, listed in the table below.
//
// Rules, after Linux's parse_args() (kernel/params.c) but stricter:
//   Words are separated by spaces, tabs or newlines; there is no quoting.
//   A word that fails to parse is reported through bad() and changes nothing:
//   bench=locks,Bogus leaves bench as it was, it does not run "locks".
//   Names of suites and tests are only checked for shape here: the registries
//   that know which exist are the kernel's (kernel/bench/bench.c, kernel/selftest.c).
//   When a key repeats, the last good word wins.
//   Some loaders pass the kernel's path as the first word (GRUB's multiboot
//   does not): a first word without '=' that starts with '/' is skipped.
//   Numbers are decimal digits only: no sign, no 0x, no suffix; a value
//   too large for its range is "out of range", never wrapped.

#include "types.h"
#include "compiler.h"
#include "string.h"
#include "cmdline.h"

void
cmdline_defaults(struct cmdline *c)
{
  memset(c, 0, sizeof(*c));
  c->bench_all = true;
  c->selftest = SELFTEST_NONE;
  c->poweroff = true;
  c->panic = PANIC_EXIT;
  c->bench_margin = 5;    // bench.margin=: same within +-5%, the usual equivalence margin
  c->pagecache = 3;       // radix-rcu at fanout 64: Linux's page cache since 2.6.27
  c->pagecache_fanout = 64;
#ifdef CONFIG_DEBUG
  c->debug_slab = true;   // the debug image poisons and redzones from boot; debug_slab=no stops it
#endif
}

static bool
is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Whether the n bytes at s are exactly the string name.
static bool
is(const char *s, size_t n, const char *name)
{
  return strlen(name) == n && strncmp(s, name, n) == 0;
}

// Splits a comma list: sets *n to the length of the item at s and returns
// where the next item starts, or NULL after the last one.
static const char *
item(const char *s, size_t *n)
{
  const char *comma = strchr(s, ',');

  if(comma == NULL) {
    *n = strlen(s);
    return NULL;
  }
  *n = comma - s;
  return comma + 1;
}

// The n decimal digits at s as a number in 0..max.
// Returns NULL on success, else why not.
static const char *
decimal(const char *s, size_t n, u64 max, u64 *out)
{
  u64 v = 0;
  size_t i;
  u32 d;

  if(n == 0)
    return "not a decimal number";
  for(i = 0; i < n; i++)
    if(s[i] < '0' || s[i] > '9')
      return "not a decimal number";
  for(i = 0; i < n; i++) {
    d = s[i] - '0';
    // v * 10 + d > max, asked without overflowing.
    if(v > max / 10 || d > max - v * 10)
      return "out of range";
    v = v * 10 + d;
  }
  *out = v;
  return NULL;
}

// A whole value as a number in lo..hi.
static const char *
number(const char *v, u64 lo, u64 hi, u32 *out)
{
  const char *why;
  u64 n;

  why = decimal(v, strlen(v), hi, &n);
  if(why != NULL)
    return why;
  if(n < lo)
    return "out of range";
  *out = n;
  return NULL;
}

// A value of two words: *out false for the first, true for the second; else why, unchanged.
static const char *
one_of(const char *v, const char *first, const char *second, bool *out, const char *why)
{
  if(strcmp(v, first) == 0)
    *out = false;
  else if(strcmp(v, second) == 0)
    *out = true;
  else
    return why;
  return NULL;
}

static const char *
yesno(const char *v, bool *out)
{
  return one_of(v, "no", "yes", out, "expected yes or no");
}

// A suite's or a test's name: [a-z0-9-]+.
static bool
is_name(const char *s, size_t n)
{
  size_t i;

  for(i = 0; i < n; i++)
    if(!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
      return false;
  return n > 0;
}

// bench=: none alone, or a comma list of suite names and the flags "all" and "quick".
// A list that names no suite ("bench=quick") means every suite. The names are only
// checked for shape here; kernel/bench/bench.c reports those no suite has.
static const char *
parse_bench(struct cmdline *c, const char *v)
{
  bool all = false, quick = false;
  const char *s, *next;
  size_t n;
  int count = 0;

  if(strcmp(v, "none") == 0) {
    c->bench_all = false;
    c->bench_quick = false;
    c->nbench = 0;
    return NULL;
  }
  // Check every item before storing any, so a bad list changes nothing.
  for(s = v; s != NULL; s = next) {
    next = item(s, &n);
    if(is(s, n, "quick"))
      quick = true;
    else if(is(s, n, "all"))
      all = true;
    else if(is(s, n, "none"))
      return "none stands alone";
    else if(n == 0)
      return "empty suite name";
    else if(!is_name(s, n))
      return "bad suite name";
    else if(n >= BENCH_NAME_MAX)
      return "suite name too long";
    else if(++count > BENCH_NAMES_MAX)
      return "too many suite names";
  }
  c->bench_all = all || count == 0;
  c->bench_quick = quick;
  c->nbench = 0;
  for(s = v; s != NULL; s = next) {
    next = item(s, &n);
    if(is(s, n, "quick") || is(s, n, "all"))
      continue;
    memcpy(c->bench_names[c->nbench], s, n);
    c->bench_names[c->nbench++][n] = '\0';
  }
  return NULL;
}

static const char *
parse_runs(struct cmdline *c, const char *v)
{
  return number(v, 1, 1000, &c->bench_runs);
}

// Seconds as digits, optionally '.' and 1 to 6 more digits ("2", "0.25", "1.000001"; not
// "1.", ".5", "1e3" or "0.25s"), in microseconds within lo_us..hi_us.
static const char *
seconds(const char *v, u64 lo_us, u64 hi_us, u64 *out_us)
{
  const char *dot = strchr(v, '.');
  size_t nint = dot != NULL ? (size_t)(dot - v) : strlen(v);
  size_t nfrac = dot != NULL ? strlen(dot + 1) : 0;
  const char *why;
  u64 secs, frac = 0, us;
  size_t i;

  why = decimal(v, nint, hi_us / 1000000, &secs);
  if(why != NULL)
    return why;
  if(dot != NULL) {
    if(nfrac > 6)
      return "more than 6 decimals";
    why = decimal(dot + 1, nfrac, 999999, &frac);
    if(why != NULL)
      return why;
  }
  for(i = nfrac; i < 6; i++)
    frac *= 10;
  us = secs * 1000000 + frac;
  if(us < lo_us || us > hi_us)
    return "out of range";
  *out_us = us;
  return NULL;
}

// bench.secs=: 0.001..600.
static const char *
parse_secs(struct cmdline *c, const char *v)
{
  u64 us;
  const char *why = seconds(v, 1000, 600000000, &us);
  if(why == NULL)
    c->bench_secs_us = us;
  return why;
}

// torture.secs=: 0.1..86400, a day (Linux's rcutorture kvm.sh --duration is in minutes).
static const char *
parse_torture_secs(struct cmdline *c, const char *v)
{
  return seconds(v, 100000, 86400000000ULL, &c->torture_us);
}

static const char *
parse_aa(struct cmdline *c, const char *v)
{
  return yesno(v, &c->bench_aa);
}

static const char *const selftest_modes[] = {
  [SELFTEST_NONE] = "none",
  [SELFTEST_ALL] = "all",
  [SELFTEST_LIST] = "list",
};

// selftest=: none, all, list, or a comma list of test names. The names are
// only checked for shape here; the registry knows which exist.
static const char *
parse_selftest(struct cmdline *c, const char *v)
{
  const char *s, *next;
  size_t n, i;
  int count = 0;

  for(i = 0; i < ARRAY_SIZE(selftest_modes); i++) {
    if(strcmp(v, selftest_modes[i]) == 0) {
      c->selftest = i;
      c->nselftest = 0;
      return NULL;
    }
  }
  // Check every name before storing any, so a bad list changes nothing.
  for(s = v; s != NULL; s = next) {
    next = item(s, &n);
    if(!is_name(s, n))
      return "bad test name";
    if(n >= SELFTEST_NAME_MAX)
      return "test name too long";
    for(i = 0; i < ARRAY_SIZE(selftest_modes); i++)
      if(is(s, n, selftest_modes[i]))
        return "none, all and list stand alone";
    if(++count > SELFTEST_MAX)
      return "too many test names";
  }
  c->selftest = SELFTEST_NAMES;
  c->nselftest = 0;
  for(s = v; s != NULL; s = next) {
    next = item(s, &n);
    memcpy(c->selftest_names[c->nselftest], s, n);
    c->selftest_names[c->nselftest++][n] = '\0';
  }
  return NULL;
}

static const char *
parse_nr_cpus(struct cmdline *c, const char *v)
{
  return number(v, 1, 255, &c->nr_cpus);
}

static const char *
parse_late_ap(struct cmdline *c, const char *v)
{
  return number(v, 1, 254, &c->smp_late_ap);
}

static const char *
parse_poweroff(struct cmdline *c, const char *v)
{
  return yesno(v, &c->poweroff);
}

static const char *
parse_panic(struct cmdline *c, const char *v)
{
  if(strcmp(v, "exit") == 0)
    c->panic = PANIC_EXIT;
  else if(strcmp(v, "halt") == 0)
    c->panic = PANIC_HALT;
  else
    return "expected exit or halt";
  return NULL;
}

static const char *
parse_failslab(struct cmdline *c, const char *v)
{
  return number(v, 0, 1000, &c->failslab);
}

static const char *
parse_failpage(struct cmdline *c, const char *v)
{
  return number(v, 0, 1000, &c->failpage);
}

static const char *
parse_debug_slab(struct cmdline *c, const char *v)
{
  return yesno(v, &c->debug_slab);
}

// At most 10000 Hz: every sample is an NMI on every busy CPU (kernel/profile.c).
static const char *
parse_profile(struct cmdline *c, const char *v)
{
  return number(v, 0, 10000, &c->profile_hz);
}

// A kernel built with LOCKSTAT=0 has no lock statistics to switch on.
static const char *
parse_lockstat(struct cmdline *c, const char *v)
{
#ifndef CONFIG_LOCK_STAT
  if(strcmp(v, "yes") == 0)
    return "built with LOCKSTAT=0";
#endif
  return yesno(v, &c->lockstat);
}

// madvise.lock=: how MADV_DONTNEED and MADV_FREE lock the address space. vma, the default,
// takes the lock of the one VMA a range lies in and not mmap_sem (Barry Song's per-VMA
// madvise, Linux 2025); read takes mmap_sem for reading, as Linux from Nick Piggin's 2007
// patch until then; write is the kernel before that patch.
static const char *
parse_madvise_lock(struct cmdline *c, const char *v)
{
  if(strcmp(v, "vma") == 0) {
    c->madvise_lock_read = c->madvise_lock_write = false;
    return NULL;
  }
  const char *err = one_of(v, "read", "write", &c->madvise_lock_write,
                           "expected vma, read or write");
  if(!err)
    c->madvise_lock_read = !c->madvise_lock_write;
  return err;
}

static const char *
parse_rates(struct cmdline *c, const char *v)
{
  return yesno(v, &c->bench_rates);
}

// ipi.wait=: how a CPU waits for the answers to its IPIs (kernel/ipi.c, csd_wait). halt is
// the default; spin is Linux's csd_lock_wait, for comparing the two kernels on equal terms.
static const char *
parse_ipi_wait(struct cmdline *c, const char *v)
{
  return one_of(v, "halt", "spin", &c->ipi_wait_spin, "expected halt or spin");
}

// vm.fault_lock=: vma (the default, Linux 6.4's per-VMA locks) or mmap_sem (every fault takes
// it for reading, as before), to compare the two in one image (mm/vma_lock.c).
static const char *
parse_fault_lock(struct cmdline *c, const char *v)
{
  return one_of(v, "vma", "mmap_sem", &c->fault_lock_mmap_sem, "expected vma or mmap_sem");
}

// vm.pt=: shared (the default, as Linux) or percore (mm/percore.c, RadixVM's per-core tables).
static const char *
parse_vm_pt(struct cmdline *c, const char *v)
{
  return one_of(v, "shared", "percore", &c->vm_pt_percore, "expected shared or percore");
}

// vm.ptl=: split (the default, as Linux since 2.6.15: a lock per page table) or mm (one for
// the whole address space), mm/ptlock.c.
static const char *
parse_vm_ptl(struct cmdline *c, const char *v)
{
  return one_of(v, "split", "mm", &c->vm_ptl_mm, "expected split or mm");
}

// vm.munmap=: range (the default: munmap marks its VMAs, then zaps with mmap_sem free) or lock
// (it zaps under mmap_sem for write, as before 2026-12-07), mm/munmap.c.
static const char *
parse_vm_munmap(struct cmdline *c, const char *v)
{
  return one_of(v, "range", "lock", &c->vm_munmap_lock, "expected range or lock");
}

const char *const cmdline_pagecache_names[NR_CMDLINE_PAGECACHE] = {
  "hash-global", "hash-bucket", "radix-lock", "radix-rcu",
};

// pagecache=: the root ramfs's page cache (the seed 000 and 2001 variants, doc/seeds.md).
static const char *
parse_pagecache(struct cmdline *c, const char *v)
{
  for(u32 i = 0; i < NR_CMDLINE_PAGECACHE; i++)
    if(strcmp(v, cmdline_pagecache_names[i]) == 0) {
      c->pagecache = i;
      return NULL;
    }
  return "expected hash-global, hash-bucket, radix-lock or radix-rcu";
}

// pagecache.fanout=: the radix tree's slots per node, the 2002 thread's 16, 64 and 128
// (mm/radix-tree.c builds those three); the hash variants have no fanout and ignore it.
static const char *
parse_fanout(struct cmdline *c, const char *v)
{
  u32 n;
  const char *why = number(v, 16, 128, &n);
  if(why == NULL && n != 16 && n != 64 && n != 128)
    why = "expected 16, 64 or 128";
  if(why == NULL)
    c->pagecache_fanout = n;
  return why;
}

// ramfs.free=: how the root ramfs frees an inode (the 2010 experiment, seed 003): rcu, or now,
// which also walks that file system by ref-walk alone (RCU-walk needs RCU-freed inodes).
static const char *
parse_ramfs_free(struct cmdline *c, const char *v)
{
  return one_of(v, "rcu", "now", &c->ramfs_free_now, "expected rcu or now");
}

// ramfs.walk=: how paths on the root ramfs are walked: auto (RCU-walk where the inodes are
// RCU-freed, ref-walk otherwise) or ref, ref-walk always, as both kernels of the 2010 thread
// walked (RCU-walk came two releases after RCU-freed inodes), so that a real program on
// ramfs.free=rcu ramfs.walk=ref differs from ramfs.free=now in the freeing alone.
static const char *
parse_ramfs_walk(struct cmdline *c, const char *v)
{
  return one_of(v, "auto", "ref", &c->ramfs_walk_ref, "expected auto or ref");
}

// bench.seed=: the seed of the rounds' random orders (kernel/bench/bench.c), to replay a
// boot's; 0 is not a seed (the default: a new one each boot, printed).
static const char *
parse_seed(struct cmdline *c, const char *v)
{
  return number(v, 1, 0xffffffffULL, &c->bench_seed);
}

// bench.margin=: a verdict's interval inside 1 +- margin per cent is "same" (lib/stats.c).
// 0 leaves no room for same: every interval holding 1 is then inconclusive.
static const char *
parse_margin(struct cmdline *c, const char *v)
{
  return number(v, 0, 50, &c->bench_margin);
}

// A path, kept as written: the program is looked up when it runs.
static const char *
parse_init(struct cmdline *c, const char *v)
{
  size_t n = strlen(v);
  if(n >= INIT_PATH_MAX)
    return "path too long";
  memcpy(c->init, v, n + 1);
  return NULL;
}

// Each parse function sees a non-empty value and returns NULL or why it is
// bad; it writes c only when the whole value is good.
static const struct param {
  const char *key;
  const char *(*parse)(struct cmdline *c, const char *value);
} params[] = {
  { "bench", parse_bench },
  { "bench.runs", parse_runs },
  { "bench.secs", parse_secs },
  { "bench.aa", parse_aa },
  { "bench.rates", parse_rates },
  { "torture.secs", parse_torture_secs },
  { "selftest", parse_selftest },
  { "nr_cpus", parse_nr_cpus },
  { "smp.late_ap", parse_late_ap },
  { "poweroff", parse_poweroff },
  { "panic", parse_panic },
  { "failslab", parse_failslab },
  { "failpage", parse_failpage },
  { "debug_slab", parse_debug_slab },
  { "profile", parse_profile },
  { "lockstat", parse_lockstat },
  { "madvise.lock", parse_madvise_lock },
  { "ipi.wait", parse_ipi_wait },
  { "vm.fault_lock", parse_fault_lock },
  { "vm.pt", parse_vm_pt },
  { "vm.ptl", parse_vm_ptl },
  { "vm.munmap", parse_vm_munmap },
  { "bench.margin", parse_margin },
  { "bench.seed", parse_seed },
  { "pagecache", parse_pagecache },
  { "pagecache.fanout", parse_fanout },
  { "ramfs.free", parse_ramfs_free },
  { "ramfs.walk", parse_ramfs_walk },
  { "init", parse_init },
};

// One NUL-terminated word. Returns NULL if it was applied or skipped, else why it is bad.
static const char *
parse_word(struct cmdline *c, const char *w, bool first)
{
  const char *eq = strchr(w, '=');
  size_t i;

  if(eq == NULL)
    return first && w[0] == '/' ? NULL : "missing '='";
  for(i = 0; i < ARRAY_SIZE(params); i++) {
    if(is(w, eq - w, params[i].key)) {
      if(eq[1] == '\0')
        return "empty value";
      return params[i].parse(c, eq + 1);
    }
  }
  return eq == w ? "empty key" : "unknown key";
}

// The words after --: argv[1], argv[2], ... verbatim. Only what cannot be kept is reported.
static int
take_init_args(struct cmdline *c, const char *s, void (*bad)(const char *word, const char *why))
{
  int nbad = 0;
  for(;;) {
    while(is_space(*s))
      s++;
    if(*s == '\0')
      return nbad;
    const char *end = s;
    while(*end != '\0' && !is_space(*end))
      end++;
    size_t n = end - s;
    if(n > CMDLINE_WORD_MAX || c->ninit_args == INIT_ARGS_MAX) {
      char w[CMDLINE_WORD_MAX + 1];
      memcpy(w, s, MIN(n, CMDLINE_WORD_MAX));
      w[MIN(n, CMDLINE_WORD_MAX)] = '\0';
      nbad++;
      if(bad != NULL)
        bad(w, n > CMDLINE_WORD_MAX ? "word too long" : "more than 32 arguments after --");
    } else {
      memcpy(c->init_args[c->ninit_args], s, n);
      c->init_args[c->ninit_args++][n] = '\0';
    }
    s = end;
  }
}

int
cmdline_parse(struct cmdline *c, const char *line,
              void (*bad)(const char *word, const char *why))
{
  char w[CMDLINE_WORD_MAX + 1];
  const char *s = line, *end;
  const char *why;
  size_t n;
  int nbad = 0;
  bool first = true;

  for(;;) {
    while(is_space(*s))
      s++;
    if(*s == '\0')
      break;
    for(end = s; *end != '\0' && !is_space(*end); end++)
      ;
    n = end - s;
    memcpy(w, s, MIN(n, CMDLINE_WORD_MAX));
    w[MIN(n, CMDLINE_WORD_MAX)] = '\0';
    if(strcmp(w, "--") == 0) {   // the rest belongs to the init= program, as in Linux
      c->ninit_args = 0;
      nbad += take_init_args(c, end, bad);
      break;
    }
    why = n > CMDLINE_WORD_MAX ? "word too long" : parse_word(c, w, first);
    if(why != NULL) {
      nbad++;
      if(bad != NULL)
        bad(w, why);
    }
    first = false;
    s = end;
  }
  return nbad;
}
