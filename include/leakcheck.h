// The leak check of every run (mm/leakcheck.c): free pages and slab objects after boot against
// the same at the end, every deferred free done first; LEAK-CHECK says how it went.
#pragma once
#include "types.h"

void leak_check_snapshot(void);   // once boot is done, before fault injection is armed
bool leak_check(void);            // at the end: false (and the differences named) on a leak
