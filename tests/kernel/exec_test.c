// user-exec-bad and user-interp: what execve loads, seen from the kernel: files that are not
// ELF or are cut short refused with ENOEXEC and a console line (nothing kept), and
// tests/user/interp.c's dynamically linked programs and PT_INTERP cases, which the host checks too.
#include "errno.h"
#include "fs.h"
#include "mm.h"
#include "process.h"
#include "selftest.h"
#include "string.h"
#include "testprog.h"
#include "uapi/fcntl.h"

// Copies the file at from to a new executable file at to, its first n bytes only if n is not
// 0, with 8 bytes at offset at replaced by val if at is not 0: true if all went.
static bool
copy_prog(const char *from, const char *to, u64 n, u64 at, u64 val)
{
  static u8 buf[PAGE_SIZE];
  struct file *in, *out;
  if(vfs_open(from, 0, 0, &in))
    return false;
  if(vfs_open_mode(to, O_CREAT | O_TRUNC, 0755, 0, &out)) {
    vfs_close(in);
    return false;
  }
  bool ok = true;
  for(u64 pos = 0; ok && (!n || pos < n); pos += PAGE_SIZE) {
    ssize_t got = vfs_pread(in, buf, n ? MIN(PAGE_SIZE, n - pos) : PAGE_SIZE, pos);
    if(got <= 0)
      break;
    if(at && at >= pos && at + 8 <= pos + got)
      memcpy(buf + (at - pos), &val, 8);
    ok = vfs_pwrite(out, buf, got, pos) == got;
  }
  vfs_close(out);
  vfs_close(in);
  return ok;
}

// Bad images are refused with ENOEXEC and a console line; the kernel goes on. (PT_INTERP's
// cases are tests/user/interp.c's, where the host's Linux checks the same answers.)
static bool
user_exec_bad(void)
{
  static const char junk[] = "this is not an ELF file\n";
  struct testprog prog;
  if(!testprog_load(&prog, "hello", NULL))
    return false;
  vfs_mkdir("/tmp");
  struct file *f;
  bool made = vfs_open_mode("/tmp/exec-junk", O_CREAT | O_TRUNC, 0755, 0, &f) == 0;
  if(made) {
    made = vfs_pwrite(f, junk, sizeof(junk) - 1, 0) == sizeof(junk) - 1;
    vfs_close(f);
  }
  made = made && copy_prog(prog.path, "/tmp/exec-short", 100, 0, 0);
  // hello with a non-canonical entry point: its first IRET would fault in ring 0.
  made = made && copy_prog(prog.path, "/tmp/exec-entry", 0, 24, 0x0000900000000000UL);
  const char *const argv[] = { "/bin/bad", NULL };
  long before = testprog_used_pages();
  int e1 = 0, e2 = 0, e3 = 0;
  struct process *p1 = made ? process_spawn("/tmp/exec-junk", argv, testprog_env, &e1) : NULL;
  struct process *p2 = made ? process_spawn("/tmp/exec-short", argv, testprog_env, &e2) : NULL;
  struct process *p3 = made ? process_spawn("/tmp/exec-entry", argv, testprog_env, &e3) : NULL;
  long leaked = testprog_used_pages() - before;
  vfs_unlink("/tmp/exec-junk");
  vfs_unlink("/tmp/exec-short");
  vfs_unlink("/tmp/exec-entry");
  selftest_extra("made=%d junk=%d short=%d entry=%d leaked-pages=%ld", made, e1, e2, e3,
                 leaked);
  return made && !p1 && !p2 && !p3 && e1 == -ENOEXEC && e2 == -ENOEXEC && e3 == -ENOEXEC &&
         !leaked;
}
SELFTEST_NOINJECT("user-exec-bad", user_exec_bad);

// hello-dyn through ld.so, exit0 named as an interpreter, a #! script naming a dynamic one, and
// eight interpreters that are not (tests/user/interp.c).
static bool
user_interp(void)
{
  const char *const argv[] = { TEST_BIN_DIR "interp", NULL };
  return testprog_run("interp", argv, 0);
}
SELFTEST_NOINJECT("user-interp", user_interp);
