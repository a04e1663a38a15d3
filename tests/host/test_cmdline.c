// Host test for kernel/lib/cmdline.c: every key, the bad words it must report,
// and hostile input (random junk lines of 4 KiB over many seeds) under the sanitizers.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cmdline.h"
#include "compiler.h"

static int nbad;                             // bad() calls in the last parse
static char lastword[CMDLINE_WORD_MAX + 8];  // and the last word and reason
static const char *lastwhy;
static int malformed;                        // bad() calls with a bad word or reason

static void
bad(const char *word, const char *why)
{
  size_t n = strlen(word);

  nbad++;
  if(n > CMDLINE_WORD_MAX || why == NULL || why[0] == '\0')
    malformed++;
  memcpy(lastword, word, n + 1);
  lastwhy = why;
}

// Parses line into c and returns the bad-word count, checking that it
// matches the number of bad() calls.
static int
parse(struct cmdline *c, const char *line)
{
  int n;

  nbad = 0;
  lastwhy = "";
  n = cmdline_parse(c, line, bad);
  CHECK(n == nbad);
  return n;
}

// Parses line on top of the defaults.
static int
fresh(struct cmdline *c, const char *line)
{
  cmdline_defaults(c);
  return parse(c, line);
}

// Whether line, parsed over the defaults, reports exactly one bad word for
// reason why and leaves c exactly as the defaults.
static bool
rejected(const char *line, const char *why)
{
  struct cmdline c, d;

  cmdline_defaults(&d);
  return fresh(&c, line) == 1 && strcmp(lastwhy, why) == 0 && memcmp(&c, &d, sizeof(c)) == 0;
}

static void
test_empty(void)
{
  struct cmdline c, d;

  cmdline_defaults(&d);
  CHECK(d.bench_all && d.nbench == 0 && !d.bench_quick);
  CHECK(d.bench_runs == 0 && d.bench_secs_us == 0 && !d.bench_aa);
  CHECK(d.selftest == SELFTEST_NONE && d.nselftest == 0 && d.nr_cpus == 0);
  CHECK(d.poweroff && d.panic == PANIC_EXIT && d.failslab == 0 && d.failpage == 0 && !d.debug_slab);
  CHECK(!d.lockstat && !d.madvise_lock_write && !d.madvise_lock_read && !d.fault_lock_mmap_sem &&
        !d.vm_pt_percore);
  CHECK(fresh(&c, "") == 0 && memcmp(&c, &d, sizeof(c)) == 0);
  CHECK(fresh(&c, "   \t \n\r\v\f ") == 0 && memcmp(&c, &d, sizeof(c)) == 0);
  CHECK(cmdline_parse(&c, "nr_cpus=x bogus", NULL) == 2);
}

static void
test_words(void)
{
  struct cmdline c;

  CHECK(rejected("bench", "missing '='"));
  CHECK(rejected("=value", "empty key"));
  CHECK(rejected("=", "empty key"));
  CHECK(rejected("bench=", "empty value"));
  CHECK(rejected("foo=1", "unknown key"));
  CHECK(rejected("foo=", "unknown key"));
  CHECK(rejected("Bench=all", "unknown key"));
  CHECK(rejected("bench.run=5", "unknown key"));
  // Only the first word may be a loader's kernel path.
  CHECK(fresh(&c, "/boot/kernel.elf bench=none") == 0 && !c.bench_all);
  CHECK(fresh(&c, "bench=none /boot/kernel.elf") == 1 && strcmp(lastwhy, "missing '='") == 0);
  CHECK(fresh(&c, "/a=b") == 1 && strcmp(lastwhy, "unknown key") == 0);
  // Three bad words among good ones: each reported, the good ones applied.
  CHECK(fresh(&c, "nr_cpus=4 x panic=halt y=1 poweroff=maybe debug_slab=yes") == 3);
  CHECK(c.nr_cpus == 4 && c.panic == PANIC_HALT && c.poweroff && c.debug_slab);
  // Tabs and newlines separate words; other control bytes and non-ASCII are just bad.
  CHECK(fresh(&c, "\tnr_cpus=4\npanic=halt\r\n") == 0 && c.nr_cpus == 4 && c.panic == PANIC_HALT);
  CHECK(rejected("nr_cpus=\001", "not a decimal number"));
  CHECK(rejected("bench=l\xc3\xb6" "cks", "bad suite name"));
  CHECK(rejected("\x80\xff=\x7f", "unknown key"));
}

