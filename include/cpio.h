// The cpio "newc" archive format (Linux's Documentation/driver-api/early-userspace/
// buffer-format.rst), parsed from a stream fed in pieces of any size (kernel/lib/cpio.c).
#pragma once
#include "types.h"

#define CPIO_PATH_MAX 4096   // a name or a link target, its NUL included

struct cpio_entry {
  u32 ino, mode, uid, gid, nlink, mtime, filesize;
  u32 devmajor, devminor, rdevmajor, rdevminor;
  char name[CPIO_PATH_MAX];   // as in the archive: "./bin/x", "bin/x", "."
  char link[CPIO_PATH_MAX];   // symbolic links (S_IFLNK in mode): the target
};

// What the parser calls. begin: an entry's header and name (a link's target too); data: a
// regular file's bytes, in order; end: after the last of them. A negative return stops the
// parse with that value; the archive's own trailer is not passed on.
struct cpio_ops {
  int (*begin)(void *arg, const struct cpio_entry *e);
  int (*data)(void *arg, const u8 *buf, size_t len);
  int (*end)(void *arg, const struct cpio_entry *e);
};

struct cpio_parser {
  int state;
  int next;                // CP_PAD: what follows the padding
  u32 have, need;          // bytes of the current part collected, and wanted
  u32 namesize;
  u64 off;                 // bytes since the current header began (alignment)
  char hdr[110];
  struct cpio_entry e;
  const struct cpio_ops *ops;
  void *arg;
  const char *why;         // what was wrong, when cpio_feed failed
  unsigned long entries;   // entries passed to begin
  unsigned long trailers;  // archives ended by TRAILER!!!
};

void cpio_init(struct cpio_parser *p, const struct cpio_ops *ops, void *arg);
// Parses len more bytes: how many it took (all of them, or fewer when, between archives,
// it met a byte that starts no header: another format follows), or -EINVAL with p->why,
// or a callback's error. NUL bytes between archives are padding (as Linux).
long cpio_feed(struct cpio_parser *p, const u8 *buf, size_t len);
// True when the bytes so far end between archives (not inside an entry).
bool cpio_between(const struct cpio_parser *p);
