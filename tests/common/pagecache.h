// What the page-cache tests share, host (tests/host/test_pagecache.c) and kernel
// (tests/kernel/pagecache_test.c): the variant under test, and pages that hold their index.
#pragma once
#include "errno.h"
#include "pagemap.h"

struct config {
  enum pagecache_variant v;
  unsigned fanout;   // radix variants only
};

// Indices at the edges of radix-tree levels, around 2^32, and at the top of the index space.
static const unsigned long odd_indices[] = {
  0, 1, 3, 17, 255, 256, 4095, 65537, (1UL << 32) - 1, 1UL << 32, (1UL << 32) + 1,
  ~0UL - 1, ~0UL,
};

// Every page holds its index, so a reader can tell the right page from a reused one.
static unsigned long
content(struct page *page)
{
  return READ_ONCE(*(unsigned long *)page_address(page));
}

static void
set_content(struct page *page, unsigned long index)
{
  *(unsigned long *)page_address(page) = index;
}

// A new page holding index, added at index and left with the cache's references only.
static int
add_index(struct address_space *m, unsigned long index, gfp_t gfp)
{
  struct page *page = alloc_page(gfp | __GFP_NOWARN);
  if(!page)
    return -ENOMEM;
  set_content(page, index);
  lock_page(page);
  int err = add_to_page_cache(page, m, index, gfp);
  unlock_page(page);
  put_page(page);
  return err;
}
