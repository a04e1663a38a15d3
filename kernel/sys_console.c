// The console behind a process's fds 0, 1 and 2 (kernel/sys_file.c dispatches to it; the
// terminal itself is fs/tty.c). Until the terminal is in use, output is collected per process
// and printed a line at a time, so a program's lines and the kernel's never split each other.
// fstat says character device 5:1 (/dev/console) and TCGETS succeeds, so glibc line-buffers
// stdout (its stdio asks isatty(3), which is TCGETS).
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "slab.h"
#include "string.h"
#include "syscalls.h"
#include "tty.h"
#include <asm/uaccess.h>

#define S_IFCHR 0020000

// Under p->lock.
static void
emit_line(struct process *p)
{
  p->line[p->line_len] = 0;
  printk("%s\n", p->line);
  p->line_len = 0;
}

// Once the terminal is in use, what p had not ended with a newline goes to it as it is.
static void
flush_raw(struct process *p)
{
  char held[sizeof(p->line)];
  spin_lock(&p->lock);
  int n = p->line_len;
  memcpy(held, p->line, n);
  p->line_len = 0;
  spin_unlock(&p->lock);
  tty_write((const u8 *)held, n);
}

void
console_flush(struct process *p)
{
  if(tty_interactive()) {
    flush_raw(p);
  } else {
    spin_lock(&p->lock);
    if(p->line_len)
      emit_line(p);
    spin_unlock(&p->lock);
  }
}

long
console_write(const char *ubuf, u64 n)
{
  struct process *p = current->proc;
  char chunk[128];
  u64 done = 0;
  while(done < n) {
    u64 k = MIN(n - done, sizeof(chunk));
    if(copy_from_user(chunk, ubuf + done, k))
      return done ? (long)done : -EFAULT;
    if(tty_interactive()) {
      flush_raw(p);
      tty_write((const u8 *)chunk, k);
    } else {
      spin_lock(&p->lock);
      for(u64 i = 0; i < k; i++) {
        if(chunk[i] == '\n') {
          emit_line(p);
          continue;
        }
        p->line[p->line_len++] = chunk[i];
        if(p->line_len == sizeof(p->line) - 1)   // an over-long line goes out in pieces
          emit_line(p);
      }
      spin_unlock(&p->lock);
    }
    spin_lock(&p->lock);
    p->bytes_written += k;
    spin_unlock(&p->lock);
    done += k;
    cond_resched();
  }
  return done;
}

// A read puts the terminal in use (in a session): the prompt the program wrote without a
// newline appears at once, then the read waits for what is typed.
long
console_read(char *ubuf, u64 n, bool nonblock)
{
  if(!n)
    return 0;
  if(tty_claim())
    flush_raw(current->proc);
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
