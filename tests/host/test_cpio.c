// Host test of kernel/lib/cpio.c: archives the host's cpio makes (-H newc) from a scratch tree
// of files, directories, symbolic links and a fifo, fed in pieces of every size; archives
// back to back with NUL padding; another format after an archive; damaged headers refused.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "cpio.h"
#include "errno.h"

// What the callbacks saw, as text: "name mode size [-> link]" per entry, and a checksum of
// every regular file's data in order.
struct seen {
  char log[8192];
  unsigned long sum, bytes;
  int open;   // begin without end yet
};

static int
on_begin(void *arg, const struct cpio_entry *e)
{
  struct seen *s = arg;
  char line[2 * CPIO_PATH_MAX + 64];
  CHECK(!s->open);
  s->open = (e->mode & 0170000) == 0100000;
  snprintf(line, sizeof(line), "%s %o %u%s%s\n", e->name, e->mode, e->filesize,
           e->link[0] && (e->mode & 0170000) == 0120000 ? " -> " : "",
           (e->mode & 0170000) == 0120000 ? e->link : "");
  strncat(s->log, line, sizeof(s->log) - strlen(s->log) - 1);
  return 0;
}

static int
on_data(void *arg, const u8 *buf, size_t len)
{
  struct seen *s = arg;
  CHECK(s->open);
  for(size_t i = 0; i < len; i++)
    s->sum = s->sum * 31 + buf[i];
  s->bytes += len;
  return 0;
}

static int
on_end(void *arg, const struct cpio_entry *e)
{
  struct seen *s = arg;
  if((e->mode & 0170000) == 0100000) {
    CHECK(s->open);
    s->open = 0;
  }
  return 0;
}

static const struct cpio_ops ops = { on_begin, on_data, on_end };

static u8 *
slurp(const char *cmd, size_t *len)
{
  FILE *p = popen(cmd, "r");
  size_t cap = 1 << 16, n = 0, r;
  u8 *buf = malloc(cap);
  while((r = fread(buf + n, 1, cap - n, p)) > 0)
    if((n += r) == cap)
      buf = realloc(buf, cap *= 2);
  CHECK(pclose(p) == 0);
  *len = n;
  return buf;
}

// Feeds buf in pieces of step bytes; returns what the last feed returned, or the total.
static long
feed(struct cpio_parser *p, struct seen *s, const u8 *buf, size_t len, size_t step)
{
  memset(s, 0, sizeof(*s));
  cpio_init(p, &ops, s);
  size_t done = 0;
  while(done < len) {
    size_t n = len - done < step ? len - done : step;
    long r = cpio_feed(p, buf + done, n);
    if(r < 0 || (size_t)r < n)
      return r < 0 ? r : (long)(done + r);
    done += n;
  }
  return done;
}

static char dir[] = "/tmp/test_cpio.XXXXXX";

static void
make_tree(void)
{
  char cmd[512];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof(cmd),
           "cd %s && mkdir -p bin etc/deep/er && printf 'hello\\n' > etc/motd && "
           "head -c 100003 /dev/urandom > bin/big && : > empty && chmod 4755 bin/big && "
           "ln -s ../etc/motd bin/rel && ln -s /etc/motd abs && mkfifo fifo && "
           "chmod 700 etc/deep", dir);
  CHECK(system(cmd) == 0);
}

int
main(void)
{
  struct cpio_parser p;
  struct seen s, ref;
  char cmd[512];
  size_t len;
  make_tree();
  snprintf(cmd, sizeof(cmd), "cd %s && find . | LC_ALL=C sort | cpio -o -H newc 2>/dev/null", dir);
  u8 *arc = slurp(cmd, &len);
  CHECK(len > 100003 && len % 4 == 0);
  CHECK(feed(&p, &ref, arc, len, len) == (long)len);
  CHECK(cpio_between(&p) && p.trailers == 1 && p.entries == 11);
  CHECK(strstr(ref.log, ". 40") == ref.log);
  CHECK(strstr(ref.log, "\nbin/big 104755 100003\n") != NULL);
  CHECK(strstr(ref.log, "\nbin/rel 120777 11 -> ../etc/motd\n") != NULL);
  CHECK(strstr(ref.log, "\nabs 120777 9 -> /etc/motd\n") != NULL);
  CHECK(strstr(ref.log, "\nfifo 10") != NULL);
  CHECK(strstr(ref.log, "\netc/deep 40700 0\n") != NULL);
  CHECK(strstr(ref.log, "\nempty 100") != NULL);
  CHECK(ref.bytes == 100003 + 6);
  // The same events whatever the pieces.
  static const size_t steps[] = { 1, 3, 4, 109, 110, 111, 4096 };
  for(size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
    CHECK(feed(&p, &s, arc, len, steps[i]) == (long)len);
    CHECK(strcmp(s.log, ref.log) == 0 && s.sum == ref.sum && s.bytes == ref.bytes);
  }
  // Two archives with NUL padding between them, then gzip data: the parser stops at the
  // gzip magic and says where.
  u8 *two = calloc(1, 2 * len + 64);
  memcpy(two, arc, len);
  memcpy(two + len + 12, arc, len);
  two[2 * len + 12] = 0x1f;
  two[2 * len + 13] = 0x8b;
  CHECK(feed(&p, &s, two, 2 * len + 14, 777) == (long)(2 * len + 12));
  CHECK(p.trailers == 2 && p.entries == 22 && s.bytes == 2 * ref.bytes);
  // Truncated: between archives only at the end of one. (GNU cpio names entries without
  // their "./"; the kernel's unpacker takes both.)
  CHECK(feed(&p, &s, arc, len / 2, 4096) == (long)(len / 2) && !cpio_between(&p));
  CHECK(feed(&p, &s, arc, 50, 4096) == 50 && !cpio_between(&p));
  // Damaged headers.
  u8 *bad = malloc(len);
  static const struct {
    size_t at;
    u8 byte;
    const char *why;
  } damage[] = {
    { 5, '9', "magic" }, { 20, 'x', "hexadecimal" }, { 94, '0', "name size" },
  };
  for(size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
    memcpy(bad, arc, len);
    if(damage[i].at == 94)
      memcpy(bad + 94, "00000000", 8);   // namesize 0
    else
      bad[damage[i].at] = damage[i].byte;
    CHECK(feed(&p, &s, bad, len, 4096) == -EINVAL && strstr(p.why, damage[i].why));
  }
  memcpy(bad, arc, len);
  memcpy(bad + 94, "00000001", 8);   // the name "." cut to one byte: no NUL
  CHECK(feed(&p, &s, bad, len, 4096) == -EINVAL && strstr(p.why, "NUL"));
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  free(arc);
  free(two);
  free(bad);
  return check_summary("test_cpio");
}