static void
test_long_word(void)
{
  char line[CMDLINE_WORD_MAX + 64];
  struct cmdline c;

  memset(line, 'a', CMDLINE_WORD_MAX + 44);
  sprintf(line + CMDLINE_WORD_MAX + 44, " nr_cpus=2");
  CHECK(fresh(&c, line) == 1 && strcmp(lastwhy, "word too long") == 0);
  CHECK(strlen(lastword) == CMDLINE_WORD_MAX && lastword[0] == 'a');
  CHECK(c.nr_cpus == 2);
  // Exactly CMDLINE_WORD_MAX bytes is still parsed.
  memcpy(line, "selftest=", 9);
  memset(line + 9, 'a', CMDLINE_WORD_MAX - 9);
  line[CMDLINE_WORD_MAX] = '\0';
  CHECK(fresh(&c, line) == 1 && strcmp(lastwhy, "test name too long") == 0);
  line[CMDLINE_WORD_MAX] = 'a';
  line[CMDLINE_WORD_MAX + 1] = '\0';
  CHECK(fresh(&c, line) == 1 && strcmp(lastwhy, "word too long") == 0);
}

static void
test_numbers(void)
{
  struct cmdline c;

  CHECK(fresh(&c, "nr_cpus=1") == 0 && c.nr_cpus == 1);
  CHECK(fresh(&c, "nr_cpus=255") == 0 && c.nr_cpus == 255);
  CHECK(fresh(&c, "nr_cpus=007") == 0 && c.nr_cpus == 7);
  CHECK(rejected("nr_cpus=0", "out of range"));
  CHECK(fresh(&c, "smp.late_ap=1") == 0 && c.smp_late_ap == 1);
  CHECK(rejected("smp.late_ap=0", "out of range"));
  CHECK(rejected("smp.late_ap=255", "out of range"));
  CHECK(rejected("nr_cpus=256", "out of range"));
  CHECK(rejected("nr_cpus=99999999999999999999", "out of range"));
  CHECK(rejected("nr_cpus=18446744073709551616", "out of range"));
  CHECK(rejected("nr_cpus=4294967297", "out of range"));
  CHECK(rejected("nr_cpus=-1", "not a decimal number"));
  CHECK(rejected("nr_cpus=+4", "not a decimal number"));
  CHECK(rejected("nr_cpus=0x10", "not a decimal number"));
  CHECK(rejected("nr_cpus=4k", "not a decimal number"));
  CHECK(fresh(&c, "nr_cpus= 4") == 2 && c.nr_cpus == 0);
  CHECK(fresh(&c, "bench.runs=1 bench.runs=1000") == 0 && c.bench_runs == 1000);
  CHECK(rejected("bench.runs=0", "out of range"));
  CHECK(rejected("bench.runs=1001", "out of range"));
  CHECK(fresh(&c, "failslab=100 failpage=1000") == 0 && c.failslab == 100 && c.failpage == 1000);
  CHECK(fresh(&c, "failslab=0") == 0 && c.failslab == 0);
  CHECK(rejected("failpage=1001", "out of range"));
  CHECK(fresh(&c, "profile=997") == 0 && c.profile_hz == 997);
  CHECK(fresh(&c, "profile=0") == 0 && c.profile_hz == 0);
  CHECK(rejected("profile=10001", "out of range"));
  CHECK(rejected("profile=fast", "not a decimal number"));
  CHECK(rejected("failslab=10%", "not a decimal number"));
}

static void
test_secs(void)
{
  static const struct {
    const char *value;
    u32 us;  // 0: must be rejected
  } cases[] = {
    { "0.25", 250000 }, { "1.5", 1500000 }, { "1", 1000000 }, { "600", 600000000 },
    { "0.001", 1000 }, { "1.000001", 1000001 }, { "000.5", 500000 }, { "599.999999", 599999999 },
    { "600.000001", 0 }, { "601", 0 }, { "0.0009", 0 }, { "0", 0 }, { "0.000999", 0 },
    { "0.0000001", 0 }, { "0.1000000", 0 }, { "1.", 0 }, { ".5", 0 }, { ".", 0 },
    { "0.25s", 0 }, { "-1", 0 }, { "1e3", 0 }, { "0x10", 0 }, { "1.2.3", 0 }, { "1,5", 0 },
    { "99999999999999999999999.5", 0 }, { "+1", 0 },
  };
  char line[64];
  struct cmdline c;
  size_t i;
  int n;

  for(i = 0; i < ARRAY_SIZE(cases); i++) {
    snprintf(line, sizeof(line), "bench.secs=%s", cases[i].value);
    n = fresh(&c, line);
    if(cases[i].us != 0)
      CHECK(n == 0 && c.bench_secs_us == cases[i].us);
    else
      CHECK(n == 1 && c.bench_secs_us == 0);
  }
  CHECK(rejected("bench.secs=0.0000001", "more than 6 decimals"));
  CHECK(rejected("bench.secs=0.0009", "out of range"));
}

