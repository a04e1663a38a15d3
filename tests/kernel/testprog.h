// The test programs the user-* self-tests run: files of the test archive (build/tests.cpio.gz,
// the Makefile's TEST_PROGS), which tools/qemu.sh loads with the debug image as /test/bin/NAME.
#pragma once
#include "types.h"

#define TEST_BIN_DIR "/test/bin/"

struct testprog {
  char path[48];       // /test/bin/NAME, for process_spawn
};

// Finds /test/bin/<name>. false when it is not there: then the running test's SELFTEST line
// says missing=<path> (no such file: the console line says the archive may not be loaded) or
// unreadable=<path> error=<errno> (but for ENOMEM under fault injection, which it leaves to
// the caller). err, if not NULL, gets the -errno (0 on success).
bool testprog_load(struct testprog *p, const char *name, int *err);

struct process;
// The environment the test programs get (init='s: HOME=/ TERM=linux PATH=/bin:/usr/bin).
extern const char *const testprog_env[];
// prog's process with argv, started; NULL (and spawn=<errno> in the SELFTEST line) if not.
struct process *testprog_spawn(const struct testprog *prog, const char *const argv[]);
// Runs /test/bin/<name> with argv to its end: true if its status is want and every page it
// used came back (<name or argv[1]>=<status> and leaked-pages=<n> in the SELFTEST line).
bool testprog_run(const char *name, const char *const argv[], int want);
// Pages in use outside the free lists, kept pages and slab caches, deferred frees done.
long testprog_used_pages(void);
