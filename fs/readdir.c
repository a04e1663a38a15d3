// getdents64 (man 2 getdents): a directory's entries as struct linux_dirent64 records, from the
// file's position on (Linux's fs/readdir.c).
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

// A directory's place, as getdents' d_off and lseek give it: 0 before ".", 1 before "..", and
// from 2 on the file's position (vfs_readdir's f_pos: ramfs's d_offset, /proc's fd) plus 1.
// Each is where the listing goes on from, however the directory changed meanwhile.
struct dirent_buf {
  char *ubuf;
  u64 size, used;
  long err;
  struct ufile *uf;   // the directory's: its place after each record, d_off
};

u64
dir_pos(struct ufile *uf)
{
  return uf->dots < 2 ? uf->dots : uf->file->f_pos + 1;
}

void
dir_seek(struct ufile *uf, u64 pos)
{
  uf->dots = pos < 2 ? (u32)pos : 2;
  uf->file->f_pos = pos < 2 ? 0 : pos - 1;
}

// struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name (NUL), 8-byte aligned.
static bool
fill_dirent(void *arg, const char *name, u32 len, unsigned long ino, u32 mode)
{
  struct dirent_buf *b = arg;
  u64 reclen = (19 + len + 1 + 7) & ~7UL;
  if(b->used + reclen > b->size) {
    if(!b->used)
      b->err = -EINVAL;   // getdents64(2): result buffer is too small
    return false;
  }
  char rec[19 + NAME_MAX + 1 + 8];
  memset(rec, 0, reclen);
  // The place after this record: "." and ".." are counted in dots only once given, so +1.
  u64 off = b->uf->dots < 2 ? b->uf->dots + 1 : dir_pos(b->uf);
  u16 rl = reclen;
  memcpy(rec, &ino, 8);
  memcpy(rec + 8, &off, 8);
  memcpy(rec + 16, &rl, 2);
  rec[18] = (mode >> 12) & 017;   // DT_* is S_IFMT >> 12
  memcpy(rec + 19, name, len);
  if(copy_to_user(b->ubuf + b->used, rec, reclen)) {
    b->err = -EFAULT;
    return false;
  }
  b->used += reclen;
  return true;
}

long
sys_getdents64(u64 fd, u64 dirp, u64 count)
{
  struct ufile *uf = fget((int)fd);
  if(!uf)
    return -EBADF;
  struct dirent_buf b = { (char *)dirp, count, 0, 0, uf };
  long r = 0;
  if(!uf->file) {
    r = -ENOTDIR;
    goto out;
  }
  struct kstat k;
  vfs_fstat(uf->file, &k);
  if(!S_ISDIR(k.mode)) {
    r = -ENOTDIR;
    goto out;
  }
  // "." and ".." first: ramfs lists only the names a directory holds.
  while(uf->dots < 2) {
    if(!fill_dirent(&b, "..", uf->dots + 1, k.ino, S_IFDIR))
      goto done;
    uf->dots++;
  }
  r = vfs_readdir(uf->file, fill_dirent, &b);
done:
  if(b.err && !b.used)
    r = b.err;
  else if(r >= 0)
    r = b.used;
out:
  fput(uf);
  return r;
}
