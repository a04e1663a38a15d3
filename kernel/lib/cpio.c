// A streaming parser of cpio "newc" archives (magic 070701, or 070702 with a checksum that is
// not checked): 110-byte headers of hexadecimal fields, the name, the data, each padded to 4
// bytes, up to the entry named TRAILER!!!. Archives may follow each other, NUL-padded.
#include "cpio.h"
#include "compiler.h"
#include "errno.h"
#include "string.h"
#include "uapi/stat.h"   // the file types cpio headers carry: no VFS needed, on the host too

enum { CP_START, CP_HEADER, CP_NAME, CP_LINK, CP_DATA, CP_PAD };
// What comes after a padding: a new header, a link's target, the entry's data, its end.
enum { NEXT_START, NEXT_LINK, NEXT_BEGIN, NEXT_END };

void
cpio_init(struct cpio_parser *p, const struct cpio_ops *ops, void *arg)
{
  memset(p, 0, sizeof(*p));
  p->ops = ops;
  p->arg = arg;
}

bool
cpio_between(const struct cpio_parser *p)
{
  return p->state == CP_START;
}

static int
bad(struct cpio_parser *p, const char *why)
{
  p->why = why;
  return -EINVAL;
}

static bool
hex8(const char *s, u32 *v)
{
  u32 x = 0;
  for(int i = 0; i < 8; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if(d < 0)
      return false;
    x = x << 4 | d;
  }
  *v = x;
  return true;
}

static int
parse_header(struct cpio_parser *p)
{
  u32 f[13], check;
  if(memcmp(p->hdr, "070701", 6) != 0 && memcmp(p->hdr, "070702", 6) != 0)
    return bad(p, "not a newc header (magic 070701)");
  for(int i = 0; i < 13; i++)
    if(!hex8(p->hdr + 6 + 8 * i, &f[i]))
      return bad(p, "header field is not hexadecimal");
  struct cpio_entry *e = &p->e;
  e->ino = f[0], e->mode = f[1], e->uid = f[2], e->gid = f[3], e->nlink = f[4];
  e->mtime = f[5], e->filesize = f[6], e->devmajor = f[7], e->devminor = f[8];
  e->rdevmajor = f[9], e->rdevminor = f[10], p->namesize = f[11], check = f[12];
  (void)check;
  if(p->namesize == 0 || p->namesize > CPIO_PATH_MAX)
    return bad(p, "name size out of range");
  if((e->mode & S_IFMT) == S_IFLNK && e->filesize >= CPIO_PATH_MAX)
    return bad(p, "symbolic link target too long");
  return 0;
}

// Copies up to need - have bytes into dst; true once the part is complete.
static bool
collect(struct cpio_parser *p, char *dst, const u8 **buf, size_t *len)
{
  size_t n = MIN((size_t)(p->need - p->have), *len);
  memcpy(dst + p->have, *buf, n);
  p->have += n;
  p->off += n;
  *buf += n;
  *len -= n;
  return p->have == p->need;
}

// After the name, or after the data: padding to the next multiple of 4.
static void
start_pad(struct cpio_parser *p, int next)
{
  p->state = CP_PAD;
  p->need = (4 - (p->off & 3)) & 3;
  p->next = next;
}

// The entry's name and, for a link, its target are complete: on to its data.
static int
begin_entry(struct cpio_parser *p)
{
  struct cpio_entry *e = &p->e;
  if(strcmp(e->name, "TRAILER!!!") == 0) {
    p->trailers++;
    start_pad(p, NEXT_START);
    return 0;
  }
  p->entries++;
  int err = p->ops->begin ? p->ops->begin(p->arg, e) : 0;
  if(err)
    return err;
  p->state = CP_DATA;
  p->need = (e->mode & S_IFMT) == S_IFLNK ? 0 : e->filesize;
  p->have = 0;
  return 0;
}

static int
end_entry(struct cpio_parser *p)
{
  int err = p->ops->end ? p->ops->end(p->arg, &p->e) : 0;
  start_pad(p, NEXT_START);
  return err;
}

long
cpio_feed(struct cpio_parser *p, const u8 *buf, size_t len)
{
  size_t total = len;
  int err = 0;
  while(!err && (len || (p->state == CP_DATA && p->have == p->need) ||
                 (p->state == CP_PAD && p->need == 0))) {
    switch(p->state) {
    case CP_START:
      if(*buf == 0) {   // padding between archives
        buf++, len--;
        break;
      }
      if(*buf != '0')
        return total - len;   // another format: the caller's to decide
      p->state = CP_HEADER;
      p->have = 0;
      p->need = sizeof(p->hdr);
      p->off = 0;
      break;
    case CP_HEADER:
      if(collect(p, p->hdr, &buf, &len) && !(err = parse_header(p))) {
        p->state = CP_NAME;
        p->have = 0;
        p->need = p->namesize;
      }
      break;
    case CP_NAME:
      if(!collect(p, p->e.name, &buf, &len))
        break;
      if(p->e.name[p->namesize - 1] != 0)
        return bad(p, "name does not end in NUL");
      if((p->e.mode & S_IFMT) == S_IFLNK && strcmp(p->e.name, "TRAILER!!!") != 0) {
        start_pad(p, NEXT_LINK);
        break;
      }
      start_pad(p, NEXT_BEGIN);
      break;
    case CP_LINK:
      if(!collect(p, p->e.link, &buf, &len))
        break;
      p->e.link[p->e.filesize] = 0;
      if(strlen(p->e.link) != p->e.filesize)
        return bad(p, "symbolic link target has a NUL");
      err = begin_entry(p);
      if(!err)   // the target was the data: padding, then the end
        start_pad(p, NEXT_END);
      break;
    case CP_DATA:
      if(p->have < p->need) {
        size_t n = MIN((size_t)(p->need - p->have), len);
        bool reg = (p->e.mode & S_IFMT) == S_IFREG;
        if(reg && p->ops->data)
          err = p->ops->data(p->arg, buf, n);
        p->have += n;
        p->off += n;
        buf += n;
        len -= n;
      }
      if(!err && p->have == p->need)
        err = end_entry(p);
      break;
    case CP_PAD: {
      size_t n = MIN((size_t)p->need, len);
      for(size_t i = 0; i < n; i++)
        if(buf[i] != 0)
          return bad(p, "padding is not zero");
      p->need -= n;
      p->off += n;
      buf += n;
      len -= n;
      if(p->need)
        break;
      if(p->next == NEXT_BEGIN)
        err = begin_entry(p);
      else if(p->next == NEXT_LINK) {
        if(p->e.filesize == 0)
          return bad(p, "symbolic link with no target");
        p->state = CP_LINK;
        p->have = 0;
        p->need = p->e.filesize;
      } else if(p->next == NEXT_END)
        err = end_entry(p);
      else
        p->state = CP_START;
      break;
    }
    }
  }
  return err ? err : (long)total;
}
