// The initramfs: the cpio "newc" archives GRUB loaded as Multiboot2 modules (plain, gzip, or
// both in turn, NUL-padded), unpacked into the root ramfs at boot as Linux's
// init/initramfs.c does; then their pages go to the page allocator.
#include "bootinfo.h"
#include "cpio.h"
#include "errno.h"
#include "fs.h"
#include "inflate.h"
#include "mm.h"
#include "printk.h"
#include "slab.h"
#include "string.h"

// One archive's unpacking: the parser, the file being written, and what was made.
struct unpack {
  struct cpio_parser parser;
  char path[PATH_MAX + 1];   // "/" and the entry's name
  struct file *file;         // the regular file whose data is coming, or NULL
  bool skip;                 // the current entry could not be made: drop its data
  unsigned long files, dirs, links, nodes, errors, bytes;
  bool warned_hardlink;
};

static void
entry_error(struct unpack *u, const char *what, int err)
{
  if(u->errors++ < 10)
    pr_err("initramfs: %s: %s failed: error %d, entry skipped\n", u->path, what, err);
}

// Makes room for a new node as Linux's clean_path: an existing name of another kind goes
// (a directory only if empty); an existing directory stays for a directory to merge into.
static void
clean_path(struct unpack *u, u32 mode)
{
  struct kstat st;
  if(vfs_stat(u->path, LOOKUP_NOFOLLOW, &st))
    return;
  if(S_ISDIR(st.mode) && S_ISDIR(mode))
    return;
  if(S_ISDIR(st.mode))
    vfs_rmdir(u->path);
  else
    vfs_unlink(u->path);
}

// Names come as "./bin/x", "bin/x" or "/bin/x"; "." is the root itself.
static bool
set_path(struct unpack *u, const char *name)
{
  while(name[0] == '.' && name[1] == '/')
    name += 2;
  while(name[0] == '/')
    name++;
  if(name[0] == 0 || strcmp(name, ".") == 0)
    return false;
  u->path[0] = '/';
  memcpy(u->path + 1, name, strlen(name) + 1);   // CPIO_PATH_MAX bytes at most, NUL included
  return true;
}

static int
on_begin(void *arg, const struct cpio_entry *e)
{
  struct unpack *u = arg;
  u32 mode = e->mode;
  int err = 0;
  u->skip = true;
  if(!set_path(u, e->name))
    return 0;   // the root: it exists, and its mode stays Linux's 0755
  clean_path(u, mode);
  switch(mode & S_IFMT) {
  case S_IFDIR:
    err = vfs_mknod(u->path, S_IFDIR | (mode & S_IALLUGO), 0);
    if(err == -EEXIST)
      err = vfs_chmod(u->path, mode);   // merged: the later archive's mode wins
    u->dirs += !err;
    break;
  case S_IFREG:
    if(e->nlink > 1 && !u->warned_hardlink) {
      u->warned_hardlink = true;
      pr_warn("initramfs: %s: hard links are unpacked as separate files\n", u->path);
    }
    err = vfs_open_mode(u->path, O_CREAT | O_EXCL, mode, 0, &u->file);
    u->files += !err;
    break;
  case S_IFLNK:
    err = vfs_symlink(e->link, u->path);
    u->links += !err;
    break;
  case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
    err = vfs_mknod(u->path, mode, MKDEV(e->rdevmajor, e->rdevminor));
    u->nodes += !err;
    break;
  default:
    err = -EINVAL;
  }
  if(!err)
    err = vfs_chown(u->path, e->uid, e->gid);
  if(err) {
    entry_error(u, "create", err);
    if(u->file)
      vfs_close(u->file);
    u->file = NULL;
    return 0;
  }
  u->skip = false;
  return 0;
}

static int
on_data(void *arg, const u8 *buf, size_t len)
{
  struct unpack *u = arg;
  if(u->skip || !u->file)
    return 0;
  ssize_t n = vfs_write(u->file, buf, len);
  if(n != (ssize_t)len) {
    entry_error(u, "write", n < 0 ? n : -ENOSPC);
    u->skip = true;
    return 0;
  }
  u->bytes += len;
  return 0;
}

