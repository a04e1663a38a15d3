// The ramfs a file-system suite runs on: mounted on a directory of the root at setup, taken
// down at teardown. Shared by the dbench, webserve, ramfs and lookup suites.
#include "bench.h"
#include "errno.h"
#include "fs.h"

// mkdir + mount; on failure nothing is left behind.
int
bench_mount(const char *dir, const struct ramfs_opts *o)
{
  int err = vfs_mkdir(dir);
  if(err < 0)
    return err;
  if((err = vfs_mount(dir, o)) < 0)
    vfs_rmdir(dir);
  return err;
}

// Undoes bench_mount, also after a setup cut short: the unmount if it was mounted, then the
// directory, which may already be gone. Returns the first error.
int
bench_umount(const char *dir, bool mounted)
{
  int err = mounted ? vfs_umount(dir) : 0;
  int e = vfs_rmdir(dir);
  if(e && e != -ENOENT && !err)
    err = e;
  return err;
}
