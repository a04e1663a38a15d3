// The console's one line assembler, for fds 0-2 (fs/read_write.c dispatches to it), for
// /dev/console opened by name (drivers/tty/tty.c) and for kernel threads writing to it. Until
// the terminal is in use, output is collected per process and printed a line at a time, so a
// program's lines and the kernel's never split each other, nor two programs' lines.
// fstat says character device 5:1 (/dev/console) and TCGETS succeeds, so glibc line-buffers
// stdout (its stdio asks isatty(3), which is TCGETS).
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "slab.h"
#include "uapi/stat.h"
#include "string.h"
#include "syscalls.h"
#include "tty.h"
#include <asm/uaccess.h>

// Every process's line and line_len, the orphan and the kernel's line. Taken before tty_lock
// and log_lock.
static DEFINE_SPINLOCK(console_lock);
// The unfinished line of writers with no process (kernel threads opening /dev/console).
static char kernel_line[CONSOLE_LINE_MAX];
static int kernel_line_len;
// The unfinished line of a process that exited, as a terminal keeps its cursor there: the next
// process to write carries it on (the shell's `echo` after `printf 'a '` in a child).
static char orphan[CONSOLE_LINE_MAX];
static int orphan_len;

// Under console_lock.
static void
emit_line(char *line, int *len)
{
  printk_line(line, *len);
  *len = 0;
}

// Under console_lock, before the terminal is in use: a line goes out whole when its newline
// comes, or at CONSOLE_LINE_MAX bytes, the rest following as a line of its own.
static void
assemble(char *line, int *len, const char *chunk, u64 k)
{
  for(u64 i = 0; i < k; i++) {
    if(chunk[i] == '\n') {
      emit_line(line, len);
      continue;
    }
    line[(*len)++] = chunk[i];
    if(*len == CONSOLE_LINE_MAX)
      emit_line(line, len);
  }
}

// Under console_lock: the orphan becomes p's line so far; if p has an unfinished line of its
// own the two cannot be one line, and the orphan ends where it is.
static void
adopt_orphan(struct process *p)
{
  if(!orphan_len)
    return;
  if(p->line_len) {
    printk_line(orphan, orphan_len);
  } else {
    memcpy(p->line, orphan, orphan_len);
    p->line_len = orphan_len;
  }
  orphan_len = 0;
}

// Under console_lock, once the terminal is in use: what p (and an exited process before it)
// had not ended with a newline goes to it as it is.
static void
flush_raw(struct process *p)
{
  tty_write((const u8 *)orphan, orphan_len);
  orphan_len = 0;
  tty_write((const u8 *)p->line, p->line_len);
  p->line_len = 0;
}

// At exit (kernel/exit.c), and when a read or poll puts the terminal in use (tty.c). At
// exit an unfinished line becomes the orphan while p has a parent to write after it (an older
// orphan nobody carried on ends first); a process the kernel started ends its tree's output,
// and the line is printed.
void
console_flush(struct process *p)
{
  spin_lock(&tasklist_lock);
  bool has_parent = p->parent != NULL;
  spin_unlock(&tasklist_lock);
  spin_lock(&console_lock);
  if(tty_interactive()) {
    flush_raw(p);
  } else if(p->line_len && has_parent) {
    if(orphan_len)
      printk_line(orphan, orphan_len);
    memcpy(orphan, p->line, p->line_len);
    orphan_len = p->line_len;
    p->line_len = 0;
  } else if(!has_parent) {
    adopt_orphan(p);
    if(p->line_len)
      emit_line(p->line, &p->line_len);
  }
  spin_unlock(&console_lock);
}

// Once the terminal is in use, bytes go to it as written (what was assembled first); before,
// into p's line, or the kernel's when no process writes (p is NULL).
static void
console_put(struct process *p, const char *chunk, u64 k)
{
  spin_lock(&console_lock);
  if(tty_interactive()) {
    if(p) {
      flush_raw(p);
    } else {
      tty_write((const u8 *)kernel_line, kernel_line_len);
      kernel_line_len = 0;
    }
    tty_write((const u8 *)chunk, k);
  } else if(p) {
    adopt_orphan(p);
    assemble(p->line, &p->line_len, chunk, k);
  } else {
    assemble(kernel_line, &kernel_line_len, chunk, k);
  }
  spin_unlock(&console_lock);
  if(p) {
    spin_lock(&p->lock);
    p->bytes_written += k;
    spin_unlock(&p->lock);
  }
}

// write(2) to fds 0-2: from user memory, a chunk at a time.
long
console_write(const char *ubuf, u64 n)
{
  struct process *p = current->proc;
  char chunk[256];
  u64 done = 0;
  while(done < n) {
    u64 k = MIN(n - done, sizeof(chunk));
    if(copy_from_user(chunk, ubuf + done, k))
      return done ? (long)done : -EFAULT;
    console_put(p, chunk, k);
    done += k;
    cond_resched();
  }
  return done;
}

// The same from a kernel buffer: sendfile's bytes, and writes to /dev/console opened by name.
long
console_write_kernel(const char *buf, u64 n)
{
  console_put(current->proc, buf, n);
  return n;
}

// A read puts the terminal in use (in a session): the prompt the program wrote without a
// newline appears at once, then the read waits for what is typed.
long
console_read(char *ubuf, u64 n, bool nonblock)
{
  if(!n)
    return 0;
  if(tty_claim())
    console_flush(current->proc);
  u32 k = MIN(n, (u64)N_TTY_BUF_SIZE);
  u8 *buf = kmalloc(k, GFP_KERNEL);
  if(!buf)
    return -ENOMEM;
  long r = tty_read(buf, k, nonblock);
  if(r > 0 && copy_to_user(ubuf, buf, r))
    r = -EFAULT;
  kfree(buf);
  return r;
}

long
console_ioctl(u64 cmd, u64 arg)
{
  return tty_ioctl((u32)cmd, arg);
}

// x86-64 struct stat (144 bytes, Linux's arch/x86/include/uapi/asm/stat.h): st_mode at 24,
// st_rdev at 40, st_blksize at 56.
long
console_fstat(u64 st)
{
  u64 s[18];
  memset(s, 0, sizeof(s));
  s[0] = 5;                                // st_dev
  s[2] = 1;                                // st_nlink
  s[3] = S_IFCHR | 0620;                   // st_mode (u32), st_uid 0
  s[5] = (5 << 8) | 1;                     // st_rdev: 5:1, not a pty's 136-143
  s[7] = 1024;                             // st_blksize
  return copy_to_user((void *)st, s, sizeof(s)) ? -EFAULT : 0;
}
