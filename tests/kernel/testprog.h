// The test programs the user-* self-tests run: files of the test archive (build/tests.cpio.gz,
// the Makefile's TEST_PROGS), which tools/qemu.sh loads with the debug image as /test/bin/NAME.
#pragma once
#include "types.h"

#define TEST_BIN_DIR "/test/bin/"

struct testprog {
  char path[48];       // /test/bin/NAME
  void *image;         // the file's bytes, in pages of their own
  size_t len;
  unsigned order;
};

// Reads /test/bin/<name>. false when it cannot: then the running test's SELFTEST line says
// missing=<path> (no such file: the console line says the archive may not be loaded) or
// unreadable=<path> error=<errno> (but for ENOMEM under fault injection, which it leaves to
// the caller). err, if not NULL, gets the -errno (0 on success).
bool testprog_load(struct testprog *p, const char *name, int *err);
// Frees what testprog_load read (nothing if it failed).
void testprog_put(struct testprog *p);