static int
on_end(void *arg, const struct cpio_entry *e)
{
  struct unpack *u = arg;
  if(u->file)
    vfs_close(u->file);
  u->file = NULL;
  return 0;
}

static const struct cpio_ops unpack_ops = { on_begin, on_data, on_end };

static int
feed_cpio(void *arg, const u8 *buf, size_t len)
{
  struct unpack *u = arg;
  long n = cpio_feed(&u->parser, buf, len);
  if(n >= 0 && (size_t)n < len) {
    u->parser.why = "data after an archive is not cpio";
    return -EINVAL;
  }
  return n < 0 ? n : 0;
}

// Walks the archive: NUL padding, plain cpio, gzip members, in any order. 0, or -EINVAL
// with *why and *at (the offset of the trouble).
static int
unpack_buffer(struct unpack *u, const u8 *buf, size_t len, u8 *window, const char **why,
              size_t *at)
{
  size_t pos = 0;
  while(pos < len) {
    *at = pos;
    if(buf[pos] == 0) {
      pos++;
      continue;
    }
    if(gzip_magic(buf + pos, len - pos)) {
      size_t used = 0;
      int err = gunzip(buf + pos, len - pos, &used, window, feed_cpio, u, why);
      if(err)
        return *why ? err : (*why = u->parser.why, err);
      pos += used;
      continue;
    }
    if(buf[pos] != '0') {
      *why = "neither cpio nor gzip data";
      return -EINVAL;
    }
    long n = cpio_feed(&u->parser, buf + pos, len - pos);
    if(n < 0) {
      *why = u->parser.why;
      return n;
    }
    pos += n;
  }
  if(!cpio_between(&u->parser)) {
    *why = "archive cut short";
    return -EINVAL;
  }
  return 0;
}

int
initramfs_unpack(const void *buf, size_t len, const char *name, struct initramfs_result *res)
{
  const char *why = NULL;
  size_t at = 0;
  struct unpack *u = kzalloc(sizeof(*u), GFP_KERNEL);
  struct page *wp = alloc_pages(GFP_KERNEL, get_order(INFLATE_WINDOW));
  int err = -ENOMEM;
  if(u && wp) {
    cpio_init(&u->parser, &unpack_ops, u);
    err = unpack_buffer(u, buf, len, page_address(wp), &why, &at);
    if(u->file)
      vfs_close(u->file);
  }
  if(err)
    pr_err("initramfs: %s: %s at offset %lu (error %d); unpacking stopped there\n", name,
           why ? why : "no memory", at, err);
  struct initramfs_result r = { 0 };
  if(u)
    r = (struct initramfs_result){ u->parser.entries, u->files, u->dirs, u->links, u->nodes,
                                   u->bytes, u->errors };
  printk("INITRAMFS archive=%s bytes=%lu result=%s entries=%lu files=%lu dirs=%lu links=%lu "
         "nodes=%lu data_bytes=%lu errors=%lu\n", name[0] ? name : "-", (unsigned long)len,
         err ? "fail" : "pass", r.entries, r.files, r.dirs, r.links, r.nodes, r.bytes, r.errors);
  if(res)
    *res = r;
  kfree(u);
  if(wp)
    __free_pages(wp, get_order(INFLATE_WINDOW));
  return err;
}

struct initramfs_stats initramfs_stats;

void
populate_rootfs(void)
{
  unsigned long freed = 0;
  for(int i = 0; i < bootinfo.nmodules; i++) {
    const struct boot_module *m = &bootinfo.modules[i];
    struct initramfs_result r;
    int err = initramfs_unpack(__va(m->start), m->end - m->start, m->name, &r);
    initramfs_stats.archives++;
    initramfs_stats.failed += err != 0;
    initramfs_stats.entries += r.entries;
    initramfs_stats.errors += r.errors;
  }
  for(int i = 0; i < bootinfo.nmodules; i++)
    freed += free_reserved_range(bootinfo.modules[i].start, bootinfo.modules[i].end);
  initramfs_stats.freed_pages = freed;
  if(bootinfo.nmodules)
    pr_info("initramfs: %lu pages of archives freed\n", freed);
}