// torture.secs=: the same decimal seconds, 0.1..86400.
static void
test_torture_secs(void)
{
  static const struct {
    const char *value;
    u64 us;  // 0: must be rejected
  } cases[] = {
    { "0.1", 100000 }, { "3", 3000000 }, { "1800", 1800000000 }, { "86400", 86400000000ULL },
    { "0.25", 250000 }, { "86399.999999", 86399999999ULL }, { "0.099999", 0 }, { "0", 0 },
    { "86400.000001", 0 }, { "86401", 0 }, { "1.", 0 }, { ".5", 0 }, { "30s", 0 },
    { "1.0000001", 0 }, { "18446744073709551616", 0 },
  };
  char line[64];
  struct cmdline c;
  size_t i;
  int n;

  for(i = 0; i < ARRAY_SIZE(cases); i++) {
    snprintf(line, sizeof(line), "torture.secs=%s", cases[i].value);
    n = fresh(&c, line);
    if(cases[i].us != 0)
      CHECK(n == 0 && c.torture_us == cases[i].us);
    else
      CHECK(n == 1 && c.torture_us == 0);
  }
  CHECK(rejected("torture.secs=0.05", "out of range"));
  CHECK(rejected("torture.secs=100000", "out of range"));
  CHECK(fresh(&c, "torture.secs=2 torture.secs=bad") == 1 && c.torture_us == 2000000);
}

// Whether c keeps exactly the bench= names in names (space-separated), in that order.
static bool
names_are(const struct cmdline *c, const char *names)
{
  char buf[CMDLINE_WORD_MAX + 1], *w;
  int i = 0;

  snprintf(buf, sizeof(buf), "%s", names);
  for(w = strtok(buf, " "); w; w = strtok(NULL, " "))
    if(i >= c->nbench || strcmp(c->bench_names[i++], w) != 0)
      return false;
  return i == c->nbench;
}

static void
test_bench(void)
{
  char line[CMDLINE_WORD_MAX + 1];
  struct cmdline c;
  int i, n;

  CHECK(fresh(&c, "bench=quick,locks") == 0 && !c.bench_all && c.bench_quick);
  CHECK(names_are(&c, "locks"));
  CHECK(fresh(&c, "bench=locks,quick") == 0 && !c.bench_all && c.bench_quick);
  CHECK(names_are(&c, "locks"));
  CHECK(fresh(&c, "bench=quick") == 0 && c.bench_all && c.nbench == 0 && c.bench_quick);
  CHECK(fresh(&c, "bench=none") == 0 && !c.bench_all && c.nbench == 0 && !c.bench_quick);
  CHECK(fresh(&c, "bench=quick,locks bench=none") == 0 && !c.bench_all && c.nbench == 0);
  CHECK(!c.bench_quick);
  CHECK(fresh(&c, "bench=radix,madvise") == 0 && !c.bench_all && !c.bench_quick);
  CHECK(names_are(&c, "radix madvise"));
  CHECK(fresh(&c, "bench=all,quick") == 0 && c.bench_all && c.nbench == 0 && c.bench_quick);
  CHECK(fresh(&c, "bench=all") == 0 && c.bench_all && !c.bench_quick);
  // Names are kept as written, known or not: the registry is the kernel's (bench.c).
  CHECK(fresh(&c, "bench=nosuch,radix-tree2") == 0 && !c.bench_all);
  CHECK(names_are(&c, "nosuch radix-tree2"));
  CHECK(fresh(&c, "bench=all,locks") == 0 && c.bench_all && names_are(&c, "locks"));
  // The last good word wins; a bad list changes nothing, not even its good names.
  CHECK(fresh(&c, "bench=locks bench=quick,ramfs bench=locks,Bogus") == 1);
  CHECK(strcmp(lastwhy, "bad suite name") == 0 && strcmp(lastword, "bench=locks,Bogus") == 0);
  CHECK(!c.bench_all && c.bench_quick && names_are(&c, "ramfs"));
  CHECK(rejected("bench=locks,,radix", "empty suite name"));
  CHECK(rejected("bench=locks,", "empty suite name"));
  CHECK(rejected("bench=,locks", "empty suite name"));
  CHECK(rejected("bench=none,locks", "none stands alone"));
  CHECK(rejected("bench=quick,none", "none stands alone"));
  CHECK(rejected("bench=LOCKS", "bad suite name"));
  CHECK(rejected("bench=lock_s", "bad suite name"));
  CHECK(rejected("bench=locks.x", "bad suite name"));
  // 31 bytes fit in a name, 32 do not.
  CHECK(fresh(&c, "bench=0123456789012345678901234567890") == 0);
  CHECK(c.nbench == 1 && strlen(c.bench_names[0]) == BENCH_NAME_MAX - 1);
  CHECK(rejected("bench=01234567890123456789012345678901", "suite name too long"));
  // BENCH_NAMES_MAX names are kept, flags aside; one more is bad.
  n = sprintf(line, "bench=quick");
  for(i = 0; i < BENCH_NAMES_MAX; i++)
    n += sprintf(line + n, ",s%d", i);
  CHECK(fresh(&c, line) == 0 && c.nbench == BENCH_NAMES_MAX && c.bench_quick);
  CHECK(strcmp(c.bench_names[BENCH_NAMES_MAX - 1], "s15") == 0);
  sprintf(line + n, ",z");
  CHECK(rejected(line, "too many suite names"));
}

