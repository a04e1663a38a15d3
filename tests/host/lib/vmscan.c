// The LRU on the host, as the reclaim core keeps it but without lists: PG_lru and the
// reference that comes with it. Tests play reclaim themselves (page_lru_ops()->evict).
#include "panic.h"
#include "reclaim.h"

void
lru_cache_add(struct page *page)
{
  get_page(page);
  if(test_and_set_page_flag(page, PG_lru))
    panic("lru_cache_add: pfn %#lx added to the LRU twice", page_to_pfn(page));
}

void
lru_cache_del(struct page *page)
{
  if(test_and_clear_page_flag(page, PG_lru))
    put_page(page);
}
