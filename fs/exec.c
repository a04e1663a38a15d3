// execve and execveat: the calling process runs another program (the ELF loader of
// fs/binfmt_elf.c, or a #! script's interpreter) in a fresh address space, keeping its pid, its
// parent and its fds but those marked close-on-exec; its other threads are ended first (Linux:
// fs/exec.c).
#include <asm/cpu.h>
#include "errno.h"
#include "uapi/fcntl.h"
#include "fdtable.h"
#include <asm/fpu.h>
#include "fs.h"
#include "mm.h"
#include "namei.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include "vm.h"

#define MAX_ARG_STRLEN (32 * PAGE_SIZE)   // one argument or variable (Linux's binfmts.h)

// argv and envp copied in from user memory: the strings back to back in one block, and the
// pointer arrays into it, each NULL-terminated.
struct exec_strings {
  char *buf;
  const char **argv, **envp;
  unsigned buf_order, ptr_order;
};

static unsigned
order_for(size_t bytes)
{
  unsigned o = 0;
  while(((size_t)PAGE_SIZE << o) < bytes)
    o++;
  return o;
}

// Counts a user vector's strings and their bytes (with the NULs): E2BIG as Linux's
// copy_strings and bprm_stack_limits answer it, EFAULT for a bad pointer.
static long
count_user(u64 uv, long *n, size_t *bytes)
{
  for(*n = 0; uv; (*n)++) {
    u64 s;
    if(get_user(s, (u64 *)(uv + *n * 8)))
      return -EFAULT;
    if(!s)
      break;
    size_t len = 0;
    for(;;) {   // strnlen_user, a page at a time
      char chunk[256];
      size_t k = MIN(sizeof(chunk), MAX_ARG_STRLEN + 1 - len);
      long got = strncpy_from_user(chunk, (const char *)s + len, k);
      if(got == -EFAULT)
        return -EFAULT;
      if(got >= 0) {
        len += got + 1;
        break;
      }
      len += k;
      if(len > MAX_ARG_STRLEN)
        return -E2BIG;
    }
    if(len > MAX_ARG_STRLEN)
      return -E2BIG;
    *bytes += len;
    if(*bytes + 8 * (*n + 1) > ARG_MAX_BYTES)
      return -E2BIG;
    if(*n % 256 == 255)
      cond_resched();
  }
  return 0;
}

// The strings are copied again after counting: one that grew meanwhile (another thread
// wrote it) no longer fits before end and is EFAULT.
static char *
copy_user_vec(u64 uv, long n, const char **out, char *at, char *end)
{
  for(long i = 0; i < n; i++) {
    u64 s;
    if(get_user(s, (u64 *)(uv + i * 8)))
      return NULL;
    long got = strncpy_from_user(at, (const char *)s, MIN((size_t)(end - at), MAX_ARG_STRLEN));
    if(got < 0)
      return NULL;
    out[i] = at;
    at += got + 1;
  }
  out[n] = NULL;
  return at;
}

static void
free_strings(struct exec_strings *s)
{
  if(s->buf)
    free_pages((unsigned long)s->buf, s->buf_order);
  if(s->argv)
    free_pages((unsigned long)s->argv, s->ptr_order);
}

static long
copy_strings(u64 uargv, u64 uenvp, struct exec_strings *s)
{
  long argc, envc;
  size_t bytes = 0;
  long err = count_user(uargv, &argc, &bytes);
  if(!err)
    err = count_user(uenvp, &envc, &bytes);
  if(err)
    return err;
  if(bytes + 8 * (argc + envc + 2) > ARG_MAX_BYTES)
    return -E2BIG;
  s->buf_order = order_for(MAX(bytes, 1));
  s->ptr_order = order_for((argc + envc + 2) * sizeof(char *));
  s->buf = (char *)__get_free_pages(GFP_KERNEL, s->buf_order);
  s->argv = (const char **)__get_free_pages(GFP_KERNEL, s->ptr_order);
  if(!s->buf || !s->argv)
    return -ENOMEM;
  s->envp = s->argv + argc + 1;
  char *end = s->buf + ((size_t)PAGE_SIZE << s->buf_order);
  char *at = copy_user_vec(uargv, argc, s->argv, s->buf, end);
  if(at)
    at = copy_user_vec(uenvp, envc, s->envp, at, end);
  return at ? 0 : -EFAULT;
}