static void
test_selftest(void)
{
  char line[CMDLINE_WORD_MAX + 1];
  struct cmdline c;
  int i, n;

  CHECK(fresh(&c, "selftest=all") == 0 && c.selftest == SELFTEST_ALL);
  CHECK(fresh(&c, "selftest=list") == 0 && c.selftest == SELFTEST_LIST);
  CHECK(fresh(&c, "selftest=a,b,c selftest=none") == 0 && c.selftest == SELFTEST_NONE);
  CHECK(c.nselftest == 0);
  CHECK(fresh(&c, "selftest=a,b,c") == 0 && c.selftest == SELFTEST_NAMES && c.nselftest == 3);
  CHECK(strcmp(c.selftest_names[0], "a") == 0 && strcmp(c.selftest_names[2], "c") == 0);
  CHECK(fresh(&c, "selftest=radix-tree,rcu2") == 0 && c.nselftest == 2);
  CHECK(strcmp(c.selftest_names[0], "radix-tree") == 0 && strcmp(c.selftest_names[1], "rcu2") == 0);
  // Last wins, and a bad list leaves the previous one whole.
  CHECK(fresh(&c, "selftest=x,y selftest=z selftest=q,Bad_Name") == 1);
  CHECK(strcmp(lastwhy, "bad test name") == 0);
  CHECK(c.selftest == SELFTEST_NAMES && c.nselftest == 1 && strcmp(c.selftest_names[0], "z") == 0);
  CHECK(rejected("selftest=Bad_Name", "bad test name"));
  CHECK(rejected("selftest=a,,b", "bad test name"));
  CHECK(rejected("selftest=a,", "bad test name"));
  CHECK(rejected("selftest=all,slab", "none, all and list stand alone"));
  // 31 bytes fit in a name, 32 do not.
  CHECK(fresh(&c, "selftest=0123456789012345678901234567890") == 0);
  CHECK(c.nselftest == 1 && strlen(c.selftest_names[0]) == SELFTEST_NAME_MAX - 1);
  CHECK(rejected("selftest=01234567890123456789012345678901", "test name too long"));
  // SELFTEST_MAX names are kept; one more is bad.
  n = sprintf(line, "selftest=");
  for(i = 0; i < SELFTEST_MAX; i++)
    n += sprintf(line + n, "%s%c", i ? "," : "", 'a' + i % 26);
  CHECK(fresh(&c, line) == 0 && c.nselftest == SELFTEST_MAX);
  CHECK(strcmp(c.selftest_names[SELFTEST_MAX - 1], "l") == 0);
  sprintf(line + n, ",z");
  CHECK(rejected(line, "too many test names"));
}

