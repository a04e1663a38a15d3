// libFuzzer harness for kernel/lib/cpio.c: the first byte picks the size of the pieces the
// rest is fed in. Entries come whole (a NUL-ended name, a link's target of its stated size,
// exactly filesize bytes of data between begin and end), and the parser takes no more than
// it is given, whatever the pieces.
#include <string.h>
#include "cpio.h"
#include "errno.h"
#include "fuzz.h"

struct seen {
  bool open;
  size_t want, got;
  unsigned long entries;
};

static int
on_begin(void *arg, const struct cpio_entry *e)
{
  struct seen *s = arg;
  FUZZ_CHECK(!s->open);
  size_t n = strnlen(e->name, CPIO_PATH_MAX);
  FUZZ_CHECK(n < CPIO_PATH_MAX);
  FUZZ_CHECK(strcmp(e->name, "TRAILER!!!") != 0);
  if((e->mode & 0170000) == 0120000)
    FUZZ_CHECK(e->filesize > 0 && strnlen(e->link, CPIO_PATH_MAX) == e->filesize);
  s->open = true;
  s->want = (e->mode & 0170000) == 0120000 ? 0 : e->filesize;
  s->got = 0;
  s->entries++;
  return 0;
}

static int
on_data(void *arg, const u8 *buf, size_t len)
{
  struct seen *s = arg;
  FUZZ_CHECK(s->open && len > 0);
  s->got += len;
  FUZZ_CHECK(s->got <= s->want);
  return 0;
}

static int
on_end(void *arg, const struct cpio_entry *e)
{
  struct seen *s = arg;
  FUZZ_CHECK(s->open);
  FUZZ_CHECK((e->mode & 0170000) != 0100000 || s->got == s->want);
  s->open = false;
  return 0;
}

static const struct cpio_ops ops = { on_begin, on_data, on_end };
static struct cpio_parser parser;

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  if(size < 1)
    return 0;
  struct seen s = { false, 0, 0, 0 };
  size_t step = data[0] ? data[0] : size;
  data++, size--;
  cpio_init(&parser, &ops, &s);
  for(size_t done = 0; done < size;) {
    size_t n = size - done < step ? size - done : step;
    long r = cpio_feed(&parser, data + done, n);
    FUZZ_CHECK(r == -EINVAL || (r >= 0 && (size_t)r <= n));
    if(r == -EINVAL)
      FUZZ_CHECK(parser.why != NULL);
    if(r < 0 || (size_t)r < n) {
      FUZZ_CHECK(r < 0 || cpio_between(&parser));   // stops early only between archives
      break;
    }
    done += n;
  }
  FUZZ_CHECK(parser.entries == s.entries);
  return 0;
}
