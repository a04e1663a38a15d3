// The user programs embedded in the kernel image (tests/kernel/user_images.S): found by name
// (the last component of a path), until the initramfs gives exec real files.
#pragma once
#include "types.h"

const void *user_bin_lookup(const char *path, size_t *len);   // NULL if there is none