// The new program's start, past the point of no return: the old program's state the new one
// must not see.
static void
exec_reset(struct process *p, struct thread *t, const char *path, struct trapframe *tf)
{
  const char *base = path;
  for(const char *c = path; *c; c++)
    if(*c == '/')
      base = c + 1;
  spin_lock(&p->lock);
  strlcpy(p->name, base, sizeof(p->name));
  spin_unlock(&p->lock);
  signal_exec(p, t);   // handlers back to the default, ignored signals stay ignored (execve(2))
  t->clear_child_tid = NULL;
  p->set_child_tid = NULL;
  t->fsbase = 0;
  t->gsbase = 0;
  fpu_init_state(t->fpu);
  u64 irq = local_irq_save();
  load_fsbase(0);
  load_user_gsbase(0);
  fpu_restore(t->fpu);   // the old program's registers are live in this CPU
  local_irq_restore(irq);
  *user_regs(t) = *tf;
}

// /proc/<pid>/exe's target (fs/proc_pid.c reads it under p->lock): the program's file by its
// own path, symbolic links resolved, as Linux's d_path of mm->exe_file; the path exec was given
// if that one does not fit.
static void
exe_path_set(struct process *p, const char *path, struct file *f)
{
  char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *start = NULL;
  if(buf && f->f_dentry && d_path(f->f_dentry, buf, PATH_MAX, &start) == 0 &&
     strlen(start) < sizeof(p->path))
    path = start;
  spin_lock(&p->lock);
  strlcpy(p->path, path, sizeof(p->path));
  spin_unlock(&p->lock);
  kfree(buf);
}

// Loads the program f into a fresh mm and makes it the process's. The loader writes the new
// address space through uaccess, so this thread moves onto it first; the old one stays whole
// until the other threads are gone, so a failure before that returns to the old program.
static long
exec_image(struct process *p, const char *path, struct file *f, struct exec_strings *s)
{
  struct thread *t = current;
  struct mm *old = p->mm, *mm = mm_create();
  if(!mm)
    return -ENOMEM;
  mm->user = true;
  char old_path[sizeof(p->path)];
  memcpy(old_path, p->path, sizeof(old_path));
  unsigned long brk_start = p->brk_start, brk = p->brk;
  exe_path_set(p, path, f);
  use_mm(mm);
  struct trapframe *tf = kmalloc(sizeof(*tf), GFP_KERNEL);
  long err = tf ? load_elf(p, f, s->argv, s->envp, tf) : -ENOMEM;
  if(!err && !de_thread(p))
    err = -EINTR;   // the process is ending, or another thread's execve won
  if(err) {
    spin_lock(&p->lock);
    memcpy(p->path, old_path, sizeof(old_path));
    spin_unlock(&p->lock);
    p->brk_start = brk_start;
    p->brk = brk;
    use_mm(old);
    mmput(old);   // use_mm took a second reference of this thread's
    mmput(mm);    // this thread's
    mmput(mm);    // mm_create's
    kfree(tf);
    return err;
  }
  p->mm = mm;     // mm_create's reference is the process's now
  proc_set_cmdline(p, s->argv);
  mmput(old);     // this thread's old one
  mmput(old);     // the process's: a vfork parent may still hold its own
  // Past the point of no return, as Linux's de_thread (unshare_sighand): a CLONE_SIGHAND
  // sharer keeps the table, this process resets a copy of its own (signal_exec).
  if(files_exec(&p->files) < 0 || unshare_sighand(p) < 0) {
    kfree(tf);
    process_kill(p, 9);   // past the point of no return, as Linux's SIGSEGV/SIGKILL
    return -ENOMEM;
  }
  exec_reset(p, t, path, tf);
  kfree(tf);
  vfork_release(p);
  return 0;
}

// Whether path names a regular file with an execute bit: 0, or the errno execve answers.
static long
may_exec(const char *path, unsigned lookup)
{
  struct kstat st;
  long err = vfs_stat(path, lookup, &st);
  if(!err && (lookup & LOOKUP_NOFOLLOW) && S_ISLNK(st.mode))
    return -ELOOP;
  if(!err && (!S_ISREG(st.mode) || !(st.mode & 0111)))
    return -EACCES;
  return err;
}