static void
test_flags(void)
{
  struct cmdline c;

  CHECK(fresh(&c, "poweroff=no panic=halt debug_slab=yes") == 0);
  CHECK(!c.poweroff && c.panic == PANIC_HALT && c.debug_slab);
  CHECK(parse(&c, "poweroff=yes panic=exit debug_slab=no") == 0);
  CHECK(c.poweroff && c.panic == PANIC_EXIT && !c.debug_slab);
  CHECK(rejected("poweroff=1", "expected yes or no"));
  CHECK(rejected("debug_slab=on", "expected yes or no"));
  CHECK(rejected("panic=reboot", "expected exit or halt"));
  // bench.aa: yes or no, nothing else; it leaves bench= alone.
  CHECK(fresh(&c, "bench.aa=yes") == 0 && c.bench_aa && c.bench_all && !c.bench_quick);
  CHECK(fresh(&c, "bench=quick,calib bench.aa=yes") == 0 && c.bench_aa && c.bench_quick);
  CHECK(names_are(&c, "calib"));
  CHECK(parse(&c, "bench.aa=no") == 0 && !c.bench_aa);
  CHECK(fresh(&c, "bench.aa=yes bench.aa=maybe") == 1 && c.bench_aa);
  CHECK(strcmp(lastwhy, "expected yes or no") == 0 && strcmp(lastword, "bench.aa=maybe") == 0);
  CHECK(rejected("bench.aa=1", "expected yes or no"));
  // lockstat: yes or no, off by default.
  CHECK(fresh(&c, "lockstat=yes bench=quick") == 0 && c.lockstat && c.bench_quick);
  CHECK(parse(&c, "lockstat=no") == 0 && !c.lockstat);
  CHECK(fresh(&c, "lockstat=yes lockstat=on") == 1 && c.lockstat);
  CHECK(strcmp(lastwhy, "expected yes or no") == 0 && strcmp(lastword, "lockstat=on") == 0);
  // madvise.lock: vma (the default), read or write, the last word winning; anything else is
  // named and what was set kept.
  CHECK(fresh(&c, "madvise.lock=write") == 0 && c.madvise_lock_write && !c.madvise_lock_read);
  CHECK(parse(&c, "madvise.lock=read") == 0 && !c.madvise_lock_write && c.madvise_lock_read);
  CHECK(parse(&c, "madvise.lock=vma") == 0 && !c.madvise_lock_write && !c.madvise_lock_read);
  CHECK(fresh(&c, "madvise.lock=write madvise.lock=vma") == 0 && !c.madvise_lock_read &&
        !c.madvise_lock_write);
  CHECK(fresh(&c, "madvise.lock=read madvise.lock=range") == 1 && c.madvise_lock_read);
  CHECK(fresh(&c, "madvise.lock=exclusive") == 1 && !c.madvise_lock_write && !c.madvise_lock_read);
  CHECK(strcmp(lastwhy, "expected vma, read or write") == 0 &&
        strcmp(lastword, "madvise.lock=exclusive") == 0);
  CHECK(rejected("madvise.lock=", "empty value"));
  // vm.fault_lock: vma (the default) or mmap_sem.
  CHECK(fresh(&c, "vm.fault_lock=mmap_sem") == 0 && c.fault_lock_mmap_sem);
  CHECK(parse(&c, "vm.fault_lock=vma") == 0 && !c.fault_lock_mmap_sem);
  CHECK(fresh(&c, "vm.fault_lock=rcu") == 1 && !c.fault_lock_mmap_sem);
  CHECK(strcmp(lastwhy, "expected vma or mmap_sem") == 0 &&
        strcmp(lastword, "vm.fault_lock=rcu") == 0);
  // vm.pt: shared (the default) or percore.
  CHECK(fresh(&c, "vm.pt=percore") == 0 && c.vm_pt_percore);
  CHECK(parse(&c, "vm.pt=shared") == 0 && !c.vm_pt_percore);
  CHECK(fresh(&c, "vm.pt=radix") == 1 && !c.vm_pt_percore);
  CHECK(strcmp(lastwhy, "expected shared or percore") == 0 &&
        strcmp(lastword, "vm.pt=radix") == 0);
  // bench.margin: a whole percentage 0..50, 5 by default.
  CHECK(fresh(&c, "") == 0 && c.bench_margin == 5);
  CHECK(fresh(&c, "bench.margin=0") == 0 && c.bench_margin == 0);
  CHECK(parse(&c, "bench.margin=50") == 0 && c.bench_margin == 50);
  CHECK(fresh(&c, "bench.margin=10 bench.margin=51") == 1 && c.bench_margin == 10);
  CHECK(rejected("bench.margin=51", "out of range"));
  CHECK(rejected("bench.margin=2.5", "not a decimal number"));
  // bench.seed: 1..2^32-1; 0 (no seed given) means one drawn at boot.
  CHECK(fresh(&c, "") == 0 && c.bench_seed == 0);
  CHECK(fresh(&c, "bench.seed=4294967295") == 0 && c.bench_seed == 4294967295U);
  CHECK(fresh(&c, "bench.seed=7 bench.seed=4294967296") == 1 && c.bench_seed == 7);
  CHECK(rejected("bench.seed=4294967296", "out of range"));
  CHECK(rejected("bench.seed=0", "out of range"));
  CHECK(rejected("bench.seed=0x10", "not a decimal number"));
  // pagecache, pagecache.fanout, ramfs.free: the root ramfs's variants, radix-rcu/64 and rcu
  // by default; a bad value is named and the last good one kept.
  CHECK(fresh(&c, "") == 0 && !strcmp(cmdline_pagecache_names[c.pagecache], "radix-rcu") &&
        c.pagecache_fanout == 64 && !c.ramfs_free_now);
  for(int i = 0; i < NR_CMDLINE_PAGECACHE; i++) {
    char w[64];
    snprintf(w, sizeof(w), "pagecache=%s", cmdline_pagecache_names[i]);
    CHECK(fresh(&c, w) == 0 && c.pagecache == (u32)i);
  }
  CHECK(fresh(&c, "pagecache=hash-bucket pagecache=radix") == 1 &&
        !strcmp(cmdline_pagecache_names[c.pagecache], "hash-bucket"));
  CHECK(rejected("pagecache=radix", "expected hash-global, hash-bucket, radix-lock or radix-rcu"));
  CHECK(fresh(&c, "pagecache.fanout=16") == 0 && c.pagecache_fanout == 16);
  CHECK(fresh(&c, "pagecache.fanout=128 pagecache.fanout=32") == 1 && c.pagecache_fanout == 128);
  CHECK(rejected("pagecache.fanout=32", "expected 16, 64 or 128"));
  CHECK(rejected("pagecache.fanout=256", "out of range"));
  CHECK(rejected("pagecache.fanout=8", "out of range"));
  CHECK(fresh(&c, "ramfs.free=now") == 0 && c.ramfs_free_now);
  CHECK(parse(&c, "ramfs.free=rcu") == 0 && !c.ramfs_free_now);
  CHECK(rejected("ramfs.free=later", "expected rcu or now"));
  CHECK(fresh(&c, "") == 0 && !c.ramfs_walk_ref);
  CHECK(fresh(&c, "ramfs.walk=ref") == 0 && c.ramfs_walk_ref);
  CHECK(parse(&c, "ramfs.walk=auto") == 0 && !c.ramfs_walk_ref);
  CHECK(fresh(&c, "ramfs.walk=ref ramfs.walk=rcu") == 1 && c.ramfs_walk_ref);
  CHECK(rejected("ramfs.walk=rcu", "expected auto or ref"));
  CHECK(rejected("bench.aa=YES", "expected yes or no"));
  CHECK(rejected("bench.aa=", "empty value"));
  CHECK(rejected("bench.a=yes", "unknown key"));
  // Duplicates: the last good word wins, a later bad one changes nothing.
  CHECK(fresh(&c, "nr_cpus=2 nr_cpus=3") == 0 && c.nr_cpus == 3);
  CHECK(fresh(&c, "nr_cpus=2 nr_cpus=999") == 1 && c.nr_cpus == 2);
}

