// Checks of a call's result against the value wanted, for self-tests that make many of them:
// each mismatch is counted, and the first ten of a tally are printed with the call's text.
#pragma once

struct expect_tally {
  const char *test;   // the self-test's name, for the messages
  int checks;
  int mismatches;
};

void expect_eq(struct expect_tally *t, const char *what, long got, long want);

// The mode of the node at path (vfs_stat with flags), or its -errno: one number to check.
long expect_stat_mode(const char *path, unsigned flags);