// As Linux's open_exec: the checks first, then the file, which the loader maps from.
int
open_exec(const char *path, unsigned lookup, struct file **fp)
{
  *fp = NULL;
  int err = (int)may_exec(path, lookup);
  if(!err)
    err = vfs_open(path, 0, lookup, fp);
  // A file this kernel cannot map (a device's or a pseudo file system's, with operations of
  // its own) is no program: Linux's mmap of it would fail the same way.
  if(!err && (*fp)->f_op) {
    vfs_close(*fp);
    *fp = NULL;
    err = -EACCES;
  }
  return err;
}

// A "#!interpreter [argument]" script (Linux's binfmt_script): the interpreter, which must
// be an ELF program, runs with argv interpreter, [argument], the script's path, then the
// script's argv[1], ... The first line is read up to 255 bytes; the argument is the rest of
// it, trimmed, as one word.
static long
exec_script(struct process *p, const char *path, const char *image, size_t len,
            struct exec_strings *s)
{
  char line[256];
  size_t n = 0;
  while(n + 2 < len && n < sizeof(line) - 1 && image[n + 2] != '\n')
    n++;
  memcpy(line, image + 2, n);
  line[n] = 0;
  char *interp = line;
  while(*interp == ' ' || *interp == '\t')
    interp++;
  char *arg = interp;
  while(*arg && *arg != ' ' && *arg != '\t')
    arg++;
  if(*arg)
    *arg++ = 0;
  while(*arg == ' ' || *arg == '\t')
    arg++;
  for(char *e = arg + strlen(arg); e > arg && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r');)
    *--e = 0;
  if(!*interp)
    return -ENOEXEC;
  struct file *f;
  long err = open_exec(interp, 0, &f);
  if(err)
    return err;
  long argc = 0;
  while(s->argv[argc])
    argc++;
  unsigned order = order_for((argc + 4) * sizeof(char *));
  const char **argv = (const char **)__get_free_pages(GFP_KERNEL, order);
  if(!argv) {
    vfs_close(f);
    return -ENOMEM;
  }
  int k = 0;
  argv[k++] = interp;
  if(*arg)
    argv[k++] = arg;
  argv[k++] = path;
  for(long i = 1; i < argc; i++)
    argv[k++] = s->argv[i];
  argv[k] = NULL;
  char magic[2];
  err = vfs_pread(f, magic, sizeof(magic), 0);
  if(err == sizeof(magic) && memcmp(magic, "#!", 2) == 0)
    err = -ENOEXEC;   // one level only
  else if(err >= 0) {
    struct exec_strings s2 = { .argv = argv, .envp = s->envp };
    err = exec_image(p, interp, f, &s2);
  }
  vfs_close(f);
  free_pages((unsigned long)argv, order);
  return err;
}

// Linux's order of checks: the file (ENOENT, ENOTDIR, EACCES for a directory, a
// non-regular file or one without an execute bit), then the strings (E2BIG, EFAULT), then
// its format (ENOEXEC, with a console line naming why).
static long
do_execveat(int dirfd, u64 upath, u64 uargv, u64 uenvp, u64 flags)
{
  if(flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
    return -EINVAL;
  long err;
  char *path = user_path_abs(dirfd, upath, &err);   // the program's path is kept as a string
  if(!path)
    return err;
  struct file *f;
  err = open_exec(path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &f);
  struct exec_strings s = { 0 };
  if(!err)
    err = copy_strings(uargv, uenvp, &s);
  char head[256];   // a script's first line, as Linux's BINPRM_BUF_SIZE
  long n = err ? 0 : vfs_pread(f, head, sizeof(head), 0);
  if(n < 0)
    err = n;
  else if(!err && n >= 2 && memcmp(head, "#!", 2) == 0)
    err = exec_script(current->proc, path, head, n, &s);
  else if(!err)
    err = exec_image(current->proc, path, f, &s);
  if(f)
    vfs_close(f);
  free_strings(&s);
  kfree(path);
  return err;
}

long
sys_execve(u64 path, u64 argv, u64 envp)
{
  return do_execveat(AT_FDCWD, path, argv, envp, 0);
}

long
sys_execveat(u64 dirfd, u64 path, u64 argv, u64 envp, u64 flags)
{
  return do_execveat((int)dirfd, path, argv, envp, flags);
}
