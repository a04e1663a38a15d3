// planted-leak: a slab object and a page allocated and never freed, which the leak check at
// the end of the run (mm/leakcheck.c) must find: LEAK-CHECK result=fail and END result=fail.
#include "mm.h"
#include "selftest.h"
#include "slab.h"

static void *leaked_object;
static struct page *leaked_page;

static bool
planted_leak(void)
{
  leaked_object = kmalloc(64, GFP_KERNEL);
  leaked_page = alloc_page(GFP_KERNEL);
  selftest_extra("object=%d page=%d", leaked_object != NULL, leaked_page != NULL);
  return leaked_object && leaked_page;
}
SELFTEST("planted-leak", planted_leak);
