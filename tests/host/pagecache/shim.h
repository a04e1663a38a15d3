// Host test controls of the page-cache shims (shim.c): the page pool, its injected
// failures, and a word of content per page (host pages have no memory behind them).
#pragma once
#include "mm.h"

extern unsigned long page_data[];            // by pfn
void pages_init(void);
void pages_fail_percent(unsigned pct);       // each alloc_pages fails with this chance in 100
int pages_free(void);
