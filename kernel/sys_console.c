// The console behind a process's fds 0, 1 and 2 (kernel/sys_file.c dispatches to it).
// Output is collected per process and printed a line at a time, so a program's lines and the
// kernel's never split each other. fstat says character device 5:1 (/dev/console) and TCGETS
// succeeds, so glibc line-buffers stdout (its stdio asks isatty(3), which is TCGETS).
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

#define TCGETS 0x5401
#define TIOCGWINSZ 0x5413
#define S_IFCHR 0020000

// Under p->lock.
static void
emit_line(struct process *p)
{
  p->line[p->line_len] = 0;
  printk("%s\n", p->line);
  p->line_len = 0;
}

void
console_flush(struct process *p)
{
  spin_lock(&p->lock);
  if(p->line_len)
    emit_line(p);
  spin_unlock(&p->lock);
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
    p->bytes_written += k;
    spin_unlock(&p->lock);
    done += k;
    cond_resched();
  }
  return done;
}

long
console_ioctl(u64 cmd, u64 arg)
{
  if(cmd == TCGETS) {
    // struct termios (asm-generic/termbits.h): iflag ICRNL, oflag OPOST|ONLCR, cflag B38400|
    // CS8|CREAD, lflag ISIG|ICANON|ECHO..., then c_line and 19 control characters.
    u8 t[36];
    memset(t, 0, sizeof(t));
    u32 flags[4] = { 0x500, 0x5, 0xbf, 0x8a3b };
    memcpy(t, flags, sizeof(flags));
    return copy_to_user((void *)arg, t, sizeof(t)) ? -EFAULT : 0;
  }
  if(cmd == TIOCGWINSZ) {
    u16 ws[4] = { 24, 80, 0, 0 };
    return copy_to_user((void *)arg, ws, sizeof(ws)) ? -EFAULT : 0;
  }
  return -ENOTTY;
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