// A name of [a-z0-9-]+ that fits max bytes with its NUL.
static bool
test_name(const char *s, size_t max)
{
  size_t n = strnlen(s, max);
  size_t i;

  if(n == 0 || n == max)
    return false;
  for(i = 0; i < n; i++)
    if(!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", s[i]))
      return false;
  return true;
}

// Every field within its documented range, every name well-formed.
static bool
sane(struct cmdline *c)
{
  int i;

  if(c->nbench < 0 || c->nbench > BENCH_NAMES_MAX)
    return false;
  for(i = 0; i < c->nbench; i++)
    if(!test_name(c->bench_names[i], BENCH_NAME_MAX))
      return false;
  if(c->bench_runs > 1000 || c->nr_cpus > 255 || c->failslab > 1000 || c->failpage > 1000)
    return false;
  if(c->bench_secs_us != 0 && (c->bench_secs_us < 1000 || c->bench_secs_us > 600000000))
    return false;
  if(c->torture_us != 0 && (c->torture_us < 100000 || c->torture_us > 86400000000ULL))
    return false;
  if(c->selftest < SELFTEST_NONE || c->selftest > SELFTEST_NAMES)
    return false;
  if(c->nselftest < 0 || c->nselftest > SELFTEST_MAX)
    return false;
  for(i = 0; i < c->nselftest; i++)
    if(!test_name(c->selftest_names[i], SELFTEST_NAME_MAX))
      return false;
  return c->panic == PANIC_EXIT || c->panic == PANIC_HALT;
}

// 4 KiB lines of random bytes, and of random pieces of real words, over many
// seeds. The parse must not crash (the sanitizers watch), must report no more
// bad words than there are words, and must leave every field in range.
static void
test_junk(int seeds)
{
  static const char *const pieces[] = {
    "bench", "bench.runs", "bench.secs", "bench.aa", "selftest", "nr_cpus", "poweroff", "panic",
    "failslab", "failpage", "debug_slab", "torture.secs", "lockstat", "=", "=", ",", ",", " ", " ",
    "\t", "/",
    "quick", "all", "none", "list", "locks", "radix", "yes", "no", "halt", "a-b",
    "0", "1", "9", "99999999999999999999", ".", "0.25", "-", "x", "\001", "\377",
  };
  static char line[4097];
  struct cmdline c;
  int seed, i, n, words, bad_seeds = 0;

  for(seed = 0; seed < seeds; seed++) {
    srand(seed);
    n = 0;
    if(seed % 2 == 0) {
      for(; n < 4096; n++)
        line[n] = rand() % 255 + 1;
    } else {
      while(n < 4000)
        n += sprintf(line + n, "%s", pieces[rand() % ARRAY_SIZE(pieces)]);
    }
    line[n] = '\0';
    words = 0;
    for(i = 0; i < n; i++)
      if(!strchr(" \t\n\r\v\f", line[i]) && (i == 0 || strchr(" \t\n\r\v\f", line[i - 1])))
        words++;
    cmdline_defaults(&c);
    if(parse(&c, line) > words || !sane(&c))
      bad_seeds++;
  }
  printf("junk: %d lines of 4 KiB, %d failed\n", seeds, bad_seeds);
  CHECK(bad_seeds == 0);
}

// init= keeps its path; every word after a lone -- is the program's, verbatim: keys there
// are not parsed, nothing there is reported unless it cannot be kept.
static void
test_init(void)
{
  struct cmdline c;
  CHECK(fresh(&c, "bench=none init=/bin/prog -- all 0.5 1,8 nr_cpus=2 --") == 0);
  CHECK(strcmp(c.init, "/bin/prog") == 0 && c.nr_cpus == 0 && !c.bench_all);
  CHECK(c.ninit_args == 5 && strcmp(c.init_args[0], "all") == 0);
  CHECK(strcmp(c.init_args[3], "nr_cpus=2") == 0 && strcmp(c.init_args[4], "--") == 0);
  CHECK(fresh(&c, "init=/x --") == 0 && c.ninit_args == 0);
  CHECK(fresh(&c, "init=/x a-- --b") == 2 && c.ninit_args == 0);
  char line[400] = "--";
  for(int i = 0; i < 40; i++)
    strcat(line, " w");
  CHECK(fresh(&c, line) == 8 && c.ninit_args == INIT_ARGS_MAX);
  memset(line, 'p', 200);
  memcpy(line, "init=/", 6);
  line[200] = 0;
  CHECK(fresh(&c, line) == 1 && c.init[0] == 0);
}

int
main(void)
{
  test_empty();
  test_words();
  test_long_word();
  test_numbers();
  test_secs();
  test_torture_secs();
  test_bench();
  test_selftest();
  test_flags();
  test_init();
  test_junk(4000);
  CHECK(malformed == 0);
  return check_summary("test_cmdline");
}
