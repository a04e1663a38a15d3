// The kernel command line: GRUB's space-separated key=value words, parsed into struct cmdline.
// Parsing never fails as a whole: a bad word is reported, ignored, and its key keeps its value.
#pragma once
#include "types.h"

// bench= names suites as words only: the registry of suites is kernel/bench/'s BENCH_SUITE
// section, and kernel/bench/bench.c resolves the names against it.
#define BENCH_NAMES_MAX 16    // names kept from bench=a,b,c
#define BENCH_NAME_MAX 32     // bytes per name, with its NUL

enum selftest_mode {
  SELFTEST_NONE,
  SELFTEST_ALL,
  SELFTEST_LIST,   // print every test name
  SELFTEST_NAMES,  // run the tests in selftest_names
};
#define SELFTEST_MAX 64       // names kept from selftest=a,b,c
#define SELFTEST_NAME_MAX 32  // bytes per name, with its NUL

enum panic_action { PANIC_EXIT, PANIC_HALT };

// Longer words are reported cut to this length and ignored. 1024: make test's one boot of the
// planted tests that share it names 25 of them in a selftest= word of 532 bytes
// (tests/planted.sh), make torture's list of sixteen 265 (tools/torture.sh).
#define CMDLINE_WORD_MAX 1024
#define INIT_PATH_MAX 128     // init=, with its NUL
#define INIT_ARGS_MAX 32      // words after a lone --: argv[1..] of the init= program

struct cmdline {
  // bench=: every suite (bench=all, or flags alone: bench=quick), else the suites named;
  // bench=none is bench_all false and no names. The names are [a-z0-9-]+, not yet checked
  // against the registry.
  bool bench_all;
  bool bench_quick;   // bench=quick: shorter runs
  int nbench;
  char bench_names[BENCH_NAMES_MAX][BENCH_NAME_MAX];
  u32 bench_runs;     // repetitions per point, 1..1000; 0: the kernel's default
  u32 bench_secs_us;  // time per run, 1000..600000000 us; 0: the kernel's default
  bool bench_aa;      // bench.aa=yes: every comparison's b is a second copy of its a (A/A)
  u64 torture_us;     // torture.secs=: each torture and stress test, 100000..86400000000 us; 0: its own default
  int selftest;       // enum selftest_mode
  int nselftest;
  char selftest_names[SELFTEST_MAX][SELFTEST_NAME_MAX];  // [a-z0-9-]+, not yet checked against the registry
  u32 nr_cpus;        // at most this many CPUs, 1..255; 0: all
  u32 smp_late_ap;    // test: this CPU id (1..254) comes online past the BSP's deadline; 0: none
  bool poweroff;      // power off when done
  int panic;          // enum panic_action
  u32 failslab;       // per-mille of slab allocations to fail, 0..1000
  u32 failpage;       // per-mille of page allocations to fail, 0..1000
  bool debug_slab;    // slab poisoning and redzones from boot; default on in the debug image
  u32 profile_hz;     // profile=: samples a second of every benchmark point, 0..10000; 0: off
  bool lockstat;      // lockstat=yes: lock statistics for every benchmark point
  bool madvise_lock_write;    // madvise.lock=write: user madvise takes mmap_sem for writing
  bool madvise_lock_read;     // madvise.lock=read: madvise takes mmap_sem, not a VMA's lock
  bool ipi_wait_spin;         // ipi.wait=spin: wait for IPI answers spinning, as Linux does
  bool fault_lock_mmap_sem;   // vm.fault_lock=mmap_sem: faults take mmap_sem, not a VMA's lock
  bool vm_pt_percore;         // vm.pt=percore: each CPU its own page tables of an mm
  bool vm_munmap_lock;        // vm.munmap=lock: munmap zaps under mmap_sem (not after it)
  bool vm_ptl_mm;             // vm.ptl=mm: one lock for every PTE of an mm (not one a table)
  bool bench_rates;           // bench.rates=yes: a BENCH-RUNS line of each point's run rates
  u32 bench_margin;           // bench.margin=: the equivalence margin of verdicts, per cent
  u32 bench_seed;             // bench.seed=: the rounds' orders' seed; 0: drawn at boot
  // The root ramfs, where user programs' files live (fs/super.c, vfs_init): the page cache
  // under them and how their inodes are freed, the seeds' variants for real programs.
  u32 pagecache;              // pagecache=: an index of cmdline_pagecache_names (radix-rcu)
  u32 pagecache_fanout;       // pagecache.fanout=: 16, 64 (the default) or 128
  bool ramfs_free_now;        // ramfs.free=now: freed at once; rcu (the default): after a grace period
  bool ramfs_walk_ref;        // ramfs.walk=ref: the root is ref-walked even where RCU-walk is safe
  char init[INIT_PATH_MAX];   // init=: the program run after self-tests and benchmarks ("" none)
  int ninit_args;             // the words after a lone --, verbatim, never parsed as keys
  char init_args[INIT_ARGS_MAX][CMDLINE_WORD_MAX + 1];
};

// pagecache='s words, named as include/pagemap.h's pagecache_variant_names.
#define NR_CMDLINE_PAGECACHE 4
extern const char *const cmdline_pagecache_names[NR_CMDLINE_PAGECACHE];

void cmdline_defaults(struct cmdline *c);

// Parses line into c, over the values already there. Calls bad(word, why)
// once per word it ignores (bad may be NULL) and returns how many there were.
// word is NUL-terminated and cut to at most CMDLINE_WORD_MAX bytes.
int cmdline_parse(struct cmdline *c, const char *line,
                  void (*bad)(const char *word, const char *why));

// The kernel's parsed command line (kernel/main.c fills it in at boot).
extern struct cmdline kcmdline;
